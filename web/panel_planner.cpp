// ridgeline web: the Planner panel. rl::plan over the current configuration with every
// parallel knob the configuration leaves out free (and those the user frees here), ranked by
// step time (training) or time per output token (inference); a sortable top-N table whose
// rows apply their layout on click, the rejected candidates by class and the closest
// layouts that do not fit. The search runs when the configuration or the choices here
// change while the panel is open, or on "Search"; never every frame.
// [SECTION] knobs  [SECTION] search  [SECTION] apply  [SECTION] table  [SECTION] panel
#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/units.hpp"
#include "core/jobs/plan.hpp"
#include "core/parallel/knobs.hpp"
#include "core/parallel/layout.hpp"
#include "core/report/plan_table.hpp"
#include "core/report/report.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/plot.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl::web {

namespace {

// [SECTION] knobs
// The knobs rl::plan searches when they are free: core/parallel/knobs (dp, derived, is not
// toggled here).
bool pinned(const AppState &s, const KnobInfo &k) {
  return std::any_of(k.pins.begin(), k.pins.end(),
                     [&](const char *key) { return s.parallel_knob(key).has_value(); });
}

bool is_free(const AppState &s, const PlannerUi &p, const KnobInfo &k) {
  return !pinned(s, k) || p.freed.count(k.name) > 0;
}

bool toggled(const KnobInfo &k, const Config &c) {
  return !k.derived && knob_applies(k, c);
}

// On this line while a small button labelled `label` fits, else on the next (a row of
// buttons wraps instead of running off the panel).
void same_line_or_wrap(const char *label, float spacing = -1) {
  const float w = ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::SameLine(0, spacing);
  if (ImGui::GetCursorPosX() + w > ImGui::GetWindowContentRegionMax().x)
    ImGui::NewLine();
}

// The configuration the planner searches: the knobs chosen free here left out, with what
// follows them (core/parallel/knobs: dp follows tp, pp and cp, Megatron-SP tp, the schedule
// pp and vpp).
Config search_config(const AppState &s, const PlannerUi &p, const Config &c) {
  Config x = c;
  for (const KnobInfo &k : knobs())
    if (!k.derived && is_free(s, p, k))
      free_knob(k, x.parallel);
  return x;
}

// The knobs a link's free= names ("all" or names, core/parallel/knobs' rule) that the
// configuration pins; a link naming no knob frees nothing.
std::set<std::string> freed_from_link(const AppState &s, const Config &c) {
  std::set<std::string> out;
  std::vector<const KnobInfo *> named;
  try {
    named = knobs_in_list(s.free_knobs(), c, "free");
  } catch (const ConfigError &) {
    return out; // an unknown name in a link: the search runs as configured
  }
  for (const KnobInfo *k : named)
    if (toggled(*k, c) && pinned(s, *k))
      out.insert(k->name);
  return out;
}

// What the link carries for the freed knobs: "all" when every pinned knob is free.
std::string link_of_freed(const AppState &s, const PlannerUi &p, const Config &c) {
  std::string names;
  bool all = true;
  for (const KnobInfo &k : knobs()) {
    if (!toggled(k, c) || !pinned(s, k))
      continue;
    if (p.freed.count(k.name) == 0) {
      all = false;
      continue;
    }
    names += (names.empty() ? "" : ",") + std::string(k.name);
  }
  return names.empty() ? "" : all ? "all" : names;
}

// [SECTION] search
// Budget units one frame spends (a candidate costs 1 + layers): about 10 ms natively, a few
// times that in WASM, so the page stays live and Cancel answers at once.
constexpr i64 kUnitsPerFrame = 40'000;

void run_search(const AppState &s, PlannerUi &p, const Config &c) {
  PlanOptions o;
  o.top = p.top;
  o.objective = c.workload.mode == Mode::train ? p.objective : Objective::step;
  o.headroom = p.headroom_gb >= 0 ? p.headroom_gb * 1e9 : -1;
  p.result.reset();
  p.running.reset();
  p.joint.reset();
  p.joint_running.reset();
  p.cancelled = false;
  p.error.clear();
  try {
    if (jobs::plan_kind(c) == jobs::PlanKind::joint) {
      std::vector<Config> choices = jobs::choices_of(s.user(), "");
      for (Config &x : choices)
        x = search_config(s, p, x);
      p.joint_running.emplace(std::move(choices), o);
    } else {
      p.running.emplace(search_config(s, p, c), o);
    }
  } catch (const ConfigError &e) {
    p.error = e.path().empty() ? e.message() : e.path() + ": " + e.message();
  } catch (const std::exception &e) {
    p.error = std::string("internal error: ") + e.what();
  }
  p.started = ImGui::GetTime();
  p.seconds = 0;
}

// One frame's share of the running search; its result once it is over (or cancelled).
void step_search(PlannerUi &p, bool cancel) {
  if (!p.running && !p.joint_running)
    return;
  try {
    if (p.joint_running) {
      const bool over = cancel || p.joint_running->step(kUnitsPerFrame);
      if (!over)
        return;
      p.joint = p.joint_running->result();
      p.joint_running.reset();
    } else {
      const bool over = cancel || p.running->step(kUnitsPerFrame);
      if (!over)
        return;
      p.result = p.running->result();
    }
  } catch (const ConfigError &e) {
    p.error = e.path().empty() ? e.message() : e.path() + ": " + e.message();
  } catch (const std::exception &e) {
    p.error = std::string("internal error: ") + e.what();
  }
  p.cancelled = cancel;
  p.running.reset();
  p.joint_running.reset();
  p.seconds = ImGui::GetTime() - p.started;
  p.order.clear(); // rank order, then the table's sort
  p.resort = true;
}

// [SECTION] apply (AppState::plan_parallel)
bool same_layout(const Layout &a, const Layout &b) {
  return a.dp == b.dp && a.tp == b.tp && a.pp == b.pp && a.vpp == b.vpp && a.cp == b.cp &&
         a.ulysses == b.ulysses && a.ep == b.ep && a.zero == b.zero &&
         a.microbatch == b.microbatch && a.recompute == b.recompute && a.sp == b.sp &&
         (a.cp == 1 || a.cp_kind == b.cp_kind);
}

// [SECTION] table
// Rows in the table's sort (the column's cell values; rank order until a header is clicked).
void sort_rows(PlannerUi &p, const ReportTable &t) {
  if (p.order.size() != t.rows.size()) {
    p.order.resize(t.rows.size());
    for (std::size_t i = 0; i < p.order.size(); ++i)
      p.order[i] = i;
  }
  ImGuiTableSortSpecs *specs = ImGui::TableGetSortSpecs();
  if (!specs || (!specs->SpecsDirty && !p.resort))
    return;
  if (specs->SpecsCount > 0) {
    const ImGuiTableColumnSortSpecs &sp = specs->Specs[0];
    const auto col = static_cast<std::size_t>(sp.ColumnIndex);
    const bool asc = sp.SortDirection != ImGuiSortDirection_Descending;
    std::stable_sort(p.order.begin(), p.order.end(), [&](std::size_t a, std::size_t b) {
      const double ka = col < t.columns.size() ? t.rows[a][col].value : static_cast<double>(a);
      const double kb = col < t.columns.size() ? t.rows[b][col].value : static_cast<double>(b);
      return asc ? ka < kb : ka > kb;
    });
  }
  specs->SpecsDirty = false;
  p.resort = false;
}

void plan_tooltip(const Plan &p, bool train, double capacity) {
  const Estimate &e = p.estimate;
  ImGui::BeginTooltip();
  ImGui::TextColored(ui::color::accent, "Click to apply this layout; right-click for its launch");
  ui::text_dim(p.why);
  if (train && e.has_time) {
    const StepTime &t = e.time;
    ImGui::Text("step %s = compute %s + exposed comm %s + host wait %s + bubble %s + optimizer %s",
                units::seconds(t.step).c_str(), units::seconds(t.compute).c_str(),
                units::seconds(t.comm_exposed).c_str(), units::seconds(t.host).c_str(),
                units::seconds(t.bubble).c_str(), units::seconds(t.optimizer).c_str());
    ImGui::Text("MFU %s, %s tokens/s, %s per device", units::percent(e.throughput.mfu).c_str(),
                units::count(e.throughput.tokens_per_s).c_str(),
                units::flop_rate(e.throughput.tflops_per_device).c_str());
  } else if (e.has_serving) {
    const ServingEstimate &sv = e.serving;
    ImGui::Text("TPOT %s, TTFT %s, request %s", units::seconds(sv.tpot).c_str(),
                units::seconds(sv.ttft).c_str(), units::seconds(sv.request_latency).c_str());
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", sv.decode.tokens_per_s_per_chip);
    ImGui::Text("%s tokens/s (%s per chip)", units::count(sv.decode.tokens_per_s).c_str(), buf);
  }
  ImGui::Text("memory %s of %s (%s), worst stage %lld", units::bytes(e.memory.total).c_str(),
              units::bytes(capacity).c_str(),
              units::percent(capacity > 0 ? e.memory.total / capacity : 0).c_str(),
              static_cast<long long>(e.memory.worst_stage));
  ImGui::EndTooltip();
}

// Returns the plan clicked (-1: none).
// The ranked plans: the report layer's table (core/report/plan_table), the one
// `ridgeline plan` prints; a click on a row applies it.
int draw_plans(const AppState &s, PlannerUi &p, const Config &c, bool train, float height) {
  const PlanResult &r = *p.result;
  const ReportTable t = plan_table(c, r);
  const std::optional<Estimate> &now = s.estimate();
  int clicked = -1, export_row = -1;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_Hideable;
  // One table per set of columns: each keeps its own column visibility and sort.
  std::string id = "plans";
  for (const ReportColumn &col : t.columns)
    id += "_" + col.key;
  ui::table_export(train ? "plans_train" : "plans_infer");
  if (!ImGui::BeginTable(id.c_str(), static_cast<int>(t.columns.size()), flags, ImVec2(0, height)))
    return -1;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const ReportColumn &col : t.columns) {
    ImGuiTableColumnFlags f = col.better == Better::higher
                                  ? ImGuiTableColumnFlags_PreferSortDescending
                                  : ImGuiTableColumnFlags_PreferSortAscending;
    if (col.key == "rank")
      f |= ImGuiTableColumnFlags_DefaultSort;
    if (col.key == "why") // scrolled to, not squeezed: the table scrolls sideways
      f = ImGuiTableColumnFlags_NoSort;
    ImGui::TableSetupColumn(col.head.c_str(), f);
  }
  ImGui::TableHeadersRow();
  sort_rows(p, t);
  const double capacity = c.hardware.hbm_bytes;
  for (const std::size_t i : p.order) {
    const Plan &pl = r.plans[i];
    const bool is_current = now && same_layout(now->layout, pl.estimate.layout);
    const ImVec4 *colour = is_current ? &ui::color::ok : nullptr;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable("##plan", is_current,
                          ImGuiSelectableFlags_SpanAllColumns |
                              ImGuiSelectableFlags_AllowItemOverlap))
      clicked = static_cast<int>(i);
    const bool hovered = ImGui::IsItemHovered();
    if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Right))
      export_row = static_cast<int>(i); // right click: this plan's launch (below the table)
    ui::note_rect("plan " +
                  std::to_string(static_cast<i64>(i) + 1)); // the e2e test clicks rows by rank
    ImGui::PopID();
    ImGui::SameLine(0, 0);
    for (std::size_t k = 0; k < t.columns.size(); ++k) {
      if (!ImGui::TableSetColumnIndex(static_cast<int>(k)))
        continue;
      const std::string &text = t.rows[i][k].text;
      if (t.columns[k].key == "why")
        ui::text_dim(text);
      else if (k == 0 && is_current)
        ui::text_right("\xe2\x86\x92 " + text, colour);
      else
        ui::text_right(text, colour);
    }
    if (hovered)
      plan_tooltip(pl, train, capacity);
  }
  ImGui::EndTable();
  ui::note_rect("plans"); // the table's visible area (the e2e test counts rows in it)
  ui::table_export_end();
  if (export_row >= 0) {
    p.export_row = export_row;
    ImGui::OpenPopup("##plan-export");
  }
  if (ImGui::BeginPopup("##plan-export")) {
    if (p.export_row >= 0 && p.export_row < static_cast<int>(r.plans.size())) {
      Config k = c;
      k.parallel = r.plans[static_cast<std::size_t>(p.export_row)].parallel;
      ui::launch_export_contents(k);
    }
    ImGui::EndPopup();
  }
  return clicked;
}

