// ridgeline web: the Roofline panel. The chip's roof (peak FLOP/s x GEMM efficiency, and the
// HBM bandwidth slope) on log-log axes, arithmetic intensity (FLOP/B) on x and achieved
// FLOP/s on y, with one point per forward operator of one layer (Estimate.time.ops, the
// step-time model's own numbers). Inference: the prefill operators of one prompt (the same
// layer_ops the core's prefill() sums) and the decode step over batch sizes.
// [SECTION] points  [SECTION] chart  [SECTION] table  [SECTION] panel
#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/plot.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl::web {

namespace {

// [SECTION] points
struct Point {
  std::string name;
  double flops = 0, bytes = 0, time = 0;
  ImVec4 color;
  bool decode = false;  // a decode step (inference), joined by a line
  bool current = false; // the workload's own batch
  bool label = true;
  std::string group; // the table's group header ("" = none)
  std::string note;  // an extra tooltip line
  double intensity() const { return bytes > 0 ? flops / bytes : 0; }
  double achieved() const { return time > 0 ? flops / time : 0; }
};

struct Roof {
  double peak = 0; // FLOP/s, datasheet
  double eff = 1;  // GEMM efficiency (calibrated)
  double bw = 0;   // HBM B/s
  double top() const { return peak * eff; }
  double ridge() const { return bw > 0 ? top() / bw : 0; }
};

const ImVec4 kPalette[] = {
    {0.45f, 0.70f, 1.00f, 1}, {0.94f, 0.42f, 0.62f, 1}, {0.68f, 0.54f, 0.96f, 1},
    {0.97f, 0.64f, 0.28f, 1}, {0.26f, 0.78f, 0.70f, 1}, {0.95f, 0.85f, 0.38f, 1},
    {0.56f, 0.86f, 0.46f, 1}, {0.90f, 0.52f, 0.42f, 1}, {0.60f, 0.80f, 0.95f, 1},
};

ImVec4 palette(std::size_t i) {
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

std::vector<Point> operator_points(const std::vector<OpCost> &ops) {
  std::vector<Point> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Point p;
    p.name = ops[i].name;
    p.flops = ops[i].flops;
    p.bytes = ops[i].bytes;
    p.time = ops[i].time;
    p.color = ops[i].flops > 0 ? palette(i) : ui::color::dim;
    out.push_back(p);
  }
  return out;
}

// One decode step as a point for one chip: its share of the step's FLOPs and HBM bytes
// (weights + KV), over the whole step (stages run one after another, comm included).
Point decode_point(const DecodeStep &d, const Roof &r, double pp) {
  Point p;
  p.decode = true;
  p.group = "decode step, one chip";
  p.flops = d.compute_time * r.peak / pp;
  p.bytes = (d.kv_time + d.weight_time) * r.bw / pp;
  p.time = d.step;
  p.color = ui::color::kv_cache;
  char buf[64];
  std::snprintf(buf, sizeof buf, "decode, batch %.0f", d.batch);
  p.name = buf;
  return p;
}

// [SECTION] chart
std::string intensity_label(double v) {
  return units::count(v);
}

void tooltip(const Point &p, const Roof &r) {
  ImGui::BeginTooltip();
  ImGui::TextColored(p.color, "%s", p.name.c_str());
  const double i = p.intensity();
  const bool compute = i >= r.ridge();
  ImGui::Text("FLOPs      %s", units::flops(p.flops).c_str());
  ImGui::Text("HBM bytes  %s", units::bytes(p.bytes).c_str());
  ImGui::Text("time       %s", units::seconds(p.time).c_str());
  if (p.flops > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f FLOP/B", i);
    ImGui::Text("intensity  %s (%s-bound: ridge %.0f FLOP/B)", buf,
                compute ? "compute" : "bandwidth", r.ridge());
    ImGui::Text("achieved   %s", units::flop_rate(p.achieved()).c_str());
  } else {
    ImGui::TextUnformatted("no FLOPs: bytes / HBM bandwidth");
  }
  if (!p.note.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    ui::text_dim(p.note);
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTooltip();
}

// Returns the point under the mouse (-1: none); `highlight` is lit as well (a table row).
int draw_chart(const std::vector<Point> &pts, const Roof &r, ImVec2 size, int highlight) {
  int hovered = -1;
  double x_lo = r.ridge(), x_hi = r.ridge(), y_lo = r.top(), y_hi = r.peak;
  for (const Point &p : pts) {
    if (p.flops <= 0 || p.bytes <= 0 || p.time <= 0)
      continue;
    x_lo = std::min(x_lo, p.intensity());
    x_hi = std::max(x_hi, p.intensity());
    y_lo = std::min(y_lo, p.achieved());
  }
  // x: room for the bandwidth slope left of the ridge; y: from the slowest point to the peak.
  double xa, xb, ya, yb;
  plot::log_range(std::min(x_lo, r.ridge() / 30), x_hi * 2, 1.8, 2.5, xa, xb);
  plot::log_range(std::min(y_lo, r.top() / 4), y_hi * 1.6, 1.3, 1.0, ya, yb);
  // Tags right of the plot name the two horizontal lines: the roof and the datasheet peak.
  char eff[32];
  std::snprintf(eff, sizeof eff, "peak x %.2f", r.eff);
  const std::string roof_tag = r.eff < 0.999 ? eff : "peak";
  const float tag_w =
      std::max(ImGui::CalcTextSize(roof_tag.c_str()).x, ImGui::CalcTextSize("peak").x);
  const plot::LogLog g = plot::begin_loglog(
      size, xa, xb, ya, yb, &intensity_label, &units::flop_rate,
      "arithmetic intensity (FLOP per HBM byte)", "achieved FLOP/s per device", tag_w + 14);
  const ImVec2 area0 = ImGui::GetItemRectMin(), area1 = ImGui::GetItemRectMax();
  if (g.p1.x - g.p0.x < 40 || g.p1.y - g.p0.y < 40)
    return -1;
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  {
    const float y_roof = g.sy(r.top()) - line * 0.5f;
    dl->AddText(ImVec2(g.p1.x + 6, y_roof), ui::u32(ui::ink(0.95f)), roof_tag.c_str());
    if (r.eff < 0.999) {
      const float y_peak = std::min(g.sy(r.peak) - line * 0.5f, y_roof - line);
      if (y_peak > g.p0.y - line * 0.5f)
        dl->AddText(ImVec2(g.p1.x + 6, y_peak), ui::u32(ui::color::dim), "peak");
    }
  }
  dl->PushClipRect(g.p0, g.p1, true);
  plot::Labels labels(g.p0, g.p1);

  // The roof: the bandwidth slope up to the ridge, flat at peak x efficiency after it; the
  // datasheet peak dashed above.
  const ImU32 roof_col = ui::u32(ui::ink(0.9f));
  const double ridge = r.ridge();
  const double x_start = std::max(xa, ya / r.bw);
  dl->AddLine(g.at(x_start, x_start * r.bw), g.at(ridge, r.top()), roof_col, 2.5f);
  dl->AddLine(g.at(ridge, r.top()), g.at(xb, r.top()), roof_col, 2.5f);
  if (r.eff < 0.999) {
    const ImU32 dash = ui::u32(ui::ink(0.45f));
    plot::dashed_line(dl, g.at(r.peak / r.bw, r.peak), g.at(xb, r.peak), dash, 1.5f);
    plot::dashed_line(dl, g.at(ridge, r.top()), g.at(r.peak / r.bw, r.peak), dash, 1.5f);
  }
  // Labels keep off the roof: thin boxes along the flat part and the slope.
  labels.block(ImVec2(g.sx(ridge), g.sy(r.top()) - 2), ImVec2(g.p1.x, g.sy(r.top()) + 2));
  for (int i = 0; i < 24; ++i) {
    const double xa_i = x_start * std::pow(ridge / x_start, i / 24.0);
    const double xb_i = x_start * std::pow(ridge / x_start, (i + 1) / 24.0);
    const ImVec2 a = g.at(xa_i, xa_i * r.bw), b = g.at(xb_i, xb_i * r.bw);
    labels.block(ImVec2(std::min(a.x, b.x), std::min(a.y, b.y) - 1),
                 ImVec2(std::max(a.x, b.x), std::max(a.y, b.y) + 1));
  }
  // The ridge point and its dotted drop to the axis.
  const ImVec2 rp = g.at(ridge, r.top());
  plot::dashed_line(dl, rp, ImVec2(rp.x, g.p1.y), ui::u32(ui::color::warn, 0.6f), 1.0f, 3, 3);
  dl->AddCircleFilled(rp, 5, ui::u32(ui::color::warn));
  labels.block(ImVec2(rp.x - 6, rp.y - 6), ImVec2(rp.x + 6, rp.y + 6));

  {
    const std::string bw = std::string("HBM ") + plot::tick(units::bandwidth(r.bw));
    // On the slope, a third of the way from its start to the ridge, above the line.
    const double xs = std::pow(10.0, (2 * std::log10(x_start) + std::log10(ridge)) / 3);
    const ImVec2 at = g.at(xs, xs * r.bw);
    const ImVec2 sz = ImGui::CalcTextSize(bw.c_str());
    const ImVec2 p(at.x - sz.x - 4, at.y - sz.y - 2);
    if (p.x > g.p0.x) {
      dl->AddText(p, ui::u32(ui::ink(0.9f)), bw.c_str());
      labels.block(p, ImVec2(p.x + sz.x, p.y + sz.y));
    }
  }
  {
    char buf[64];
    std::snprintf(buf, sizeof buf, "ridge %.0f FLOP/B", ridge);
    const ImVec2 sz = ImGui::CalcTextSize(buf);
    const ImVec2 p(rp.x + 5, g.p1.y - sz.y - 3);
    dl->AddText(p, ui::u32(ui::color::warn), buf);
    labels.block(p, ImVec2(p.x + sz.x, p.y + sz.y));
  }

  // Decode steps over batch sizes: a line through them.
  std::vector<ImVec2> line_pts;
  for (const Point &p : pts)
    if (p.decode && !p.current && p.flops > 0)
      line_pts.push_back(g.at(p.intensity(), p.achieved()));
  for (std::size_t i = 1; i < line_pts.size(); ++i)
    dl->AddLine(line_pts[i - 1], line_pts[i], ui::u32(ui::color::kv_cache, 0.45f), 1.5f);

  // Points: markers first (blocked for the labels), then the labels.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  float best = 9 * 9;
  std::vector<ImVec2> at(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Point &p = pts[i];
    if (p.flops <= 0 || p.time <= 0)
      continue;
    at[i] = g.at(p.intensity(), p.achieved());
    const float rad = p.decode && !p.current ? 3.5f : 5.5f;
    labels.block(ImVec2(at[i].x - rad, at[i].y - rad), ImVec2(at[i].x + rad, at[i].y + rad));
    const float dx = mouse.x - at[i].x, dy = mouse.y - at[i].y;
    if (dx * dx + dy * dy < best) {
      best = dx * dx + dy * dy;
      hovered = static_cast<int>(i);
    }
  }
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Point &p = pts[i];
    if (p.flops <= 0 || p.time <= 0)
      continue;
    const bool hot = hovered == static_cast<int>(i) || highlight == static_cast<int>(i);
    const float rad = (p.decode && !p.current ? 3.5f : 5.5f) + (hot ? 1.5f : 0);
    dl->AddCircleFilled(at[i], rad, ui::u32(p.color));
    dl->AddCircle(at[i], rad, ui::u32(ui::paper(1)), 0, 1.5f);
    if (p.current)
      dl->AddCircle(at[i], rad + 4, ui::u32(p.color), 0, 1.5f);
    if (p.label)
      labels.add(dl, at[i], rad, p.name, ui::u32(ui::ink(1)));
  }
  dl->PopClipRect();
  ui::plot_export("roofline", area0, area1);
  return g.inside(mouse) && ImGui::IsWindowHovered() ? hovered : -1;
}

// [SECTION] table
// Returns the row under the mouse (-1: none); `highlight` (a point hovered on the chart) is
// shown selected.
int draw_table(const std::vector<Point> &pts, const Roof &r, int highlight) {
  int hovered = -1;
  double total = 0;
  for (const Point &p : pts)
    if (!p.decode)
      total += p.time;
  // Each column as wide as its cells; a narrow panel scrolls sideways with the operator
  // names kept in view.
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX;
  ui::table_export("roof_ops");
  if (!ImGui::BeginTable("roof_ops", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y)))
    return -1;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("operator");
  ImGui::TableSetupColumn("FLOP/B");
  ImGui::TableSetupColumn("time");
  ImGui::TableSetupColumn("share");
  ImGui::TableSetupColumn("achieved");
  ImGui::TableSetupColumn("bound");
  ImGui::TableHeadersRow();
  ImDrawList *dl = ImGui::GetWindowDrawList();
  std::string group;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Point &p = pts[i];
    if (p.decode && !p.current)
      continue; // the sweep is on the chart; the table lists the workload's own batch
    if (p.group != group) {
      group = p.group;
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ui::text_dim(group);
    }
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    const ImVec2 sp = ImGui::GetCursorScreenPos();
    const float sz = ImGui::GetFontSize() * 0.6f;
    const float off = (ImGui::GetTextLineHeight() - sz) * 0.5f;
    dl->AddCircleFilled(ImVec2(sp.x + sz * 0.5f, sp.y + off + sz * 0.5f), sz * 0.5f,
                        ui::u32(p.color));
    ImGui::Dummy(ImVec2(sz + 2, sz));
    ImGui::SameLine();
    ImGui::PushID(static_cast<int>(i));
    ImGui::Selectable(p.name.c_str(), highlight == static_cast<int>(i),
                      ImGuiSelectableFlags_SpanAllColumns);
    ImGui::PopID();
    if (ImGui::IsItemHovered())
      hovered = static_cast<int>(i);
    ImGui::TableSetColumnIndex(1);
    char buf[32];
    if (p.flops > 0) {
      std::snprintf(buf, sizeof buf, "%.1f", p.intensity());
      ui::text_right(buf);
    } else {
      ui::text_right("0", &ui::color::dim);
    }
    ImGui::TableSetColumnIndex(2);
    ui::text_right(units::seconds(p.time));
    ImGui::TableSetColumnIndex(3);
    if (!p.decode && total > 0)
      ui::text_right(units::percent(p.time / total), &ui::color::dim);
    ImGui::TableSetColumnIndex(4);
    ui::text_right(p.flops > 0 ? units::flop_rate(p.achieved()) : "-");
    ImGui::TableSetColumnIndex(5);
    const bool compute = p.flops > 0 && p.intensity() >= r.ridge();
    ui::text_colored(compute ? ui::color::ok : ui::color::warn, compute ? "compute" : "HBM");
  }
  ImGui::EndTable();
  ui::table_export_end();
  return hovered;
}

} // namespace

