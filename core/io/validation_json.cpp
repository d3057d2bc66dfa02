#include "core/io/validation_json.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"

namespace rl::io {

using json = nlohmann::json;

namespace {
constexpr std::pair<const char *, Metric> kMetrics[] = {
    {"step_time", Metric::step_time},
    {"mfu", Metric::mfu},
    {"hfu", Metric::hfu},
    {"tflops_per_device", Metric::tflops_per_device},
    {"hardware_tflops_per_device", Metric::hardware_tflops_per_device},
    {"tokens_per_s", Metric::tokens_per_s}};
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
                                   "tflops_per_device, hardware_tflops_per_device, tokens_per_s)");
    mr.finish();
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
                   {"within_band", std::fabs(r.error) <= r.band}});
  return out;
}

json to_json(const std::vector<FitResult> &fits) {
  json out = json::array();
  for (const auto &f : fits)
    out.push_back({{"hardware", f.hardware},
                   {"compute_overhead", f.overhead},
                   {"max_abs_error", f.max_abs_error},
                   {"rms_error", f.rms_error},
                   {"loo_max_error", f.loo_max_error},
                   {"rows", f.rows}});
  return out;
}

} // namespace rl::io