std::string tick_bytes(double v) {
  return plot::tick(units::bytes(v));
}
std::string tick_seconds(double v) {
  return plot::tick(units::seconds(v));
}

// The time/memory Pareto front: every layout no other one beats on both (objective against
// memory per device), the plan ranked first ringed, the usable memory (capacity less
// headroom) dashed.
void draw_pareto(const PlanResult &r, double capacity, bool train, float height) {
  ImGui::TextUnformatted("Time/memory Pareto front");
  ui::help_marker("Each point is a layout that no other fitting layout beats on both time and "
                  "memory: moving left saves memory (recompute, ZeRO, deeper pipelines) and "
                  "costs time. The dashed line is the device's memory less the headroom. Hover "
                  "a point for its layout.");
  if (r.pareto.empty())
    return;
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  for (const ParetoPoint &p : r.pareto) {
    x0 = std::min(x0, p.memory);
    x1 = std::max(x1, p.memory);
    const double y = train ? p.step : p.objective;
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
  }
  const double usable = capacity - r.headroom;
  x1 = std::max(x1, usable);
  double xl, xh, yl, yh;
  plot::log_range(std::max(x0, 1.0), std::max(x1, 1.0), 1.15, 0.3, xl, xh);
  plot::log_range(std::max(y0, 1e-9), std::max(y1, 1e-9), 1.15, 0.3, yl, yh);
  const float w = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 46);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ui::note_rect("pareto", at, ImVec2(at.x + w, at.y + height)); // the e2e test: in view
  const plot::LogLog g =
      plot::begin_loglog(ImVec2(w, height), xl, xh, yl, yh, tick_bytes, tick_seconds,
                         "memory per device", train ? "step time" : "TPOT");
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const ImU32 line = ImGui::GetColorU32(ui::color::accent);
  plot::dashed_line(dl, g.at(usable, yl), g.at(usable, yh), ImGui::GetColorU32(ui::color::warn));
  std::vector<ParetoPoint> by_memory = r.pareto;
  std::sort(by_memory.begin(), by_memory.end(),
            [](const ParetoPoint &a, const ParetoPoint &b) { return a.memory < b.memory; });
  const ParetoPoint *hovered = nullptr;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (std::size_t i = 0; i < by_memory.size(); ++i) {
    const ParetoPoint &p = by_memory[i];
    const ImVec2 a = g.at(p.memory, train ? p.step : p.objective);
    if (i + 1 < by_memory.size()) { // the front as a staircase
      const ParetoPoint &q = by_memory[i + 1];
      const ImVec2 b = g.at(q.memory, train ? q.step : q.objective);
      dl->AddLine(a, ImVec2(b.x, a.y), line, 1.2f);
      dl->AddLine(ImVec2(b.x, a.y), b, line, 1.2f);
    }
    dl->AddCircleFilled(a, 3.5f, line);
    const float dx = mouse.x - a.x, dy = mouse.y - a.y;
    if (dx * dx + dy * dy < 49)
      hovered = &p;
  }
  if (!r.plans.empty()) {
    const Plan &best = r.plans.front();
    const ImVec2 b =
        g.at(best.estimate.memory.total,
             train && best.estimate.has_time ? best.estimate.time.step : best.objective);
    dl->AddCircle(b, 7, ImGui::GetColorU32(ui::color::ok), 0, 2);
  }
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(hovered->layout.c_str());
    ImGui::Text("%s %s, memory %s", train ? "step" : "TPOT",
                units::seconds(train ? hovered->step : hovered->objective).c_str(),
                units::bytes(hovered->memory).c_str());
    ImGui::EndTooltip();
  }
}

