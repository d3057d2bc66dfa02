// ridgeline web: the panels of the page. Each draws into the current ImGui window; the fixed
// layout that places them (app_frame.cpp) owns the windows.
#pragma once

#include "web/app_state.hpp"

#include <string>

namespace rl::web {

// Page-local UI state that is not part of the configuration (never in the URL).
struct UiState {
  std::string hf_text;  // the pasted Hugging Face config.json
  std::string hf_error; // its JSON syntax error, if any
  bool copied = false;  // "link copied" feedback
  double copied_at = 0;
};

// [SECTION] inputs (panels_inputs.cpp)
void draw_model_section(AppState &s, UiState &ui);
void draw_hardware_section(AppState &s);
void draw_workload_section(AppState &s);
void draw_parallel_section(AppState &s);

// [SECTION] outputs
void draw_results_panel(const AppState &s);  // panels_results.cpp
void draw_pipeline_panel(const AppState &s); // panel_pipeline.cpp

// [SECTION] the whole page (app_frame.cpp)
void draw_app(AppState &s, UiState &ui);

} // namespace rl::web
