// ridgeline web: the tx8 panel (workload modes tx8-op and video): what `ridgeline tx8`
// prints, from the same tx8::solve. A video request: the request and die, the per-step time
// as a stacked bar, per-block and whole-request totals, the sequence-parallel schemes and
// mesh splits compared (best first; a click applies one), the die-to-die communication and
// the per-operator tiling table. One operator (tx8-op): its mapping in detail.
// Drawn from the report layer (core/report/tx8_report).
// [SECTION] header  [SECTION] step bar  [SECTION] schemes  [SECTION] one operator
// [SECTION] panel
#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/report/tx8_report.hpp"
#include "core/tx8/arch.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/report_view.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cstdio>

namespace rl::web {

namespace {

// [SECTION] header
void draw_video_header(const Tx8Report &rep) {
  ImGui::TextColored(ui::color::accent, "%s", rep.title.c_str());
  for (const ReportText &line : rep.request) {
    ui::text_dim(line.text);
    if (!line.help.empty())
      ui::help_marker(line.help);
  }
  ui::text_dim_wrapped(rep.die.text);
  ui::help_marker(rep.die.help);
  std::string sch;
  for (const std::string &line : rep.scheme) {
    if (!sch.empty())
      sch += ";  ";
    sch += line;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(sch.c_str());
  ImGui::PopTextWrapPos();
}

// [SECTION] step bar: the report's parts of a step, with the legend on one line
void draw_step_bar(const Tx8Report &rep, const tx8::Tx8Result &r) {
  const std::vector<ui::Segment> segs =
      ui::report_segments(rep.step, "time",
                          {{"spatial", ui::color::forward},
                           {"temporal", ui::color::gradients},
                           {"operators", ui::color::forward},
                           {"comm", ui::color::kv_cache},
                           {"embed", ui::color::optimizer},
                           {"final", ui::color::activations},
                           {"pipeline", ImVec4(0.80f, 0.25f, 0.25f, 1.0f)}});
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading, the bar and its legend
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted(rep.step.title.c_str());
  ui::help_marker(rep.step.help);
  ui::stacked_bar(segs, std::max(r.per_step, 1e-12), -1, "", &units::seconds);
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  bool first = true;
  for (const ui::Segment &sg : segs) {
    if (sg.value <= 0)
      continue;
    const std::string value =
        units::seconds(sg.value) + " (" + units::percent(sg.value / r.per_step) + ")";
    const float item_w = ImGui::GetFontSize() * 0.7f + ImGui::CalcTextSize(sg.name.c_str()).x +
                         ImGui::CalcTextSize(value.c_str()).x + 30;
    if (!first) { // next to the previous item, or on a new line when it would not fit
      ImGui::SameLine(0, 18);
      if (ImGui::GetCursorScreenPos().x + item_w > right)
        ImGui::NewLine();
    }
    first = false;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float sz = ImGui::GetFontSize() * 0.7f;
    const float off = (ImGui::GetTextLineHeight() - sz) * 0.5f;
    dl->AddRectFilled(ImVec2(p.x, p.y + off), ImVec2(p.x + sz, p.y + off + sz), ui::u32(sg.color),
                      2.0f);
    ImGui::Dummy(ImVec2(sz, sz));
    ImGui::SameLine();
    ImGui::TextUnformatted(sg.name.c_str());
    ImGui::SameLine();
    ui::text_dim(value);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", sg.help.c_str());
  }
  ui::plot_export("tx8-step", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
}

// [SECTION] schemes
// The parallel object that selects a scheme row: the scheme, its Ulysses degree (USP), and
// the stage sub-meshes when the mesh is split; other parallel keys are kept.
json scheme_parallel(const AppState &s, const tx8::SchemeRow &row) {
  json par = json::object();
  if (s.effective().contains("parallel") && s.effective().at("parallel").is_object())
    par = s.effective().at("parallel");
  for (const char *k : {"sp_kind", "ulysses", "pp", "submeshes", "stage_ids"})
    par.erase(k);
  par["sp_kind"] = io::name_of(row.scheme.kind);
  if (row.scheme.kind == SpKind::usp)
    par["ulysses"] = row.scheme.ulysses;
  if (row.stages > 1) {
    json flat = json::array();
    for (const tx8::SubMesh &m : row.meshes)
      for (const i64 v : {m.nx, m.ny, m.x0, m.y0})
        flat.push_back(v);
    par["submeshes"] = flat;
  }
  return par;
}

// [SECTION] one operator
void draw_one_op(const Tx8Report &rep) {
  ImGui::TextColored(ui::color::accent, "%s", rep.ops.rows.front()[0].text.c_str());
  ImGui::SameLine();
  ImGui::TextUnformatted(rep.title.c_str());
  ui::text_dim_wrapped(rep.die.text);
  ui::help_marker(rep.die.help);
  ImGui::Spacing();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ui::report_table(rep.ops, {line * 2 + 12 + ImGui::GetStyle().ScrollbarSize});
  ui::text_dim_wrapped(rep.ops.note);
  ImGui::Spacing();
  ImGui::BeginChild("tx8_op_detail",
                    ImVec2(std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 34),
                           line * static_cast<float>(rep.op_detail.rows.size() + 2)));
  ui::report_table(rep.op_detail);
  ImGui::EndChild();
  if (!rep.presets.empty() || !rep.presets.note.empty())
    ui::report_section(rep.presets);
  ui::text_dim(rep.search);
}

} // namespace

// [SECTION] panel
void draw_tx8_panel(AppState &s) {
  if (s.busy()) {
    // Spread over frames (a scheme per step): the last mapping stays, dimmed, meanwhile.
    ImGui::ProgressBar(static_cast<float>(s.busy_progress()), ImVec2(ImGui::GetFontSize() * 16, 0));
    ImGui::SameLine();
    ui::text_dim("mapping the schemes and mesh splits...");
  }
  const bool current = s.tx8().has_value();
  const std::optional<tx8::Tx8Result> &r = current ? s.tx8() : s.last_good_tx8();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_tx8_config();
  if (!current && s.error()) {
    ui::text_colored(ui::color::error, std::string("Error: ") + s.error()->text());
    if (r)
      ui::text_dim("Below: the last configuration that mapped.");
  }
  if (!r || !c || !c->hardware.tx8 || r->ops.empty() || (r->video && r->stages.empty())) {
    ui::text_dim_wrapped("The tx8 mapper needs a tx8 accelerator (hardware tx8) and a workload "
                         "of mode video (an STDiT3 model) or tx8-op. Choose a sora-* scenario "
                         "in the top bar.");
    return;
  }
  if (!current)
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  // The report layer's lines and tables (core/report/tx8_report), the ones `ridgeline tx8`
  // prints.
  const Tx8Report rep = tx8_report(*c, *r);
  if (!r->video) {
    draw_one_op(rep);
  } else {
    draw_video_header(rep);
    ImGui::Separator();
    draw_step_bar(rep, *r);
    ImGui::Spacing();
    // Totals (left) | schemes and communication (right).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
    const float mid_h = row_h * 12 + 8;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
    const float left_w = std::floor(std::min(avail.x * 0.36f, ImGui::GetFontSize() * 24));
    ImGui::BeginChild("tx8_left", ImVec2(left_w, mid_h));
    ui::report_table(rep.totals);
    ImGui::EndChild();
    ImGui::SameLine(0, gap);
    ImGui::BeginChild("tx8_right", ImVec2(0, mid_h));
    const float comm_h =
        r->comm.empty() ? line * 2 + 4 : line + row_h * static_cast<float>(r->comm.size() + 1) + 8;
    ReportTable schemes = rep.schemes;
    schemes.help += " Click a row to apply it (parallel.sp_kind, and the stage sub-meshes when "
                    "the mesh is split).";
    const int clicked = ui::report_section(
        schemes, {std::max(row_h * 3, mid_h - comm_h - line - 6), true, rep.chosen_scheme});
    ui::report_section(rep.comm);
    ImGui::EndChild();
    if (clicked >= 0 && clicked != rep.chosen_scheme &&
        r->schemes[static_cast<std::size_t>(clicked)].feasible)
      s.set_parallel_object(scheme_parallel(s, r->schemes[static_cast<std::size_t>(clicked)]));
    ImGui::Spacing();
    ImGui::TextUnformatted(rep.ops.title.c_str());
    ui::help_marker(rep.ops.help + " " + rep.search +
                    (s.estimate_seconds() > 0
                         ? std::string(" in ") + units::seconds(s.estimate_seconds())
                         : std::string()) +
                    ".");
    ImGui::SameLine();
    ui::text_dim_wrapped(rep.ops.note);
    ui::report_table(rep.ops, {std::max(row_h * 4, ImGui::GetContentRegionAvail().y)});
    if (!rep.presets.empty() || !rep.presets.note.empty())
      ui::report_section(rep.presets);
  }
  if (!current)
    ImGui::PopStyleVar();
}

} // namespace rl::web