// The closest infeasible layouts show this many rows; the rest scroll.
constexpr std::size_t kInfeasibleRows = 3;

void draw_infeasible(const PlanResult &r) {
  ImGui::Text("Closest layouts that do not fit (%zu)", r.infeasible.size());
  ui::help_marker("The memory-infeasible candidates with the smallest overflow (bytes over the "
                  "device's capacity on the worst stage): what would fit with a little less "
                  "memory.");
  if (r.infeasible.empty()) {
    ImGui::SameLine();
    ui::text_dim("  none: no candidate failed on memory");
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
  const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  const std::size_t shown = std::min(r.infeasible.size(), kInfeasibleRows);
  ui::table_export("infeasible");
  if (!ImGui::BeginTable(
          "infeasible", 3, flags,
          ImVec2(0, row_h * static_cast<float>(shown) + 2 + ImGui::GetStyle().ScrollbarSize)))
    return;
  ImGui::TableSetupColumn("kind");
  ImGui::TableSetupColumn("over");
  ImGui::TableSetupColumn("layout"); // as wide as the message: the table scrolls sideways
  for (const Infeasible &f : r.infeasible) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ui::text_colored(ui::color::error, f.kind);
    ImGui::TableSetColumnIndex(1);
    ui::text_right(f.overflow > 0 ? std::string("+") + units::bytes(f.overflow) : "",
                   &ui::color::warn);
    ImGui::TableSetColumnIndex(2);
    ui::text_dim(f.message);
  }
  ImGui::EndTable();
  ui::table_export_end();
}

