// ridgeline web: the app state. The user's configuration JSON (preset names + overrides,
// exactly what the URL encodes) is the single source of truth; the parsed Config, the
// Estimate (train, infer) or the tx8 mapping (tx8-op, video) and the error are derived from
// it after every edit.
#pragma once

#include "core/config.hpp"
#include "core/estimate/estimate.hpp"
#include "core/planner/planner.hpp"
#include "core/serve/simulate.hpp"
#include "core/tx8/request.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace rl::web {

using json = nlohmann::json;

// An expected failure: the JSON path of the offending field and the reason.
struct FieldError {
  std::string path;
  std::string message;
  std::string text() const { return path.empty() ? message : path + ": " + message; }
};

// The scenario the page opens with when the URL holds no state.
inline constexpr const char *kDefaultScenario = "llama3-70b-h100-1024";

// Which set of panels the configuration calls for: training, serving, or the tx8 mapper
// (workload modes tx8-op and video).
enum class View { train, infer, tx8, serve };

// One configuration evaluated: parsed, then estimated, mapped (tx8) or simulated (serve) by
// its mode. The page's current state and a pinned one (compare mode) are both this.
struct Evaluation {
  json user = json::object();      // as the user holds it (what the URL encodes)
  json effective = json::object(); // user with a "scenario" preset expanded
  std::optional<Config> config;    // parsed (also when the estimate failed)
  json resolved = json::object();  // config, fully resolved
  std::optional<Estimate> estimate;
  std::optional<tx8::Tx8Result> tx8;
  std::optional<ServeResult> serve;
  std::optional<FieldError> error;
  double seconds = 0; // wall time of the estimate, mapping or simulation
  bool ok() const { return !error && (estimate || tx8 || serve); }
};
// defer: a serve or tx8 configuration is parsed but not simulated or mapped (the page steps
// that work over frames: AppState::advance).
Evaluation evaluate(const json &user, bool defer = false);

// A page tab a link can name (tab=...): the training and inference tabs, the serving ones and
// the compare view.
bool known_tab(const std::string &tab);

class AppState {
public:
  // Reads the URL state; no state -> the default scenario. Parameters that do not decode or
  // that the schema rejects are dropped and listed in url_issues() (the rest of the link
  // applies); a link with nothing usable falls back to the default scenario and keeps the
  // reason in startup_error(). The page parameters tab= and pin= set the tab and the pin.
  void load_from_url(const std::string &url_state);
  void load_scenario(const std::string &name);
  // The parameters of the opening link that were dropped, with the reason.
  const std::vector<FieldError> &url_issues() const { return url_issues_; }
  void dismiss_url_issues() { url_issues_.clear(); }

  // [SECTION] derived views
  const json &user() const { return user_; }
  // user() with a "scenario" preset merged in (what the fields show as overrides).
  const json &effective() const { return effective_; }
  // The configuration last parsed without error (the current one when error() is a layout
  // error), and its fully resolved JSON (presets expanded, defaults filled).
  const std::optional<Config> &view_config() const { return view_config_; }
  const json &view_resolved() const { return view_resolved_; }
  // The estimate of the current configuration, or nothing when it has an error.
  const std::optional<Estimate> &estimate() const { return estimate_; }
  // The last estimate that succeeded (shown dimmed while the current config has an error).
  const std::optional<Estimate> &last_good() const { return last_good_; }
  const std::optional<Config> &last_good_config() const { return last_good_config_; }
  // The tx8 mapping of the current configuration (modes tx8-op, video), the last that
  // succeeded and its configuration.
  const std::optional<tx8::Tx8Result> &tx8() const { return tx8_; }
  const std::optional<tx8::Tx8Result> &last_good_tx8() const { return last_good_tx8_; }
  const std::optional<Config> &last_good_tx8_config() const { return last_good_tx8_config_; }
  View view() const;
  // The serving simulation of the current configuration (mode serve), the last that
  // succeeded and its configuration.
  const std::optional<ServeResult> &serve() const { return serve_; }
  const std::optional<ServeResult> &last_good_serve() const { return last_good_serve_; }
  // A serving simulation or a tx8 mapping in progress (spread over frames: advance()).
  bool busy() const { return serve_running_.has_value() || tx8_running_.has_value(); }
  double busy_progress() const;
  // A little more of the work in progress (`passes` scheduler passes of a simulation, or one
  // scheme of a tx8 mapping); its result once it is over.
  void advance(i64 passes);
  // Runs what is pending to the end (the page's first frame, tests).
  void finish_pending();
  void cancel_pending();
  const std::optional<Config> &last_good_serve_config() const { return last_good_serve_config_; }
  const std::optional<FieldError> &error() const { return error_; }
  const std::optional<FieldError> &startup_error() const { return startup_error_; }
  void dismiss_startup_error() { startup_error_.reset(); }
  // The URL query of user() plus the page parameters (tab, pin); empty until the
  // configuration parses once.
  const std::string &url_query() const { return url_query_; }
  // The configuration alone as text (a cache key: the URL also carries the tab and the pin).
  std::string config_key() const { return user_.dump(); }
  // The tab the link names ("" for the default); the page writes the open tab here.
  const std::string &tab() const { return tab_; }
  void set_tab(const std::string &tab);
  // The planner's freed knobs as the link carries them (free=all or free=tp,pp,...; "" none).
  const std::string &free_knobs() const { return free_; }
  void set_free_knobs(const std::string &free);
  // What the last edit changed on its own to keep the layout legal ("" when nothing).
  const std::string &notice() const { return notice_; }
  void dismiss_notice() { notice_.clear(); }

