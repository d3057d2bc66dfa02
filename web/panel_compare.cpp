// ridgeline web: the Compare tab. A pinned configuration (Pin in the top bar, "pin=" in the
// URL) beside the current one: every headline number with its change (rl::compare_table, the
// table `ridgeline compare` prints), and the step-time and memory bars of both on one scale.
#include "core/io/units.hpp"
#include "core/jobs/run.hpp"
#include "core/report/table.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cmath>

namespace rl::web {

namespace {

// Two bars on one scale: pinned above, current below, each labelled with its total.
void paired_bars(const char *id, const char *title, const std::vector<ui::Segment> &a,
                 const std::vector<ui::Segment> &b, std::string (*fmt)(double)) {
  double ta = 0, tb = 0;
  for (const auto &x : a)
    ta += std::max(0.0, x.value);
  for (const auto &x : b)
    tb += std::max(0.0, x.value);
  const double scale = std::max({ta, tb, 1e-30}) * 1.02;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted(title);
  ImGui::SameLine();
  const std::string change = ta > 0 ? units::format("%+.1f%%", 100 * (tb / ta - 1)) : "";
  // Short of the Save button in the corner (ui::plot_export).
  const float save = ImGui::CalcTextSize("Save").x + ImGui::GetStyle().FramePadding.x * 2 + 8;
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x - save);
  ui::text_dim(fmt(ta) + " -> " + fmt(tb) + "  (" + change + ")");
  ImGui::PopTextWrapPos();
  ui::text_dim("pinned");
  ui::stacked_bar(a, scale, -1, "", fmt);
  ui::text_dim("current");
  ui::stacked_bar(b, scale, -1, "", fmt);
  ui::plot_export(id, p0, ImVec2(p0.x + w, ImGui::GetItemRectMax().y));
}

std::string seconds_str(double s) {
  return units::seconds(s);
}

} // namespace

void draw_compare_panel(AppState &s) {
  const auto &pin = s.pinned();
  if (!pin) {
    ui::text_dim_wrapped("Nothing pinned. Press Pin in the top bar to keep the current result; "
                         "then edit anything and this tab shows both side by side, with the "
                         "change of every number. The pin travels in the link (pin=...).");
    return;
  }
  if (ImGui::SmallButton("Unpin"))
    s.unpin();
  ImGui::SameLine();
  if (ImGui::SmallButton("Pin current instead"))
    s.pin();
  ImGui::SameLine();
  if (ImGui::SmallButton("Swap"))
    s.swap_pin();
  if (pin->error)
    ui::text_colored(ui::color::error, "Pinned configuration: " + pin->error->text());
  if (s.error())
    ui::text_colored(ui::color::error, "Current configuration: " + s.error()->text());

  if (pin->config && pin->estimate && s.view_config() && s.estimate()) {
    const std::string v =
        step_verdict(*pin->config, *pin->estimate, *s.view_config(), *s.estimate());
    if (!v.empty()) // the pinned result is A, the current one B
      ImGui::TextWrapped("%s", v.c_str());
  }
  const ReportTable t = compare_table(jobs::headline_rows(pin->estimate, pin->serve, pin->tx8),
                                      jobs::headline_rows(s.estimate(), s.serve(), s.tx8()));
  const float table_w = std::floor(ImGui::GetContentRegionAvail().x * 0.56f);
  ImGui::BeginChild("compare_left", ImVec2(table_w, 0));
  ImGui::TextUnformatted(t.title.c_str());
  ui::help_marker(t.help.c_str());
  ui::table_export("compare");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY;
  if (ImGui::BeginTable("compare", 4, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    for (std::size_t k = 1; k < t.columns.size(); ++k)
      ImGui::TableSetupColumn(t.columns[k].head.c_str());
    ImGui::TableHeadersRow();
    for (const ReportLine &r : t.rows) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      if (r.key == "section") {
        ui::text_with_help(r[0].text, "", ui::color::accent);
        continue;
      }
      ui::text_with_help("  " + r[0].text, "", ImGui::GetStyleColorVec4(ImGuiCol_Text)); // wraps
      for (int k = 1; k <= 3; ++k) {
        ImGui::TableSetColumnIndex(k);
        const Mark m = r[static_cast<std::size_t>(k)].mark;
        const ImVec4 *c = m == Mark::ok     ? &ui::color::ok
                          : m == Mark::warn ? &ui::color::error
                          : k == 3          ? &ui::color::dim
                                            : nullptr;
        ui::text_right(r[static_cast<std::size_t>(k)].text, c);
      }
    }
    ImGui::EndTable();
  }
  ui::table_export_end();
  ImGui::EndChild();

  ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 3);
  ImGui::BeginChild("compare_right", ImVec2(0, 0));
  const Estimate *a = pin->estimate ? &*pin->estimate : nullptr;
  const Estimate *b = s.estimate() ? &*s.estimate() : nullptr;
  const bool both = a && b && pin->config && s.view_config();
  if (both && a->has_time && b->has_time) {
    paired_bars("compare-time", "Step time", step_time_segments(*pin->config, *a),
                step_time_segments(*s.view_config(), *b), &seconds_str);
    ImGui::Spacing();
  }
  if (both) {
    paired_bars("compare-memory", "Memory per device", memory_segments(*pin->config, *a),
                memory_segments(*s.view_config(), *b), &units::bytes);
  } else {
    ui::text_dim_wrapped("The bars compare two training or inference estimates; the table "
                         "compares any two results.");
  }
  ImGui::EndChild();
}

} // namespace rl::web
