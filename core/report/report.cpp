#include "core/report/report.hpp"

#include "core/estimate/step_band.hpp"
#include "core/io/units.hpp"
#include "core/schema/choices.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

namespace {
struct Rows {
  std::vector<ReportRow> out;
  std::string section;
  void add(const char *label, double v, Unit u, Better b = Better::neither) {
    out.push_back({section, label, v, u, b});
  }
};
} // namespace

std::vector<ReportRow> report_rows(const Estimate &e) {
  Rows r;
  r.section = "model";
  r.add("parameters", static_cast<double>(e.total_params), Unit::count);
  r.add("active parameters", static_cast<double>(e.active_params), Unit::count);
  r.section = "layout";
  const Layout &l = e.layout;
  r.add("devices", static_cast<double>(l.devices()), Unit::plain);
  r.add("dp", static_cast<double>(l.dp), Unit::plain);
  r.add("tp", static_cast<double>(l.tp), Unit::plain);
  r.add("pp", static_cast<double>(l.pp), Unit::plain);
  r.add("cp", static_cast<double>(l.cp), Unit::plain);
  r.add("ep", static_cast<double>(l.ep), Unit::plain);
  if (e.mode == Mode::train) {
    r.add("vpp", static_cast<double>(l.vpp), Unit::plain);
    r.add("ZeRO stage", static_cast<double>(l.zero), Unit::plain);
    r.add("micro-batch", static_cast<double>(l.microbatch), Unit::plain);
  }
  r.section = "memory per device (worst stage)";
  const MemorySummary &m = e.memory;
  r.add("total", m.total, Unit::bytes, Better::lower);
  r.add("weights", m.weights, Unit::bytes, Better::lower);
  if (e.mode == Mode::train) {
    r.add("gradients", m.gradients, Unit::bytes, Better::lower);
    r.add("optimizer states", m.optimizer, Unit::bytes, Better::lower);
  }
  r.add("activations", m.activations, Unit::bytes, Better::lower);
  if (e.mode != Mode::train)
    r.add("KV cache", m.kv_cache, Unit::bytes, Better::lower);
  r.add("HBM capacity", m.capacity, Unit::bytes);
  r.add("share of HBM", m.capacity > 0 ? m.total / m.capacity : 0, Unit::percent, Better::lower);
  if (e.mode == Mode::train && e.has_time) {
    const StepTime &t = e.time;
    r.section = "step time";
    r.add("step", t.step, Unit::seconds, Better::lower);
    r.add("compute", t.compute, Unit::seconds, Better::lower);
    r.add("of which recompute", t.recompute, Unit::seconds, Better::lower);
    r.add("exposed communication", t.comm_exposed, Unit::seconds, Better::lower);
    r.add("waiting for the host", t.host, Unit::seconds, Better::lower);
    r.add("pipeline bubble", t.bubble, Unit::seconds, Better::lower);
    r.add("optimizer", t.optimizer, Unit::seconds, Better::lower);
    r.section = "throughput";
    r.add("tokens per step", e.tokens_per_step, Unit::count);
    r.add("tokens/s", e.throughput.tokens_per_s, Unit::per_second, Better::higher);
    r.add("MFU", e.throughput.mfu, Unit::percent, Better::higher);
    r.add("HFU", e.throughput.hfu, Unit::percent, Better::higher);
    r.add("model FLOP/s per device", e.throughput.tflops_per_device, Unit::flop_rate,
          Better::higher);
    if (e.throughput.mfu > 0) // the precision's peak: what MFU is a share of
      r.add(kPeakLabel, e.time.peak, Unit::flop_rate);
    r.add("model FLOPs per step", e.model_flops_per_step, Unit::flops);
    if (e.train_steps > 0) {
      const Resilience &k = e.resilience;
      r.section = "time and cost to train";
      r.add("steps", e.train_steps, Unit::plain);
      r.add("time to train", e.time_to_train, Unit::duration, Better::lower);
      r.add("goodput", k.goodput, Unit::percent, Better::higher);
      r.add("expected interruptions", k.interruptions, Unit::plain, Better::lower);
      if (k.interval_s > 0)
        r.add("checkpoint every", k.interval_s, Unit::duration);
      r.add("checkpoint size", k.checkpoint_bytes, Unit::bytes, Better::lower);
      r.add("checkpoint stall", k.blocking_s, Unit::seconds, Better::lower);
    }
    if (e.cost_per_hour > 0) {
      r.section = "time and cost to train";
      r.add("$ per hour", e.cost_per_hour, Unit::dollars, Better::lower);
      if (e.cost_to_train > 0)
        r.add("cost to train", e.cost_to_train, Unit::dollars, Better::lower);
    }
    if (e.energy.known) {
      const TrainEnergy &en = e.energy;
      r.section = "energy";
      r.add("W per GPU (with its host share)", en.device_w + en.host_w, Unit::plain);
      if (en.clock < 1)
        r.add("clock under the power cap", en.clock, Unit::percent);
      r.add("facility kW", en.facility_w / 1e3, Unit::plain, Better::lower);
      r.add("J per token", en.joules_per_token, Unit::plain, Better::lower);
      r.add("kWh per step", en.kwh_per_step, Unit::plain, Better::lower);
      if (en.mwh_to_train > 0) {
        r.add("MWh to train", en.mwh_to_train, Unit::plain, Better::lower);
        r.add("electricity to train", en.cost_to_train, Unit::dollars, Better::lower);
      }
    }
  }
  if (e.mode == Mode::infer && e.has_serving) {
    const ServingEstimate &s = e.serving;
    r.section = "latency and throughput";
    r.add("TTFT", s.ttft, Unit::seconds, Better::lower);
    r.add("TPOT (mean context)", s.tpot, Unit::seconds, Better::lower);
    r.add("request latency", s.request_latency, Unit::seconds, Better::lower);
    r.add("batch wall time", s.batch_time, Unit::seconds, Better::lower);
    r.add("batch tokens/s", s.batch_tokens_per_s, Unit::per_second, Better::higher);
    r.add("tokens/s per chip", s.batch_tokens_per_s_per_chip, Unit::per_second, Better::higher);
    r.add("critical batch", s.critical_batch, Unit::plain);
    r.add("largest batch that fits", static_cast<double>(s.max_batch), Unit::plain, Better::higher);
  }
  return r.out;
}

