// ridgeline web: the JavaScript API (embind). Thin wrappers over core/jobs/api.hpp, the same
// JSON text the CLI prints: estimate(json), plan(json[, top]), tx8(json[, presets]),
// sweep(json), resolve, encodeUrl, decodeUrl, presets, preset; plus the page's own state for
// scripts and the e2e test.
#include "core/jobs/api.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/readers.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/tx8_json.hpp"
#include "core/report/report.hpp"
#include "web/app_state.hpp"
#include "web/exports.hpp"
#include "web/layout_check.hpp"
#include "web/panels.hpp"
#include "web/platform.hpp"
#include "web/widgets.hpp"

#include <emscripten/bind.h>
#include <imgui.h>

#include <chrono>

namespace rl::web {
void run_frames(int n); // main.cpp
} // namespace rl::web

namespace {

// The JSON answer of `call`, with its wall time in answer[section].seconds (measured here:
// the core keeps no clock).
template <class F> std::string timed_answer(const char *section, F &&call) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out = call();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_object() && j.contains(section) && j.at(section).is_object()) {
    j[section]["seconds"] = s;
    return j.dump();
  }
  return out;
}

// api::plan with the CLI's default of 10 plans (`ridgeline plan CFG --json`).
std::string plan_top(const std::string &config_json, int top) {
  return timed_answer("stats", [&] { return rl::api::plan(config_json, top); });
}
std::string plan_default(const std::string &config_json) {
  return plan_top(config_json, 10);
}
// api::tx8 without the reference preset tilings (`ridgeline tx8 CFG --json`), and with them
// (`--presets`).
std::string tx8_presets(const std::string &config_json, bool presets) {
  return timed_answer("search", [&] { return rl::api::tx8(config_json, presets); });
}
std::string tx8_default(const std::string &config_json) {
  return tx8_presets(config_json, false);
}

// The app's current configuration, resolved (presets expanded, defaults filled).
std::string current_config() {
  return rl::api::resolve(rl::web::app_state().user().dump());
}

// The app's current configuration as the user holds it (what the URL encodes).
std::string current_user_config() {
  return rl::web::app_state().user().dump();
}

// The app's own estimate of its current configuration (or {"error": ...}).
std::string current_estimate() {
  const auto &s = rl::web::app_state();
  if (s.estimate())
    return rl::io::to_json(*s.estimate()).dump();
  const auto &e = s.error();
  return rl::io::error_json(e ? e->path : "", e ? e->message : "no estimate").dump();
}

// The app's own tx8 mapping of its current configuration (modes tx8-op, video; or
// {"error": ...}).
std::string current_tx8() {
  const auto &s = rl::web::app_state();
  if (s.tx8())
    return rl::io::to_json(*s.tx8()).dump();
  const auto &e = s.error();
  return rl::io::error_json(e ? e->path : "", e ? e->message : "no tx8 mapping").dump();
}

// The app's own serving simulation of its current configuration (mode serve; or
// {"error": ...}).
std::string current_serve() {
  const auto &s = rl::web::app_state();
  if (s.serve())
    return rl::io::to_json(*s.serve()).dump();
  const auto &e = s.error();
  return rl::io::error_json(e ? e->path : "", e ? e->message : "no serving simulation").dump();
}

// {"error": {path, message} | null, "url_error": ... | null}: the current configuration's
// error, and why the URL the page was opened with was rejected (then the default is shown).
std::string current_status() {
  const auto &s = rl::web::app_state();
  const auto as_json = [](const std::optional<rl::web::FieldError> &e) {
    return e ? nlohmann::json{{"path", e->path}, {"message", e->message}} : nlohmann::json();
  };
  nlohmann::json issues = nlohmann::json::array();
  for (const auto &i : s.url_issues())
    issues.push_back(as_json(i));
  return nlohmann::json{{"error", as_json(s.error())},
                        {"url_error", as_json(s.startup_error())},
                        {"url_issues", issues},
                        {"notice", s.notice()},
                        {"tab", s.tab()},
                        {"pinned", s.pinned().has_value()}}
      .dump();
}

// {"config", "url", "estimate" | "serve" | "tx8", "error"}: what "Save JSON" downloads.
std::string current_result() {
  return rl::web::ui::result_json(rl::web::app_state());
}

