// ridgeline web: the Pipeline timeline panel: a Gantt chart of the schedule (1F1B,
// interleaved, GPipe, DualPipe or DualPipeV) for the current pp, vpp and micro-batch count,
// bubble shaded.
#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/parallel/layout.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cstdio>

namespace rl::web {

namespace {

constexpr i64 kMaxDrawnMicrobatches = 32;

bool dual(const Layout &l) {
  return is_dualpipe(l.schedule);
}

// Micro-batches drawn: at most 32 (DualPipe's 2 pp at least, even), and a multiple of pp when
// interleaving.
i64 drawn_microbatches(const Layout &l) {
  if (dual(l)) {
    const i64 m = std::min(l.num_micro, std::max(kMaxDrawnMicrobatches, 2 * l.pp));
    return l.schedule == PpSchedule::dualpipe ? m - m % 2 : m;
  }
  i64 m = std::min(l.num_micro, kMaxDrawnMicrobatches);
  if (l.schedule == PpSchedule::interleaved && l.pp > 0) {
    m = (m / l.pp) * l.pp;
    if (m == 0)
      m = std::min(l.num_micro, l.pp);
  }
  return std::max<i64>(m, 1);
}

ImVec4 pass_color(const PipePass &p, i64 chunks) {
  const ImVec4 base = p.weight     ? ui::color::weight_grad
                      : p.backward ? ui::color::backward
                                   : ui::color::forward;
  if (chunks <= 1)
    return base;
  // Later model chunks a little lighter.
  const float t = 0.3f * static_cast<float>(p.chunk) / static_cast<float>(chunks - 1);
  return ImVec4(base.x + (1 - base.x) * t, base.y + (1 - base.y) * t, base.z + (1 - base.z) * t,
                1.0f);
}

} // namespace

void draw_pipeline_panel(const AppState &s) {
  const bool current = s.estimate().has_value();
  const std::optional<Estimate> &e = current ? s.estimate() : s.last_good();
  if (!e) {
    ui::text_dim("No layout yet.");
    return;
  }
  const Layout &l = e->layout;
  if (e->mode != Mode::train) {
    ui::text_dim_wrapped("Inference has no backward pass: the timeline shows training "
                         "schedules (set the workload mode to train).");
    return;
  }
  const i64 m_draw = drawn_microbatches(l);
  // A fine-tune over a frozen base has no weight gradients: its backward is its step model's
  // t_bwd / t_fwd forward passes, not the 2 of full training.
  const std::optional<FinetuneSpec> &ft =
      s.view_config() ? s.view_config()->workload.finetune : std::optional<FinetuneSpec>{};
  const bool frozen = ft && ft->adapters() && e->time.t_fwd > 0;
  const double bwd_units = frozen ? e->time.t_bwd / e->time.t_fwd : kBackwardUnits;
  // the weight gradients DualPipe defers: half the backward (none over a frozen base)
  const PipeTimeline t = simulate_pipeline(l.schedule, l.pp, l.vpp, m_draw, bwd_units,
                                           frozen ? 0.0 : kBackwardUnits / 2);
  const i64 v = t.chunks;

  // Header: schedule, bubble, units.
  const char *name = l.schedule == PpSchedule::gpipe         ? "GPipe"
                     : l.schedule == PpSchedule::interleaved ? "Interleaved 1F1B"
                     : l.schedule == PpSchedule::dualpipe    ? "DualPipe"
                     : l.schedule == PpSchedule::dualpipev   ? "DualPipeV"
                                                             : "1F1B";
  ImGui::Text("%s:  p = %lld %s,  v = %lld model chunk%s per device,  m = %lld "
              "micro-batches per step",
              name, static_cast<long long>(l.pp), dual(l) ? "ranks" : "stages",
              static_cast<long long>(v), v > 1 ? "s" : "", static_cast<long long>(l.num_micro));
  if (l.num_micro > m_draw) {
    ImGui::SameLine();
    ui::text_dim("  (drawing the first " + std::to_string(m_draw) + ")");
  }
  char buf[200];
  double bubble = 0;
  if (dual(l)) {
    // the step model's: DeepSeek-V3 Table 2 over its chunk times (docs/formulas.md)
    const double busy = e->time.step - e->time.bubble;
    bubble = busy > 0 ? e->time.bubble / busy : 0;
    std::snprintf(buf, sizeof buf,
                  "Bubble (S/2 - 1)(F&B + B - 3W), S = %lld stages: %s of the busy time",
                  static_cast<long long>(l.pp * chunk_passes(l)), units::percent(bubble).c_str());
  } else {
    bubble = bubble_fraction_formula(l.pp, v, l.num_micro);
    std::snprintf(buf, sizeof buf, "Bubble fraction (p-1)/(v*m) = %lld/(%lld*%lld) = %s",
                  static_cast<long long>(l.pp - 1), static_cast<long long>(v),
                  static_cast<long long>(l.num_micro), units::percent(bubble).c_str());
  }
  ui::text_colored(bubble > 0.25 ? ui::color::warn : ui::color::ok, buf);
  ui::help_marker(dual(l)
                      ? "DeepSeek-V3's DualPipe (sec. 3.2.1): two copies of the model fed from "
                        "both ends, each rank a stage of each; DualPipeV its V: 2p stages, rank "
                        "j holding stages j and 2p - 1 - j. Each rank runs the eight steps of "
                        "DeepSeek's dualpipe.py: a forward and a backward of two micro-batches "
                        "together (their communication hides under each other), backwards of "
                        "the input gradient with the weight gradient deferred (zero bubble). "
                        "Activations: S + 1 stages on every rank."
                      : "Idle time of each stage relative to its busy time; step time = (m + "
                        "(p-1)/v) x (t_fwd + t_bwd) (docs/formulas.md 'Step time'). GPipe has "
                        "the same bubble but keeps all m micro-batches' activations; 1F1B keeps "
                        "p; interleaving divides the bubble by v at the cost of more "
                        "point-to-point traffic.");
  if (!t.error.empty()) {
    ui::text_colored(ui::color::error, t.error);
    return;
  }
  if (l.num_micro > m_draw) {
    ImGui::SameLine();
    std::snprintf(buf, sizeof buf, "   (the %lld drawn: %s)", static_cast<long long>(m_draw),
                  units::percent(t.bubble_fraction()).c_str());
    ui::text_dim(buf);
  }
  // The export button sits at the right end of this line, over no part of the chart.
  const ImVec2 heading = ImGui::GetCursorScreenPos();
  ui::text_dim(
      (frozen ? units::format("Time in units of one forward pass: forward = 1, backward = %.2f "
                              "(frozen base).",
                              bwd_units)
              : std::string("Time in units of one forward pass: forward = 1, backward = 2 "
                            "(backward FLOPs = 2 x forward).")) +
      std::string(l.schedule == PpSchedule::dualpipe
                      ? " A rank's two chunks are a stage of each copy; a micro-batch runs one."
                  : v > 1 ? " A model chunk's pass takes 1/v."
                          : ""));

  // Chart geometry.
  const float label_w = ImGui::CalcTextSize("stage 000").x + 8;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float axis_h = ImGui::GetTextLineHeight() + 8;
  const float legend_h = ImGui::GetTextLineHeight() + 6;
  const float chart_w = std::max(50.0f, avail.x - label_w - 4);
  const float chart_h = std::max(20.0f, avail.y - axis_h - legend_h);
  const float row_h = std::min(l.pp <= 4 ? 44.0f : 34.0f, chart_h / static_cast<float>(l.pp));
  const float gap = row_h > 10 ? 2.0f : 0.0f;
  const float x0 = origin.x + label_w;
  const float unit = chart_w / static_cast<float>(std::max(t.makespan, 1.0));
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;

  const PipePass *hovered = nullptr;
  for (i64 j = 0; j < l.pp; ++j) {
    const float y = origin.y + static_cast<float>(j) * row_h;
    // The whole row in bubble colour: passes paint over it, idle time stays visible.
    dl->AddRectFilled(ImVec2(x0, y + gap * 0.5f), ImVec2(x0 + chart_w, y + row_h - gap * 0.5f),
                      ui::u32(ui::color::bubble));
    if (row_h >= ImGui::GetFontSize() * 0.8f || j == 0 || j == l.pp - 1) {
      const std::string lab = (dual(l) ? "rank " : "stage ") + std::to_string(j);
      dl->AddText(ImVec2(origin.x, y + (row_h - ImGui::GetFontSize()) * 0.5f),
                  ui::u32(ui::color::dim), lab.c_str());
    }
  }
  for (const PipePass &p : t.passes) {
    const float y = origin.y + static_cast<float>(p.stage) * row_h + gap * 0.5f;
    const float xa = x0 + static_cast<float>(p.start) * unit;
    const float xb = x0 + static_cast<float>(p.end) * unit;
    const ImVec2 a(xa, y), b(xb, y + row_h - gap);
    dl->AddRectFilled(a, b, ui::u32(pass_color(p, v)));
    if (xb - xa > 3)
      dl->AddRect(a, b, ui::u32(ui::paper(0.9f)));
    const std::string lab = std::to_string(p.microbatch);
    const ImVec2 ts = ImGui::CalcTextSize(lab.c_str());
    if (ts.x + 4 < xb - xa && ts.y <= row_h - gap)
      dl->AddText(ImVec2((xa + xb - ts.x) * 0.5f, y + (row_h - gap - ts.y) * 0.5f),
                  ui::u32(ImVec4(0.04f, 0.05f, 0.07f, 1)), lab.c_str());
    if (mouse.x >= xa && mouse.x < xb && mouse.y >= a.y && mouse.y < b.y)
      hovered = &p;
  }
  // Time axis in units.
  const float ay = origin.y + static_cast<float>(l.pp) * row_h + 2;
  const double step = t.makespan > 200 ? 50 : t.makespan > 80 ? 20 : t.makespan > 30 ? 10 : 5;
  for (double u = 0; u <= t.makespan + 1e-9; u += step) {
    const float x = x0 + static_cast<float>(u) * unit;
    dl->AddLine(ImVec2(x, ay - 2), ImVec2(x, ay + 2), ui::u32(ui::color::dim));
    char lab[16];
    std::snprintf(lab, sizeof lab, "%.0f", u);
    const float lw = ImGui::CalcTextSize(lab).x;
    if (x + lw * 0.5f < x0 + chart_w - ImGui::CalcTextSize("000.0 units").x - 8)
      dl->AddText(ImVec2(std::max(x0, x - lw * 0.5f), ay + 2), ui::u32(ui::color::dim), lab);
  }
  char mk[64];
  std::snprintf(mk, sizeof mk, "%.1f units", t.makespan);
  const float mkw = ImGui::CalcTextSize(mk).x;
  dl->AddText(ImVec2(x0 + chart_w - mkw, ay + 2), ui::u32(ui::color::dim), mk);
  ImGui::Dummy(ImVec2(avail.x, static_cast<float>(l.pp) * row_h + axis_h));

  // Legend.
  auto swatch = [&](const ImVec4 &c, const char *text) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float sz = ImGui::GetFontSize() * 0.8f;
    const float off = (ImGui::GetTextLineHeight() - sz) * 0.5f;
    dl->AddRectFilled(ImVec2(p.x, p.y + off), ImVec2(p.x + sz, p.y + off + sz), ui::u32(c), 2.0f);
    ImGui::Dummy(ImVec2(sz, sz));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
    ImGui::SameLine(0, 18);
  };
  swatch(ui::color::forward, "forward (1)");
  swatch(ui::color::backward, units::format("backward (%.3g)", bwd_units).c_str());
  if (dual(l) && !frozen)
    swatch(ui::color::weight_grad, "weight gradient, deferred (1 of the 2)");
  swatch(ui::color::bubble, "idle (bubble)");
  ui::text_dim(v > 1 ? "numbers: micro-batch; lighter = later model chunk"
                     : "numbers: micro-batch");
  // The chart and its legend.
  ui::plot_export("pipeline", heading, ImVec2(origin.x + avail.x, ImGui::GetItemRectMax().y));

  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::Text("stage %lld, micro-batch %lld%s", static_cast<long long>(hovered->stage),
                static_cast<long long>(hovered->microbatch),
                v > 1 ? (", chunk " + std::to_string(hovered->chunk)).c_str() : "");
    ImGui::Text("%s, t = %.2f .. %.2f units",
                hovered->weight     ? "weight gradient"
                : hovered->backward ? "backward"
                                    : "forward",
                hovered->start, hovered->end);
    ImGui::EndTooltip();
  }
}

} // namespace rl::web
