#include "core/report/calibration_report.hpp"

#include "core/report/cells.hpp"

#include <cmath>

namespace rl {

using cells::fmt;
using cells::words;

namespace {
ReportColumn col(const char *key, const char *head, Unit u = Unit::plain, bool text = false) {
  ReportColumn c;
  c.key = key;
  c.head = head;
  c.unit = u;
  c.text = text;
  return c;
}
ReportCell pct(double v, const char *f = "%+.1f%%") {
  return {fmt(f, 100 * v), v};
}
// A parameter's value as its unit reads best: seconds in us, fractions plain.
ReportCell param_value(const FittedParameter &p, double v) {
  if (p.unit == "s")
    return {fmt("%.2f us", v * 1e6), v};
  return {fmt("%.4g", v), v};
}
// A component's rate in its unit (TFLOP/s or GB/s); a run's metric as it is.
ReportCell rate(const ComponentRow &r, double v) {
  if (r.unit == "TFLOP/s")
    return {fmt("%.4g TFLOP/s", v * 1e-12), v};
  if (r.unit == "GB/s")
    return {fmt("%.4g GB/s", v * 1e-9), v};
  if (r.unit == "step_time" || r.unit == "s")
    return {format_value(v, Unit::seconds), v};
  return {fmt("%.4g", v), v};
}
} // namespace

ReportTable calibration_table(const CalibrationResult &r) {
  ReportTable t;
  t.key = "calibration";
  t.title = "Fitted parameters";
  t.help = "Each parameter minimises the summed squared log(predicted / measured) over the rows "
           "it informs, predicted by the same functions as the step time (docs/calibration.md). "
           "Band: the largest residual (at least 2%).";
  t.columns = {col("path", "parameter", Unit::plain, true),
               col("label", "what", Unit::plain, true),
               col("before", "before"),
               col("value", "fitted"),
               col("count", "rows", Unit::count),
               col("rms", "rms error"),
               col("max", "max |error|"),
               col("band", "band")};
  for (const FittedParameter &p : r.params) {
    ReportLine l;
    l.key = p.path;
    l.help = p.label;
    l.cells = {words(p.path),
               words(p.label),
               param_value(p, p.before),
               param_value(p, p.value),
               {cells::str(p.count), cells::d(p.count)},
               pct(p.rms_error, "%.1f%%"),
               pct(p.max_abs_error, "%.1f%%"),
               pct(p.band, "+/-%.0f%%")};
    t.rows.push_back(l);
  }
  std::string note;
  for (const std::string &n : r.notes)
    note += (note.empty() ? "" : "; ") + n;
  t.note = note;
  return t;
}

namespace {
ReportTable component_rows(const std::vector<ComponentRow> &rows, double band, std::string key,
                           std::string title) {
  ReportTable t;
  t.key = std::move(key);
  t.title = std::move(title);
  t.columns = {col("name", "row", Unit::plain, true), col("measured", "measured"),
               col("predicted", "predicted"), col("error", "error")};
  for (const ComponentRow &c : rows) {
    ReportLine l;
    l.key = c.name;
    l.help = c.source;
    l.cells = {words(c.name), rate(c, c.measured), rate(c, c.predicted), pct(c.error)};
    if (band > 0 && std::fabs(c.error) > band)
      l.cells[3].mark = Mark::warn;
    t.rows.push_back(l);
  }
  return t;
}
} // namespace

ReportTable residual_table(const FittedParameter &p) {
  ReportTable t = component_rows(p.residuals, p.band, "residuals." + p.path,
                                 "Residuals of " + p.path + " (" + p.label + ")");
  t.note = fmt("%d rows, rms %.1f%%, max %.1f%%", static_cast<int>(p.count), 100 * p.rms_error,
               100 * p.max_abs_error);
  return t;
}

namespace {

ReportCell count_cell(std::size_t n) {
  return {std::to_string(n), static_cast<double>(n)};
}
ReportCell seconds_cell(double v) {
  return {format_value(v, Unit::seconds), v};
}

// A row of the groups tables: its name, runs, the host times (blank for "every run") and the
// median |error| and median error of TPOT and TTFT.
ReportLine group_line(const std::string &key, const std::string &name,
                      const std::vector<double> &tpot, const std::vector<double> &ttft,
                      const GroupErrors *g) {
  ReportLine l;
  l.key = key;
  l.cells = {words(name),
             count_cell(tpot.size()),
             g ? seconds_cell(g->iteration_overhead) : words(""),
             g ? seconds_cell(g->request_overhead) : words(""),
             pct(median_abs_error(tpot), "%.1f%%"),
             pct(median_error(tpot)),
             pct(median_abs_error(ttft), "%.1f%%"),
             pct(median_error(ttft))};
  return l;
}

} // namespace

ReportTable serving_groups_table(const ServingGroupsReport &r, bool held_out) {
  ReportTable t;
  t.key = held_out ? "groups.held_out" : "groups.in_sample";
  t.title = held_out ? "Each group predicted by its engine fitted to the others (leave one "
                       "group out)"
                     : "Each engine fitted to all its groups (in sample)";
  t.help = "The engine's per-iteration host time (from TPOT) and per-request front-end time (from "
           "TTFT) fitted by least squares on log TPOT and the least median |error| of TTFT "
           "(docs/serving.md); errors are predicted / measured - 1 of each run's mean.";
  t.columns = {col("group", "group", Unit::plain, true),
               col("runs", "runs"),
               col("iter", "iteration overhead", Unit::seconds),
               col("req", "request overhead", Unit::seconds),
               col("tpot", "TPOT median |error|"),
               col("tpot_bias", "TPOT median error"),
               col("ttft", "TTFT median |error|"),
               col("ttft_bias", "TTFT median error")};
  for (const GroupErrors &g : held_out ? r.held_out : r.in_sample)
    t.rows.push_back(group_line(g.name, g.name, g.tpot, g.ttft, &g));
  t.rows.push_back(
      group_line("all", "every run", r.all_tpot(held_out), r.all_ttft(held_out), nullptr));
  return t;
}

ReportTable serving_engines_table(const ServingGroupsReport &r) {
  ReportTable t;
  t.key = "groups.engines";
  t.title = "Each engine fitted to all its groups: its preset's values";
  t.help = "workload.engine.iteration_overhead and request_overhead fitted to every run of the "
           "engine's groups; the bands tpot_uncertainty and ttft_uncertainty are the 90th "
           "percentile of |error| over those runs (docs/serving.md).";
  t.columns = {col("engine", "engine", Unit::plain, true),
               col("runs", "runs"),
               col("iter", "iteration overhead", Unit::seconds),
               col("req", "request overhead", Unit::seconds),
               col("tpot_band", "TPOT band"),
               col("ttft_band", "TTFT band")};
  for (const EngineGroupFit &e : r.engines) {
    ReportLine l;
    l.key = e.engine;
    l.cells = {words(e.engine),
               count_cell(static_cast<std::size_t>(e.runs)),
               seconds_cell(e.iteration_overhead),
               seconds_cell(e.request_overhead),
               pct(e.tpot_band, "+/-%.1f%%"),
               pct(e.ttft_band, "+/-%.1f%%")};
    t.rows.push_back(std::move(l));
  }
  return t;
}

ReportTable unfitted_table(const CalibrationResult &r) {
  ReportTable t = component_rows(r.unfitted, 0, "unfitted", "Rows checked, not fitted to");
  t.help = "Rows their file marks as not fitted (launch-bound kernels, protocols the model does "
           "not follow), predicted at the fitted values.";
  return t;
}

ReportTable layer_table(const CalibrationResult &r) {
  ReportTable t;
  t.key = "layers";
  t.title = "One layer, forward + backward: measured against its components";
  t.help = "tools/measure/layer_profile.py's kernel time by class against the same layer timed "
           "from the components (GEMM efficiency, attention efficiency, element-wise bytes at the "
           "achieved bandwidth; no compute overhead). What the measurement adds is what the "
           "compute overhead stands for; its share says where (docs/calibration.md). Shares are "
           "given where both the layer and the part take longer than the components say.";
  t.columns = {col("part", "part", Unit::plain, true), col("measured", "measured", Unit::seconds),
               col("components", "components", Unit::seconds),
               col("beyond", "beyond them", Unit::seconds),
               col("share", "share of the difference")};
  for (const LayerCheck &x : r.layers) {
    const double diff = x.wall() - x.predicted.total();
    const auto row = [&](const std::string &key, const std::string &name, double m, double p,
                         const std::string &help) {
      ReportLine l;
      l.key = key;
      l.help = help;
      l.cells = {words(name),
                 {format_value(m, Unit::seconds), m},
                 {format_value(p, Unit::seconds), p},
                 {fmt("%+.3f ms", (m - p) * 1e3), m - p},
                 // a share only where the layer and this part both take longer than the
                 // components say; a part the components overestimate has none
                 diff > 0 && m - p >= 0 ? pct((m - p) / diff, "%.0f%%") : ReportCell{"-", 0}};
      t.rows.push_back(l);
    };
    const std::string f = x.file + ": ";
    row(f + "gemm", f + "GEMMs", x.measured.gemm, x.predicted.gemm,
        "The linear layers' GEMMs, forward and both backward GEMMs.");
    row(f + "attention", f + "attention", x.measured.attention, x.predicted.attention,
        "FlashAttention forward and backward.");
    row(f + "elementwise", f + "element-wise (" + std::to_string(x.kernels) + " kernels in all)",
        x.measured.elementwise, x.predicted.elementwise + x.predicted.quantize,
        "Norms, rotary, the activation, residual adds, copies: every kernel that is neither a "
        "GEMM nor attention.");
    row(f + "gap", f + "between kernels", x.gap, 0,
        "Wall time no kernel covered: launch gaps and host time.");
    row(f + "total", f + "the layer", x.wall(), x.predicted.total(),
        "Measured wall time against the components' sum; measured / components - 1 is the "
        "compute overhead this layer implies.");
    t.rows.back().mark = Mark::total;
  }
  return t;
}

ReportTable runs_table(const std::vector<ValidationRow> &rows) {
  ReportTable t;
  t.key = "runs";
  t.title = "Measured runs against the prediction";
  t.columns = {col("name", "run", Unit::plain, true),
               col("hardware", "hardware", Unit::plain, true),
               col("metric", "metric", Unit::plain, true),
               col("measured", "measured"),
               col("predicted", "predicted"),
               col("error", "error"),
               col("band", "band"),
               col("inside", "inside band", Unit::plain, true)};
  for (const ValidationRow &v : rows) {
    ReportLine l;
    l.key = v.name;
    const bool pcts = v.metric == Metric::mfu || v.metric == Metric::hfu;
    const bool tf =
        v.metric == Metric::tflops_per_device || v.metric == Metric::hardware_tflops_per_device;
    auto metric = [&](double x) -> ReportCell {
      if (pcts)
        return {fmt("%.1f%%", 100 * x), x};
      if (tf)
        return {fmt("%.1f TFLOP/s", x * 1e-12), x};
      if (v.metric == Metric::step_time || v.metric == Metric::ttft || v.metric == Metric::tpot)
        return {format_value(x, Unit::seconds), x};
      return {fmt("%.4g", x), x};
    };
    l.cells = {words(v.name),
               words(v.hardware),
               words(name_of_metric(v.metric)),
               metric(v.measured),
               metric(v.predicted),
               pct(v.error),
               pct(v.band, "+/-%.0f%%"),
               words(v.within_band() ? "yes" : "NO")};
    if (!v.within_band())
      l.cells[7].mark = Mark::warn;
    t.rows.push_back(l);
  }
  return t;
}

namespace {
// A time and its share of a whole: "1.234 s (56%)".
ReportCell seconds_and_share(double x, double whole) {
  return {
      fmt("%s (%.0f%%)", format_value(x, Unit::seconds).c_str(), whole > 0 ? 100 * x / whole : 0.0),
      x};
}
} // namespace

ReportTable run_compute_table(const std::vector<ValidationRow> &rows) {
  ReportTable t;
  t.key = "run_compute";
  t.title = "Where the predicted compute goes, by component";
  t.help = "The slowest stage's compute a step: GEMMs (the output layer's among them), the "
           "attention core and memory-bound kernels (norms, activation, routing, the "
           "cross-entropy, FP8 quantisation) at their component rates, recompute, the SMs the "
           "collectives that hide under them hold (cluster.collective_sms), and what "
           "hardware.compute_overhead adds to them (docs/calibration.md).";
  t.columns = {col("name", "run", Unit::plain, true),
               col("compute", "compute"),
               col("gemm", "GEMMs"),
               col("attention", "attention"),
               col("memory", "memory-bound"),
               col("recompute", "recompute"),
               col("comm_sms", "collectives' SMs"),
               col("overhead", "overhead")};
  for (const ValidationRow &v : rows) {
    if (v.step <= 0)
      continue;
    ReportLine l;
    l.key = v.name;
    auto part = [&](double x) { return seconds_and_share(x, v.compute); };
    l.cells = {words(v.name),        {format_value(v.compute, Unit::seconds), v.compute},
               part(v.gemm),         part(v.attention),
               part(v.memory_bound), part(v.recompute),
               part(v.comm_sms),     part(v.overhead)};
    t.rows.push_back(l);
  }
  return t;
}

ReportTable run_breakdown_table(const std::vector<ValidationRow> &rows) {
  ReportTable t;
  t.key = "run_breakdown";
  t.title = "Where the predicted step goes, and the step the measurement implies";
  t.help = "A rate (MFU, TFLOP/s, tokens/s) implies a measured step of predicted step x "
           "predicted / measured. The difference is what the components leave unexplained: "
           "compare it with each component's share.";
  t.columns = {col("name", "run", Unit::plain, true),
               col("step", "predicted step"),
               col("compute", "compute"),
               col("comm", "comm exposed"),
               col("host", "host wait"),
               col("bubble", "bubble"),
               col("optimizer", "optimizer"),
               col("measured", "measured step"),
               col("diff", "difference")};
  for (const ValidationRow &v : rows) {
    if (v.step <= 0) // a serving run: no training step to break down
      continue;
    ReportLine l;
    l.key = v.name;
    const double s = v.step;
    auto part = [&](double x) { return seconds_and_share(x, s); };
    l.cells = {words(v.name),
               {format_value(v.step, Unit::seconds), v.step},
               part(v.compute),
               part(v.comm_exposed),
               part(v.host),
               part(v.bubble),
               part(v.optimizer),
               {format_value(v.measured_step, Unit::seconds), v.measured_step},
               pct(v.measured_step / s - 1)};
    if (!v.within_band())
      l.cells[8].mark = Mark::warn;
    t.rows.push_back(l);
  }
  return t;
}

} // namespace rl
