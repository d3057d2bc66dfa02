#include "web/app_state.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/url_codec.hpp"

#include <chrono>

namespace rl::web {

namespace {

json::json_pointer pointer_of(const std::string &dotted) {
  std::string p;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = dotted.find('.', start);
    p += "/" + dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  return json::json_pointer(p);
}

// Removes every override equal to the preset's own value, so the URL carries only what the
// user changed ("model=llama3-70b&model.layers=40", not every field).
void prune_overrides(json &obj, const json &preset) {
  for (auto it = obj.begin(); it != obj.end();) {
    const std::string key = it.key();
    if (key == "base" || !preset.is_object() || !preset.contains(key)) {
      ++it;
      continue;
    }
    json &v = it.value();
    if (v.is_object() && preset.at(key).is_object()) {
      prune_overrides(v, preset.at(key));
      if (v.empty()) {
        it = obj.erase(it);
        continue;
      }
      ++it;
    } else if (v == preset.at(key)) {
      it = obj.erase(it);
    } else {
      ++it;
    }
  }
}

// The merge patch (RFC 7386) that turns `from` into `to`: changed keys, removed ones as null.
json merge_diff(const json &from, const json &to) {
  if (!from.is_object() || !to.is_object())
    return to;
  json patch = json::object();
  for (const auto &[k, v] : to.items()) {
    if (!from.contains(k))
      patch[k] = v;
    else if (from.at(k) != v)
      patch[k] = from.at(k).is_object() && v.is_object() ? merge_diff(from.at(k), v) : v;
  }
  for (const auto &[k, v] : from.items())
    if (!to.contains(k))
      patch[k] = nullptr;
  return patch;
}

template <class F> std::optional<FieldError> guarded(F &&f) {
  try {
    f();
    return std::nullopt;
  } catch (const ConfigError &e) {
    return FieldError{e.path(), e.message()};
  } catch (const json::exception &e) {
    return FieldError{"", e.what()};
  } catch (const std::exception &e) {
    return FieldError{"", std::string("internal error: ") + e.what()};
  }
}

} // namespace

AppState &app_state() {
  static AppState state;
  return state;
}

void AppState::load_from_url(const std::string &url_state) {
  json decoded;
  const auto err = guarded([&] {
    decoded = io::decode_url_query(url_state);
    if (decoded.is_object() && !decoded.empty())
      io::parse_config(decoded);
  });
  if (err) {
    load_scenario(kDefaultScenario);
    startup_error_ = err;
    return;
  }
  if (!decoded.is_object() || decoded.empty()) {
    load_scenario(kDefaultScenario);
    return;
  }
  user_ = decoded;
  recompute();
}

void AppState::load_scenario(const std::string &name) {
  startup_error_.reset();
  user_ = json{{"scenario", name}};
  recompute();
}

namespace {
// Runs a mode's computation (tx8 mapping, serving simulation) with its wall time; the result
// becomes the current one and, when it succeeded, the last good one with its configuration.
template <class F, class T>
std::optional<FieldError> run_timed(F &&f, const Config &cfg,
                                    std::chrono::steady_clock::time_point t0, double &seconds,
                                    std::optional<T> &current, std::optional<T> &last_good,
                                    std::optional<Config> &last_good_config) {
  std::optional<T> r;
  const std::optional<FieldError> err = guarded([&] { r = f(); });
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  current = r;
  if (r) {
    last_good = r;
    last_good_config = cfg;
  }
  return err;
}
} // namespace

void AppState::recompute() {
  effective_ = user_;
  guarded([&] { effective_ = io::expand_scenario(user_); });

  std::optional<Config> parsed;
  error_ = guarded([&] { parsed = io::parse_config(user_); });
  if (!parsed) {
    estimate_.reset();
    serve_.reset();
    return;
  }
  view_config_ = parsed;
  view_resolved_ = io::to_json(*parsed);
  guarded([&] { url_query_ = io::encode_url_query(user_); });

  const auto t0 = std::chrono::steady_clock::now();
  if (parsed->workload.mode == Mode::tx8_op || parsed->workload.mode == Mode::video) {
    // `ridgeline tx8`: one operator or a whole video request on tx8 dies.
    estimate_.reset();
    error_ = run_timed([&] { return tx8::solve(*parsed, tx8::Tx8Options{}); }, *parsed, t0,
                       estimate_seconds_, tx8_, last_good_tx8_, last_good_tx8_config_);
    return;
  }
  tx8_.reset();
  if (parsed->workload.mode == Mode::serve) {
    // `ridgeline serve`: the request-level simulation of the configured deployment.
    estimate_.reset();
    error_ = run_timed([&] { return simulate_serving(*parsed); }, *parsed, t0, estimate_seconds_,
                       serve_, last_good_serve_, last_good_serve_config_);
    return;
  }
  serve_.reset();
  std::optional<Estimate> est;
  error_ = guarded([&] { est = rl::estimate(*parsed); });
  estimate_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  estimate_ = est;
  if (est) {
    last_good_ = est;
    last_good_config_ = parsed;
  }
}

View AppState::view() const {
  // The mode as written (also while the configuration does not parse), else the last parsed.
  std::string mode;
  if (effective_.contains("workload") && effective_.at("workload").is_object() &&
      effective_.at("workload").contains("mode") &&
      effective_.at("workload").at("mode").is_string())
    mode = effective_.at("workload").at("mode").get<std::string>();
  else if (view_config_)
    mode = io::name_of(view_config_->workload.mode);
  if (mode == "infer")
    return View::infer;
  if (mode == "serve")
    return View::serve;
  if (mode == "tx8-op" || mode == "video")
    return View::tx8;
  return View::train;
}

json AppState::field(const std::string &section, const std::string &key) const {
  const auto ptr = pointer_of(key);
  if (effective_.contains(section)) {
    const json &sec = effective_.at(section);
    if (sec.is_object() && !sec.contains("hf_config") && sec.contains(ptr))
      return sec.at(ptr);
  }
  if (view_resolved_.contains(section) && view_resolved_.at(section).contains(ptr))
    return view_resolved_.at(section).at(ptr);
  return nullptr;
}

std::string AppState::preset_base(const std::string &section) const {
  if (!effective_.contains(section))
    return "";
  const json &sec = effective_.at(section);
  if (sec.is_string())
    return sec.get<std::string>();
  if (sec.is_object() && sec.contains("base") && sec.at("base").is_string())
    return sec.at("base").get<std::string>();
  return "";
}

std::string AppState::preset_label(const std::string &section) const {
  if (!effective_.contains(section))
    return "(none)";
  const json &sec = effective_.at(section);
  if (sec.is_string())
    return sec.get<std::string>();
  if (!sec.is_object())
    return "(invalid)";
  if (sec.contains("hf_config"))
    return "Hugging Face config.json";
  if (sec.contains("base") && sec.at("base").is_string())
    return sec.at("base").get<std::string>() + " (modified)";
  if (sec.contains("name") && sec.at("name").is_string())
    return sec.at("name").get<std::string>() + " (custom)";
  return "custom";
}

std::optional<json> AppState::parallel_knob(const std::string &key) const {
  if (effective_.contains("parallel") && effective_.at("parallel").is_object() &&
      effective_.at("parallel").contains(key))
    return effective_.at("parallel").at(key);
  return std::nullopt;
}

void AppState::rederive_dp() {
  if (!user_.contains("parallel") || !user_.at("parallel").is_object() ||
      !user_.at("parallel").contains("dp"))
    return; // dp is free: the core derives it
  json &par = user_["parallel"];
  i64 devices = 1;
  if (user_.contains("cluster"))
    guarded([&] { devices = io::parse_cluster(user_.at("cluster"), "cluster").devices; });
  const auto knob = [&](const char *k) {
    return par.contains(k) && par.at(k).is_number_integer() ? par.at(k).get<i64>() : i64{1};
  };
  const i64 model_par = knob("tp") * knob("pp") * knob("cp");
  if (model_par > 0 && devices % model_par == 0)
    par["dp"] = devices / model_par;
  else
    par.erase("dp");
}

void AppState::begin_edit() {
  startup_error_.reset(); // the user has taken over from the fallback
  scenario_.clear();
  if (!user_.is_object() || !user_.contains("scenario") || !user_.at("scenario").is_string())
    return;
  json expanded = user_;
  if (guarded([&] { expanded = io::expand_scenario(user_); }))
    return; // an unknown scenario: leave the config as it is, the error stays on show
  scenario_ = user_.at("scenario").get<std::string>();
  for (const char *k : {"name", "source", "notes"})
    expanded.erase(k); // the scenario's description is not part of the configuration
  user_ = expanded;
}

void AppState::end_edit() {
  if (!scenario_.empty()) {
    // Back to "scenario + overrides": a short URL that still names where it started from.
    json base;
    if (!guarded([&] { base = io::preset_json("scenario", scenario_, "scenario"); })) {
      for (const char *k : {"name", "source", "notes"})
        base.erase(k);
      json rebased = json{{"scenario", scenario_}};
      rebased.update(merge_diff(base, user_));
      user_ = rebased;
    }
    scenario_.clear();
  }
  recompute();
}

void AppState::set_preset(const std::string &section, const std::string &name) {
  begin_edit();
  user_[section] = name;
  if (section == "cluster")
    rederive_dp();
  end_edit();
}

void AppState::set_field(const std::string &section, const std::string &key, const json &value) {
  begin_edit();
  json &sec = user_[section];
  if (sec.is_string()) {
    sec = json{{"base", sec.get<std::string>()}};
  } else if (sec.is_null() || (sec.is_object() && sec.contains("hf_config"))) {
    // No preset to start from: the resolved object (e.g. the model a config.json defined).
    sec = view_resolved_.contains(section) ? view_resolved_.at(section) : json::object();
  }
  sec[pointer_of(key)] = value;
  if (sec.contains("base") && sec.at("base").is_string()) {
    json preset;
    if (!guarded([&] {
          preset = io::preset_json(section, sec.at("base").get<std::string>(), section);
        })) {
      prune_overrides(sec, preset);
      if (sec.size() == 1)
        sec = sec.at("base");
    }
  }
  if (section == "cluster" && key == "devices")
    rederive_dp();
  end_edit();
}

void AppState::set_workload(const json &workload) {
  begin_edit();
  user_["workload"] = workload;
  end_edit();
}

void AppState::set_parallel(const std::string &key, const json &value) {
  begin_edit();
  json &par = user_["parallel"];
  if (!par.is_object())
    par = json::object();
  par[key] = value;
  if (key == "tp" || key == "pp" || key == "cp")
    rederive_dp();
  end_edit();
}

void AppState::erase_parallel(const std::string &key) {
  begin_edit();
  if (user_.contains("parallel") && user_.at("parallel").is_object())
    user_["parallel"].erase(key);
  end_edit();
}

void AppState::set_parallel_object(const json &parallel) {
  begin_edit();
  if (parallel.is_object() && !parallel.empty())
    user_["parallel"] = parallel;
  else
    user_.erase("parallel");
  end_edit();
}

void AppState::set_hf_model(const json &hf_config) {
  begin_edit();
  user_["model"] = json{{"hf_config", hf_config}};
  end_edit();
}

} // namespace rl::web
