#include "shell/format.hpp"

#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/report/plan_table.hpp"
#include "core/report/report.hpp"
#include "shell/table.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <vector>

namespace rl::shell {

void print_estimate(std::ostream &os, const Config &c, const Estimate &e) {
  const Layout &l = e.layout;
  const WorkloadSpec &w = c.workload;
  os << "ridgeline estimate: " << c.model.name << " on " << c.cluster.devices << " x "
     << c.hardware.name << " (" << c.cluster.name << ")\n";
  if (w.mode == Mode::train)
    os << "  train: global batch " << w.global_batch << " x seq " << w.seq_len << " = "
       << units::grouped(static_cast<long long>(e.tokens_per_step)) << " tokens/step, "
       << io::name_of(w.precision) << "\n";
  else
    os << "  infer: batch " << w.batch << ", prompt " << w.prompt_len << ", generate " << w.gen_len
       << ", weights " << io::name_of(w.weight_dtype) << ", KV " << io::name_of(w.kv_dtype) << "\n";
  os << "  layout: dp " << l.dp << " x tp " << l.tp << " x pp " << l.pp << " x cp " << l.cp;
  if (l.cp > 1)
    os << " (" << io::name_of(l.cp_kind)
       << (l.cp_kind == CpKind::usp ? ", ulysses " + std::to_string(l.ulysses) : "") << ")";
  os << ", ep " << l.ep << (l.sp ? ", SP" : "") << ", ZeRO-" << l.zero << ", micro-batch "
     << l.microbatch << " (m = " << l.num_micro << ")";
  if (l.pp > 1)
    os << ", " << io::name_of(l.schedule) << (l.vpp > 1 ? " v=" + std::to_string(l.vpp) : "");
  os << ", recompute " << io::name_of(l.recompute) << (l.flash ? ", FlashAttention" : "") << "\n\n";

  os << "Parameters\n";
  Table pt{{"part", "count", "exact"}, {}};
  auto prow = [&](const std::string &n, double v) {
    pt.rows.push_back({n, units::count(v), units::grouped(static_cast<long long>(v))});
  };
  prow("total", static_cast<double>(e.total_params));
  if (e.active_params != e.total_params)
    prow("active per token", static_cast<double>(e.active_params));
  prow("per dense layer", static_cast<double>(e.params.dense_layer.total()));
  if (e.params.moe_layers > 0)
    prow("per MoE layer", static_cast<double>(e.params.moe_layer.total()));
  prow("embedding", static_cast<double>(e.params.embedding));
  if (e.params.head > 0)
    prow("LM head", static_cast<double>(e.params.head));
  pt.print(os);

  os << "\nFLOPs (matmul, 2mnk)\n";
  Table ft{{"quantity", "value"}, {}};
  if (w.mode == Mode::train) {
    ft.rows.push_back({"model FLOPs / step (3 x fwd)", units::flops(e.model_flops_per_step)});
    ft.rows.push_back(
        {"hardware FLOPs / step (+recompute)", units::flops(e.hardware_flops_per_step)});
    ft.rows.push_back({"model FLOPs / token", units::flops(e.model_flops_per_token)});
  } else {
    ft.rows.push_back({"prefill FLOPs (whole batch)", units::flops(e.model_flops_per_step)});
    ft.rows.push_back({"decode FLOPs / token (2 x active)", units::flops(e.model_flops_per_token)});
  }
  const LayerFlops &lf = e.forward.dense_layer;
  ft.rows.push_back({"one layer fwd: QKV", units::flops(lf.qkv)});
  ft.rows.push_back({"one layer fwd: scores", units::flops(lf.scores)});
  ft.rows.push_back({"one layer fwd: out proj", units::flops(lf.out)});
  ft.rows.push_back({"one layer fwd: MLP", units::flops(lf.mlp)});
  if (e.params.moe_layers > 0)
    ft.rows.push_back({"one MoE layer fwd: experts", units::flops(e.forward.moe_layer.mlp)});
  ft.rows.push_back({"LM head fwd", units::flops(e.forward.head)});
  ft.print(os);

  const MemorySummary &m = e.memory;
  os << "\nMemory per device (worst stage " << m.worst_stage << " of " << l.pp << ")\n";
  Table mt{{"part", "bytes"}, {}};
  mt.rows.push_back({"weights", units::bytes(m.weights)});
  if (w.mode == Mode::train) {
    mt.rows.push_back({"gradients", units::bytes(m.gradients)});
    mt.rows.push_back({"optimizer (fp32 master + m + v)", units::bytes(m.optimizer)});
    mt.rows.push_back({"activations: layers", units::bytes(m.activations_layers)});
    mt.rows.push_back(
        {"activations: embedding/output", units::bytes(m.activations - m.activations_layers)});
  } else {
    mt.rows.push_back({"KV cache", units::bytes(m.kv_cache)});
    mt.rows.push_back({"prefill working set", units::bytes(m.activations)});
  }
  mt.rows.push_back({"total", units::bytes(m.total)});
  mt.rows.push_back({"capacity", units::bytes(m.capacity)});
  mt.print(os);
  {
    char line[96];
    std::snprintf(line, sizeof line, "  %s: %.1f%% of capacity\n", m.fits ? "fits" : "DOES NOT FIT",
                  100.0 * m.total / m.capacity);
    os << line;
  }
  if (w.mode == Mode::infer)
    os << "  largest batch that fits: " << m.max_batch << " sequences of "
       << w.prompt_len + w.gen_len << " tokens (KV " << units::bytes(e.kv_bytes_per_token)
       << "/token)\n";

  if (e.has_serving) {
    const ServingEstimate &sv = e.serving;
    const DecodeStep &d = sv.decode;
    char line[200];
    std::snprintf(line, sizeof line, "\nServing (band +/-%.0f%%; TPOT at the mean context %.0f)\n",
                  100 * e.uncertainty, d.context);
    os << line;
    Table st{{"quantity", "value"}, {}};
    st.rows.push_back({"TTFT (prefill of one prompt)", units::seconds(sv.ttft)});
    st.rows.push_back({"  prefill compute", units::seconds(sv.prefill.compute)});
    st.rows.push_back({"  prefill communication", units::seconds(sv.prefill.comm)});
    st.rows.push_back({"TPOT (decode step)", units::seconds(sv.tpot)});
    st.rows.push_back({"  KV cache reads", units::seconds(d.kv_time)});
    st.rows.push_back({"  weight reads", units::seconds(d.weight_time)});
    st.rows.push_back({"  matmul FLOPs", units::seconds(d.compute_time)});
    if (d.other_time > 0)
      st.rows.push_back({"  element-wise kernels + LM head", units::seconds(d.other_time)});
    st.rows.push_back({"  TP/EP/PP communication", units::seconds(d.comm_time)});
    st.rows.push_back({"request latency (TTFT + gen x TPOT)", units::seconds(sv.request_latency)});
    std::snprintf(line, sizeof line, "%.0f", d.tokens_per_s);
    st.rows.push_back({"decode tokens/s (while decoding)", line});
    std::snprintf(line, sizeof line, "%.1f", d.tokens_per_s_per_chip);
    st.rows.push_back({"decode tokens/s per chip", line});
    st.rows.push_back(
        {"batch prefill (every prompt of the batch)", units::seconds(sv.batch_prefill)});
    st.rows.push_back(
        {"batch time (static: prefill all, then decode)", units::seconds(sv.batch_time)});
    std::snprintf(line, sizeof line, "%.0f (%.1f per chip)", sv.batch_tokens_per_s,
                  sv.batch_tokens_per_s_per_chip);
    st.rows.push_back({"output tokens/s over the batch (prefill included)", line});
    std::snprintf(line, sizeof line, "%.0f (%s now)", sv.critical_batch,
                  d.compute_bound ? "compute-bound" : "bandwidth-bound");
    st.rows.push_back({"critical batch (decode compute-bound above)", line});
    if (sv.moe_critical_batch > 0) {
      std::snprintf(line, sizeof line, "%.0f", sv.moe_critical_batch);
      st.rows.push_back({"MoE critical batch (x E/k)", line});
    }
    st.rows.push_back(
        {"smallest power-of-two slice for this batch", std::to_string(sv.min_devices) + " chips"});
    st.print(os);
    if (sv.disaggregated) {
      std::snprintf(line, sizeof line,
                    "  disaggregated at %.2f req/s: %.2f prefill + %.2f decode instances of %lld "
                    "chips (decode batch %lld; prefill:decode = %.2f)\n",
                    w.request_rate, sv.prefill_instances, sv.decode_instances,
                    static_cast<long long>(sv.devices_per_instance),
                    static_cast<long long>(sv.decode_batch), sv.prefill_to_decode);
      os << line;
    }
  }

  if (e.has_time) {
    const StepTime &t = e.time;
    const Throughput &p = e.throughput;
    char line[224];
    std::snprintf(line, sizeof line,
                  "\nStep time (slowest stage %lld; large-GEMM efficiency %.3f, compute "
                  "overhead %.3f, band +/-%.0f%% from calibration)\n",
                  static_cast<long long>(t.slowest_stage), c.hardware.gemm_efficiency,
                  c.hardware.compute_overhead, 100 * e.uncertainty);
    os << line;
    Table tt{{"part", "time", "share"}, {}};
    auto trow = [&](const char *n, double v) {
      std::snprintf(line, sizeof line, "%.1f%%", 100 * v / t.step);
      tt.rows.push_back({n, units::seconds(v), line});
    };
    trow("compute (incl. recompute)", t.compute);
    if (t.recompute > 0)
      trow("  of which recompute", t.recompute);
    trow("exposed communication", t.comm_exposed);
    trow("pipeline bubble", t.bubble);
    trow("optimizer step", t.optimizer);
    tt.rows.push_back({"step", units::seconds(t.step), "100%"});
    tt.print(os);
    std::snprintf(line, sizeof line,
                  "  step %s (%s .. %s); %.0f tokens/s; MFU %.1f%% (%.1f .. %.1f; causal "
                  "%.1f%%); HFU %.1f%%; %.0f TFLOP/s per device\n",
                  units::seconds(t.step).c_str(),
                  units::seconds(time_band_of(t.step, e.uncertainty).low).c_str(),
                  units::seconds(time_band_of(t.step, e.uncertainty).high).c_str(), p.tokens_per_s,
                  100 * p.mfu, 100 * rate_band_of(p.mfu, e.uncertainty).low,
                  100 * rate_band_of(p.mfu, e.uncertainty).high, 100 * p.mfu_causal, 100 * p.hfu,
                  p.tflops_per_device / 1e12);
    os << line;
    if (!t.comm.empty()) {
      os << "\nCommunication per step, per device\n";
      Table ct{{"kind", "collective", "group", "bytes", "time", "exposed"}, {}};
      for (const auto &cc : t.comm)
        ct.rows.push_back({cc.kind, cc.collective, std::to_string(cc.group),
                           units::bytes(cc.bytes_per_device), units::seconds(cc.time),
                           units::seconds(cc.exposed)});
      ct.print(os);
    }
  }

  if (w.mode == Mode::train) {
    os << "\nActivations of one layer, one micro-batch, one device (stored before recompute)\n";
    const LayerActivations &a = e.act_terms;
    Table at{{"term", "bytes"}, {}};
    auto arow = [&](const char *n, double v) {
      if (v > 0)
        at.rows.push_back({n, units::bytes(v)});
    };
    arow("norm inputs", a.norm_inputs);
    arow("QKV input", a.qkv_input);
    arow("Q, K", a.qk);
    arow("V", a.v);
    arow("out-proj input", a.out_input);
    arow("attention dropout mask", a.attn_dropout);
    arow("softmax output", a.softmax);
    arow("softmax dropout", a.softmax_dropout);
    arow("flash softmax stats", a.flash_stats);
    arow("MLA latents", a.mla_latent);
    arow("MLP input", a.mlp_input);
    arow("MLP hidden", a.mlp_hidden);
    arow("MLP dropout mask", a.mlp_dropout);
    arow("router logits", a.router);
    at.rows.push_back({"total", units::bytes(a.total())});
    at.print(os);
  }

  if (e.stages.size() > 1) {
    os << "\nPipeline stages (per device)\n";
    Table st{{"stage", "layers", "params", "weights", "grads", "optimizer", "activations",
              "in flight", "total"},
             {}};
    for (const auto &s : e.stages) {
      char inflight[32];
      std::snprintf(inflight, sizeof inflight, "%.1f", s.activations.layers_in_flight);
      st.rows.push_back({std::to_string(s.stage), std::to_string(s.layers), units::count(s.params),
                         units::bytes(s.states.weights), units::bytes(s.states.gradients),
                         units::bytes(s.states.optimizer),
                         units::bytes(s.activations.total() + s.kv_cache), inflight,
                         units::bytes(s.total())});
    }
    st.print(os);
  }
}

void print_collective(std::ostream &os, const ClusterSpec &c, double bytes, const Group &g,
                      const CollectiveTime &t) {
  os << name_of_collective(t.op) << " of " << units::bytes(bytes) << " over " << g.n
     << " devices (stride " << g.stride << ") of " << c.name << " (" << io::name_of(c.topology)
     << ", " << group_devices_per_node(c, g) << " per node)\n";
  Table tt{{"algorithm", "steps", "bytes/device", "time", "bus bandwidth"}, {}};
  char bw[64];
  std::snprintf(bw, sizeof bw, "%.1f GB/s", t.time > 0 ? t.bytes_per_device / t.time / 1e9 : 0.0);
  tt.rows.push_back({t.algorithm, std::to_string(t.steps), units::bytes(t.bytes_per_device),
                     units::seconds(t.time), bw});
  tt.print(os);
}

void print_validation(std::ostream &os, const std::vector<ValidationRow> &rows) {
  Table t{{"run", "hardware", "metric", "measured", "predicted", "error", "band", ""}, {}};
  char m[32], p[32], e[32], b[32];
  for (const auto &r : rows) {
    const bool pct = r.metric == Metric::mfu || r.metric == Metric::hfu;
    const bool flops =
        r.metric == Metric::tflops_per_device || r.metric == Metric::hardware_tflops_per_device;
    const double scale = pct ? 100 : (flops ? 1e-12 : 1);
    const char *fmt = pct ? "%.1f%%" : "%.1f";
    std::snprintf(m, sizeof m, fmt, r.measured * scale);
    std::snprintf(p, sizeof p, fmt, r.predicted * scale);
    std::snprintf(e, sizeof e, "%+.1f%%", 100 * r.error);
    std::snprintf(b, sizeof b, "+/-%.0f%%", 100 * r.band);
    t.rows.push_back({r.name, r.hardware, name_of_metric(r.metric), m, p, e, b,
                      std::fabs(r.error) <= r.band ? "ok" : "OUTSIDE"});
  }
  t.print(os);
  const ErrorSummary sm = summarize(rows);
  std::snprintf(m, sizeof m, "%.1f%%", 100 * sm.median_abs_error);
  std::snprintf(p, sizeof p, "%.1f%%", 100 * sm.max_abs_error);
  os << "  (tflops columns in TFLOP/s, step time in s) " << sm.rows << " runs: median |error| " << m
     << ", max " << p << ", " << sm.within_band << " within their band\n";
}

void print_components(std::ostream &os, const std::vector<ComponentRow> &rows) {
  Table t{{"component", "kind", "measured", "predicted", "error", ""}, {}};
  char m[32], p[32], e[32];
  for (const auto &r : rows) {
    const double scale = r.unit == "TFLOP/s" ? 1e-12 : 1e-9;
    std::snprintf(m, sizeof m, "%.1f %s", r.measured * scale, r.unit.c_str());
    std::snprintf(p, sizeof p, "%.1f %s", r.predicted * scale, r.unit.c_str());
    std::snprintf(e, sizeof e, "%+.1f%%", 100 * r.error);
    t.rows.push_back({r.name, name_of_component(r.kind), m, p, e, r.fitted ? "fitted" : "check"});
  }
  t.print(os);
}

void print_fit(std::ostream &os, const std::vector<FitResult> &fits) {
  os << "\nFitted compute overhead per chip (least squares on log(predicted/measured))\n";
  Table t{{"hardware", "rows", "compute_overhead", "max |error|", "rms error",
           "leave-one-out max |error|"},
          {}};
  char e[32], mx[32], rms[32], loo[32];
  for (const auto &f : fits) {
    std::snprintf(e, sizeof e, "%.3f", f.overhead);
    std::snprintf(mx, sizeof mx, "%.1f%%", 100 * f.max_abs_error);
    std::snprintf(rms, sizeof rms, "%.1f%%", 100 * f.rms_error);
    std::snprintf(loo, sizeof loo, "%.1f%%", 100 * f.loo_max_error);
    t.rows.push_back({f.hardware, std::to_string(f.rows), e, mx, rms, loo});
  }
  t.print(os);
}

void print_sweep(std::ostream &os, const DecodeCurve &curve) {
  os << "Decode latency-throughput curve (critical batch "
     << static_cast<long long>(curve.critical_batch + 0.5) << "): TPOT at the mean context "
     << static_cast<long long>(curve.context) << " (prompt + gen/2), memory at the final "
     << static_cast<long long>(curve.memory_context) << "\n";
  Table t{{"batch", "memory/chip", "fits", "KV", "weights", "FLOPs", "comm", "TPOT", "tokens/s",
           "tokens/s/chip", "bound"},
          {}};
  char a[32], b[32];
  for (const auto &d : curve.rows) {
    std::snprintf(a, sizeof a, "%.1f", d.tokens_per_s);
    std::snprintf(b, sizeof b, "%.2f", d.tokens_per_s_per_chip);
    t.rows.push_back({std::to_string(static_cast<long long>(d.batch)),
                      units::bytes(d.memory_per_device), d.fits ? "yes" : "no",
                      units::seconds(d.kv_time), units::seconds(d.weight_time),
                      units::seconds(d.compute_time), units::seconds(d.comm_time),
                      units::seconds(d.step), a, b, d.compute_bound ? "compute" : "memory"});
  }
  t.print(os);
}

namespace {
// A report table's text as a CLI table.
Table table_of(const PlanTable &pt) {
  Table t;
  for (const PlanColumn &col : pt.columns)
    t.head.push_back(col.head);
  for (const auto &row : pt.rows) {
    std::vector<std::string> cells;
    for (const PlanCell &cell : row)
      cells.push_back(cell.text);
    t.rows.push_back(std::move(cells));
  }
  return t;
}
} // namespace

void print_plan(std::ostream &os, const Config &c, const PlanResult &r) {
  const bool train = c.workload.mode == Mode::train;
  os << "ridgeline plan: " << c.model.name << " on " << c.cluster.devices << " x "
     << c.hardware.name << " ("
     << (!train                                    ? "inference, ranked by time per output token"
         : r.objective == Objective::tokens        ? "training, ranked by tokens/s"
         : r.objective == Objective::time_to_train ? "training, ranked by time to train"
         : r.objective == Objective::cost          ? "training, ranked by cost"
                                                   : "training, ranked by step time")
     << ")\n  free knobs:";
  for (const auto &k : r.free_knobs)
    os << " " << k;
  os << "\n  " << r.candidates << " layouts enumerated, " << r.timed << " timed; rejected:";
  for (const auto &[k, n] : r.rejected)
    os << " " << k << " " << n;
  os << "\n\n";
  if (r.plans.empty()) {
    os << "  no layout fits; closest:\n";
  } else {
    // The report layer's table (core/report/plan_table), as the page's Planner tab shows it.
    const Table t = table_of(plan_table(c, r));
    t.print(os);
  }
  if (r.pareto.size() > 1) {
    os << "\nTime/memory Pareto front (" << r.pareto.size()
       << " layouts, none both faster and smaller; each shown needs 5% less memory than the "
          "one above; all in --json):\n";
    double shown = -1;
    for (const auto &p : r.pareto) {
      if (shown >= 0 && p.memory > 0.95 * shown)
        continue;
      shown = p.memory;
      os << "  " << (train ? units::seconds(p.step) : units::seconds(p.objective)) << "  "
         << units::bytes(p.memory) << "  " << p.layout << "\n";
    }
  }
  if (!r.infeasible.empty()) {
    os << "\nClosest layouts that do not fit:\n";
    for (const auto &i : r.infeasible)
      os << "  " << i.message << "\n";
  }
}

void print_joint_plan(std::ostream &os, const Config &c, const JointPlanResult &r) {
  const WorkloadSpec &w = c.workload;
  os << "ridgeline plan: what to run " << c.model.name << " on (" << r.choices.size()
     << " hardware and device choices, each with its fastest layout";
  if (w.train_tokens > 0)
    os << "; " << units::count(w.train_tokens) << " tokens";
  if (r.deadline > 0)
    os << " within " << format_value(r.deadline, Unit::duration);
  os << ")\n\n";
  // The report layer's table (core/report/plan_table), as the page's planner shows it.
  const Table t = table_of(choice_table(c, r));
  t.print(os);
  auto name = [&](i64 i) {
    const ChoicePlan &x = r.choices[static_cast<std::size_t>(i)];
    std::string n = std::to_string(x.devices);
    n += " x ";
    n += x.hardware;
    n += " (#";
    n += std::to_string(i + 1);
    n += ')';
    return n;
  };
  const char *within = r.deadline > 0 ? " meeting the deadline" : "";
  os << "\nfastest" << within << ": " << (r.fastest >= 0 ? name(r.fastest) : "none") << "\n";
  os << "cheapest" << within << ": "
     << (r.cheapest >= 0 ? name(r.cheapest) : "none (a price per device-hour is needed)") << "\n";
  if (r.front.size() > 1) {
    os << "time/cost Pareto front:";
    for (const i64 i : r.front)
      os << " #" << i + 1;
    os << "\n";
  }
}

void print_presets(std::ostream &os, const nlohmann::json &names) {
  for (auto it = names.begin(); it != names.end(); ++it) {
    os << it.key() << ":\n ";
    for (const auto &n : it.value())
      os << " " << n.get<std::string>();
    os << "\n";
  }
}

void print_fields(std::ostream &os, const nlohmann::json &fields) {
  Table t{{"field", "type", "range", "unit", "default", "modes", "meaning"}};
  t.left = {true, true, false, true, false, true, true};
  auto num = [](const nlohmann::json &v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.15g", v.get<double>());
    return std::string(b);
  };
  for (const auto &f : fields) {
    const std::string range =
        f.contains("min") ? num(f["min"]) + " .. " + num(f["max"]) : std::string("-");
    const auto &d = f["default"];
    const std::string dflt = d.is_string()    ? d.get<std::string>()
                             : d.is_boolean() ? (d.get<bool>() ? "true" : "false")
                                              : num(d);
    std::string modes; // "all", or the workload modes it applies to
    if (f["modes"].size() < 5)
      for (const auto &m : f["modes"]) {
        if (!modes.empty())
          modes += ' ';
        modes += m.get<std::string>();
      }
    t.rows.push_back({f["path"].get<std::string>(), f["type"].get<std::string>(), range,
                      f["unit"].get<std::string>(), dflt, modes.empty() ? "all" : modes,
                      f["help"].get<std::string>()});
  }
  t.print(os);
}

void print_sp_comparison(std::ostream &os, const Config &c, const SpComparison &cmp) {
  os << "DSP paper (Zhao et al. 2024) comparison of parallelisms in training: " << c.model.name
     << ", N = " << cmp.degree << ", micro-batch " << cmp.b << ", seq " << cmp.s
     << " (USP: ulysses " << cmp.ulysses << " x ring " << cmp.ring << ")\n";
  os << "  P = " << units::count(cmp.params)
     << " transformer-layer parameters; bytes per device; activation columns per layer, "
        "fwd+bwd\n\n";
  Table t{{"scheme", "split", "param comm", "bytes/step", "activation comm", "bytes/layer", "P+G",
           "optimizer", "act/layer"},
          {}};
  for (const auto &r : cmp.rows)
    t.rows.push_back({r.name, r.split, r.param_comm, units::bytes(r.param_bytes), r.act_comm,
                      units::bytes(r.act_bytes), units::bytes(r.pg_bytes), units::bytes(r.os_bytes),
                      units::bytes(r.act_mem)});
  t.print(os);
}

} // namespace rl::shell
