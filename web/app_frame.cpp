// ridgeline web: the fixed page layout. Panels tile the window (no floating windows):
//   top bar | inputs column (left) | right column | status line.
// The right column follows the workload: training and inference show Results above a tabbed
// area (train: Pipeline timeline | Roofline | Planner; infer: Serving curve | Roofline |
// Planner); the tx8 modes (tx8-op, video) give the whole column to the tx8 mapping.
#include "core/io/presets.hpp"
#include "core/io/units.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/platform.hpp"
#include "web/widgets.hpp"

#include <algorithm>

namespace rl::web {

namespace {

constexpr ImGuiWindowFlags kPanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;

void place(float x, float y, float w, float h) {
  ImGui::SetNextWindowPos(ImVec2(x, y));
  ImGui::SetNextWindowSize(ImVec2(w, h));
}

void draw_top_bar(AppState &s, UiState &ui) {
  ImGui::TextColored(ui::color::accent, "ridgeline");
  ImGui::SameLine();
  ui::text_dim("distributed transformer planner");
  ImGui::SameLine(0, 28);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Scenario");
  ImGui::SameLine();
  static const std::vector<std::string> scenarios = io::preset_names("scenario");
  const json &u = s.user();
  const bool from_scenario = u.contains("scenario") && u.at("scenario").is_string();
  const std::string current =
      from_scenario ? u.at("scenario").get<std::string>() + (u.size() > 1 ? " (edited)" : "")
                    : "(custom)";
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  ui::note_combo_fit("scenario", current);
  if (ImGui::BeginCombo("##scenario", current.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const auto &name : scenarios)
      if (ImGui::Selectable(name.c_str(), name == current))
        s.load_scenario(name);
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Reset"))
    s.load_scenario(kDefaultScenario);
  ImGui::SameLine();
  if (ImGui::Button("Copy link")) {
    ImGui::SetClipboardText(platform::page_url_with_query(s.url_query()).c_str());
    ui.copied = true;
    ui.copied_at = ImGui::GetTime();
  }
  if (ui.copied) {
    ImGui::SameLine();
    ui::text_colored(ui::color::ok, "copied");
    if (ImGui::GetTime() - ui.copied_at > 2.0)
      ui.copied = false;
  }
  ImGui::SameLine();
  ui::result_json_button(s);
  if (const std::optional<Config> &c = s.view_config()) {
    ImGui::SameLine();
    ui::launch_export_button(*c);
  }
  ImGui::SameLine();
  // Compare mode: the pinned result stays beside every later edit (Compare tab, pin= in the
  // URL).
  if (!s.pinned()) {
    const bool pin = ImGui::Button("Pin");
    ui::note_rect("pin");
    if (pin) {
      s.pin();
      ui.open_tab = "compare";
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Pin this result, then edit: the Compare tab shows both side by side "
                        "with the change of every number. The pin travels in the link.");
  } else {
    if (ImGui::Button("Unpin"))
      s.unpin();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Stop comparing with the pinned result.");
  }
  // The theme follows the system until picked here.
  const char *theme = ui::light_theme() ? "Dark" : "Light";
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + 8, ImGui::GetWindowContentRegionMax().x -
                                                           ImGui::CalcTextSize(theme).x -
                                                           ImGui::GetStyle().FramePadding.x * 2));
  if (ImGui::SmallButton(theme))
    ui::apply_theme(!ui::light_theme());
}

// What the link or the last edit did on its own: dropped parameters, a re-planned layout.
void draw_notices(AppState &s) {
  if (!s.url_issues().empty()) {
    ui::text_colored(ui::color::warn, "Link: kept the rest, ignored:");
    for (const auto &e : s.url_issues())
      ui::text_colored(ui::color::warn, "  " + e.text());
    if (ImGui::SmallButton("OK##issues"))
      s.dismiss_url_issues();
    ImGui::Separator();
  }
  if (!s.notice().empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(ui::color::accent, "%s", s.notice().c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::SmallButton("OK##notice"))
      s.dismiss_notice();
    ImGui::Separator();
  }
}

void draw_status_line(const AppState &s) {
  if (const auto &err = s.error()) {
    ui::text_colored(ui::color::error, "Error  " + err->text());
  } else if (!s.url_issues().empty()) {
    ui::text_colored(ui::color::warn,
                     "Link partly applied: " + std::to_string(s.url_issues().size()) +
                         " parameter(s) ignored (see Configuration)");
  } else if (const auto &st = s.startup_error()) {
    ui::text_colored(ui::color::error,
                     "URL rejected  " + st->text() + "  (showing " + kDefaultScenario + ")");
  } else {
    ui::text_colored(ui::color::ok, "OK");
    if (s.estimate_seconds() > 0) { // 0 under a headless browser's frozen clock
      ImGui::SameLine();
      ui::text_dim(std::string(s.view() == View::tx8 ? "tx8 mapping in " : "estimate in ") +
                   units::seconds(s.estimate_seconds()));
    }
  }
  ImGui::SameLine();
  const std::string q = "?" + s.url_query();
  const float w = ImGui::CalcTextSize(q.c_str()).x;
  const float avail = ImGui::GetContentRegionAvail().x;
  // The URL state, right-aligned (cut on the left when it is longer than the room).
  if (w < avail - 20) {
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - w);
    ui::text_dim(q);
  } else if (avail > 80) {
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 20);
    ImGui::PushClipRect(ImGui::GetCursorScreenPos(),
                        ImVec2(ImGui::GetCursorScreenPos().x + avail - 20,
                               ImGui::GetCursorScreenPos().y + ImGui::GetTextLineHeight()),
                        true);
    ui::text_dim(q);
    ImGui::PopClipRect();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The whole state lives in the URL: copy it to share this view.");
}

