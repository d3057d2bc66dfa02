// ridgeline web: the tx8 panel (workload modes tx8-op and video): what `ridgeline tx8`
// prints, from the same tx8::solve. A video request: the request and die, the per-step time
// as a stacked bar, per-block and whole-request totals, the sequence-parallel schemes and
// mesh splits compared (best first; a click applies one), the die-to-die communication and
// the per-operator tiling table. One operator (tx8-op): its mapping in detail.
// [SECTION] helpers  [SECTION] header  [SECTION] totals  [SECTION] schemes  [SECTION] comm
// [SECTION] operators  [SECTION] one operator  [SECTION] panel
#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/tx8/arch.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cstdio>

namespace rl::web {

namespace {

// [SECTION] helpers
std::string str(i64 v) {
  return std::to_string(v);
}
std::string fmt(const char *f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}
std::string t_(double s) {
  return s > 0 ? units::seconds(s) : "-";
}

constexpr ImGuiTableFlags kTable =
    ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;

void row2(const char *name, const std::string &value, const std::string &help,
          const ImVec4 *col = nullptr) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  if (col)
    ui::text_colored(*col, name);
  else
    ImGui::TextUnformatted(name);
  if (!help.empty())
    ui::help_marker(help);
  ImGui::TableSetColumnIndex(1);
  ui::text_right(value, col);
}

// A small utilisation bar with its percentage.
void util_bar(double u) {
  const float w = ImGui::CalcTextSize("000.0%").x;
  const float bar = std::max(10.0f, ImGui::GetContentRegionAvail().x - w - 6);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight() * 0.55f;
  const float y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + bar, y + h), ui::u32(ui::ink(0.07f)));
  const ImVec4 c = u >= 0.4 ? ui::color::ok : u >= 0.1 ? ui::color::accent : ui::color::warn;
  dl->AddRectFilled(ImVec2(p.x, y),
                    ImVec2(p.x + bar * static_cast<float>(std::clamp(u, 0.0, 1.0)), y + h),
                    ui::u32(c, 0.85f));
  ImGui::Dummy(ImVec2(bar, ImGui::GetTextLineHeight()));
  ImGui::SameLine(0, 6);
  ui::text_right(units::percent(u));
}

// [SECTION] header
void draw_die_line(const Tx8Spec &a) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "die: %lld tiles (%lldx%lld); per tile %s GEMM, %s Gop/s vector, %s MiB SRAM; "
                "per die %s DRAM; NoC %s per link; ridge %.0f FLOP/B",
                static_cast<long long>(a.tiles), static_cast<long long>(a.mesh_x),
                static_cast<long long>(a.mesh_y), units::flop_rate(a.gemm_flops).c_str(),
                fmt("%.4g", a.vector_ops / 1e9).c_str(),
                fmt("%.2f", a.sram_bytes / 1048576.0).c_str(), units::bandwidth(a.dram_bw).c_str(),
                units::bandwidth(a.noc_bw).c_str(), tx8::ridge_flop_per_byte(a));
  ui::text_dim_wrapped(buf);
  ui::help_marker(
      "Per tile: GEMM and vector units, SRAM (usable " +
      units::grouped(static_cast<std::int64_t>(a.sram_usable_bytes)) +
      std::string(" B); per die: DRAM shared by the tiles, ") + t_(a.dram_latency) +
      std::string(" per DMA; NoC ") + t_(a.hop_latency) +
      " per hop. Ridge = die GEMM FLOP/s / DRAM bandwidth (docs/formulas.md, tx8). Ring GEMM "
      "hides the NoC at Tm >= " +
      fmt("%.1f", tx8::gemm_noc_hidden_tm(a)) +
      ", the weight stream at Tm >= " + fmt("%.0f", tx8::gemm_weight_hidden_tm(a)) +
      ", output writes at K >= " + fmt("%.0f", tx8::gemm_output_hidden_k(a)) + ".");
}