// The knobs as toggles: free (searched) or pinned at the configuration's value.
void draw_knob_toggles(const AppState &s, PlannerUi &p, const Config &c) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Search over");
  ui::help_marker("Knobs the configuration leaves out are always searched. Click a knob the "
                  "configuration pins to free it for the search (the configuration keeps its "
                  "value until you apply a plan); click again to pin it. dp follows tp, pp and "
                  "cp; Megatron-SP follows tp.");
  for (const KnobInfo &k : knobs()) {
    if (!toggled(k, c))
      continue;
    const bool pin = pinned(s, k);
    const bool fr = is_free(s, p, k);
    std::string label = k.label;
    if (!fr) { // the first key of the knob that the configuration sets
      for (const char *key : k.pins)
        if (const auto v = s.parallel_knob(key)) {
          label += std::string(" = ") + (v->is_string() ? v->get<std::string>() : v->dump());
          break;
        }
    }
    same_line_or_wrap(label.c_str());
    // searched: white on blue; pinned: the theme's own text on its field colour (readable in
    // the light and the dark theme alike)
    const ImVec4 on(0.20f, 0.40f, 0.66f, 1), off = ImGui::GetStyleColorVec4(ImGuiCol_FrameBg);
    ImGui::PushStyleColor(ImGuiCol_Button, fr ? on : off);
    ImGui::PushStyleColor(ImGuiCol_Text, fr ? ImVec4(0.95f, 0.97f, 1, 1)
                                            : ImGui::GetStyleColorVec4(ImGuiCol_Text));
    ImGui::PushID(k.name);
    const bool clicked = ImGui::SmallButton(label.c_str());
    ImGui::PopID();
    ImGui::PopStyleColor(2);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", !pin ? "Not set in the configuration: always searched."
                              : fr ? "Pinned in the configuration, freed for this search. "
                                     "Click to pin it."
                                   : "Pinned in the configuration. Click to search it too.");
    if (clicked && pin) {
      if (fr)
        p.freed.erase(k.name);
      else
        p.freed.insert(k.name);
    }
  }
  same_line_or_wrap("free all", 14);
  if (ImGui::SmallButton("free all")) // `ridgeline plan --free all`
    for (const KnobInfo *k : knobs_in_list("all", c, "free"))
      if (pinned(s, *k))
        p.freed.insert(k->name);
  same_line_or_wrap("as configured");
  if (ImGui::SmallButton("as configured"))
    p.freed.clear();
}

