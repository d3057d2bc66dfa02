// ridgeline web: the Results panel, drawn from the report layer (core/report/estimate_report):
// the same tables `ridgeline estimate` prints, every row with its "(?)" formula and source.
// [SECTION] headline  [SECTION] bars  [SECTION] panel
#include "core/io/units.hpp"
#include "core/memory/model_states.hpp"
#include "core/report/estimate_report.hpp"
#include "core/report/report.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/report_view.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace rl::web {

namespace {

double d(i64 v) {
  return static_cast<double>(v);
}

// [SECTION] headline
void draw_headline(const EstimateReport &r) {
  ImGui::TextColored(ui::color::accent, "%s", r.title.c_str());
  // the workload beside the title when the line holds both, else wrapped on its own lines
  const std::string workload = "  " + r.workload;
  if (ImGui::GetItemRectSize().x + ImGui::CalcTextSize(workload.c_str()).x <
      ImGui::GetContentRegionAvail().x) {
    ImGui::SameLine();
    ui::text_dim(workload);
  } else {
    ui::text_dim_wrapped(r.workload);
  }
  ui::text_dim("Layout: " + r.layout);
}

// The numbers a user looks for first, on one line under the headline (visible at 1280x720
// without scrolling), each with its change against the pinned result when there is one.
void draw_kpis(const Estimate &e, const std::optional<Evaluation> &pinned) {
  std::vector<CompareRow> cmp;
  if (pinned && pinned->estimate)
    cmp = compare_rows(report_rows(*pinned->estimate), report_rows(e));
  // The next item on this line, or on the next one when the rest of the line is too narrow.
  const auto fit_line = [](const std::string &text) {
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(text.c_str()).x)
      ImGui::NewLine();
  };
  const auto kpi = [&](const char *label, const char *row, double v, Unit u) {
    std::string shown = std::string(label) + " " + format_value(v, u);
    for (const CompareRow &r : cmp)
      if (r.label == row && r.has_before && r.has_after && r.before != r.after)
        shown += " (" + change_text(r) + ")";
    fit_line(shown);
    ImGui::TextUnformatted(label);
    ImGui::SameLine(0, 4);
    ImGui::TextColored(ui::color::accent, "%s", format_value(v, u).c_str());
    for (const CompareRow &r : cmp)
      if (r.label == row && r.has_before && r.has_after && r.before != r.after) {
        ImGui::SameLine(0, 4);
        const int verdict = r.verdict();
        ui::text_colored(verdict > 0   ? ui::color::ok
                         : verdict < 0 ? ui::color::error
                                       : ui::color::dim,
                         "(" + change_text(r) + ")");
      }
    ImGui::SameLine(0, 18);
  };
  if (e.mode == Mode::train && e.has_time) {
    kpi("Step", "step", e.time.step, Unit::seconds);
    kpi("MFU", "MFU", e.throughput.mfu, Unit::percent);
    kpi("tokens", "tokens/s", e.throughput.tokens_per_s, Unit::per_second);
    if (e.time_to_train > 0)
      kpi("to train", "time to train", e.time_to_train, Unit::duration);
    if (e.cost_to_train > 0)
      kpi("", "cost to train", e.cost_to_train, Unit::dollars);
    if (e.energy.known)
      kpi("J/token", "J per token", e.energy.joules_per_token, Unit::plain);
  } else if (e.has_serving) {
    kpi("TTFT", "TTFT", e.serving.ttft, Unit::seconds);
    kpi("TPOT", "TPOT (mean context)", e.serving.tpot, Unit::seconds);
    kpi("tokens", "batch tokens/s", e.serving.batch_tokens_per_s, Unit::per_second);
  }
  kpi("memory", "total", e.memory.total, Unit::bytes);
  fit_line("does not fit");
  ui::text_colored(e.memory.fits ? ui::color::ok : ui::color::error,
                   e.memory.fits ? "fits" : "does not fit");
  if (pinned) {
    ImGui::SameLine(0, 18);
    const char *vs = "(vs pinned: Compare tab)";
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(vs).x)
      ImGui::NewLine(); // a line of its own rather than past the edge
    ui::text_dim(vs);
  }
}