std::vector<ReportRow> report_rows(const ServeResult &s) {
  Rows r;
  r.section = "deployment";
  r.add("devices", static_cast<double>(s.devices), Unit::plain);
  r.add("instances", static_cast<double>(s.instances), Unit::plain);
  r.add("devices per instance", static_cast<double>(s.devices_per_instance), Unit::plain);
  r.section = "latency";
  const auto pct = [&](const char *name, const Percentiles &p) {
    const std::string n = name;
    r.out.push_back({r.section, n + " mean", p.mean, Unit::seconds, Better::lower});
    r.out.push_back({r.section, n + " p50", p.p50, Unit::seconds, Better::lower});
    r.out.push_back({r.section, n + " p90", p.p90, Unit::seconds, Better::lower});
    r.out.push_back({r.section, n + " p99", p.p99, Unit::seconds, Better::lower});
  };
  pct("TTFT", s.ttft);
  pct("TPOT", s.tpot);
  pct("end to end", s.e2e);
  r.section = "throughput";
  r.add("output tokens/s", s.output_tokens_per_s, Unit::per_second, Better::higher);
  r.add("requests/s", s.requests_per_s, Unit::per_second, Better::higher);
  r.add("goodput (requests/s)", s.goodput, Unit::per_second, Better::higher);
  r.add("SLO attainment", s.attainment, Unit::percent, Better::higher);
  r.add("mean batch", s.mean_batch, Unit::plain);
  r.add("preemptions", static_cast<double>(s.preemptions), Unit::count, Better::lower);
  r.section = "memory per device";
  r.add("weights", s.memory.weights, Unit::bytes, Better::lower);
  r.add("KV cache", s.memory.kv_cache, Unit::bytes, Better::higher);
  r.add("KV tokens per instance", s.memory.kv_tokens, Unit::count, Better::higher);
  if (s.cost_per_hour > 0) {
    r.section = "cost";
    r.add("$ per hour", s.cost_per_hour, Unit::dollars, Better::lower);
    r.add("$ per million output tokens", s.cost_per_million_tokens, Unit::dollars, Better::lower);
  }
  if (s.facility_w > 0) {
    r.section = "energy";
    r.add("facility kW", s.facility_w / 1e3, Unit::plain, Better::lower);
    r.add("J per output token", s.joules_per_output_token, Unit::plain, Better::lower);
    r.add("electricity $ per million output tokens", s.energy_cost_per_million_tokens,
          Unit::dollars, Better::lower);
  }
  return r.out;
}

