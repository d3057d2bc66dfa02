// ridgeline web: serving (workload mode "serve"), as `ridgeline serve` and `ridgeline plan`
// print it: the simulated latency percentiles, throughput, goodput and memory of the
// configured deployment (results area); latency percentiles against the request rate from
// the same simulation at 1/8 to 2x the rate (rl::load_sweep); and the serving
// planner's deployments, cheapest first (click a row to apply it).
// [SECTION] results  [SECTION] rate curve  [SECTION] deployments
#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/units.hpp"
#include "core/jobs/plan.hpp"
#include "core/parallel/knobs.hpp"
#include "core/report/serve_report.hpp"
#include "core/serve/serve_planner.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/plot.hpp"
#include "web/report_view.hpp"
#include "web/widgets.hpp"

#include <chrono>
#include <cstdio>

namespace rl::web {

// [SECTION] results
void draw_serve_results(const AppState &s) {
  if (s.busy()) {
    // Spread over frames: the last result stays (dimmed) while the new one is simulated.
    ImGui::ProgressBar(static_cast<float>(s.busy_progress()), ImVec2(ImGui::GetFontSize() * 16, 0));
    ImGui::SameLine();
    ui::text_dim("simulating the requests...");
  }
  const bool current = s.serve().has_value();
  const std::optional<ServeResult> &r = current ? s.serve() : s.last_good_serve();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_serve_config();
  if (!current && s.error())
    ui::text_colored(ui::color::error, "Error: " + s.error()->text());
  if (!r || !c)
    return;
  if (!current)
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  // The report layer's tables (core/report/serve_report), the ones `ridgeline serve` prints.
  const ServeReport rep = serve_report(*c, *r);
  ImGui::TextUnformatted(rep.title.c_str());
  ImGui::Separator();
  ui::report_table(rep.latency);
  ui::text_dim_wrapped(rep.latency.note); // the engine's band
  const ServeMemory &m = r->memory;
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the memory bar
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ui::stacked_bar(ui::report_segments(rep.summary, "value",
                                      {{"weights", ui::color::weights},
                                       {"workspace", ui::color::activations},
                                       {"kv_cache", ui::color::kv_cache}}),
                  m.capacity, m.total, "engine limit", &units::bytes);
  ui::plot_export("serve-memory", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::report_table(rep.summary);
  if (!current)
    ImGui::PopStyleVar();
}

// [SECTION] rate curve
namespace {
// A point's latency percentiles (TTFT, TPOT or end-to-end).
using PercentilesOf = const Percentiles &(*)(const LoadPoint &);
double quantile(const Percentiles &p, int k) {
  return k == 0 ? p.p50 : k == 1 ? p.p90 : p.p99;
}

// Latency percentiles (p50, p90, p99 of `what`) against x (the load, or the throughput) of
// each simulated load.
void rate_chart(const char *id, const std::vector<LoadPoint> &rows, bool x_is_load,
                const std::string &x_title, PercentilesOf what, double target, ImVec2 size,
                const std::string &y_title) {
  const auto x_of = [&](const LoadPoint &p) { return x_is_load ? p.load : p.output_tokens_per_s; };
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const LoadPoint &r : rows) {
    const double x = x_of(r);
    if (!(x > 0))
      continue;
    x_lo = std::min(x_lo, x);
    x_hi = std::max(x_hi, x);
    for (int q = 0; q < 3; ++q) {
      const double y = quantile(what(r), q);
      if (y > 0) {
        y_lo = std::min(y_lo, y);
        y_hi = std::max(y_hi, y);
      }
    }
  }
  if (x_hi <= 0 || y_hi <= 0)
    return;
  if (target > 0) {
    y_lo = std::min(y_lo, target);
    y_hi = std::max(y_hi, target);
  }
  double xa, xb, ya, yb;
  plot::log_range(x_lo, x_hi, 1.15, 0.5, xa, xb);
  plot::log_range(y_lo, y_hi, 1.5, 0.8, ya, yb);
  ImGui::PushID(id);
  const plot::LogLog g = plot::begin_loglog(
      size, xa, xb, ya, yb, [](double x) { return plot::tick(units::count(x)); }, &units::seconds,
      x_title, y_title);
  ImGui::PopID();
  const ImVec2 area0 = ImGui::GetItemRectMin(), area1 = ImGui::GetItemRectMax();
  if (g.p1.x - g.p0.x < 40 || g.p1.y - g.p0.y < 40)
    return;
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(g.p0, g.p1, true);
  if (target > 0) {
    const float y = g.sy(target);
    plot::dashed_line(dl, ImVec2(g.p0.x, y), ImVec2(g.p1.x, y), ui::u32(ui::color::warn, 0.7f));
    const std::string lab = "SLO " + units::seconds(target);
    dl->AddText(
        ImVec2(g.p1.x - ImGui::CalcTextSize(lab.c_str()).x - 6, y - ImGui::GetTextLineHeight() - 1),
        ui::u32(ui::color::warn), lab.c_str());
  }
  const ImVec4 cols[] = {ui::color::ok, ui::color::accent, ui::color::kv_cache};
  const char *qs[] = {"p50", "p90", "p99"};
  for (int k = 0; k < 3; ++k) {
    ImVec2 prev{};
    bool first = true;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double x = x_of(rows[i]), y = quantile(what(rows[i]), k);
      if (!(x > 0) || !(y > 0))
        continue;
      const ImVec2 p = g.at(x, y);
      if (!first)
        dl->AddLine(prev, p, ui::u32(cols[k]), 2.0f);
      dl->AddCircleFilled(p, 3.5f, ui::u32(cols[k]));
      prev = p;
      first = false;
    }
    // legend at the top left, clear of the rising right end of the curves
    dl->AddText(ImVec2(g.p0.x + 8 + 40.0f * static_cast<float>(k), g.p0.y + 4), ui::u32(cols[k]),
                qs[k]);
  }
  dl->PopClipRect();
  ui::plot_export((std::string("serve-") + id).c_str(), area0, area1);
}
} // namespace