void draw_video_header(const Config &c, const tx8::Tx8Result &r) {
  const tx8::VideoShape &v = r.shape;
  const std::vector<i64> mesh = c.cluster.mesh.empty() ? std::vector<i64>{1, 1} : c.cluster.mesh;
  ImGui::TextColored(ui::color::accent, "%s", c.model.name.c_str());
  ImGui::SameLine();
  std::string on = std::string("video inference on ") + c.cluster.name + " (" + str(mesh[0]) + "x" +
                   str(mesh[1]) + " " + c.hardware.name + " dies";
  if (r.dies > 1)
    on += std::string(", die-to-die ") + units::bandwidth(c.cluster.d2d.bw) + " per link, " +
          t_(c.cluster.d2d.latency) + " per hop";
  ImGui::TextUnformatted((on + ")").c_str());
  std::string req =
      std::string("request: batch ") + str(v.batch) + ", " + str(v.frames) + " frames";
  if (c.workload.seconds > 0)
    req += std::string(" (") + fmt("%g", c.workload.seconds) + " s x 25.5 fps)";
  req += std::string(", ") + str(c.workload.height) + "x" + str(c.workload.width) + ", " +
         str(v.text) + std::string(" text tokens, ") + str(v.steps) + " steps;  latent " +
         str(v.latent_t) + " x " + str(v.latent_h) + " x " + str(v.latent_w) + ", tokens " +
         str(v.grid_t) + " x " + str(v.grid_h) + " x " + str(v.grid_w) + " = " +
         units::grouped(v.tokens()) + " per sample";
  ui::text_dim(req);
  ui::help_marker("Open-Sora: latent frames = frames*5//17, latent H/8 x W/8, patch (1, 2, 2): "
                  "tokens per frame = H*W/256; T5 prompt padded to 300 tokens; each sampling "
                  "step runs every spatial and temporal block once.");
  draw_die_line(*c.hardware.tx8);
  std::string sch = std::string("scheme: ") + tx8::scheme_name(r.scheme) + " over " +
                    str(r.stages.front().mesh.dies()) + " die(s)";
  if (r.stages.size() > 1)
    sch += std::string(" per stage, ") + str(static_cast<i64>(r.stages.size())) +
           " pipeline stages, " + str(r.micro_batches) + " micro-batch(es)";
  sch += r.chosen_by == "planner" ? " (the planner's best: parallel.sp_kind not set)"
                                  : " (from the configuration)";
  if (c.workload.fusion)
    sch += "; norm + modulate fused";
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const tx8::StageRow &st = r.stages[i];
    sch += std::string(";  stage ") + str(static_cast<i64>(i)) + ": sub-mesh " + str(st.mesh.nx) +
           "x" + str(st.mesh.ny) + " at (" + str(st.mesh.x0) + ", " + str(st.mesh.y0) +
           "), blocks " + str(st.first) + "-" + str(st.last);
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(sch.c_str());
  ImGui::PopTextWrapPos();
}