// The tabbed area under Results. A tab named in `ui.open_tab` is selected once; the open tab
// goes into the URL (tab=...), the first one (the default) as nothing.
void draw_analysis_tabs(AppState &s, UiState &ui, View view) {
  if (!ImGui::BeginTabBar("analysis"))
    return;
  std::string first, open;
  const auto tab = [&](const char *label, const char *key) {
    const bool pick = !ui.open_tab.empty() && ui.open_tab.rfind(key, 0) == 0;
    const ImGuiTabItemFlags f = pick ? ImGuiTabItemFlags_SetSelected : 0;
    if (first.empty())
      first = key;
    const bool shown = ImGui::BeginTabItem(label, nullptr, f);
    if (shown)
      open = key;
    return shown;
  };
  const auto follow_url = [&] {
    // On the frame a link opens a tab, the tab the link named stays.
    if (open.empty() || (s.tab().rfind(open, 0) == 0 && !ui.open_tab.empty()))
      return;
    s.set_tab(open == first ? "" : open);
  };
  if (view == View::train && tab("Pipeline timeline", "pipeline")) {
    draw_pipeline_panel(s);
    ImGui::EndTabItem();
  }
  if (view == View::infer && tab("Serving curve", "serving")) {
    draw_serving_panel(s, ui);
    ImGui::EndTabItem();
  }
  if (view == View::serve) {
    if (tab("Latency vs load", "serving")) {
      draw_serve_curve_panel(s, ui);
      ImGui::EndTabItem();
    }
    if (tab("Deployments", "planner")) {
      draw_deployments_panel(s, ui);
      ImGui::EndTabItem();
    }
    if (tab("Compare", "compare")) {
      draw_compare_panel(s);
      ImGui::EndTabItem();
    }
    if (tab("Calibrate", "calibrate")) {
      draw_calibrate_panel(s, ui);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
    follow_url();
    return;
  }
  if (tab("Roofline", "roofline")) {
    draw_roofline_panel(s, ui);
    ImGui::EndTabItem();
  }
  if (tab("Planner", "planner")) {
    draw_planner_panel(s, ui);
    ImGui::EndTabItem();
  }
  if (tab("Compare", "compare")) {
    draw_compare_panel(s);
    ImGui::EndTabItem();
  }
  if (tab("Calibrate", "calibrate")) {
    draw_calibrate_panel(s, ui);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
  follow_url();
}

// Results' share of the right column: the user's (dragged), else by the open tab. The
// planner's table of plans and its Pareto plot need the height; Results then keeps its
// summary (what runs, the layout, step and memory) at the top.
float results_share(const AppState &s, const UiState &ui, float body_h) {
  constexpr float kDefaultShare = 0.57f, kPlannerShare = 0.2f;
  const float summary = ImGui::GetTextLineHeightWithSpacing() * 5.5f; // Results' three lines
  const float lo = std::min(0.5f, summary / std::max(body_h, 1.0f));
  if (ui.results_share >= 0)
    return std::clamp(ui.results_share, lo, 0.9f);
  return s.tab().rfind("planner", 0) == 0 ? std::max(lo, kPlannerShare) : kDefaultShare;
}

// The bar between Results and the tabs under it: drag it to share the height differently,
// double-click it to go back to the share that follows the tab.
void draw_splitter(UiState &ui, float x, float top, float w, float body_h, float results_h) {
  constexpr float kGrip = 6.0f;
  place(x, top + results_h - kGrip / 2, w, kGrip);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
  ImGui::Begin("##splitter", nullptr,
               kPanelFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar |
                   ImGuiWindowFlags_NoBackground);
  ImGui::InvisibleButton("##split", ImVec2(w, kGrip));
  ui::note_rect("splitter");
  if (ImGui::IsItemHovered() || ImGui::IsItemActive())
    ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeNS);
  if (ImGui::IsItemActive())
    ui.results_share = (ImGui::GetIO().MousePos.y - top) / std::max(body_h, 1.0f);
  if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
    ui.results_share = -1;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Drag to share the height between Results and the tabs; double-click to "
                      "reset.");
  ImGui::End();
  ImGui::PopStyleVar(2);
}

} // namespace