// [SECTION] bars: the report's rows as parts (the Results panel and the Compare tab)
std::vector<ui::Segment> step_parts(const EstimateReport &r) {
  return ui::report_segments(r.step_time, "time",
                             {{"compute", ui::color::forward},
                              {"recompute", ImVec4(0.55f, 0.72f, 0.98f, 1.0f)},
                              {"comm", ui::color::kv_cache},
                              {"host", ImVec4(0.62f, 0.62f, 0.62f, 1.0f)},
                              {"bubble", ImVec4(0.80f, 0.25f, 0.25f, 1.0f)},
                              {"optimizer", ui::color::optimizer}});
}

std::vector<ui::Segment> memory_parts(const EstimateReport &r) {
  return ui::report_segments(r.memory, "bytes",
                             {{"weights", ui::color::weights},
                              {"gradients", ui::color::gradients},
                              {"optimizer", ui::color::optimizer},
                              {"activations", ui::color::activations},
                              {"kv_cache", ui::color::kv_cache},
                              {"working_set", ui::color::activations}});
}

std::string time_str(double s) {
  return units::seconds(s);
}
} // namespace

std::vector<ui::Segment> step_time_segments(const Config &c, const Estimate &e) {
  return step_parts(estimate_report(c, e));
}

std::vector<ui::Segment> memory_segments(const Config &c, const Estimate &e) {
  return memory_parts(estimate_report(c, e));
}