// [SECTION] totals
void draw_step_bar(const Config &c, const tx8::Tx8Result &r) {
  std::vector<ui::Segment> segs;
  if (r.stages.size() == 1) {
    const double blocks = static_cast<double>(c.model.layers);
    segs = {
        {"Spatial blocks", blocks * r.spatial_block, ui::color::forward,
         std::string("Every spatial block once per step: ") + str(c.model.layers) + " x " +
             t_(r.spatial_block) + " (self-attention over the tokens of a frame)."},
        {"Temporal blocks", blocks * r.temporal_block, ui::color::gradients,
         std::string("Every temporal block once per step: ") + str(c.model.layers) + " x " +
             t_(r.temporal_block) + " (self-attention over the frames of a position)."},
        {"Die-to-die comm", r.comm_exposed_per_step, ui::color::kv_cache,
         "Exposed die-to-die communication of the scheme (see the table)."},
        {"Embedders", r.embed, ui::color::optimizer,
         "Patch, position, caption and timestep "
         "embedders, once per step."},
        {"Final + sampler", r.final, ui::color::activations,
         "Final norm/modulate, the final linear layer and the sampler update."},
    };
  } else {
    const double other = r.per_step - r.compute_per_step - r.comm_exposed_per_step;
    segs = {
        {"Operators", r.compute_per_step, ui::color::forward,
         "The operators of every stage a micro-batch passes through."},
        {"Die-to-die comm", r.comm_exposed_per_step, ui::color::kv_cache,
         "Exposed die-to-die communication, stage-to-stage sends included."},
        {"Pipeline", std::max(0.0, other), ImVec4(0.80f, 0.25f, 0.25f, 1.0f),
         "Fill and drain of the die pipeline."},
    };
  }
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading, the bar and its legend
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted("Time per sampling step (one die)");
  ui::help_marker("One denoising step on one die; the dies of a stage run in parallel. Whole "
                  "request = steps x per step + the latent gather once.");
  ui::stacked_bar(segs, std::max(r.per_step, 1e-12), -1, "", &units::seconds);
  // The legend on one line: swatch, name, time.
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

void draw_totals(const Config &c, const tx8::Tx8Result &r) {
  ui::table_export("tx8_totals");
  if (!ImGui::BeginTable("tx8_totals", 2, kTable))
    return;
  ImGui::TableSetupColumn("quantity", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.00 TFLOP").x);
  const Tx8Spec &a = *c.hardware.tx8;
  row2("spatial block", t_(r.spatial_block),
       "The operators of one spatial block on one die: norms, modulate, QKV, q/k norms, "
       "self-attention over a frame, output projection, cross-attention, FFN.");
  row2("temporal block", t_(r.temporal_block),
       "The same operators with self-attention over the frames of each position.");
  row2("layer", t_(r.per_layer),
       "spatial + temporal block + their exposed die-to-die communication.");
  row2("embedders, per step", t_(r.embed), "");
  row2("final layer + sampler, per step", t_(r.final), "");
  row2("operators, per step", t_(r.compute_per_step), "");
  row2("exposed die-to-die comm, per step", t_(r.comm_exposed_per_step),
       std::string("Bytes each die sends per step: ") +
           units::bytes(r.comm_bytes_per_die_per_step) + ".");
  row2("per step", t_(r.per_step), "", &ui::color::accent);
  row2("latent gather, once", t_(r.once), "The latent gathered to one die after the last step.");
  const std::string req = std::string("whole request (") + str(r.shape.steps) + " steps)";
  row2(req.c_str(), t_(r.latency), "steps x per step + latent gather.", &ui::color::accent);
  row2("model FLOPs per step (all dies)", units::flops(r.flops_per_step),
       "Useful matmul FLOPs of one step over all dies (2 per multiply-add).");
  const std::string util = std::string("utilization (") + str(r.dies) + " dies x " +
                           units::flop_rate(tx8::die_gemm_flops(a)) + ")";
  row2(util.c_str(), units::percent(r.utilization),
       "model FLOPs per step / (per step x dies x die GEMM peak).");
  ImGui::EndTable();
  ui::table_export_end();
}

// [SECTION] schemes
bool is_chosen(const tx8::SchemeRow &row, const tx8::Tx8Result &r) {
  return !r.stages.empty() && row.name == tx8::scheme_name(r.scheme) &&
         row.stages == static_cast<i64>(r.stages.size()) && !row.meshes.empty() &&
         row.meshes.front().nx == r.stages.front().mesh.nx &&
         row.meshes.front().ny == r.stages.front().mesh.ny;
}

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

// Returns the row clicked (-1: none).
int draw_schemes(const tx8::Tx8Result &r, float height) {
  ImGui::TextUnformatted("Sequence-parallel schemes and mesh splits (best first)");
  ui::help_marker("Every scheme the heads allow (DSP, Ulysses, Ring, Megatron-SP, USP u x c; "
                  "the DSP paper, Zhao et al. 2024) on every split of the die mesh into equal "
                  "pipeline stages, each "
                  "mapped in full. Click a row to apply it (parallel.sp_kind, and the stage "
                  "sub-meshes when the mesh is split).");
  int clicked = -1;
  const ImGuiTableFlags flags = kTable | ImGuiTableFlags_ScrollY;
  ui::table_export("tx8_schemes");
  if (!ImGui::BeginTable("tx8_schemes", 8, flags, ImVec2(0, height)))
    return -1;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("scheme");
  ImGui::TableSetupColumn("stages");
  ImGui::TableSetupColumn("sub-mesh");
  ImGui::TableSetupColumn("per step");
  ImGui::TableSetupColumn("operators");
  ImGui::TableSetupColumn("comm exposed");
  ImGui::TableSetupColumn("comm B/die");
  ImGui::TableSetupColumn("request", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  static std::string shown; // the chosen row scrolls into view when the choice changes
  for (std::size_t i = 0; i < r.schemes.size(); ++i) {
    const tx8::SchemeRow &sr = r.schemes[i];
    const bool chosen = is_chosen(sr, r);
    if (chosen) {
      const std::string key = sr.name + "/" + str(sr.stages) + "/" + str(sr.meshes.front().nx) +
                              "x" + str(sr.meshes.front().ny);
      if (key != shown) {
        shown = key;
        ImGui::SetScrollHereY(0.5f);
      }
    }
    const ImVec4 *col = chosen ? &ui::color::ok : !sr.feasible ? &ui::color::dim : nullptr;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable("##scheme", chosen, ImGuiSelectableFlags_SpanAllColumns) && sr.feasible &&
        !chosen)
      clicked = static_cast<int>(i);
    ImGui::PopID();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", !sr.feasible ? sr.why.c_str()
                              : chosen     ? "The scheme shown above."
                                           : "Click to apply this scheme.");
    ImGui::SameLine(0, 0);
    const std::string name = chosen ? std::string("\xe2\x86\x92 ") + sr.name : sr.name;
    if (col)
      ui::text_colored(*col, name);
    else
      ImGui::TextUnformatted(name.c_str());
    ImGui::TableSetColumnIndex(1);
    ui::text_right(str(sr.stages), col);
    ImGui::TableSetColumnIndex(2);
    ui::text_right(
        sr.meshes.empty() ? "-" : str(sr.meshes.front().nx) + "x" + str(sr.meshes.front().ny), col);
    if (!sr.feasible) {
      ImGui::TableSetColumnIndex(3);
      ui::text_dim(sr.why);
      continue;
    }
    ImGui::TableSetColumnIndex(3);
    ui::text_right(t_(sr.per_step), col);
    ImGui::TableSetColumnIndex(4);
    ui::text_right(t_(sr.compute), col);
    ImGui::TableSetColumnIndex(5);
    ui::text_right(t_(sr.comm_exposed), col);
    ImGui::TableSetColumnIndex(6);
    ui::text_right(units::bytes(sr.comm_bytes_per_die), col);
    ImGui::TableSetColumnIndex(7);
    ui::text_right(t_(sr.latency), col);
  }
  ImGui::EndTable();
  ui::table_export_end();
  return clicked;
}

// [SECTION] comm
void draw_comm(const tx8::Tx8Result &r) {
  ImGui::TextUnformatted("Die-to-die communication per step");
  ui::help_marker(
      "Bytes each die sends per occurrence, its time on the die mesh (docs/formulas.md, tx8: "
      "all-to-all bounded by the bisection or the per-die injection, rings by the "
      "slowest link, + hops x latency), occurrences per step, and what stays on the "
      "critical path (ring attention overlaps the spatial attention).");
  if (r.comm.empty()) {
    ImGui::SameLine();
    ui::text_dim("  none (one die per stage)");
    return;
  }
  ui::table_export("tx8_comm");
  if (!ImGui::BeginTable("tx8_comm", 6, kTable))
    return;
  ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("stage");
  ImGui::TableSetupColumn("bytes/die");
  ImGui::TableSetupColumn("time each");
  ImGui::TableSetupColumn("x/step");
  ImGui::TableSetupColumn("exposed/step");
  ImGui::TableHeadersRow();
  for (const tx8::CommRow &cr : r.comm) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(cr.kind.c_str());
    ImGui::TableSetColumnIndex(1);
    ui::text_right(str(cr.stage));
    ImGui::TableSetColumnIndex(2);
    ui::text_right(units::bytes(cr.bytes_per_die));
    ImGui::TableSetColumnIndex(3);
    ui::text_right(t_(cr.time));
    ImGui::TableSetColumnIndex(4);
    ui::text_right(fmt("%.0f", cr.per_step));
    ImGui::TableSetColumnIndex(5);
    ui::text_right(t_(cr.exposed), &ui::color::warn);
  }
  ImGui::EndTable();
  ui::table_export_end();
}

