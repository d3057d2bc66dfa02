#include "shell/format.hpp"

#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/report/calibration_report.hpp"
#include "core/report/cells.hpp"
#include "core/report/estimate_report.hpp"
#include "core/report/plan_table.hpp"
#include "core/report/report.hpp"
#include "shell/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace rl::shell {

// A report table's text as a CLI table: words left-aligned, numbers right.
Table table_of(const ReportTable &rt) {
  Table t;
  for (const ReportColumn &col : rt.columns) {
    t.head.push_back(col.head);
    t.left.push_back(t.left.empty() || col.text);
  }
  for (const auto &row : rt.rows) {
    std::vector<std::string> cells;
    for (std::size_t k = 0; k < row.cells.size(); ++k) {
      const ReportCell &cell = row.cells[k]; // a marked number (what bounds, a missed SLO): "*"
      const bool star = cell.mark == Mark::warn && k < rt.columns.size() && !rt.columns[k].text;
      cells.push_back(star ? cell.text + "*" : cell.text);
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

void print_section(std::ostream &os, const ReportTable &t) {
  if (t.rows.empty() && t.note.empty())
    return;
  os << "\n" << t.title << "\n";
  if (!t.rows.empty())
    table_of(t).print(os);
  if (!t.note.empty())
    os << "  " << t.note << "\n";
}

void print_estimate(std::ostream &os, const Config &c, const Estimate &e) {
  // The report layer's tables (core/report/estimate_report), the ones the page's Results show.
  const EstimateReport r = estimate_report(c, e);
  os << "ridgeline estimate: " << r.title << "\n  " << r.workload << "\n  layout: " << r.layout
     << "\n";
  print_section(os, r.size);
  print_section(os, r.layer_flops);
  print_section(os, r.memory);
  print_section(os, r.decode_step);
  print_section(os, r.serving);
  print_section(os, r.step_time);
  for (const ReportText &line : r.summary)
    os << "  " << line.text << "\n";
  print_section(os, r.run);
  print_section(os, r.comm);
  if (e.mode == Mode::train)
    print_section(os, r.activations);
  if (e.stages.size() > 1)
    print_section(os, r.stages);
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

void print_validation(std::ostream &os, const std::vector<ValidationRow> &rows,
                      const std::string &title) {
  ReportTable t = runs_table(rows);
  if (!title.empty())
    t.title = title;
  print_section(os, t);
  const ErrorSummary sm = summarize(rows);
  os << "  " << sm.rows << " runs: median |error| "
     << cells::fmt("%.1f%%", 100 * sm.median_abs_error) << ", max "
     << cells::fmt("%.1f%%", 100 * sm.max_abs_error) << ", " << sm.within_band
     << " within their band\n";
}

void print_runs(std::ostream &os, const std::vector<ValidationRow> &rows) {
  print_validation(os, rows);
  print_section(os, run_breakdown_table(rows));
  print_section(os, run_compute_table(rows));
}

void print_calibration(std::ostream &os, const CalibrationResult &r) {
  print_section(os, calibration_table(r));
  // Parameters fitted together (a GEMM's efficiency and k_half, a link's efficiency and
  // latency) share their rows: one table for both.
  const std::vector<ComponentRow> *last = nullptr;
  for (const FittedParameter &p : r.params) {
    const bool same = last && last->size() == p.residuals.size() &&
                      std::equal(last->begin(), last->end(), p.residuals.begin(),
                                 [](const ComponentRow &a, const ComponentRow &b) {
                                   return a.name == b.name && a.predicted == b.predicted;
                                 });
    if (!same)
      print_section(os, residual_table(p));
    last = &p.residuals;
  }
  print_section(os, layer_table(r));
  print_section(os, unfitted_table(r));
  if (!r.runs.empty())
    print_section(os, runs_table(r.runs));
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
    std::string chips;
    for (const auto &c : f.chips)
      chips += (chips.empty() ? "" : ", ") + c;
    t.rows.push_back({f.hardware == chips ? f.hardware : f.hardware + " (" + chips + ")",
                      std::to_string(f.rows), e, mx, rms, loo});
  }
  t.print(os);
}

void print_sweep(std::ostream &os, const DecodeCurve &curve, double workload_batch) {
  // The report layer's table (core/report/estimate_report), the one the page's serving curve
  // shows.
  const ReportTable t = decode_curve_table(curve, workload_batch);
  os << t.title << "\n";
  table_of(t).print(os);
}

void print_plan(std::ostream &os, const Config &c, const PlanResult &r) {
  const bool train = c.workload.mode == Mode::train;
  os << "ridgeline plan: " << c.model.name << " on " << c.cluster.devices << " x "
     << c.hardware.name << " ("
     << (!train                                    ? "inference, ranked by time per output token"
         : r.objective == Objective::tokens        ? "training, ranked by tokens/s"
         : r.objective == Objective::time_to_train ? "training, ranked by time to train"
         : r.objective == Objective::cost          ? "training, ranked by cost"
         : r.objective == Objective::energy        ? "training, ranked by energy"
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
    std::string range = f.contains("min") ? num(f["min"]) + " .. " + num(f["max"]) : "-";
    if (f.contains("choices")) { // one of the names
      range.clear();
      for (const auto &c : f["choices"]) {
        if (!range.empty())
          range += '|';
        range += c.get<std::string>();
      }
    }
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