std::vector<ReportRow> report_rows(const tx8::Tx8Result &t) {
  Rows r;
  r.section = "tx8";
  r.add("dies", static_cast<double>(t.dies), Unit::plain);
  r.add("latency", t.latency, Unit::seconds, Better::lower);
  if (t.video) {
    r.add("per sampling step", t.per_step, Unit::seconds, Better::lower);
    r.add("compute per step", t.compute_per_step, Unit::seconds, Better::lower);
    r.add("exposed communication per step", t.comm_exposed_per_step, Unit::seconds, Better::lower);
    r.add("die-to-die bytes per die per step", t.comm_bytes_per_die_per_step, Unit::bytes,
          Better::lower);
    r.add("FLOPs per step", t.flops_per_step, Unit::flops);
    r.add("utilization", t.utilization, Unit::percent, Better::higher);
  }
  return r.out;
}

std::string format_value(double v, Unit u) {
  if (!std::isfinite(v))
    return "-";
  switch (u) {
  case Unit::seconds:
    return units::seconds(v);
  case Unit::bytes:
    return units::bytes(v);
  case Unit::flops:
    return units::flops(v);
  case Unit::flop_rate:
    return units::flop_rate(v);
  case Unit::percent:
    return units::percent(v);
  case Unit::count:
    return units::count(v);
  case Unit::per_second:
    return units::count(v) + "/s";
  case Unit::dollars:
    if (v >= 1e4) {
      std::string out = "$";
      out += units::count(v);
      return out;
    }
    return units::format("$%.2f", v);
  case Unit::duration:
    if (v >= 2 * 86400)
      return units::format("%.1f days", v / 86400);
    if (v >= 2 * 3600)
      return units::format("%.1f h", v / 3600);
    if (v >= 120)
      return units::format("%.1f min", v / 60);
    return units::seconds(v);
  case Unit::plain:
    break;
  }
  return units::format(v == std::floor(v) && std::fabs(v) < 1e15 ? "%.0f" : "%.2f", v);
}

double CompareRow::relative() const {
  if (!has_before || !has_after || before == 0)
    return 0;
  return after / before - 1;
}

int CompareRow::verdict() const {
  const double d = relative();
  if (better == Better::neither || std::fabs(d) < 1e-9)
    return 0;
  return (d < 0) == (better == Better::lower) ? 1 : -1;
}

