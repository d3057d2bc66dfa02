// ridgeline web: the Serving curve panel (inference): the latency-throughput trade-off of
// How to Scale Your Model ch. 7, as `ridgeline estimate --sweep batch` prints it: rl::batch_sweep
// over rl::sweep_batches at the final context. x = tokens/s per chip (or of all chips), y = time
// per output token (the decode step); every point is a batch size; batches that do not fit
// are grey, the critical batch (decode turns compute-bound) is marked. Clicking a point or a
// row makes it the workload's batch.
// [SECTION] sweep  [SECTION] chart  [SECTION] panel (the table: the report layer's)
#include "core/io/units.hpp"
#include "core/report/estimate_report.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/plot.hpp"
#include "web/report_view.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl::web {

// [SECTION] sweep
const DecodeCurve &decode_sweep(const AppState &s, SweepCache &cache) {
  const bool current = s.estimate().has_value();
  const std::optional<Estimate> &e = current ? s.estimate() : s.last_good();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_config();
  if (!e || !c || e->mode != Mode::infer) {
    cache = SweepCache{};
    return cache.curve;
  }
  const std::string key = s.config_key() + (current ? "|now" : "|last");
  if (key == cache.key)
    return cache.curve;
  cache.key = key;
  cache.curve = DecodeCurve{};
  try {
    cache.curve = decode_curve(*c, *e);
  } catch (const std::exception &) {
    cache.curve.rows.clear(); // the estimate succeeded, so the sweep does too; never crash
  }
  return cache.curve;
}

