// ridgeline web: the Calibrate tab. Measurement files dropped on the page, chosen with the file
// picker or pasted are read and fitted from the current configuration (io::calibrate_files:
// the code behind `ridgeline calibrate`); each fitted parameter is shown with its residuals
// and a measured-against-predicted plot, and Apply sets the fitted fields over the
// configuration's presets, so the link carries them.
#include "core/error.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/readers.hpp"
#include "core/report/calibration_report.hpp"
#include "web/panels.hpp"
#include "web/platform.hpp"
#include "web/report_view.hpp"
#include "web/widgets.hpp"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace rl::web {

std::vector<io::MeasurementFile> &calibrate_inbox() {
  static std::vector<io::MeasurementFile> inbox;
  return inbox;
}

std::string &calibrate_inbox_error() {
  static std::string error;
  return error;
}

namespace {

// Measured (x) against predicted (y) on log axes with the y = x line and the band about it:
// a point outside the band is amber.
void residual_plot(const FittedParameter &p, float height) {
  const ImVec2 size(ImGui::GetContentRegionAvail().x, height);
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const ImVec2 b(a.x + size.x, a.y + size.y);
  ImGui::InvisibleButton("##residual_plot", size);
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->AddRect(a, b, ImGui::GetColorU32(ui::ink(0.25f)));
  double lo = INFINITY, hi = 0;
  for (const ComponentRow &r : p.residuals)
    for (const double v : {r.measured, r.predicted})
      if (v > 0) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (!(hi > 0))
    return;
  lo /= 1.3;
  hi *= 1.3;
  const float pad = 8;
  auto px = [&](double v) {
    return a.x + pad +
           static_cast<float>(std::log(v / lo) / std::log(hi / lo)) * (size.x - 2 * pad);
  };
  auto py = [&](double v) {
    return b.y - pad -
           static_cast<float>(std::log(v / lo) / std::log(hi / lo)) * (size.y - 2 * pad);
  };
  const ImU32 line = ImGui::GetColorU32(ui::ink(0.35f));
  dl->AddLine(ImVec2(px(lo), py(lo)), ImVec2(px(hi), py(hi)), line);
  dl->AddLine(ImVec2(px(lo), py(lo * (1 + p.band))), ImVec2(px(hi / (1 + p.band)), py(hi)),
              ImGui::GetColorU32(ui::ink(0.15f)));
  dl->AddLine(ImVec2(px(lo * (1 + p.band)), py(lo)), ImVec2(px(hi), py(hi / (1 + p.band))),
              ImGui::GetColorU32(ui::ink(0.15f)));
  const ImU32 ok = ImGui::GetColorU32(ImVec4(0.35f, 0.7f, 1.0f, 1.0f));
  const ImU32 warn = ImGui::GetColorU32(ImVec4(1.0f, 0.7f, 0.2f, 1.0f));
  const ImVec2 mouse = ImGui::GetMousePos();
  for (const ComponentRow &r : p.residuals) {
    const ImVec2 c(px(r.measured), py(r.predicted));
    dl->AddCircleFilled(c, 3.5f, std::fabs(r.error) > p.band ? warn : ok);
    if (ImGui::IsItemHovered() && std::fabs(mouse.x - c.x) < 5 && std::fabs(mouse.y - c.y) < 5)
      ImGui::SetTooltip("%s\nmeasured %.4g, predicted %.4g (%+.1f%%)", r.name.c_str(), r.measured,
                        r.predicted, 100 * r.error);
  }
  dl->AddText(ImVec2(a.x + pad, a.y + 2), ImGui::GetColorU32(ui::ink(0.6f)),
              "predicted (up) against measured (right), log scales; the line is y = x");
}

// What the fit depends on: the configuration and the files.
std::string fit_key(const AppState &s, const CalibrateUi &c) {
  std::string key = s.config_key();
  for (const auto &f : c.files)
    key += "\n" + f.name + ":" + std::to_string(f.text.size()) + ":" +
           std::to_string(std::hash<std::string>{}(f.text));
  return key;
}

// Starts a fit when the files or the configuration changed (not when Apply changed it): the
// job reads a file or fits a piece (~50 ms natively) a frame, so the page stays live.
void refit(AppState &s, CalibrateUi &c) {
  const std::string key = fit_key(s, c);
  if (key == c.key)
    return;
  c.applied = false;
  c.cancelled = false;
  c.key = key;
  c.result.reset();
  c.running.reset();
  c.error.clear();
  if (!c.files.empty())
    c.running.emplace(s.user(), c.files);
}

// One step of the fit in progress; its result or error once done.
void step_fit(CalibrateUi &c) {
  if (!c.running || c.running->step())
    return;
  try {
    c.result = c.running->result();
    c.shown = std::clamp(c.shown, 0, std::max(0, static_cast<int>(c.result->params.size()) - 1));
  } catch (const ConfigError &e) {
    c.error = e.path().empty() ? e.message() : e.path() + ": " + e.message();
  } catch (const std::exception &e) {
    c.error = std::string("internal error: ") + e.what();
  }
  c.running.reset();
}

} // namespace

