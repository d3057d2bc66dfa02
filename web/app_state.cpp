#include "web/app_state.hpp"

#include "core/jobs/run.hpp"

#include "core/error.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/plan_apply.hpp"
#include "core/io/presets.hpp"
#include "core/io/url_codec.hpp"

#include "core/parallel/knobs.hpp"
#include "core/parallel/layout.hpp"
#include "core/schema/fields.hpp"

#include <algorithm>
#include <chrono>

namespace rl::web {

namespace {

json::json_pointer pointer_of(const std::string &dotted) {
  std::string p;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = dotted.find('.', start);
    p += '/';
    p += dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
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

bool known_tab(const std::string &tab) {
  static const char *const tabs[] = {"pipeline",  "serving",     "roofline",
                                     "planner",   "planner-all", "compare",
                                     "calibrate", "deployments", "latency"};
  for (const char *t : tabs)
    if (tab == t)
      return true;
  return false;
}

namespace {
// Runs f with its wall time (the UI's clock; the core keeps none).
template <class F> std::optional<FieldError> timed(F &&f, double &seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<FieldError> err = guarded(std::forward<F>(f));
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return err;
}
} // namespace

Evaluation evaluate(const json &user, bool defer) {
  Evaluation e;
  e.user = user;
  e.effective = user;
  guarded([&] { e.effective = io::expand_scenario(user); });
  std::optional<Config> parsed;
  e.error = guarded([&] { parsed = io::parse_config(user); });
  if (!parsed)
    return e;
  e.config = parsed;
  e.resolved = io::to_json(*parsed);
  // The job a configuration runs (core/jobs/run); the long ones (serving, tx8) run later, a
  // frame at a time, when deferred.
  if (defer && jobs::run_kind(parsed->workload.mode) != jobs::RunKind::estimate)
    return e;
  e.error = timed(
      [&] {
        jobs::RunResult r = jobs::run(*parsed);
        e.estimate = std::move(r.estimate);
        e.serve = std::move(r.serve);
        e.tx8 = std::move(r.tx8);
      },
      e.seconds);
  return e;
}

void AppState::load_from_url(const std::string &url_state) {
  url_issues_.clear();
  valid_query_.clear();
  io::UrlParts parts;
  io::LenientUrl decoded;
  const auto err = guarded([&] {
    parts = io::split_url(url_state);
    decoded = io::decode_url_lenient(parts.config, kDefaultScenario);
  });
  for (const auto &d : decoded.dropped)
    url_issues_.push_back(
        FieldError{d.path.empty() ? d.param : d.path, d.message + " (ignored: " + d.param + ")"});
  tab_ = known_tab(parts.tab) ? parts.tab : "";
  free_ = parts.free;
  if (tab_ == "planner-all") { // the older link for tab=planner&free=all
    tab_ = "planner";
    free_ = "all";
  }
  // the serve view's tab names: Deployments is the planner's tab, Latency vs load the serving
  if (tab_ == "deployments")
    tab_ = "planner";
  else if (tab_ == "latency")
    tab_ = "serving";
  if (!parts.tab.empty() && tab_.empty())
    url_issues_.push_back(FieldError{"tab", "unknown tab \"" + parts.tab +
                                                "\" (ignored: pipeline, serving, roofline, "
                                                "planner, deployments, compare, calibrate)"});
  if (err || !decoded.config.is_object() || decoded.config.empty()) {
    load_scenario(kDefaultScenario);
    if (err)
      startup_error_ = err;
    else if (!url_issues_.empty())
      startup_error_ = FieldError{"url", "nothing in the link could be used"};
  } else {
    user_ = decoded.config;
    recompute();
  }
  if (!parts.pin.empty()) {
    io::LenientUrl pin;
    if (!guarded([&] { pin = io::decode_url_lenient(parts.pin, kDefaultScenario); }) &&
        !pin.config.empty())
      pin_user(pin.config);
  }
}

void AppState::load_scenario(const std::string &name) {
  startup_error_.reset();
  valid_query_.clear();
  user_ = json{{"scenario", name}};
  recompute();
}

void AppState::recompute() {
  serve_running_.reset(); // a newer configuration replaces the work in progress
  tx8_running_.reset();
  Evaluation e = evaluate(user_, true);
  effective_ = e.effective;
  error_ = e.error;
  estimate_seconds_ = e.seconds;
  estimate_ = e.estimate;
  tx8_ = e.tx8;
  serve_ = e.serve;
  if (!e.config)
    return;
  view_config_ = e.config;
  view_resolved_ = e.resolved;
  if (e.estimate) {
    last_good_ = e.estimate;
    last_good_config_ = e.config;
  }
  if (e.tx8) {
    last_good_tx8_ = e.tx8;
    last_good_tx8_config_ = e.config;
  }
  if (e.serve) {
    last_good_serve_ = e.serve;
    last_good_serve_config_ = e.config;
  }
  if (!e.error && e.config && e.config->workload.mode == Mode::serve) {
    // Set up now (field errors show at once), simulate over the next frames.
    serve_elapsed_ = 0;
    error_ = timed([&] { serve_running_.emplace(*e.config); }, serve_elapsed_);
  }
  if (!e.error && e.config &&
      (e.config->workload.mode == Mode::tx8_op || e.config->workload.mode == Mode::video)) {
    serve_elapsed_ = 0;
    error_ = timed([&] { tx8_running_.emplace(*e.config, tx8::Tx8Options{}); }, serve_elapsed_);
  }
  update_url_query();
}

double AppState::busy_progress() const {
  if (serve_running_)
    return serve_running_->progress();
  if (tx8_running_)
    return tx8_running_->progress();
  return 1.0;
}

void AppState::advance(i64 passes) {
  if (tx8_running_) {
    bool over = false;
    double dt = 0;
    error_ = timed([&] { over = tx8_running_->step(1); }, dt);
    serve_elapsed_ += dt;
    if (error_ || over) {
      if (!error_) {
        tx8_ = tx8_running_->result();
        estimate_seconds_ = serve_elapsed_;
        last_good_tx8_ = tx8_;
        last_good_tx8_config_ = view_config_;
      }
      tx8_running_.reset();
    }
    return;
  }
  if (!serve_running_)
    return;
  bool over = false;
  double dt = 0;
  error_ = timed([&] { over = serve_running_->step(passes); }, dt);
  serve_elapsed_ += dt;
  if (error_) {
    serve_running_.reset();
    return;
  }
  if (!over)
    return;
  serve_ = serve_running_->result();
  serve_running_.reset();
  estimate_seconds_ = serve_elapsed_;
  last_good_serve_ = serve_;
  last_good_serve_config_ = view_config_;
}

void AppState::finish_pending() {
  while (busy())
    advance(i64{1} << 30);
}

void AppState::cancel_pending() {
  serve_running_.reset();
  tx8_running_.reset();
}

void AppState::update_url_query() {
  // The link holds the configuration as it last evaluated without an error: a value out of
  // range or a layout that does not divide stays on the page (marked), never in the link.
  if (!error_ && guarded([&] { valid_query_ = io::encode_url_query(user_); }))
    return;
  if (valid_query_.empty()) { // never valid since the link: the address bar keeps the link
    url_query_.clear();
    return;
  }
  io::UrlParts parts{valid_query_, tab_, "", free_};
  if (pinned_)
    guarded([&] { parts.pin = io::encode_url_query(pinned_->user); });
  url_query_ = io::join_url(parts);
}

void AppState::set_tab(const std::string &tab) {
  const std::string t = known_tab(tab) ? tab : "";
  if (t == tab_)
    return;
  tab_ = t;
  update_url_query();
}

void AppState::set_free_knobs(const std::string &free) {
  if (free == free_)
    return;
  free_ = free;
  update_url_query();
}

void AppState::pin() {
  pin_user(user_);
}

void AppState::pin_user(const json &user) {
  pinned_ = evaluate(user);
  update_url_query();
}

void AppState::swap_pin() {
  if (!pinned_)
    return;
  const json was = user_;
  startup_error_.reset();
  url_issues_.clear();
  user_ = pinned_->user;
  pinned_ = evaluate(was);
  notice_.clear();
  recompute();
}

void AppState::unpin() {
  pinned_.reset();
  update_url_query();
}

View AppState::view() const {
  // The mode as written (also while the configuration does not parse), else the last parsed.
  std::string mode = io::workload_mode_of(effective_);
  if (mode.empty() && view_config_)
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
  // Nothing resolved yet (a link that does not parse, opened cold): the section's preset
  // still says what its rows hold, rather than zeros.
  if (const std::string base = preset_base(section);
      !base.empty() && (section == "model" || section == "hardware" || section == "cluster")) {
    json preset;
    if (!guarded([&] { preset = io::preset_json(section, base, section); }) && preset.is_object() &&
        preset.contains(ptr))
      return preset.at(ptr);
  }
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
  url_issues_.clear();    // and from the link: the address bar follows the state again
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

void AppState::rebase_scenario() {
  if (scenario_.empty())
    return;
  // Back to "scenario + overrides": a short URL that still names where it started from.
  json base;
  if (!guarded([&] { base = io::preset_json("scenario", scenario_, "scenario"); })) {
    for (const char *k : {"name", "source", "notes"})
      base.erase(k);
    json rebased = json{{"scenario", scenario_}};
    json diff = merge_diff(base, user_);
    // A section patched over the scenario's own preset needs no "base": the scenario's
    // preset is the base the patch merges into (io::expand_scenario).
    for (const char *sec : {"model", "hardware", "cluster"})
      if (base.contains(sec) && base.at(sec).is_string() && diff.contains(sec) &&
          diff.at(sec).is_object() && diff.at(sec).value("base", json()) == base.at(sec))
        diff[sec].erase("base");
    // The load given replaces the scenario's other one by itself: no null for it in the link.
    if (auto w = diff.find("workload"); w != diff.end())
      io::drop_replaced_load(*w);
    rebased.update(diff);
    user_ = rebased;
  }
  scenario_.clear();
}

void AppState::end_edit(const std::string &keep) {
  rebase_scenario();
  notice_.clear();
  recompute();
  repair_layout(keep);
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
  if (section == "workload")
    io::keep_one_load(sec, key);
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

void AppState::apply_overrides(const json &overrides) {
  begin_edit();
  json next = user_;
  if (!guarded([&] { next = io::apply_overrides(user_, overrides); }))
    user_ = next;
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
  // A setting that is not a planner knob, set to what the layout resolves to without it (its
  // default), leaves the configuration and the link: no "overlap_ep=false" in the URL.
  const bool knob = std::any_of(knobs().begin(), knobs().end(), [&](const KnobInfo &k) {
    return std::any_of(k.pins.begin(), k.pins.end(), [&](const char *pin) { return key == pin; });
  });
  if (!knob) {
    json without = user_;
    without["parallel"].erase(key);
    json a, b;
    if (!guarded([&] {
          a = io::to_json(resolve_layout(io::parse_config(user_)));
          b = io::to_json(resolve_layout(io::parse_config(without)));
        }) &&
        a == b)
      par.erase(key);
  }
  if (key == "tp" || key == "pp" || key == "cp")
    rederive_dp();
  end_edit(key);
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
  // Only what the importer reads travels (not token ids, transformers_version, ...).
  user_["model"] = json{{"hf_config", io::hf_config_used(hf_config)}};
  end_edit();
}

std::optional<FieldError> AppState::apply_hf_text(const std::string &text) {
  json hf;
  if (auto err = guarded([&] { hf = io::parse_json_text(text); }))
    return err;
  if (!hf.is_object())
    return FieldError{"", "expected a JSON object (the whole config.json)"};
  set_hf_model(hf);
  return std::nullopt;
}

json AppState::plan_parallel(const Config &c, const Plan &plan) const {
  const json cur = effective_.is_object() ? effective_.value("parallel", json::object()) : json();
  return io::applied_parallel(c, plan, cur);
}

namespace {
// Budget of one repair search: an eighth of the planner's (well under a second in the page).
constexpr i64 kRepairBudget = kPlanBudget / 8;

// The repair's widening steps, in order: each frees one more group of knobs (and what
// follows them, core/parallel/knobs); a step named as the knob just edited is skipped.
// Knobs are named by their parallel.* keys (core/schema/fields).
using RepairSteps = std::vector<std::pair<const char *, std::vector<const char *>>>;
const RepairSteps &repair_steps() {
  using P = ParallelSpec;
  using schema::parallel_key;
  static const RepairSteps t = [] {
    const char *dp = parallel_key<&P::dp>(), *mb = parallel_key<&P::microbatch>(),
               *vpp = parallel_key<&P::vpp>(), *cp = parallel_key<&P::cp>(),
               *kind = parallel_key<&P::cp_kind>(), *ep = parallel_key<&P::ep>(),
               *pp = parallel_key<&P::pp>(), *tp = parallel_key<&P::tp>();
    return RepairSteps{{dp, {dp}}, {mb, {mb}},      {vpp, {vpp}}, {cp, {cp, kind}},
                       {ep, {ep}}, {pp, {pp, vpp}}, {tp, {tp}}};
  }();
  return t;
}

std::string knob_change(const json &from, const json &to, const char *key) {
  const json a = from.contains(key) ? from.at(key) : json();
  const json b = to.contains(key) ? to.at(key) : json();
  if (a == b || b.is_null())
    return "";
  return std::string(key) + " " + (a.is_null() ? "(free)" : a.dump()) + " -> " + b.dump();
}
} // namespace

void AppState::repair_layout(const std::string &keep) {
  if (!error_ || error_->path.rfind("parallel", 0) != 0 || !view_config_)
    return;
  const Config &c = *view_config_;
  if (c.workload.mode != Mode::train && c.workload.mode != Mode::infer)
    return; // serving and tx8 layouts have their own planners
  const FieldError why = *error_;
  Config x = c;
  std::optional<Plan> best;
  PlanOptions o;
  o.top = 1;
  o.budget = kRepairBudget;
  for (const auto &[group, names] : repair_steps()) {
    if (keep == group)
      continue;
    for (const char *name : names)
      free_knob(*knob_named(name), x.parallel);
    PlanResult r;
    if (guarded([&] { r = rl::plan(x, o); }))
      continue;
    if (!r.plans.empty()) {
      best = r.plans.front();
      break;
    }
    if (!best && !r.infeasible.empty() && r.infeasible.front().kind == "memory") {
      // Legal but too big: kept in case no freer search finds one that fits.
      Config y = x;
      y.parallel = r.infeasible.front().parallel;
      Plan p;
      if (!guarded([&] { p.estimate = rl::estimate(y, false); })) {
        p.parallel = r.infeasible.front().parallel;
        best = p;
      }
    }
  }
  if (!best)
    return; // nothing legal within reach: the error stays on show
  const json before = effective_.contains("parallel") ? effective_.at("parallel") : json::object();
  const json after = plan_parallel(c, *best);
  begin_edit();
  if (after.empty())
    user_.erase("parallel");
  else
    user_["parallel"] = after;
  rebase_scenario();
  recompute();
  std::string changes;
  for (const KnobInfo &k : knobs()) {
    const std::string ch = knob_change(before, after, k.pins.front());
    if (!ch.empty())
      changes += (changes.empty() ? "" : ", ") + ch;
  }
  notice_ = "Layout adjusted (" + why.text() + "): " + (changes.empty() ? "re-planned" : changes) +
            (estimate_ && !estimate_->memory.fits ? "; no layout fits in memory" : "") +
            ". The planner's fastest with the pinned knobs kept.";
}

i64 AppState::device_step() const {
  if (!view_config_)
    return 1;
  // (a node on every cluster: NVL72 racks are whole trays, any number of them)
  return std::max<i64>(1, view_config_->cluster.devices_per_node);
}

i64 AppState::step_devices(i64 from, int direction) const {
  if (!view_config_ || direction == 0)
    return 0;
  Config y = *view_config_;
  const i64 node = device_step();
  const auto legal = [&](i64 n) {
    y.cluster.devices = n;
    y.parallel.dp.reset(); // a pinned dp follows the device count (rederive_dp)
    return !guarded([&] { resolve_layout(y); });
  };
  // Whole nodes above one node; divisors of the node below it.
  i64 n = from;
  for (int tries = 0; tries < 4096; ++tries) {
    if (direction > 0)
      n = n < node ? n + 1 : (n / node + 1) * node;
    else
      n = n <= node ? n - 1 : ((n - 1) / node) * node;
    if (n < 1 || n > (i64{1} << 24))
      return 0;
    if ((n >= node ? n % node == 0 : node % n == 0) && legal(n))
      return n;
  }
  return 0;
}

} // namespace rl::web
