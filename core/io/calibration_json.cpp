#include "core/io/calibration_json.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/readers.hpp"
#include "core/io/validation_json.hpp"

#include <algorithm>

namespace rl::io {

using json = nlohmann::json;

namespace {

// The configuration object a base names: a configuration, a scenario, "hardware@cluster", or
// a hardware preset (with the cluster of the first shipped scenario on that hardware).
json base_config(const json &base) {
  if (base.is_object())
    return base;
  if (!base.is_string())
    throw ConfigError("base", "expected a preset name or a configuration object");
  const std::string s = base.get<std::string>();
  if (is_preset("scenario", s))
    return expand_scenario(base);
  const std::string hw = s.substr(0, s.find('@'));
  if (!is_preset("hardware", hw))
    throw ConfigError("base", "\"" + s +
                                  "\" is neither a scenario, a hardware preset nor "
                                  "hardware@cluster (see `ridgeline presets`)");
  if (s.find('@') != std::string::npos) {
    const std::string cl = s.substr(s.find('@') + 1);
    if (!is_preset("cluster", cl))
      throw ConfigError("base", "\"" + cl + "\" is not a cluster preset");
    // Only hardware and cluster matter to the components; a small training workload keeps
    // the configuration complete.
    // A scenario on that hardware, else the first training scenario moved onto it: a chip
    // no scenario runs on (gb200) is still calibrated on the cluster named.
    json fallback;
    for (const std::string &name : preset_names("scenario")) {
      json sc = expand_scenario(json(name));
      const bool on_hw = sc.value("hardware", json()) == json(hw);
      const bool train = sc.value("workload", json::object()).value("mode", "train") == "train";
      if (!on_hw && !(train && fallback.is_null()))
        continue;
      sc["hardware"] = hw;
      sc["cluster"] = cl;
      sc.erase("parallel");
      if (on_hw)
        return sc;
      fallback = sc;
    }
    if (!fallback.is_null())
      return fallback;
  }
  for (const std::string &name : preset_names("scenario")) {
    const json sc = expand_scenario(json(name));
    if (sc.value("hardware", json()) == json(hw))
      return sc;
  }
  throw ConfigError("base", "no shipped scenario runs on \"" + hw +
                                "\": give hardware@cluster or a configuration");
}

// The value at a dotted path of a resolved configuration's JSON.
void set_path(json &obj, const std::string &dotted, const json &v) {
  json *at = &obj;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot - start);
    if (dot == std::string::npos) {
      (*at)[key] = v;
      return;
    }
    if (!at->contains(key) || !(*at)[key].is_object())
      (*at)[key] = json::object();
    at = &(*at)[key];
    start = dot + 1;
  }
}

} // namespace

void check_measurement_files(std::size_t count, std::uintmax_t total_bytes) {
  if (count > kMaxMeasurementFiles)
    throw ConfigError("files", std::to_string(count) + " files; the limit is " +
                                   std::to_string(kMaxMeasurementFiles));
  if (total_bytes > kMaxMeasurementTotalBytes)
    throw ConfigError("files", std::to_string(total_bytes) + " bytes in all; the limit is " +
                                   std::to_string(kMaxMeasurementTotalBytes >> 20) + " MiB");
}

namespace {

// Checks before any file is read: at least one, within the count and byte limits, no text
// twice (one file under two names, or a copy: every row would count twice and narrow every
// band).
void check_files(const std::vector<MeasurementFile> &files) {
  if (files.empty())
    throw ConfigError("files", "give at least one measurement file");
  std::uintmax_t total = 0;
  for (const MeasurementFile &f : files)
    total += f.text.size();
  check_measurement_files(files.size(), total);
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (files[i].text == files[j].text)
        throw ConfigError("files", "\"" + files[i].name + "\" holds the same text as \"" +
                                       files[j].name +
                                       "\": given twice, its rows would count twice");
}

// The options once every file is read: a training log needs its run as the base; a GEMM
// table's large-shape ratios are corrected by H100 SXM's own FP8/bf16 fit (to cuBLAS sweeps,
// docs/calibration.md).
CalibrateOptions options_for(const json &base, const Measurements &m, CalibrateOptions o) {
  if (!m.training.empty() && base.is_string() && !is_preset("scenario", base.get<std::string>()))
    throw ConfigError("base", "a training log is compared with the run it logged: give --base a "
                              "configuration (a file or a scenario) with the log's model, "
                              "cluster, layout and batch; \"" +
                                  base.get<std::string>() +
                                  "\" alone stands for an unrelated shipped scenario");
  if (!o.ratio_reference && std::any_of(m.kernels.begin(), m.kernels.end(), is_large_gemm))
    o.ratio_reference = parse_hardware(json("h100-sxm"), "hardware");
  return o;
}

} // namespace

CalibrationResult calibrate_files(const json &base, const std::vector<MeasurementFile> &files,
                                  const CalibrateOptions &opt) {
  check_files(files);
  const Config cfg = parse_config(base_config(base));
  Measurements m;
  for (const MeasurementFile &f : files)
    m.append(read_measurements(f.text, f.name));
  return calibrate(cfg, m, options_for(base, m, opt));
}

CalibrationJob::CalibrationJob(json base, std::vector<MeasurementFile> files, CalibrateOptions opt,
                               double budget)
    : base_(std::move(base)), files_(std::move(files)), opt_(std::move(opt)), budget_(budget) {
  try {
    check_files(files_);
    cfg_ = parse_config(base_config(base_));
  } catch (const ConfigError &e) {
    error_ = {e.path(), e.message()};
  }
}