// "What should I run on": one row per (hardware, devices) choice with its fastest layout;
// the fastest and the cheapest meeting the deadline marked; a click applies the choice
// (accelerator, cluster, device count and layout). Then time against cost, each choice a
// point.
void draw_joint(AppState &s, PlannerUi &p, const Config &c) {
  const JointPlanResult &r = *p.joint;
  std::string head = std::to_string(r.choices.size()) + " hardware and device choices";
  if (c.workload.train_tokens > 0) {
    head += ", ";
    head += units::count(c.workload.train_tokens);
    head += " tokens";
  }
  if (r.deadline > 0) {
    head += " within ";
    head += format_value(r.deadline, Unit::duration);
  }
  ImGui::TextUnformatted(head.c_str());
  ui::help_marker("Each choice is searched over every free layout knob; its fastest layout is "
                  "shown. Fastest and cheapest are among the choices that meet the deadline. "
                  "Click a row to run on it.");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY;
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float table_h = std::min(line * static_cast<float>(r.choices.size() + 2),
                                 ImGui::GetContentRegionAvail().y - ImGui::GetFontSize() * 15);
  ui::table_export("choices");
  int clicked = -1;
  // The report layer's table (core/report/plan_table), the one `ridgeline plan` prints.
  const ReportTable t = choice_table(c, r);
  if (ImGui::BeginTable("choices", static_cast<int>(t.columns.size()), flags,
                        ImVec2(0, std::max(table_h, line * 3)))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const ReportColumn &col : t.columns)
      ImGui::TableSetupColumn(col.head.c_str());
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < r.choices.size(); ++i) {
      const ChoicePlan &x = r.choices[i];
      const bool fastest = static_cast<i64>(i) == r.fastest;
      const bool cheapest = static_cast<i64>(i) == r.cheapest;
      const ImVec4 *col = fastest || cheapest ? &ui::color::ok : nullptr;
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::Selectable("##choice", false, ImGuiSelectableFlags_SpanAllColumns) &&
          !x.result.plans.empty())
        clicked = static_cast<int>(i);
      ui::note_rect("choice " + std::to_string(static_cast<i64>(i) + 1));
      ImGui::PopID();
      ImGui::SameLine(0, 0);
      std::string tag = t.rows[i][0].text;
      if (fastest)
        tag += " fastest";
      if (cheapest)
        tag += " cheapest";
      ui::text_colored(col ? *col : ui::color::dim, tag);
      for (std::size_t k = 1; k < t.columns.size(); ++k) {
        ImGui::TableSetColumnIndex(static_cast<int>(k));
        ui::text_right(t.rows[i][k].text, col);
      }
    }
    ImGui::EndTable();
  }
  ui::table_export_end();
  if (clicked >= 0) {
    const ChoicePlan &x = r.choices[static_cast<std::size_t>(clicked)];
    s.set_preset("hardware", x.hardware);
    if (x.cluster != c.cluster.name && !x.cluster.empty())
      s.set_preset("cluster", x.cluster);
    s.set_field("cluster", "devices", x.devices);
    Config choice = c;
    choice.cluster.devices = x.devices;
    s.set_parallel_object(s.plan_parallel(choice, x.result.plans.front()));
    return;
  }
  // Time against cost, one point per choice with a price.
  double t0 = 1e300, t1 = 0, c0 = 1e300, c1 = 0;
  for (const ChoicePlan &x : r.choices)
    if (!x.result.plans.empty() && x.cost > 0 && x.time_to_train > 0) {
      t0 = std::min(t0, x.time_to_train);
      t1 = std::max(t1, x.time_to_train);
      c0 = std::min(c0, x.cost);
      c1 = std::max(c1, x.cost);
    }
  if (t1 <= 0)
    return;
  ImGui::TextUnformatted("Time to train against cost");
  double xl, xh, yl, yh;
  plot::log_range(t0, t1, 1.2, 0.3, xl, xh);
  plot::log_range(c0, c1, 1.2, 0.3, yl, yh);
  const float w = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 46);
  const plot::LogLog g = plot::begin_loglog(
      ImVec2(w, ImGui::GetFontSize() * 12), xl, xh, yl, yh,
      [](double v) { return plot::tick(format_value(v, Unit::duration)); },
      [](double v) { return plot::tick(format_value(v, Unit::dollars)); }, "time to train",
      "cost to train");
  ImDrawList *dl = ImGui::GetWindowDrawList();
  if (r.deadline > 0 && r.deadline >= xl && r.deadline <= xh)
    plot::dashed_line(dl, g.at(r.deadline, yl), g.at(r.deadline, yh),
                      ImGui::GetColorU32(ui::color::warn));
  plot::Labels labels(g.p0, g.p1);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const ChoicePlan *hovered = nullptr;
  for (std::size_t i = 0; i < r.choices.size(); ++i) {
    const ChoicePlan &x = r.choices[i];
    if (x.result.plans.empty() || x.cost <= 0 || x.time_to_train <= 0)
      continue;
    const bool on_front =
        std::find(r.front.begin(), r.front.end(), static_cast<i64>(i)) != r.front.end();
    const ImVec2 a = g.at(x.time_to_train, x.cost);
    const ImU32 col = ImGui::GetColorU32(on_front ? ui::color::ok : ui::color::accent);
    dl->AddCircleFilled(a, on_front ? 4.5f : 3.5f, col);
    labels.block(ImVec2(a.x - 4, a.y - 4), ImVec2(a.x + 4, a.y + 4));
    labels.add(dl, a, 4, std::to_string(x.devices) + " " + x.hardware, col);
    const float dx = mouse.x - a.x, dy = mouse.y - a.y;
    if (dx * dx + dy * dy < 49)
      hovered = &x;
  }
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::Text("%lld x %s: %s to train, %s", static_cast<long long>(hovered->devices),
                hovered->hardware.c_str(),
                format_value(hovered->time_to_train, Unit::duration).c_str(),
                format_value(hovered->cost, Unit::dollars).c_str());
    ImGui::EndTooltip();
  }
}

} // namespace