void draw_serve_curve_panel(AppState &s, UiState &ui) {
  const std::optional<Config> &c = s.serve() ? s.view_config() : s.last_good_serve_config();
  if (!c) {
    ui::text_dim("The serving simulation needs a valid serve configuration.");
    return;
  }
  ServeUi &su = ui.serve;
  if (su.sweep_key != s.config_key()) {
    su.sweep_key = s.config_key();
    su.sweep = LoadSweep{};
    su.sweep.closed = c->workload.serve.concurrency > 0; // what the points hold
    su.sweep_error.clear();
    su.sweep_rates = sweep_loads(*c);
    su.sweep_next = 0;
  }
  if (su.sweep_next < su.sweep_rates.size()) {
    // One load per frame (a whole simulation each), so the page stays live.
    try {
      const LoadSweep one = load_sweep(*c, {su.sweep_rates[su.sweep_next]});
      su.sweep.points.insert(su.sweep.points.end(), one.points.begin(), one.points.end());
    } catch (const std::exception &e) {
      su.sweep_error = e.what();
    }
    ++su.sweep_next;
    ImGui::ProgressBar(static_cast<float>(su.sweep_next) /
                           static_cast<float>(su.sweep_rates.size()),
                       ImVec2(ImGui::GetFontSize() * 16, 0));
    ImGui::SameLine();
    ui::text_dim("simulating load " + std::to_string(su.sweep_next) + " of " +
                 std::to_string(su.sweep_rates.size()) + "...");
  }
  if (!su.sweep_error.empty()) {
    ui::text_colored(ui::color::error, su.sweep_error);
    return;
  }
  const bool closed = su.sweep.closed;
  ui::text_dim_wrapped(closed ? "The deployment simulated with 1, 2, 4, ... clients up to twice "
                                "the concurrency (closed loop, same scheduler): latency "
                                "percentiles per load, and end-to-end latency against the "
                                "throughput it delivers; dashed: the SLO target."
                              : "The deployment simulated at 1/8 to 2x the request rate (same "
                                "scheduler): latency percentiles per rate, and end-to-end latency "
                                "against the throughput it delivers; dashed: the SLO target.");
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float w = std::floor((avail.x - 2 * gap) / 3);
  const float h = std::max(160.0f, avail.y - 130.0f);
  const std::string rate = closed ? "clients (closed loop)" : "request rate (requests/s)";
  const auto &pts = su.sweep.points;
  rate_chart(
      "ttft", pts, true, rate, [](const LoadPoint &p) -> const Percentiles & { return p.ttft; },
      c->workload.serve.slo_ttft, ImVec2(w, h), "time to first token");
  ImGui::SameLine();
  rate_chart(
      "tpot", pts, true, rate, [](const LoadPoint &p) -> const Percentiles & { return p.tpot; },
      c->workload.serve.slo_tpot, ImVec2(w, h), "time per output token");
  ImGui::SameLine();
  rate_chart(
      "thr", pts, false, "output tokens/s (all instances)",
      [](const LoadPoint &p) -> const Percentiles & { return p.e2e; }, 0, ImVec2(w, h),
      "end-to-end latency");
  ui::report_table(serve_sweep_table(su.sweep), {ImGui::GetContentRegionAvail().y});
}