namespace {

void draw_memory_bar(const EstimateReport &r, const Estimate &e) {
  const MemorySummary &mem = e.memory;
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading, the bar and its verdict
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted(r.memory.title.c_str());
  ui::help_marker(r.memory.help);
  const auto segs = memory_parts(r);
  const double usable = mem.capacity - mem.reserve;
  ui::stacked_bar(segs, std::max(mem.total, mem.capacity) * 1.04, usable,
                  "usable " + units::bytes(usable), &units::bytes);
  std::string verdict = r.memory.note;
  verdict[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(verdict[0])));
  ImGui::PushStyleColor(ImGuiCol_Text, e.memory.fits ? ui::color::ok : ui::color::error);
  ImGui::TextWrapped("%s", verdict.c_str());
  ImGui::PopStyleColor();
  ui::plot_export("memory", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::legend("mem_legend", segs, mem.total, &units::bytes);
}

void draw_step_time(const EstimateReport &r, const Estimate &e) {
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading and the bar
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted(r.step_time.title.c_str());
  ui::help_marker(r.step_time.help);
  const std::vector<ui::Segment> segs = step_parts(r);
  ui::stacked_bar(segs, e.time.step, -1, "", &time_str);
  ui::plot_export("step-time", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::legend("time_legend", segs, e.time.step, &time_str);
  for (const ReportText &line : r.summary)
    ui::text_with_help(line.text, line.help, ImGui::GetStyleColorVec4(ImGuiCol_Text));
}

void draw_serving(const EstimateReport &r, const Estimate &e) {
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading and the bar
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted(r.decode_step.title.c_str());
  ui::help_marker(r.decode_step.help);
  const std::vector<ui::Segment> segs = ui::report_segments(r.decode_step, "time",
                                                            {{"kv", ui::color::kv_cache},
                                                             {"weights", ui::color::weights},
                                                             {"other", ui::color::activations},
                                                             {"comm", ui::color::gradients}});
  const double step = e.serving.decode.step;
  ui::stacked_bar(segs, std::max(step, 1e-12), -1, "", &time_str);
  ui::plot_export("decode-step", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::legend("decode_legend", segs, step, &time_str);
  ImGui::Spacing();
  ui::report_section(r.serving);
}

// When no layout has worked yet, the model's size still does not depend on it.
void draw_model_size_only(const AppState &s) {
  ui::text_dim_wrapped("Fix the field marked in red to see the estimate.");
  const auto &c = s.view_config();
  if (!c || c->model.family != ModelFamily::decoder)
    return;
  const ModelParams p = model_params(c->model);
  ImGui::Spacing();
  ImGui::TextUnformatted("Model size (does not depend on the layout)");
  ui::table_export("size_only");
  if (!ImGui::BeginTable("size_only", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("quantity", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("embedding + head  (?)").x + 40);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("0000.00 B").x); // up to 1,000 B (DeepSeek: 671 B)
  auto row = [](const char *n, double v) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(n);
    ImGui::TableSetColumnIndex(1);
    ui::text_right(units::count(v));
  };
  row("Parameters", d(p.total()));
  if (p.active() != p.total())
    row("Active / token", d(p.active()));
  row("one layer", d(p.dense_layer.total()));
  row("embedding + head", d(p.embedding + p.head));
  ImGui::EndTable();
  ui::table_export_end();
}

} // namespace

void draw_results_panel(const AppState &s) {
  const bool current = s.estimate().has_value();
  const std::optional<Estimate> &e = current ? s.estimate() : s.last_good();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_config();
  if (s.startup_error())
    ui::text_colored(ui::color::error, "The URL's configuration was rejected (" +
                                           s.startup_error()->text() +
                                           "); showing the default scenario.");
  if (!current && s.error()) {
    ui::text_colored(ui::color::error, "Error: " + s.error()->text());
    if (e)
      ui::text_dim("Below: the last valid configuration.");
  }
  if (!e || !c) {
    draw_model_size_only(s);
    return;
  }
  if (!current)
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  const EstimateReport r = estimate_report(*c, *e);
  draw_headline(r);
  draw_kpis(*e, s.pinned());
  ImGui::Separator();
  // Two columns, each scrolling on its own when the window is small.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.y < ImGui::GetTextLineHeightWithSpacing() * 4) { // the planner has the height
    ui::text_dim("The tables and bars: drag the bar under Results down, or double-click it.");
    if (!current)
      ImGui::PopStyleVar();
    return;
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
  const float col_w = std::floor((avail.x - gap) * 0.5f);
  ImGui::BeginChild("left", ImVec2(col_w, avail.y));
  ui::report_table(r.size);
  if (ImGui::TreeNode(r.layer_flops.title.c_str())) {
    ui::help_marker(r.layer_flops.help);
    ui::report_table(r.layer_flops);
    ImGui::TreePop();
  }
  ImGui::Spacing();
  if (e->has_time)
    draw_step_time(r, *e);
  else if (e->has_serving)
    draw_serving(r, *e);
  ImGui::EndChild();
  ImGui::SameLine(0, gap);
  const ImVec2 sep = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddLine(ImVec2(sep.x - gap * 0.5f, sep.y),
                                      ImVec2(sep.x - gap * 0.5f, sep.y + avail.y),
                                      ImGui::GetColorU32(ImGuiCol_Separator));
  ImGui::BeginChild("right", ImVec2(0, avail.y));
  draw_memory_bar(r, *e);
  ImGui::Spacing();
  if (ImGui::BeginTabBar("details")) {
    if (ImGui::BeginTabItem("Stages")) {
      const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
      ui::report_section(
          r.stages,
          ui::TableView{
              row_h * static_cast<float>(std::min<std::size_t>(r.stages.rows.size(), 10) + 1) + 4 +
              ImGui::GetStyle().ScrollbarSize}); // the rows, and the sideways scrollbar
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Activations")) {
      ui::report_section(r.activations);
      ImGui::EndTabItem();
    }
    if (!r.run.empty() && ImGui::BeginTabItem("Run")) {
      ui::report_section(r.run);
      ImGui::EndTabItem();
    }
    if (e->has_time && ImGui::BeginTabItem("Communication")) {
      if (r.comm.empty())
        ui::text_dim("No communication: a single device.");
      else
        ui::report_section(r.comm);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  if (!current)
    ImGui::PopStyleVar();
}

} // namespace rl::web