// [SECTION] panel
void draw_planner_panel(AppState &s, UiState &ui) {
  PlannerUi &p = ui.planner;
  const std::optional<Config> &c = s.view_config();
  if (!c) {
    ui::text_dim("The configuration does not parse: fix the field marked in red to search.");
    return;
  }
  if (c->workload.mode != Mode::train && c->workload.mode != Mode::infer) {
    ui::text_dim("The planner searches training and inference layouts.");
    return;
  }
  const bool train = c->workload.mode == Mode::train;
  if (!p.link_read) { // the knobs the link frees (free=all or free=tp,pp,...)
    p.link_read = true;
    p.freed = freed_from_link(s, *c);
  }

  // Controls: Search, top N, the knobs.
  if (ImGui::Button("Search"))
    p.search = true;
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ui::text_dim("top");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.6f);
  static const int tops[] = {5, 10, 20, 50};
  if (ImGui::BeginCombo("##top", std::to_string(p.top).c_str())) {
    for (const int t : tops)
      if (ImGui::Selectable(std::to_string(t).c_str(), t == p.top))
        p.top = t;
    ImGui::EndCombo();
  }
  if (train) {
    // The objective; one that needs a missing field says which (the search error line).
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ui::text_dim("rank by");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.5f);
    static const std::pair<Objective, const char *> objectives[] = {
        {Objective::step, "step time"},
        {Objective::tokens, "tokens/s"},
        {Objective::time_to_train, "time to train"},
        {Objective::cost, "cost"},
        {Objective::energy, "energy"}};
    const char *shown = "step time";
    for (const auto &[o, name] : objectives)
      if (o == p.objective)
        shown = name;
    if (ImGui::BeginCombo("##objective", shown)) {
      for (const auto &[o, name] : objectives)
        if (ImGui::Selectable(name, o == p.objective))
          p.objective = o;
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("time to train needs Workload > Train tokens; cost needs the "
                        "accelerator's price ($ per device-hour); energy its board power (W).");
  }
  {
    // The memory a plan must leave free (default: 1.5 GB + 5% of HBM).
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ui::text_dim("headroom");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
    float gb =
        static_cast<float>(p.headroom_gb >= 0 ? p.headroom_gb : memory_reserve(c->hardware) / 1e9);
    if (ImGui::InputFloat("##headroom", &gb, 0, 0, "%.1f GB",
                          ImGuiInputTextFlags_EnterReturnsTrue) &&
        std::isfinite(gb))
      p.headroom_gb = std::clamp(static_cast<double>(gb), 0.0, 0.95 * c->hardware.hbm_bytes / 1e9);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Memory each plan leaves free to count as fitting: the CUDA context and "
                        "library workspaces (cuBLAS, NCCL buffers) outside PyTorch's allocator, "
                        "and its fragmentation. Default 1.5 GB + 5%% of HBM.");
  }
  ImGui::SameLine(0, 16);
  draw_knob_toggles(s, p, *c);
  s.set_free_knobs(link_of_freed(s, p, *c)); // the link reproduces this search

  // The search: when asked, or when what it would search changed while the panel is open.
  std::string sig = s.config_key() + "|top " + std::to_string(p.top) + "|objective " +
                    std::to_string(static_cast<int>(p.objective)) + "|headroom " +
                    std::to_string(p.headroom_gb) + "|free";
  for (const KnobInfo &k : knobs())
    if (is_free(s, p, k))
      sig += std::string(" ") + k.name;
  if (p.search || sig != p.signature) {
    run_search(s, p, *c);
    p.signature = sig;
    p.search = false;
  }
  if (p.joint_running) {
    ImGui::ProgressBar(static_cast<float>(p.joint_running->progress()),
                       ImVec2(ImGui::GetFontSize() * 16, 0));
    ImGui::SameLine();
    const bool cancel = ImGui::SmallButton("Cancel");
    ImGui::SameLine();
    ui::text_dim("searching every hardware and device choice...");
    step_search(p, cancel);
    if (p.joint_running)
      return;
  }
  if (p.joint && p.error.empty()) {
    draw_joint(s, p, *c);
    return;
  }
  if (p.running) {
    // Spread over frames: a progress bar and Cancel (keeps what was found so far).
    ImGui::ProgressBar(static_cast<float>(p.running->progress()),
                       ImVec2(ImGui::GetFontSize() * 16, 0));
    ImGui::SameLine();
    const bool cancel = ImGui::SmallButton("Cancel");
    ImGui::SameLine();
    ui::text_dim("searching " + units::grouped(p.running->looked_at()) + " layouts...");
    step_search(p, cancel);
    if (p.running)
      return;
  }
  if (!p.error.empty()) {
    ui::text_colored(ui::color::error, std::string("The search failed: ") + p.error);
    return;
  }
  if (!p.result)
    return;
  const PlanResult &r = *p.result;

  // What the search did.
  std::string done = std::string(p.cancelled ? "Cancelled after " : "") +
                     units::grouped(r.candidates) + " layouts enumerated, " +
                     units::grouped(r.timed) + " timed";
  if (p.seconds > 0) // 0 under a headless browser's frozen clock
    done += std::string(" in ") + units::seconds(p.seconds);
  ImGui::TextUnformatted(done.c_str());
  ImGui::SameLine(0, 16);
  std::vector<std::pair<std::string, i64>> rejected(r.rejected.begin(), r.rejected.end());
  std::sort(rejected.begin(), rejected.end(),
            [](const auto &a, const auto &b) { return a.second > b.second; });
  i64 total_rejected = 0;
  for (const auto &kv : rejected)
    total_rejected += kv.second;
  ui::text_dim(std::string("rejected ") + units::grouped(total_rejected) + ":");
  for (const auto &[kind, n] : rejected) {
    ImGui::SameLine();
    ui::text_colored(kind == "memory"      ? ui::color::error
                     : kind == "dominated" ? ui::color::dim
                                           : ui::color::warn,
                     kind + " " + units::grouped(n));
  }
  ui::help_marker("Candidates are checked before they are timed. memory: the worst stage "
                  "does not leave the headroom free. heads: tp (or Ulysses) does not divide the "
                  "heads. divisibility: a degree does not divide the MLP width or sequence. "
                  "pipeline: the stages cannot hold the layers (split, vpp, schedule). experts: "
                  "ep does not divide the experts or dp x cp. devices: the degrees do not "
                  "divide the devices. batch: the batch does not split into dp x micro-batch "
                  "(or, interleaved, into a multiple of pp micro-batches). Ranked by " +
                  std::string(train ? "step time" : "time per output token (TPOT)") + ".");
  if (r.free_knobs.empty()) {
    ImGui::SameLine(0, 16);
    ui::text_colored(ui::color::warn,
                     "Every knob is pinned: free some above (or 'free all') to search.");
  }

  // The table, then the closest infeasible layouts under it; the Pareto plot beside them on
  // a wide panel, else under the table when the rows leave room for it.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  const float inf_h = ImGui::GetFrameHeightWithSpacing() +
                      row_h * static_cast<float>(std::min(r.infeasible.size(), kInfeasibleRows)) +
                      ImGui::GetStyle().ItemSpacing.y + ImGui::GetStyle().ScrollbarSize + 4;
  const double capacity = s.view_config() ? s.view_config()->hardware.hbm_bytes : 0;
  // Beside from 50 em (a 1280-px window's panel): the plans keep the height for 8+ rows.
  const float width = ImGui::GetContentRegionAvail().x;
  const bool side = r.pareto.size() > 1 && width > ImGui::GetFontSize() * 50;
  if (side)
    ImGui::BeginChild(
        "##plans_left",
        ImVec2(std::floor(width * (width > ImGui::GetFontSize() * 70 ? 0.7f : 0.66f)), 0));
  const float avail = ImGui::GetContentRegionAvail().y;
  float plot_h = !side && r.pareto.size() > 1
                     ? std::min(ImGui::GetFontSize() * 13, avail - inf_h - line * 8)
                     : 0.0f;
  if (plot_h < ImGui::GetFontSize() * 7)
    plot_h = 0;
  // As tall as the plans (and the sideways scrollbar) when the room allows.
  const float rows_h =
      row_h * static_cast<float>(r.plans.size() + 1) + ImGui::GetStyle().ScrollbarSize + 6;
  const float table_h =
      std::max(line * 4, std::min(rows_h, avail - inf_h - (plot_h > 0 ? plot_h + line * 2 : 0)));
  bool applied = false;
  if (r.plans.empty()) {
    ui::text_colored(ui::color::error,
                     r.infeasible.empty()
                         ? "No candidate passes the checks (see the rejected classes above): "
                           "free a pinned knob to widen the search."
                         : "No layout fits in memory: the closest ones are below.");
  } else {
    const int clicked = draw_plans(s, p, *c, train, table_h);
    if (clicked >= 0) {
      const Plan &pl = r.plans[static_cast<std::size_t>(clicked)];
      // What was free stays free for the next search (the same ranking, this row current).
      for (const KnobInfo &k : knobs())
        if (toggled(k, *c) && is_free(s, p, k))
          p.freed.insert(k.name);
      const json par = s.plan_parallel(*c, pl);
      s.set_parallel_object(par);
      applied = true; // the configuration changed: the next frame searches again
    }
  }
  if (!applied) {
    if (plot_h > 0)
      draw_pareto(r, capacity, train, plot_h);
    draw_infeasible(r);
  }
  if (side) {
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##pareto_right", ImVec2(0, 0));
    if (!applied)
      draw_pareto(r, capacity, train,
                  std::max(ImGui::GetFontSize() * 6, ImGui::GetContentRegionAvail().y - line * 2));
    ImGui::EndChild();
  }
}

} // namespace rl::web
