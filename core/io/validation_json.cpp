#include "core/io/validation_json.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"
#include "core/io/readers.hpp"
#include "core/model/params.hpp"
#include "core/schema/printable.hpp"

namespace rl::io {

using json = nlohmann::json;

namespace {
constexpr std::pair<const char *, Metric> kMetrics[] = {
    {"step_time", Metric::step_time},
    {"mfu", Metric::mfu},
    {"hfu", Metric::hfu},
    {"tflops_per_device", Metric::tflops_per_device},
    {"hardware_tflops_per_device", Metric::hardware_tflops_per_device},
    {"tokens_per_s", Metric::tokens_per_s},
    {"ttft", Metric::ttft},
    {"tpot", Metric::tpot}};
} // namespace

std::vector<ValidationRun> parse_validation(const json &j0) {
  json j = j0;
  if (j.is_string())
    j = preset_json("validation", j.get<std::string>(), "");
  const json *runs = &j;
  if (j.is_object()) {
    ObjectReader r(j, "");
    r.opt_str("name");
    r.opt_str("source");
    r.opt_str("notes");
    runs = r.opt_child("runs");
    if (!runs)
      throw ConfigError("runs", "is required");
    r.finish();
  }
  if (!runs->is_array())
    throw ConfigError("runs", "expected an array of runs, got " + json_type_name(*runs));
  constexpr std::size_t kMaxRuns = 1000; // a stated limit, checked before any run is read
  if (runs->size() > kMaxRuns)
    throw ConfigError("runs", std::to_string(runs->size()) + " runs; the limit is " +
                                  std::to_string(kMaxRuns));
  std::vector<ValidationRun> out;
  for (std::size_t i = 0; i < runs->size(); ++i) {
    const std::string path = "runs[" + std::to_string(i) + "]";
    ObjectReader r((*runs)[i], path);
    ValidationRun v;
    v.name = r.opt_str("name").value_or(path);
    const json *cfg = r.opt_child("config");
    if (!cfg)
      throw ConfigError(r.path_of("config"), "is required");
    try {
      v.config = parse_config(*cfg);
    } catch (const ConfigError &e) {
      throw ConfigError(join_path(r.path_of("config"), e.path()), e.message());
    }
    const json *m = r.opt_child("measured");
    if (!m)
      throw ConfigError(r.path_of("measured"), "is required");
    ObjectReader mr(*m, r.path_of("measured"));
    int found = 0;
    for (const auto &[name, metric] : kMetrics)
      if (const auto val = mr.opt_num(name, 1e-12, 1e30)) {
        v.metric = metric;
        v.measured = *val;
        ++found;
      }
    if (found != 1)
      throw ConfigError(mr.path(), "give exactly one measured metric (step_time, mfu, hfu, "
                                   "tflops_per_device, hardware_tflops_per_device, tokens_per_s; "
                                   "serving: ttft or tpot)");
    mr.finish();
    if (const auto g = r.opt_str("fit_group")) {
      if (g->empty() || g->size() > 64 || schema::has_control(*g))
        throw ConfigError(r.path_of("fit_group"), "a name of 1 to 64 printable characters");
      v.fit_group = *g;
    }
    v.fit = r.opt_bool("fit").value_or(true);
    r.opt_str("source");
    r.opt_str("notes");
    r.finish();
    out.push_back(v);
  }
  return out;
}

json to_json(const std::vector<ValidationRow> &rows) {
  json out = json::array();
  for (const auto &r : rows)
    out.push_back({{"name", r.name},
                   {"hardware", r.hardware},
                   {"metric", name_of_metric(r.metric)},
                   {"measured", r.measured},
                   {"predicted", r.predicted},
                   {"error", r.error},
                   {"band", r.band},
                   {"within_band", r.within_band()},
                   {"breakdown",
                    {{"step", r.step},
                     {"compute", r.compute},
                     {"comm_exposed", r.comm_exposed},
                     {"host", r.host},
                     {"bubble", r.bubble},
                     {"optimizer", r.optimizer},
                     {"measured_step", r.measured_step},
                     {"gemm", r.gemm},
                     {"attention", r.attention},
                     {"memory_bound", r.memory_bound},
                     {"recompute", r.recompute},
                     {"comm_sms", r.comm_sms},
                     {"overhead", r.overhead}}}});
  return out;
}

json to_json(const std::vector<FitResult> &fits) {
  json out = json::array();
  for (const auto &f : fits)
    out.push_back({{"hardware", f.hardware},
                   {"chips", f.chips},
                   {"compute_overhead", f.overhead},
                   {"max_abs_error", f.max_abs_error},
                   {"rms_error", f.rms_error},
                   {"loo_max_error", f.loo_max_error},
                   {"rows", f.rows}});
  return out;
}

namespace {
constexpr std::pair<const char *, ComponentKind> kComponentKinds[] = {
    {"gemm", ComponentKind::gemm},
    {"attention", ComponentKind::attention},
    {"collective", ComponentKind::collective},
    {"hbm", ComponentKind::hbm},
    {"moe", ComponentKind::moe}};
constexpr std::pair<const char *, Dtype> kGemmDtypes[] = {
    {"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"fp8", Dtype::fp8}};

template <class F> auto nested(const ObjectReader &r, const char *key, F parse) {
  try {
    return parse();
  } catch (const ConfigError &e) {
    throw ConfigError(join_path(r.path_of(key), e.path()), e.message());
  }
}
} // namespace

// A component point's name or source (a citation) at most this long.
constexpr std::size_t kMaxLabelBytes = 1000;

std::vector<ComponentPoint> parse_components(const json &j0) {
  json j = j0;
  if (j.is_string())
    j = preset_json("validation", j.get<std::string>(), "");
  ObjectReader top(j, "");
  top.opt_str("name");
  top.opt_str("source");
  top.opt_str("notes");
  const json *points = top.opt_child("points");
  if (!points || !points->is_array())
    throw ConfigError("points", "is required: an array of microbenchmark points");
  top.finish();
  constexpr std::size_t kMaxPoints = 1000;
  if (points->size() > kMaxPoints)
    throw ConfigError("points", std::to_string(points->size()) + " points; the limit is " +
                                    std::to_string(kMaxPoints));
  std::vector<ComponentPoint> out;
  for (std::size_t i = 0; i < points->size(); ++i) {
    ObjectReader r((*points)[i], "points[" + std::to_string(i) + "]");
    ComponentPoint p;
    p.name = r.opt_str("name").value_or(r.path());
    p.source = r.opt_str("source").value_or("");
    // labels, copied into every row a fit evaluates: a citation's length at most
    for (const auto &[key, text] : {std::pair{"name", &p.name}, std::pair{"source", &p.source}})
      if (text->size() > kMaxLabelBytes)
        throw ConfigError(r.path_of(key), std::to_string(text->size()) + " bytes; the limit is " +
                                              std::to_string(kMaxLabelBytes));
    const auto kind = r.opt_enum("kind", kComponentKinds);
    if (!kind)
      throw ConfigError(r.path_of("kind"), "is required (gemm, attention, collective, hbm, moe)");
    p.kind = *kind;
    p.fitted = r.opt_bool("fitted").value_or(false);
    // A rate (FLOP/s, B/s) at least 1e6 a second, as a preset's peaks and bandwidths.
    p.measured = r.req_num("measured", 1e6, 1e30);
    if (p.kind == ComponentKind::collective) {
      const json *cl = r.opt_child("cluster");
      if (!cl)
        throw ConfigError(r.path_of("cluster"), "is required");
      p.cluster = nested(r, "cluster", [&] { return parse_cluster(*cl, ""); });
      const std::string op = r.opt_str("op").value_or("allreduce");
      const std::optional<Collective> c = collective_of(op);
      if (!c)
        throw ConfigError(r.path_of("op"), "\"" + op + "\" is not a collective");
      p.op = *c;
      p.group = r.req_int("group", 2, p.cluster.devices);
      p.bytes = r.req_num("bytes", 1, 1e15);
    } else {
      const json *hw = r.opt_child("hardware");
      if (!hw)
        throw ConfigError(r.path_of("hardware"), "is required");
      p.hardware = nested(r, "hardware", [&] { return parse_hardware(*hw, ""); });
      p.precision = r.opt_enum("precision", kGemmDtypes).value_or(Dtype::bf16);
      if (p.kind == ComponentKind::gemm) {
        p.m = static_cast<double>(r.req_int("m", 1, static_cast<i64>(kMaxMeasuredDim)));
        p.n = static_cast<double>(r.req_int("n", 1, static_cast<i64>(kMaxMeasuredDim)));
        p.k = static_cast<double>(r.req_int("k", 1, static_cast<i64>(kMaxMeasuredDim)));
      } else if (p.kind == ComponentKind::attention) {
        p.batch = static_cast<double>(r.req_int("batch", 1, static_cast<i64>(kMaxMeasuredDim)));
        p.heads = static_cast<double>(r.req_int("heads", 1, static_cast<i64>(kMaxMeasuredDim)));
        p.seq = static_cast<double>(r.req_int("seq", 1, static_cast<i64>(kMaxMeasuredDim)));
        p.head_dim = static_cast<double>(r.req_int("head_dim", 1, 4096));
        p.causal = r.opt_bool("causal").value_or(false);
      } else if (p.kind == ComponentKind::moe) {
        p.hidden = r.req_int("hidden", 128, static_cast<i64>(kMaxMeasuredDim));
        p.expert_ffn = r.req_int("expert_ffn", 1, static_cast<i64>(kMaxMeasuredDim));
        p.experts = r.req_int("experts", 1, 4096);
        p.top_k = r.req_int("top_k", 1, p.experts);
        p.tokens = static_cast<double>(r.req_int("tokens", 1, static_cast<i64>(kMaxMeasuredDim)));
        // The experts' weights within the model limit (10^15 parameters): every count the
        // layer's time multiplies stays exact.
        const double weights = 3.0 * static_cast<double>(p.experts) *
                               static_cast<double>(p.hidden) * static_cast<double>(p.expert_ffn);
        if (weights > static_cast<double>(kMaxParams))
          throw ConfigError(r.path_of("expert_ffn"),
                            "the layer's experts hold " + readers_detail::number_text(weights) +
                                " parameters (3 x experts x hidden x expert_ffn); the limit is "
                                "1e15");
      }
    }
    r.finish();
    out.push_back(p);
  }
  return out;
}

json to_json(const std::vector<ComponentRow> &rows) {
  json out = json::array();
  for (const auto &r : rows)
    out.push_back({{"name", r.name},
                   {"kind", name_of_component(r.kind)},
                   {"unit", r.unit},
                   {"measured", r.measured},
                   {"predicted", r.predicted},
                   {"error", r.error},
                   {"fitted", r.fitted},
                   {"source", r.source}});
  return out;
}

} // namespace rl::io