// [SECTION] operators
void op_tooltip(const tx8::OpRow &o) {
  const tx8::OpCost &k = o.map.cost;
  const tx8::SearchStats &st = o.map.search;
  ImGui::BeginTooltip();
  ImGui::TextColored(ui::color::accent, "%s", o.name.c_str());
  ImGui::Text("%s  %s", o.map.type.c_str(), o.map.shape.c_str());
  ImGui::Text("tiling: %s", o.map.tiling.c_str());
  ImGui::Text("latency %s (without double buffering %s), %.0f rounds", t_(k.latency).c_str(),
              t_(k.serial_latency).c_str(), k.rounds);
  ImGui::Text("compute %s, DRAM %s, NoC %s", t_(k.compute_time).c_str(), t_(k.dram_time).c_str(),
              t_(k.noc_time).c_str());
  ImGui::Text("DRAM bytes %s (compulsory %s), SRAM per tile %s", units::bytes(k.dram_bytes).c_str(),
              units::bytes(k.compulsory_bytes).c_str(), tx8::bytes_mib(k.sram_bytes).c_str());
  if (k.flops > 0)
    ImGui::Text("FLOPs %s, utilization %s", units::flops(k.flops).c_str(),
                units::percent(k.utilization).c_str());
  else
    ImGui::Text("vector ops %s, utilization %s", fmt("%.4g", k.vector_ops).c_str(),
                units::percent(k.utilization).c_str());
  ui::text_dim(std::string("search: ") + str(st.candidates) + " tilings, " + str(st.pruned_sram) +
               std::string(" over SRAM, ") + str(st.pruned_bound) + " cut by the bound, " +
               str(st.evaluated) + " evaluated" +
               (o.cached ? " (shape searched earlier: cached)" : ""));
  ImGui::EndTooltip();
}