// The page's own comparison of the pinned and the current result (rl::compare_rows), or [].
std::string current_compare() {
  const auto &s = rl::web::app_state();
  nlohmann::json out = nlohmann::json::array();
  if (!s.pinned() || !s.pinned()->estimate || !s.estimate())
    return out.dump();
  for (const auto &r :
       rl::compare_rows(rl::report_rows(*s.pinned()->estimate), rl::report_rows(*s.estimate())))
    out.push_back({{"section", r.section},
                   {"label", r.label},
                   {"pinned", r.before},
                   {"current", r.after},
                   {"change", r.relative()},
                   {"verdict", r.verdict()}});
  return out.dump();
}

// What the "Apply as model" button of the config.json box does with pasted text ({"error":
// ...} when it is not a JSON object).
std::string ui_apply_hf_config(const std::string &text) {
  const auto err = rl::web::app_state().apply_hf_text(text);
  return err ? rl::io::error_json(err->path, err->message).dump() : "{}";
}

// [x0, y0, x1, y1] of a form widget by its path ("cluster.devices", "pin"), or null: where
// the e2e test clicks.
std::string widget_rect(const std::string &name) {
  const auto r = rl::web::ui::widget_rect(name);
  return r ? nlohmann::json(*r).dump() : "null";
}

// A measurement file for the Calibrate tab (a drop on the canvas, the file picker, a script):
// `size` is the file's size in bytes, checked against the readers' limit before its text is
// used (the page does not read a larger file at all and passes "").
std::string calibrate_add_file(const std::string &name, const std::string &text, double size) {
  if (size > static_cast<double>(rl::io::kMaxMeasurementBytes)) {
    const std::string msg =
        "is " + std::to_string(static_cast<long long>(size)) + " bytes; the limit is 64 MiB";
    rl::web::calibrate_inbox_error() = name + ": " + msg;
    return rl::io::error_json(name, msg).dump();
  }
  rl::web::calibrate_inbox().push_back({name, text});
  return "{}";
}

// Dear ImGui frames drawn so far: the e2e flows wait on the app's frames, not the browser's.
int imgui_frame() {
  return ImGui::GetCurrentContext() ? ImGui::GetFrameCount() : 0;
}

std::string current_url() {
  return rl::web::platform::page_url_with_query(rl::web::app_state().url_query());
}

} // namespace

EMSCRIPTEN_BINDINGS(ridgeline) {
  emscripten::function("estimate", &rl::api::estimate);
  emscripten::function("plan", &plan_default);
  emscripten::function("plan", &plan_top);
  emscripten::function("tx8", &tx8_default);
  emscripten::function("tx8", &tx8_presets);
  emscripten::function("sweep", &rl::api::sweep);
  emscripten::function("serve", &rl::api::serve);
  emscripten::function("serveSweep", &rl::api::serve_sweep);
  emscripten::function("exportLaunch", &rl::api::export_launch);
  emscripten::function("resolve", &rl::api::resolve);
  emscripten::function("encodeUrl", &rl::api::encode_url);
  emscripten::function("decodeUrl", &rl::api::decode_url);
  emscripten::function("presets", &rl::api::presets);
  emscripten::function("preset", &rl::api::preset);
  emscripten::function("currentConfig", &current_config);
  emscripten::function("currentUserConfig", &current_user_config);
  emscripten::function("currentEstimate", &current_estimate);
  emscripten::function("currentTx8", &current_tx8);
  emscripten::function("currentServe", &current_serve);
  emscripten::function("currentStatus", &current_status);
  emscripten::function("currentUrl", &current_url);
  emscripten::function("currentCompare", &current_compare);
  emscripten::function("uiApplyHfConfig", &ui_apply_hf_config);
  emscripten::function("widgetRect", &widget_rect);
  emscripten::function("layoutProblems", &rl::web::layout_problems_json);
  emscripten::function("windowScroll", &rl::web::window_scroll_json);
  emscripten::function("calibrateAddFile", &calibrate_add_file);
  emscripten::function("calibrate", &rl::api::calibrate);
  emscripten::function("imguiFrame", &imgui_frame);
  emscripten::function("runFrames", &rl::web::run_frames);
  emscripten::function("currentResult", &current_result);
  // Export of a table ("csv", "markdown") or plot ("svg", "png") by its id, as the page's
  // buttons do: requestExport queues it for the next frame, exportResult reads it after.
  emscripten::function("requestExport", &rl::web::exports::request);
  emscripten::function("exportResult", &rl::web::exports::result);
}