// [SECTION] panel
void draw_roofline_panel(const AppState &s, UiState &ui) {
  const bool current = s.estimate().has_value();
  const std::optional<Estimate> &e = current ? s.estimate() : s.last_good();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_config();
  if (!e || !c) {
    ui::text_dim("No estimate yet: fix the configuration to see the roofline.");
    return;
  }
  const HardwareSpec &hw = c->hardware;
  const Layout &l = e->layout;
  Roof roof;
  roof.eff = hw.gemm_efficiency;
  roof.bw = hw.hbm_bw;
  std::vector<Point> pts;
  std::string what, help;
  // MoE models: the routed layer's operators (the same layer_ops the step-time model times
  // for MoE layers); Estimate.time.ops carries the dense layer's.
  const bool moe = c->model.moe.has_value();
  if (e->mode == Mode::train) {
    roof.peak = e->time.peak;
    pts =
        operator_points(moe ? layer_ops(c->model, true, l, static_cast<double>(c->workload.seq_len),
                                        hw, c->workload.precision, c->workload.causal_skip,
                                        moe_load_factor(c->workload), c->workload.fp8_recipe)
                            : e->time.ops);
    what = std::string(moe ? "One MoE layer's" : "One layer's") +
           std::string(" forward operators, one micro-batch (b ") + std::to_string(l.microbatch) +
           " x s " + std::to_string(c->workload.seq_len) + "), on one device (tp " +
           std::to_string(l.tp) + (l.sp ? " + SP" : "") + ", cp " + std::to_string(l.cp) +
           (moe ? std::string(", ep ") + std::to_string(l.ep) : "") + ")";
    help =
        "Each GEMM: time = max(FLOPs / (peak x its shape's GEMM efficiency), HBM bytes / "
        "achieved bandwidth) "
        "(docs/formulas.md 'Step time'; core layer_ops, the points Estimate.time.ops carries). "
        "Achieved FLOP/s = FLOPs / time, so every point sits on or under the roof (under it "
        "by its shape's efficiency loss, or by the achieved share of HBM bandwidth): the "
        "chart shows which limit binds and how far from the ridge. FlashAttention keeps the score "
        "matrix in SRAM (its bytes are Q, K, V, O). 'element-wise' (norms, residuals, "
        "activation, rotary) has no FLOPs: bytes only, listed in the table. Backward runs "
        "the same GEMMs twice.";
  } else {
    // Prefill: the operators the core's prefill() sums (one prompt, micro-batch 1).
    roof.peak = peak_flops(hw, c->workload.precision);
    Layout one = l;
    one.microbatch = 1;
    const double prompt = static_cast<double>(c->workload.prompt_len);
    pts = operator_points(
        layer_ops(c->model, moe, one, prompt, hw, c->workload.precision, c->workload.causal_skip));
    for (Point &p : pts)
      p.group = "prefill, one prompt";
    // Decode: the step at the mean context over batch sizes, and the workload's own batch.
    const double pp = static_cast<double>(l.pp);
    const DecodeCurve &sw = decode_sweep(s, ui.sweep); // mean context, as TPOT in Results
    for (const DecodeStep &d : sw.rows) {
      Point p = decode_point(d, roof, pp);
      p.label = false;
      p.color = d.fits ? ui::color::kv_cache : ui::color::dim;
      p.note = d.fits ? "" : "does not fit in HBM at this batch";
      pts.push_back(p);
    }
    Point cur = decode_point(e->serving.decode, roof, pp);
    cur.current = true;
    cur.note =
        "The workload's batch at the mean context (prompt + gen/2), as TPOT in Results. "
        "FLOPs 2 B P_active per step at peak (How to Scale Your Model ch. 7: decode GEMMs at "
        "efficiency 1); bytes: weights + KV cache; time: the whole step (stages in "
        "turn, communication included).";
    pts.push_back(cur);
    what = std::string("Prefill of one prompt (s ") + std::to_string(c->workload.prompt_len) +
           ") per layer on one device, and the decode step over batch sizes";
    help = std::string("Prefill: each operator of one layer for one prompt on one device (tp ") +
           std::to_string(l.tp) +
           "), time = max(FLOPs / (peak x efficiency), bytes / HBM bandwidth): core layer_ops, "
           "the terms of prefill() and TTFT. Decode: one chip's share of a decode step "
           "(decode_step at the mean context), FLOPs 2 B P_active, bytes weights + KV cache; "
           "the pink line joins the batch sizes of rl::sweep_batches (grey: does not fit), "
           "the ringed point is the workload's batch. Decode stays left of the ridge until the "
           "critical batch.";
  }
  if (roof.peak <= 0 || roof.bw <= 0) {
    ui::text_dim("The hardware has no peak FLOP/s or HBM bandwidth for this precision.");
    return;
  }
  if (!current)
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  ImGui::TextUnformatted(what.c_str());
  ui::help_marker(help);
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: peak %s x GEMM efficiency %.2f, HBM %s, ridge %.0f FLOP/B",
                hw.name.c_str(), units::flop_rate(roof.peak).c_str(), roof.eff,
                units::bandwidth(roof.bw).c_str(), roof.ridge());
  ui::text_dim(buf);
  ui::help_marker("Ridge point = peak x efficiency / HBM bandwidth: operators with fewer FLOPs "
                  "per byte are bandwidth-bound. The roof is the large-GEMM efficiency "
                  "(hardware.gemm_efficiency, from cuBLAS microbenchmarks); each GEMM runs at "
                  "its shape's efficiency, below it (wave quantisation, short K; "
                  "docs/calibration.md), so points sit under the roof.");

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
  const float chart_w = std::floor(std::max(200.0f, avail.x * 0.5f));
  static int table_hover = -1; // the row hovered last frame lights its point
  ImGui::BeginGroup();
  const int chart_hover = draw_chart(pts, roof, ImVec2(chart_w, avail.y), table_hover);
  ImGui::EndGroup();
  ImGui::SameLine(0, gap);
  ImGui::BeginChild("roof_table", ImVec2(0, avail.y));
  table_hover = draw_table(pts, roof, chart_hover);
  ImGui::EndChild();
  if (chart_hover >= 0)
    tooltip(pts[static_cast<std::size_t>(chart_hover)], roof);
  else if (table_hover >= 0)
    tooltip(pts[static_cast<std::size_t>(table_hover)], roof);
  if (!current)
    ImGui::PopStyleVar();
}

} // namespace rl::web