  // [SECTION] compare mode: a pinned configuration evaluated beside the current one.
  void pin();                      // pins the current configuration
  void pin_user(const json &user); // pins a given configuration (from a link)
  void unpin();
  // The pinned configuration becomes the current one and the current one the pin.
  void swap_pin();
  const std::optional<Evaluation> &pinned() const { return pinned_; }
  // Wall time of the last estimate (or tx8 mapping).
  double estimate_seconds() const { return estimate_seconds_; }

  // A field's value as displayed: the user's override when present, else the resolved value.
  // section: model | hardware | cluster | workload; key: a dotted path inside it.
  json field(const std::string &section, const std::string &key) const;
  // "llama3-70b", "llama3-70b (modified)", "custom", "Hugging Face config.json".
  std::string preset_label(const std::string &section) const;
  // The preset a section starts from ("" when it is a plain object or an hf_config).
  std::string preset_base(const std::string &section) const;
  // A parallel knob as the user set it (nothing when free).
  std::optional<json> parallel_knob(const std::string &key) const;

  // [SECTION] edits (each one recomputes; the URL follows)
  void set_preset(const std::string &section, const std::string &name);
  // Sets a field of model | hardware | cluster, keeping the preset as "base".
  void set_field(const std::string &section, const std::string &key, const json &value);
  void set_workload(const json &workload);
  void set_parallel(const std::string &key, const json &value);
  void erase_parallel(const std::string &key);
  // Replaces the whole parallel object (a plan or a tx8 scheme applied).
  void set_parallel_object(const json &parallel);
  // The parallel object a plan writes (io::applied_parallel over the configuration's own).
  json plan_parallel(const Config &c, const Plan &plan) const;
  // Devices one step up (+1) or down (-1) from `from` that keep the layout legal: a multiple
  // of the node size (or a divisor of it) that tp x pp x cp divides and whose dp divides the
  // batch (0 when none within reach).
  i64 step_devices(i64 from, int direction) const;
  // The unit the device count steps by: a node, or on NVL72 racks a compute tray (a job may
  // hold part of each rack); 1 without a resolved configuration.
  i64 device_step() const;
  // Calibrated fields ({"hardware.gemm_efficiency": 0.8, ...}, io::calibrated_overrides) set
  // over the configuration's presets (a preset name becomes {"base": name, ...}).
  void apply_overrides(const json &overrides);
  // model = {"hf_config": ...}.
  void set_hf_model(const json &hf_config);
  // A pasted config.json as text: its JSON syntax error, or it becomes the model (the layout
  // then repaired if the new model forbids it).
  std::optional<FieldError> apply_hf_text(const std::string &text);

private:
  // Edits work on the plain configuration; a "scenario" preset is expanded first and the
  // result written back as the scenario plus a merge patch of what changed.
  void begin_edit();
  // A dp the configuration pins follows tp, pp, cp and the device count (dp = devices /
  // (tp pp cp)); one that is free stays free.
  void rederive_dp();
  // `keep`: the knob the edit set (never changed by the layout repair).
  void end_edit(const std::string &keep = "");
  void rebase_scenario();
  void recompute();
  // After an edit that leaves the layout illegal (a parallel.* error), frees the pinned knobs
  // one group at a time (dp, micro-batch, vpp, cp, ep, pp, tp; never `keep`) until the planner
  // finds a legal layout, applies its best and says so in notice().
  void repair_layout(const std::string &keep);
  void update_url_query();

  json user_ = json::object();
  json effective_ = json::object();
  std::optional<Config> view_config_;
  json view_resolved_ = json::object();
  std::optional<Estimate> estimate_, last_good_;
  std::optional<Config> last_good_config_;
  std::optional<tx8::Tx8Result> tx8_, last_good_tx8_;
  std::optional<Config> last_good_tx8_config_;
  std::optional<ServeResult> serve_, last_good_serve_;
  std::optional<ServeSimulation> serve_running_;
  std::optional<tx8::Tx8Solve> tx8_running_;
  double serve_elapsed_ = 0; // wall time spent on the running simulation so far
  std::optional<Config> last_good_serve_config_;
  std::optional<FieldError> error_, startup_error_;
  std::vector<FieldError> url_issues_;
  std::optional<Evaluation> pinned_;
  std::string tab_, free_, notice_;
  std::string url_query_;
  std::string valid_query_; // the configuration's query when it last evaluated without error
  std::string scenario_;    // during an edit: the scenario the configuration started from
  double estimate_seconds_ = 0;
};

// The page's one instance (the embind API reads it).
AppState &app_state();

} // namespace rl::web