namespace {

std::string batch_str(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", b);
  return buf;
}

double rate_of(const DecodeStep &d, bool total) {
  return total ? d.tokens_per_s : d.tokens_per_s_per_chip;
}

void tooltip(const DecodeStep &d, double critical, double current_batch) {
  ImGui::BeginTooltip();
  ImGui::Text("batch %s%s%s", batch_str(d.batch).c_str(),
              std::fabs(d.batch - std::round(critical)) < 0.5 ? "  (critical batch)" : "",
              d.batch == current_batch ? "  (the workload's)" : "");
  ImGui::Text("time per output token  %s (%s-bound)", units::seconds(d.step).c_str(),
              d.compute_bound ? "compute" : "bandwidth");
  ImGui::Text("  KV reads %s, weights %s, matmuls %s, comm %s", units::seconds(d.kv_time).c_str(),
              units::seconds(d.weight_time).c_str(), units::seconds(d.compute_time).c_str(),
              units::seconds(d.comm_time).c_str());
  char buf[96];
  std::snprintf(buf, sizeof buf, "tokens/s  %s  (%.1f per chip)",
                units::count(d.tokens_per_s).c_str(), d.tokens_per_s_per_chip);
  ImGui::TextUnformatted(buf);
  const std::string mem = std::string("memory per chip  ") + units::bytes(d.memory_per_device);
  ui::text_colored(d.fits ? ui::color::ok : ui::color::error,
                   mem + (d.fits ? "  (fits)" : "  (does not fit)"));
  ui::text_dim("Click: use this batch");
  ImGui::EndTooltip();
}

// [SECTION] chart
// Returns the row under the mouse (-1: none).
int draw_chart(const std::vector<DecodeStep> &rows, bool total, double critical,
               double current_batch, double tpot_target, ImVec2 size, int highlight) {
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const DecodeStep &d : rows) {
    x_lo = std::min(x_lo, rate_of(d, total));
    x_hi = std::max(x_hi, rate_of(d, total));
    y_lo = std::min(y_lo, d.step);
    y_hi = std::max(y_hi, d.step);
  }
  if (tpot_target > 0) {
    y_lo = std::min(y_lo, tpot_target);
    y_hi = std::max(y_hi, tpot_target);
  }
  double xa, xb, ya, yb;
  plot::log_range(x_lo, x_hi, 1.25, 0.8, xa, xb);
  plot::log_range(y_lo, y_hi, 1.6, 0.8, ya, yb);
  const plot::LogLog g =
      plot::begin_loglog(size, xa, xb, ya, yb, &units::count, &units::seconds,
                         total ? "decode tokens/s (all chips)" : "decode tokens/s per chip",
                         "time per output token (decode step)");
  const ImVec2 area0 = ImGui::GetItemRectMin(), area1 = ImGui::GetItemRectMax();
  if (g.p1.x - g.p0.x < 40 || g.p1.y - g.p0.y < 40)
    return -1;
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(g.p0, g.p1, true);
  plot::Labels labels(g.p0, g.p1);
  if (tpot_target > 0) {
    const float y = g.sy(tpot_target);
    plot::dashed_line(dl, ImVec2(g.p0.x, y), ImVec2(g.p1.x, y), ui::u32(ui::color::warn, 0.7f));
    const std::string lab = std::string("TPOT target ") + units::seconds(tpot_target);
    const ImVec2 at(g.p0.x + 6, y - ImGui::GetTextLineHeight() - 1);
    dl->AddText(at, ui::u32(ui::color::warn), lab.c_str());
    labels.block(
        at, ImVec2(at.x + ImGui::CalcTextSize(lab.c_str()).x, at.y + ImGui::GetTextLineHeight()));
  }
  std::vector<ImVec2> at(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    at[i] = g.at(rate_of(rows[i], total), rows[i].step);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const bool fits = rows[i].fits && rows[i - 1].fits;
    if (fits)
      dl->AddLine(at[i - 1], at[i], ui::u32(ui::color::accent, 0.8f), 2.0f);
    else
      plot::dashed_line(dl, at[i - 1], at[i], ui::u32(ui::color::dim, 0.6f), 1.5f);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  float best = 10 * 10;
  const float r = 5.5f;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    labels.block(ImVec2(at[i].x - r - 2, at[i].y - r - 2),
                 ImVec2(at[i].x + r + 2, at[i].y + r + 2));
    const float dx = mouse.x - at[i].x, dy = mouse.y - at[i].y;
    if (dx * dx + dy * dy < best) {
      best = dx * dx + dy * dy;
      hovered = static_cast<int>(i);
    }
  }
  const long critical_b = std::lround(critical);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const DecodeStep &d = rows[i];
    const bool is_critical = critical_b >= 1 && std::lround(d.batch) == critical_b;
    const bool is_current = d.batch == current_batch;
    const bool hot = hovered == static_cast<int>(i) || highlight == static_cast<int>(i);
    const ImVec4 col = !d.fits ? ui::color::dim : ui::color::accent;
    const float rr = r + (hot ? 1.5f : 0);
    if (is_critical) { // a diamond
      const ImVec2 c = at[i];
      const float q = rr + 2;
      dl->AddQuadFilled(ImVec2(c.x, c.y - q), ImVec2(c.x + q, c.y), ImVec2(c.x, c.y + q),
                        ImVec2(c.x - q, c.y), ui::u32(ui::color::warn));
    } else {
      dl->AddCircleFilled(at[i], rr, ui::u32(col));
    }
    dl->AddCircle(at[i], rr, ui::u32(ui::paper(1)), 0, 1.5f);
    if (is_current)
      dl->AddCircle(at[i], rr + 4, ui::u32(ui::color::ok), 0, 2.0f);
    std::string lab = batch_str(d.batch);
    if (is_critical)
      lab = std::string("critical ") + lab;
    if (is_current)
      lab += " (workload)";
    const ImVec4 text = is_critical  ? ui::color::warn
                        : is_current ? ui::color::ok
                        : d.fits     ? ui::ink(1)
                                     : ui::color::dim;
    labels.add(dl, at[i], rr, lab, ui::u32(text));
  }
  dl->PopClipRect();
  ui::plot_export("serving-curve", area0, area1);
  return g.inside(mouse) && ImGui::IsWindowHovered() ? hovered : -1;
}

} // namespace