// The tiling as the table shows it: the GEMM's stationary operand abbreviated (WS, IS); the
// tooltip keeps the core's full text.
std::string short_tiling(const std::string &t) {
  for (const auto &[from, to] : {std::pair<const char *, const char *>{"weight-stationary", "WS"},
                                 {"input-stationary", "IS"}}) {
    const std::string f = from;
    if (t.compare(0, f.size(), f) == 0)
      return std::string(to) + t.substr(f.size());
  }
  return t;
}

void draw_ops(const tx8::Tx8Result &r, bool counts, float height) {
  const bool stages = r.stages.size() > 1;
  const int cols = 11 + (counts ? 2 : 0) + (stages ? 1 : 0);
  const ImGuiTableFlags flags =
      kTable | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_BordersOuterH;
  ui::table_export("tx8_ops");
  if (!ImGui::BeginTable("tx8_ops", cols, flags, ImVec2(0, height)))
    return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("operator");
  if (stages)
    ImGui::TableSetupColumn("stage");
  if (counts)
    ImGui::TableSetupColumn("x/step");
  ImGui::TableSetupColumn("type");
  ImGui::TableSetupColumn("shape");
  ImGui::TableSetupColumn("tiling");
  ImGui::TableSetupColumn("latency");
  if (counts)
    ImGui::TableSetupColumn("x count");
  ImGui::TableSetupColumn("util", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.0%").x + 44);
  ImGui::TableSetupColumn("compute");
  ImGui::TableSetupColumn("DRAM");
  ImGui::TableSetupColumn("NoC");
  ImGui::TableSetupColumn("DRAM bytes");
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const tx8::OpRow &o = r.ops[i];
    const tx8::OpCost &k = o.map.cost;
    ImGui::TableNextRow();
    int c = 0;
    ImGui::TableSetColumnIndex(c++);
    // "spatial.qkv_proj": the block dim, the operator bright.
    const auto dot = o.name.find('.');
    ImGui::BeginGroup();
    if (dot != std::string::npos) {
      ui::text_dim(o.name.substr(0, dot + 1));
      ImGui::SameLine(0, 0);
      ImGui::TextUnformatted(o.name.substr(dot + 1).c_str());
    } else {
      ImGui::TextUnformatted(o.name.c_str());
    }
    ImGui::EndGroup();
    if (ImGui::IsItemHovered())
      op_tooltip(o);
    if (stages) {
      ImGui::TableSetColumnIndex(c++);
      ui::text_right(str(o.stage));
    }
    if (counts) {
      ImGui::TableSetColumnIndex(c++);
      ui::text_right(fmt("%.0f", o.count), &ui::color::dim);
    }
    ImGui::TableSetColumnIndex(c++);
    ui::text_dim(o.map.type == "flash_attention" ? "flash" : o.map.type);
    ImGui::TableSetColumnIndex(c++);
    ImGui::TextUnformatted(o.map.shape.c_str());
    ImGui::TableSetColumnIndex(c++);
    ui::text_dim(short_tiling(o.map.tiling));
    if (ImGui::IsItemHovered())
      op_tooltip(o);
    ImGui::TableSetColumnIndex(c++);
    ui::text_right(t_(k.latency));
    if (counts) {
      ImGui::TableSetColumnIndex(c++);
      ui::text_right(t_(k.latency * o.count), &ui::color::accent);
    }
    ImGui::TableSetColumnIndex(c++);
    util_bar(k.utilization);
    // compute / DRAM / NoC: the largest (what bounds the operator) in amber, the others dim.
    const double most = std::max({k.compute_time, k.dram_time, k.noc_time});
    for (const double v : {k.compute_time, k.dram_time, k.noc_time}) {
      ImGui::TableSetColumnIndex(c++);
      ui::text_right(t_(v), v == most && v > 0 ? &ui::color::warn : &ui::color::dim);
    }
    ImGui::TableSetColumnIndex(c++);
    ui::text_right(units::bytes(k.dram_bytes));
  }
  ImGui::EndTable();
  ui::table_export_end();
}