void draw_app(AppState &s, UiState &ui) {
  ui::begin_frame_errors(s.error());
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const float bar_h = ImGui::GetFrameHeight() + ImGui::GetStyle().WindowPadding.y * 2;
  const float status_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().WindowPadding.y * 2;
  const float body_h = std::max(100.0f, size.y - bar_h - status_h);
  const float left_w = std::clamp(size.x * 0.3f, 384.0f, 470.0f);
  const float right_w = std::max(100.0f, size.x - left_w);
  const float results_h = std::floor(body_h * results_share(s, ui, body_h));

  place(0, 0, size.x, bar_h);
  ImGui::Begin("##topbar", nullptr,
               kPanelFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
  draw_top_bar(s, ui);
  ImGui::End();

  place(0, bar_h, left_w, body_h);
  ImGui::Begin("Configuration", nullptr, kPanelFlags);
  draw_notices(s);
  const ImGuiTreeNodeFlags open = ImGuiTreeNodeFlags_DefaultOpen;
  if (ImGui::CollapsingHeader("Model", open))
    draw_model_section(s, ui);
  if (ImGui::CollapsingHeader("Hardware & cluster", open))
    draw_hardware_section(s);
  if (ImGui::CollapsingHeader("Workload", open))
    draw_workload_section(s);
  if (ImGui::CollapsingHeader("Parallel layout", open))
    draw_parallel_section(s);
  ui::section_error(""); // anything no field showed (a top-level key, malformed JSON)
  ImGui::End();

  const View view = s.view();
  if (view == View::tx8) {
    place(left_w, bar_h, right_w, body_h);
    ImGui::Begin("tx8 mapping", nullptr, kPanelFlags | ImGuiWindowFlags_NoScrollbar);
    draw_tx8_panel(s);
    ImGui::End();
  } else {
    place(left_w, bar_h, right_w, results_h);
    ImGui::Begin("Results", nullptr, kPanelFlags | ImGuiWindowFlags_NoScrollbar);
    if (view == View::serve)
      draw_serve_results(s);
    else
      draw_results_panel(s);
    ImGui::End();

    place(left_w, bar_h + results_h, right_w, body_h - results_h);
    ImGui::Begin("##analysis", nullptr,
                 kPanelFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
    draw_analysis_tabs(s, ui, view);
    ImGui::End();
    draw_splitter(ui, left_w, bar_h, right_w, body_h, results_h); // over both
  }

  place(0, size.y - status_h, size.x, status_h);
  ImGui::Begin("##status", nullptr,
               kPanelFlags | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
  draw_status_line(s);
  ImGui::End();
}

} // namespace rl::web