// [SECTION] deployments
void draw_deployments_panel(AppState &s, UiState &ui) {
  ServeUi &su = ui.serve;
  // Planning needs a configuration that parses; its own deployment may not fit.
  if (!s.view_config() || (s.error() && s.error()->path != "parallel")) {
    ui::text_dim("Fix the configuration to plan a deployment.");
    return;
  }
  // The first look at the tab plans at once; later the button re-plans. The search runs its
  // candidates for ~12 ms a frame (ServePlanSearch) so the page stays live; Cancel stops it.
  const bool first = !su.plan && su.plan_error.empty() && su.plan_key.empty() && !su.search;
  // The layout the configuration pins (tp, pp, ep), or searched too (free=all in the link)
  bool searched = s.free_knobs() == "all";
  bool toggled = false;
  if (!su.search) {
    toggled = ImGui::Checkbox("search the layout", &searched);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Searches tp, pp and, for MoE, attention DP with EP or MoE TP even "
                        "where the configuration sets them (free=all in the link, as "
                        "`ridgeline plan --free all`).");
    if (toggled)
      s.set_free_knobs(searched ? "all" : "");
    ImGui::SameLine();
  }
  if (!su.search && (ImGui::Button("Plan deployment") || first || toggled)) {
    su.plan_key = s.config_key();
    su.plan.reset();
    su.plan_error.clear();
    su.plan_seconds = 0;
    try {
      // the link's free= (as `ridgeline plan --free`)
      su.search.emplace(jobs::choices_of(s.user(), s.free_knobs(), "free"));
    } catch (const ConfigError &e) {
      su.plan_error = e.path() + ": " + e.message();
    } catch (const std::exception &e) {
      su.plan_error = e.what();
    }
  }
  if (su.search) {
    // candidates for up to ~12 ms a frame (most are rejected at once: layout, bound, depth)
    const auto t0 = std::chrono::steady_clock::now();
    try {
      bool over = false;
      while (!over && std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(12))
        over = su.search->step(1);
      if (over) {
        su.plan = su.search->finish();
        su.search.reset();
      }
    } catch (const std::exception &e) {
      su.plan_error = e.what();
      su.search.reset();
    }
    su.plan_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (su.search) {
    ImGui::ProgressBar(static_cast<float>(su.search->progress()), ImVec2(240, 0), "planning...");
    ImGui::SameLine();
    if (ImGui::Button("Cancel"))
      su.search.reset();
    return;
  }
  ImGui::SameLine();
  ui::text_dim("cheapest meeting the SLO; click a row to apply it, right-click for its launch");
  ImGui::SameLine();
  ui::help_marker("Hardware, engines and weight precisions from workload.hardware_options, "
                  "engine_options and precision_options (none: the configuration's own); for "
                  "MoE, attention DP with the experts split by tensor or by expert.");
  if (!su.plan_error.empty()) {
    ui::text_colored(ui::color::error, su.plan_error);
    return;
  }
  if (!su.plan)
    return;
  const ServePlanResult &r = *su.plan;
  std::string rej;
  for (const auto &[k, v] : r.rejected)
    rej += " " + k + " " + std::to_string(v);
  ui::text_dim(std::to_string(r.candidates) + " candidates, " + std::to_string(r.evaluated) +
               " sized, " + std::to_string(r.feasible) + " meet the SLO; rejected:" + rej + "; " +
               std::to_string(r.simulations) + " simulations" +
               (su.plan_seconds > 0 ? " in " + units::seconds(su.plan_seconds) : ""));
  if (const std::string note = routing_note(r); !note.empty())
    ui::text_dim_wrapped(note);
  if (su.plan_key != s.config_key())
    ui::text_colored(ui::color::warn, "The configuration changed since this plan.");
  if (r.deployments.empty()) {
    ui::text_colored(ui::color::error, "No deployment meets the SLO.");
    return;
  }
  // The report layer's table (core/report/serve_report), the one `ridgeline plan` prints.
  int hovered = -1;
  ui::TableView view{ImGui::GetContentRegionAvail().y, true};
  view.hovered = &hovered;
  const int clicked = ui::report_table(deployment_table(r), view);
  // Right click: the row's launch (`ridgeline export` of its configuration), as a plan row's.
  if (hovered >= 0 && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
    su.export_row = hovered;
    ImGui::OpenPopup("##deployment-export");
  }
  if (ImGui::BeginPopup("##deployment-export")) {
    if (su.export_row >= 0 && su.export_row < static_cast<int>(r.deployments.size()))
      ui::launch_export_contents(r.deployments[static_cast<std::size_t>(su.export_row)].config);
    ImGui::EndPopup();
  }
  std::optional<std::size_t> apply;
  if (clicked >= 0)
    apply = static_cast<std::size_t>(clicked);
  if (apply) {
    const Deployment &d = r.deployments[*apply];
    s.set_preset("hardware", d.hardware);
    s.set_preset("cluster", d.cluster);
    s.set_field("cluster", "devices", d.devices);
    const WorkloadSpec &w = d.config.workload;
    json par = {{"tp", d.layout.tp}, {"pp", d.layout.pp}, {"ep", d.layout.ep}};
    if (d.layout.ep_in_instance) // MoE inside the instance: attention DP, the experts' TP
      par.update({{"attention_dp", d.layout.attention_dp}, {"moe_tp", d.layout.moe_tp}});
    s.set_parallel_object(par);
    if (w.serve.engine.name != "none")
      s.set_field("workload", "engine", w.serve.engine.name);
    s.set_field("workload", "weight_dtype", io::name_of(w.weight_dtype));
    s.set_field("workload", "precision", io::name_of(w.precision));
    s.set_field("workload", "scheduler.max_batch", d.max_batch);
    s.set_field("workload", "scheduler.chunk", d.chunk);
    s.set_field("workload", "scheduler.max_tokens", d.config.workload.serve.max_tokens);
    s.set_field("workload", "scheduler.prefill_instances", d.prefill_instances);
    su.plan_key = s.config_key(); // the plan stays shown for the applied row
  }
}

} // namespace rl::web