// [SECTION] one operator
void draw_one_op(const Config &c, const tx8::Tx8Result &r) {
  const tx8::OpRow &row = r.ops.front();
  const tx8::OpCost &k = row.map.cost;
  const Tx8Spec &a = *c.hardware.tx8;
  ImGui::TextColored(ui::color::accent, "%s", row.name.c_str());
  ImGui::SameLine();
  ImGui::Text("one %s on one %s die", row.map.type.c_str(), c.hardware.name.c_str());
  draw_die_line(a);
  ImGui::Spacing();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  draw_ops(r, false, line * 2 + 12);
  ImGui::Spacing();
  const float w = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 34);
  ui::table_export("tx8_op");
  if (ImGui::BeginTable("tx8_op", 2, kTable, ImVec2(w, 0))) {
    ImGui::TableSetupColumn("quantity", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed,
                            ImGui::CalcTextSize(tx8::bytes_mib(k.sram_bytes).c_str()).x + 4);
    row2("latency (double-buffered pipeline)", t_(k.latency),
         "DMA loads, compute and stores of consecutive rounds overlap (docs/formulas.md, tx8).",
         &ui::color::accent);
    row2("latency without double buffering", t_(k.serial_latency), "");
    row2("rounds", fmt("%.0f", k.rounds), "");
    row2("compute on one tile", t_(k.compute_time), "All tiles run in parallel.");
    row2("DMA busy (DRAM)", t_(k.dram_time), "Loads + stores, DMA latencies included.");
    row2("NoC busy", t_(k.noc_time), "");
    row2("DRAM bytes", units::bytes(k.dram_bytes), "Every byte between DRAM and SRAM.");
    row2("  compulsory", units::bytes(k.compulsory_bytes),
         "Inputs read once, output written once.");
    if (k.flops > 0)
      row2("FLOPs", units::flops(k.flops), "");
    if (k.vector_ops > 0)
      row2("vector ops", fmt("%.4g", k.vector_ops), "");
    row2("utilization", units::percent(k.utilization),
         "FLOPs / (latency x tiles x tile GEMM FLOP/s); vector ops against the vector units.");
    row2("SRAM per tile", tx8::bytes_mib(k.sram_bytes), "");
    row2("roofline floor",
         t_(std::max({k.flops / tx8::die_gemm_flops(a), k.vector_ops / tx8::die_vector_ops(a),
                      k.compulsory_bytes / a.dram_bw})),
         "max(FLOPs / die GEMM peak, vector ops / die vector rate, compulsory bytes / DRAM "
         "bandwidth): no tiling beats it.");
    ImGui::EndTable();
    ui::table_export_end();
  }
  const tx8::SearchStats &st = row.map.search;
  ui::text_dim(std::string("search: ") + str(st.candidates) + " tilings, " + str(st.pruned_sram) +
               std::string(" rejected by SRAM, ") + str(st.pruned_bound) +
               " cut by the lower bound, " + str(st.evaluated) + " evaluated");
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
  if (!r->video) {
    draw_one_op(*c, *r);
  } else {
    draw_video_header(*c, *r);
    ImGui::Separator();
    draw_step_bar(*c, *r);
    ImGui::Spacing();
    // Totals (left) | schemes and communication (right).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
    const float mid_h = row_h * 12 + 8;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
    const float left_w = std::floor(std::min(avail.x * 0.36f, ImGui::GetFontSize() * 24));
    ImGui::BeginChild("tx8_left", ImVec2(left_w, mid_h));
    draw_totals(*c, *r);
    ImGui::EndChild();
    ImGui::SameLine(0, gap);
    ImGui::BeginChild("tx8_right", ImVec2(0, mid_h));
    const float comm_h =
        r->comm.empty() ? line + 4 : line + row_h * static_cast<float>(r->comm.size() + 1) + 8;
    const int clicked = draw_schemes(*r, std::max(row_h * 3, mid_h - comm_h - line - 6));
    draw_comm(*r);
    ImGui::EndChild();
    if (clicked >= 0)
      s.set_parallel_object(scheme_parallel(s, r->schemes[static_cast<std::size_t>(clicked)]));
    ImGui::Spacing();
    ImGui::TextUnformatted("Operators on one die");
    ImGui::SameLine();
    ui::text_dim("(x/step: times per step; latency per occurrence; x count = latency x x/step; "
                 "WS/IS: weight/input-stationary; amber: the largest of compute, DRAM, NoC)");
    ui::help_marker(
        "Each operator mapped by its mapper (GEMM: stationary operand and Tm, Tn, "
        "Tk; vector: rows per tile; flash attention: loop order and Tx, Ty), the "
        "searched optimum (docs/formulas.md, tx8). Hover a name for the search and the cost terms. "
        "Search: " +
        str(r->searches) + " operator searches (" + str(r->cache_hits) +
        " repeats served from the cache)" +
        (s.estimate_seconds() > 0 ? std::string(" in ") + units::seconds(s.estimate_seconds())
                                  : std::string()) +
        ".");
    draw_ops(*r, true, std::max(row_h * 4, ImGui::GetContentRegionAvail().y));
  }
  if (!current)
    ImGui::PopStyleVar();
}

} // namespace rl::web