bool CalibrationJob::step() {
  if (done())
    return false;
  try {
    if (next_ < files_.size()) {
      const MeasurementFile &f = files_[next_++];
      m_.append(read_measurements(f.text, f.name));
      return true;
    }
    if (!fit_) {
      CalibrateOptions o = options_for(base_, m_, opt_);
      check_fit_work(m_); // refused here, not at the first piece
      fit_.emplace(cfg_, std::move(m_), std::move(o), budget_);
    }
    return fit_->step();
  } catch (const ConfigError &e) {
    error_ = {e.path(), e.message()};
    return false;
  }
}

bool CalibrationJob::done() const {
  return error_.has_value() || (fit_ && fit_->done());
}

double CalibrationJob::progress() const {
  // reading a file counts as a tenth of the fit's progress bar between files
  const double read = files_.empty() ? 1 : static_cast<double>(next_) / files_.size();
  return done() ? 1 : 0.1 * read + 0.9 * (fit_ ? fit_->progress() : 0);
}

std::string CalibrationJob::stage() const {
  if (next_ < files_.size())
    return "reading " + files_[next_].name;
  return "fitting";
}

CalibrationResult CalibrationJob::result() const {
  if (error_)
    throw ConfigError(error_->first, error_->second);
  if (!fit_)
    throw ConfigError("", "the calibration has not finished");
  return fit_->result();
}

json calibrated_overrides(const CalibrationResult &r) {
  json o = json::object();
  for (const FittedParameter &p : r.params)
    o[p.path] = p.value;
  // The bands travel with the fit they came from.
  for (const FittedParameter &p : r.params) {
    if (p.path == "hardware.compute_overhead")
      o["hardware.time_uncertainty"] = r.hardware.time_uncertainty;
    if (p.path == "workload.engine.iteration_overhead") {
      o["workload.engine.tpot_uncertainty"] = r.engine.tpot_uncertainty;
      o["workload.engine.ttft_uncertainty"] = r.engine.ttft_uncertainty;
    }
  }
  return o;
}

json apply_overrides(json config, const json &overrides) {
  if (config.is_string())
    config = expand_scenario(config);
  if (!config.is_object())
    throw ConfigError("", "expected a configuration object");
  if (!overrides.is_object())
    throw ConfigError("overrides", "expected an object of dotted paths");
  config = expand_scenario(config);
  for (const auto &[path, v] : overrides.items()) {
    const bool engine = path.rfind("workload.engine.", 0) == 0;
    const std::string section = engine ? "workload.engine" : path.substr(0, path.find('.'));
    if (section != "hardware" && section != "cluster" && !engine)
      throw ConfigError("overrides." + path,
                        "only hardware, cluster and workload.engine fields are calibrated");
    if (!v.is_number())
      throw ConfigError("overrides." + path, "expected a number");
    json &slot = engine ? config["workload"]["engine"] : config[section];
    if (slot.is_string())
      slot = json{{"base", slot.get<std::string>()}};
    set_path(config, path, v);
  }
  return config;
}

json calibrated_presets(const json &base, const CalibrationResult &r, const std::string &name,
                        const std::string &source) {
  const json cfg = base_config(base);
  json out = json::object();
  const json workload = cfg.value("workload", json::object());
  const json overrides = calibrated_overrides(r);
  const struct {
    const char *file, *prefix;
    json sec;
  } sections[] = {{"hardware", "hardware.", cfg.value("hardware", json())},
                  {"cluster", "cluster.", cfg.value("cluster", json())},
                  {"engine", "workload.engine.",
                   workload.is_object() ? workload.value("engine", json()) : json()}};
  for (const auto &s : sections) {
    json p = s.sec.is_string()   ? json{{"base", s.sec.get<std::string>()}}
             : s.sec.is_object() ? s.sec
                                 : json::object();
    bool touched = false;
    const std::string prefix = s.prefix;
    for (const auto &[path, v] : overrides.items())
      if (path.rfind(prefix, 0) == 0) {
        set_path(p, path.substr(prefix.size()), v);
        touched = true;
      }
    if (!touched)
      continue;
    p["name"] = std::string(s.file) == "engine" ? r.engine.name : name;
    p["source"] = source;
    out[s.file] = p;
  }
  return out;
}

json to_json(const FittedParameter &p) {
  json j = {{"path", p.path},           {"label", p.label},
            {"unit", p.unit},           {"before", p.before},
            {"value", p.value},         {"count", p.count},
            {"rms_error", p.rms_error}, {"max_abs_error", p.max_abs_error},
            {"band", p.band},           {"residuals", to_json(p.residuals)}};
  if (p.range.second > p.range.first) { // the interval searched, and whether it stopped at an end
    j["range"] = {p.range.first, p.range.second};
    j["at_bound"] = p.at_bound();
  }
  return j;
}

// A layer budget's components, seconds.
static json budget_json(const LayerBudget &b) {
  return {{"gemm", b.gemm},
          {"attention", b.attention},
          {"elementwise", b.elementwise},
          {"quantize", b.quantize}};
}

json to_json(const CalibrationResult &r) {
  json params = json::array();
  for (const FittedParameter &p : r.params)
    params.push_back(to_json(p));
  json layers = json::array();
  for (const LayerCheck &x : r.layers)
    layers.push_back({{"file", x.file},
                      {"measured", budget_json(x.measured)},
                      {"components", budget_json(x.predicted)},
                      {"gap", x.gap},
                      {"wall", x.wall()},
                      {"kernels", x.kernels}});
  return {{"parameters", params},    {"layers", layers}, {"unfitted", to_json(r.unfitted)},
          {"runs", to_json(r.runs)}, {"notes", r.notes}, {"overrides", calibrated_overrides(r)}};
}

} // namespace rl::io