void draw_calibrate_panel(AppState &s, UiState &ui) {
  CalibrateUi &c = ui.calibrate;
  for (auto &f : calibrate_inbox())
    c.files.push_back(std::move(f));
  calibrate_inbox().clear();
  if (!calibrate_inbox_error().empty()) {
    c.error = calibrate_inbox_error();
    c.key.clear();
    calibrate_inbox_error().clear();
  }
  ImGui::TextWrapped(
      "Drop your measurements on the page: nccl-tests output, GEMM / attention / element-wise "
      "sweeps and a layer profile (tools/measure), vLLM, SGLang or genai-perf serving results, "
      "Megatron-LM or "
      "torchtitan training logs. The current configuration is the base: its hardware and "
      "cluster are fitted, and logs and serving results are taken as runs of it. The same fit "
      "as `ridgeline calibrate`.");
  if (ImGui::Button("Choose files..."))
    platform::open_file_picker();
  ui::note_rect("calibrate.choose");
  ImGui::SameLine();
  if (ImGui::Button("Clear") && !c.files.empty())
    c.files.clear();
  for (std::size_t i = 0; i < c.files.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton("x")) {
      c.files.erase(c.files.begin() + static_cast<std::ptrdiff_t>(i));
      ImGui::PopID();
      break;
    }
    ImGui::SameLine();
    ImGui::Text("%s  (%.1f kB)", c.files[i].name.c_str(),
                static_cast<double>(c.files[i].text.size()) / 1e3);
    ImGui::PopID();
  }
  if (ImGui::TreeNode("Paste a file's text")) {
    ImGui::SetNextItemWidth(240);
    ImGui::InputText("name", &c.paste_name);
    ImGui::InputTextMultiline("##calibrate_paste", &c.paste_text,
                              ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 8));
    if (ImGui::Button("Add") && !c.paste_text.empty()) {
      c.files.push_back({c.paste_name.empty() ? "pasted.txt" : c.paste_name, c.paste_text});
      c.paste_text.clear();
    }
    ImGui::TreePop();
  }
  if (c.key.empty() && !c.error.empty()) { // a refused file: shown until the next change
    ui::text_colored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), c.error);
    if (ImGui::SmallButton("dismiss"))
      c.error.clear();
    return;
  }
  refit(s, c);
  if (c.running) {
    ImGui::ProgressBar(static_cast<float>(c.running->progress()),
                       ImVec2(ImGui::GetFontSize() * 16, 0));
    ImGui::SameLine();
    const bool cancel = ImGui::SmallButton("Cancel");
    ui::note_rect("calibrate.cancel");
    ImGui::SameLine();
    ui::text_dim(c.running->stage() + "...");
    if (cancel) {
      c.running.reset();
      c.cancelled = true;
      return;
    }
    step_fit(c);
    if (c.running)
      return;
  }
  if (c.cancelled) {
    ui::text_dim("The fit was cancelled.");
    ImGui::SameLine();
    if (ImGui::SmallButton("Fit again"))
      c.key.clear();
    return;
  }
  if (!c.error.empty()) {
    ui::text_colored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), c.error);
    return;
  }
  if (!c.result)
    return;
  const CalibrationResult &r = *c.result;
  ui::report_section(calibration_table(r));
  if (ImGui::Button("Apply to the configuration")) {
    s.apply_overrides(io::calibrated_overrides(r));
    c.key = fit_key(s, c); // the fit stands: its "before" stays the configuration's old values
    c.applied = true;
  }
  ui::note_rect("calibrate.apply");
  if (c.applied) {
    ImGui::SameLine();
    ui::text_dim("applied: the configuration and its link carry the fitted values");
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Sets the fitted fields over the configuration's presets; the link then "
                      "carries them (hardware.gemm_efficiency=...).");
  if (r.params.empty())
    return;
  std::vector<std::string> names;
  for (const FittedParameter &p : r.params)
    names.push_back(p.path);
  ImGui::SetNextItemWidth(320);
  if (ImGui::BeginCombo("residuals of", names[static_cast<std::size_t>(c.shown)].c_str())) {
    for (int i = 0; i < static_cast<int>(names.size()); ++i)
      if (ImGui::Selectable(names[static_cast<std::size_t>(i)].c_str(), i == c.shown))
        c.shown = i;
    ImGui::EndCombo();
  }
  const FittedParameter &p = r.params[static_cast<std::size_t>(c.shown)];
  residual_plot(p, 220);
  ui::report_section(residual_table(p));
  ui::report_section(layer_table(r));
  ui::report_section(unfitted_table(r));
  if (!r.runs.empty())
    ui::report_section(runs_table(r.runs));
}

} // namespace rl::web
