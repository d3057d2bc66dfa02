// ridgeline web: the panels of the page. Each draws into the current ImGui window; the fixed
// layout that places them (app_frame.cpp) owns the windows.
#pragma once

#include "core/io/calibration_json.hpp"
#include "core/planner/planner.hpp"
#include "core/serve/load_sweep.hpp"
#include "core/serve/serve_planner.hpp"
#include "web/app_state.hpp"
#include "web/widgets.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rl::web {

// The planner panel's own state: what the search frees beyond the configuration, and the
// last search (re-run only when the configuration or these choices change).
struct PlannerUi {
  std::set<std::string> freed; // knobs the configuration pins that the search frees anyway
  bool link_read = false;      // freed was set from the link's free= once
  int top = 10;
  Objective objective = Objective::step; // what the plans are ranked by (training)
  double headroom_gb = -1;               // memory each plan leaves free; < 0: the default
  int export_row = -1;                   // the plan whose launch the right-click popup shows
  bool search = false;                   // "Search" pressed this frame
  std::string signature;                 // configuration + freed + top of the last search
  std::optional<PlanResult> result;
  std::optional<PlanSearch> running; // a search in progress, stepped once per frame
  // "What should I run on" (workload.hardware_options / device_options): every choice's
  // search, a choice at a time.
  std::optional<JointPlanSearch> joint_running;
  std::optional<JointPlanResult> joint;
  bool cancelled = false; // the result is what a cancelled search had found
  double started = 0;     // ImGui time the running search began
  std::string error;
  double seconds = 0;             // wall time of the last search
  std::vector<std::size_t> order; // rows in the table's sort order
  bool resort = true;
};

// The serving curve (rl::decode_curve: the serving tab and the roofline's decode points),
// kept until the configuration changes.
struct SweepCache {
  std::string key;
  DecodeCurve curve;
};

// The serving tabs' state: the rate curve and the last deployment plan.
struct ServeUi {
  std::string sweep_key, sweep_error;
  LoadSweep sweep;                 // the points simulated so far (and whether per client)
  std::vector<double> sweep_rates; // the loads of the curve; one simulated per frame
  std::size_t sweep_next = 0;
  std::string plan_key, plan_error;
  std::optional<ServePlanSearch> search; // a plan in progress (a candidate per frame)
  std::optional<ServePlanResult> plan;
  double plan_seconds = 0;
  int export_row = -1; // the deployment whose launch the right-click popup shows
};

// The Calibrate tab: the measurement files dropped or pasted, and the last fit (re-run when
// the files or the configuration change).
struct CalibrateUi {
  std::vector<io::MeasurementFile> files;
  std::string paste_name = "pasted.txt", paste_text;
  std::string key, error;
  std::optional<CalibrationResult> result;
  // The fit in progress, a piece a frame (progress bar and Cancel); dropped when cancelled.
  std::optional<io::CalibrationJob> running;
  bool cancelled = false;
  bool applied = false; // the fit shown is the one Apply set (its "before" the old values)
  int shown = 0;        // the parameter whose residuals are drawn
};
// Files the page received (a drop on the canvas, the file picker, Module.calibrateAddFile):
// the Calibrate tab takes them on its next frame.
std::vector<io::MeasurementFile> &calibrate_inbox();
// Why the last file offered was refused (over the size limit), until the tab shows it.
std::string &calibrate_inbox_error();

// Page-local UI state that is not part of the configuration (never in the URL).
struct UiState {
  std::string hf_text;  // the pasted Hugging Face config.json
  std::string hf_error; // its JSON syntax error, if any
  bool copied = false;  // "link copied" feedback
  double copied_at = 0;
  std::string open_tab; // a tab to select once ("#tab=planner" on the page URL)
  PlannerUi planner;
  bool serving_total = false; // serving curve: tokens/s of all chips instead of per chip
  SweepCache sweep;
  ServeUi serve;
  CalibrateUi calibrate;
  // The share of the right column's height Results takes over the tabs under it, once the
  // user drags the splitter between them; until then (< 0) it follows the open tab (the
  // planner gets most of the height, the other tabs less than half).
  float results_share = -1;
};

// [SECTION] inputs (panels_inputs.cpp)
void draw_model_section(AppState &s, UiState &ui);
void draw_hardware_section(AppState &s);
void draw_workload_section(AppState &s);
void draw_parallel_section(AppState &s);

// [SECTION] outputs
// The parts of the step-time and memory bars (Results, and both sides of the Compare tab).
std::vector<ui::Segment> step_time_segments(const Config &c, const Estimate &e);
std::vector<ui::Segment> memory_segments(const Config &c, const Estimate &e);

void draw_results_panel(const AppState &s);               // panels_results.cpp
void draw_pipeline_panel(const AppState &s);              // panel_pipeline.cpp
void draw_roofline_panel(const AppState &s, UiState &ui); // panel_roofline.cpp
void draw_serving_panel(AppState &s, UiState &ui);        // panel_serving.cpp
void draw_planner_panel(AppState &s, UiState &ui);        // panel_planner.cpp
void draw_tx8_panel(AppState &s);                         // panel_tx8.cpp
void draw_serve_results(const AppState &s);               // panel_serve.cpp
void draw_serve_curve_panel(AppState &s, UiState &ui);    // panel_serve.cpp
void draw_deployments_panel(AppState &s, UiState &ui);    // panel_serve.cpp
void draw_compare_panel(AppState &s);                     // panel_compare.cpp
void draw_calibrate_panel(AppState &s, UiState &ui);      // panel_calibrate.cpp

// Decode steps over rl::sweep_batches at `context` tokens (cached in `cache`).
const DecodeCurve &decode_sweep(const AppState &s, SweepCache &cache);

// [SECTION] the whole page (app_frame.cpp)
void draw_app(AppState &s, UiState &ui);

} // namespace rl::web