// [SECTION] panel
void draw_serving_panel(AppState &s, UiState &ui) {
  const bool current = s.estimate().has_value();
  const std::optional<Estimate> &e = current ? s.estimate() : s.last_good();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_config();
  if (!e || !c || e->mode != Mode::infer) {
    ui::text_dim("No inference estimate yet: fix the configuration to see the serving curve.");
    return;
  }
  const WorkloadSpec &w = c->workload;
  const Layout &l = e->layout;
  const ServingEstimate &sv = e->serving;
  const DecodeCurve &sw = decode_sweep(s, ui.sweep);
  if (sw.rows.empty()) {
    ui::text_dim("No batch sizes to sweep.");
    return;
  }
  if (!current)
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  // The heading wraps short of the x-axis switch on its right.
  const float radio_w = ImGui::CalcTextSize("x axis  per chip  all chips").x + 70;
  char head[256];
  std::snprintf(head, sizeof head,
                "Decode over batch sizes: TPOT at the mean context %s (prompt + gen/2), memory "
                "at the final %s; tp %lld x pp %lld x dp %lld = %lld chips",
                units::grouped(static_cast<std::int64_t>(sw.context)).c_str(),
                units::grouped(static_cast<std::int64_t>(sw.memory_context)).c_str(),
                static_cast<long long>(l.tp), static_cast<long long>(l.pp),
                static_cast<long long>(l.dp), static_cast<long long>(l.devices()));
  ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x - radio_w -
                         ImGui::CalcTextSize("(?)").x - 10);
  ImGui::TextUnformatted(head);
  ImGui::PopTextWrapPos();
  ui::help_marker("How to Scale Your Model ch. 7: decode step = B x KV bytes / HBM BW + max(2 B "
                  "P_active / FLOP/s, weight bytes / HBM BW) + collectives, per pipeline stage "
                  "(core decode_step). TPOT is one definition everywhere: the mean over a "
                  "request's decode steps, i.e. the step at the mean context prompt + gen/2, as "
                  "in Results. Memory and 'fits' are at the final context prompt + gen: the "
                  "memory that must fit. Batches: powers of two (x dp) up to twice the largest "
                  "that fits, plus the critical and the largest fitting batch. Same rows as "
                  "`ridgeline estimate CFG --sweep batch`.");
  ImGui::SameLine();
  ImGui::SetCursorPosX(
      std::max(ImGui::GetCursorPosX() + 10, ImGui::GetWindowContentRegionMax().x - radio_w));
  ui::text_dim("x axis");
  ImGui::SameLine();
  int t = ui.serving_total ? 1 : 0;
  ImGui::RadioButton("per chip", &t, 0);
  ImGui::SameLine();
  ImGui::RadioButton("all chips", &t, 1);
  ui.serving_total = t == 1;

  char crit[32];
  std::snprintf(crit, sizeof crit, "%.0f", sv.critical_batch);
  ImGui::TextColored(ui::color::warn, "critical batch %s", crit);
  ui::help_marker("Decode turns compute-bound above B = peak FLOP/s x bytes per weight / (2 x "
                  "HBM bandwidth) (How to Scale Your Model ch. 7): below it every step re-reads "
                  "all weights for "
                  "few tokens.");
  ImGui::SameLine(0, 18);
  ImGui::Text("largest batch that fits %lld", static_cast<long long>(e->memory.max_batch));
  ImGui::SameLine(0, 18);
  ImGui::TextColored(ui::color::ok, "workload batch %lld", static_cast<long long>(w.batch));
  ImGui::SameLine(0, 18);
  ui::text_dim("TTFT, TPOT, request latency: Results");
  ui::help_marker("Results, 'Latency and throughput', gives TTFT, TPOT and request latency of "
                  "the workload's batch; TPOT here and there is the same number (mean context "
                  "prompt + gen/2). Click a point or a row to use its batch.");

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
  const float chart_w = std::floor(std::max(200.0f, avail.x * 0.56f));
  static int table_hover = -1; // the row hovered last frame lights its point
  const double cur = static_cast<double>(w.batch);
  ImGui::BeginGroup();
  const int chart_hover = draw_chart(sw.rows, ui.serving_total, sv.critical_batch, cur,
                                     w.tpot_target, ImVec2(chart_w, avail.y), table_hover);
  ImGui::EndGroup();
  int clicked = -1;
  if (chart_hover >= 0 && ImGui::IsMouseClicked(ImGuiMouseButton_Left))
    clicked = chart_hover;
  ImGui::SameLine(0, gap);
  ImGui::BeginChild("sweep_table", ImVec2(0, avail.y));
  // The report layer's table (core/report/estimate_report), the one `ridgeline estimate
  // --sweep batch` prints.
  table_hover = -1;
  const int row_clicked =
      ui::report_table(decode_curve_table(sw, cur),
                       {ImGui::GetContentRegionAvail().y, true, -1, chart_hover, &table_hover});
  if (row_clicked >= 0)
    clicked = row_clicked;
  ImGui::EndChild();
  const int tip = chart_hover >= 0 ? chart_hover : table_hover;
  if (tip >= 0)
    tooltip(sw.rows[static_cast<std::size_t>(tip)], sv.critical_batch, cur);
  if (!current)
    ImGui::PopStyleVar();
  if (clicked >= 0) {
    const double b = sw.rows[static_cast<std::size_t>(clicked)].batch;
    if (b >= 1 && b != cur)
      s.set_field("workload", "batch", static_cast<i64>(std::llround(b)));
  }
}

} // namespace rl::web