std::vector<CompareRow> compare_rows(const std::vector<ReportRow> &before,
                                     const std::vector<ReportRow> &after) {
  std::vector<CompareRow> out;
  const auto find = [](std::vector<CompareRow> &rows, const ReportRow &x) -> CompareRow & {
    for (auto &r : rows)
      if (r.section == x.section && r.label == x.label)
        return r;
    rows.push_back({x.section, x.label, 0, 0, x.unit, x.better, false, false});
    return rows.back();
  };
  for (const auto &x : after) {
    CompareRow &r = find(out, x);
    r.after = x.value;
    r.has_after = true;
  }
  for (const auto &x : before) {
    CompareRow &r = find(out, x);
    r.before = x.value;
    r.has_before = true;
  }
  // MFU and HFU are shares of each side's own peak (bf16, fp8, fp4): across precisions their
  // points are not a speed-up, and the rows say so.
  const auto peak = std::find_if(out.begin(), out.end(),
                                 [](const CompareRow &r) { return r.label == kPeakLabel; });
  if (peak != out.end() && peak->has_before && peak->has_after && peak->before != peak->after)
    for (CompareRow &r : out)
      if (r.label == "MFU" || r.label == "HFU")
        r.label += " (of different peaks)";
  return out;
}

std::string change_text(const CompareRow &r) {
  if (!r.has_before || !r.has_after)
    return r.has_after ? "new" : "gone";
  if (r.before == r.after)
    return "=";
  if (r.unit == Unit::percent) { // points: 100 x (after - before); 2 decimals under 0.05
    const double pts = 100 * (r.after - r.before);
    return units::format(std::fabs(pts) < 0.05 ? "%+.2f pts" : "%+.1f pts", pts);
  }
  if (r.before == 0)
    return std::string(1, '+').append(format_value(r.after, r.unit));
  return units::format("%+.1f%%", 100 * r.relative());
}

std::string pp_label(const Layout &l, i64 layers) {
  std::string out = std::to_string(l.pp);
  if (l.first_layers > 0 || l.last_layers > 0) {
    const i64 set = (l.first_layers > 0 ? 1 : 0) + (l.last_layers > 0 ? 1 : 0);
    const i64 middle = l.pp - set;
    const i64 share = middle > 0 ? (layers - l.first_layers - l.last_layers) / middle : 0;
    const i64 first = l.first_layers > 0 ? l.first_layers : share;
    const i64 last = l.last_layers > 0 ? l.last_layers : share;
    out += ": ";
    out += std::to_string(first);
    if (l.pp > 2) {
      out += '|';
      out += std::to_string(share);
    }
    out += '|';
    out += std::to_string(last);
  } else if (l.uneven_pp &&
             layers % (l.schedule == PpSchedule::dualpipev ? 2 * l.pp : l.pp * l.vpp) != 0) {
    out += " uneven";
  }
  if (is_dualpipe(l.schedule)) {
    out += ' ';
    out += schema::choice_name(l.schedule);
  }
  return out;
}

std::string order_label(const Layout &l) {
  if (l.order == std::vector<std::string>{"tp", "cp", "dp", "pp"})
    return "";
  std::string o;
  for (const auto &a : l.order) {
    if (!o.empty())
      o += '-';
    o += a;
  }
  return o;
}

std::string step_verdict(const Config &ca, const Estimate &a, const Config &cb, const Estimate &b) {
  if (!a.has_time || !b.has_time || a.mode != Mode::train || b.mode != Mode::train)
    return "";
  const StepDifference d = // > 0: B faster
      step_difference(b.time, a.time, wider(component_bands(ca), component_bands(cb)));
  if (d.delta == 0)
    return "A and B take the same time per step.";
  const double rel = std::fabs(d.delta) / a.time.step;
  return "B is " + units::seconds(std::fabs(d.delta)) + " (" + units::format("%.1f%%", 100 * rel) +
         ") " + (d.delta > 0 ? "faster" : "slower") +
         " per step than A: " + units::seconds(std::fabs(d.deciding_delta)) +
         (d.delta > 0 ? " less " : " more ") + d.deciding + ", " +
         (d.beyond_band() ? "beyond" : "within") + " the band (+/-" + units::seconds(d.band) + ")" +
         (d.beyond_band() ? "." : ": not a difference the model can vouch for.");
}

} // namespace rl
