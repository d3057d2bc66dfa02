#include "core/report/tx8_report.hpp"

#include "core/io/units.hpp"
#include "core/report/cells.hpp"
#include "core/tx8/arch.hpp"

#include <algorithm>
#include <cstdio>

namespace rl {

namespace {

using namespace cells;

// A time, "-" when there is none.
std::string t_(double s) {
  return s > 0 ? units::seconds(s) : "-";
}
ReportCell time_cell(double s) {
  return {t_(s), s};
}
ReportCell count(double v) {
  return {fmt("%.0f", v), v};
}

// The tiling as a table shows it: the GEMM's stationary operand abbreviated (WS, IS); the
// row's help keeps the core's full text.
std::string short_tiling(const std::string &t) {
  for (const auto &[from, to] : {std::pair<const char *, const char *>{"weight-stationary", "WS"},
                                 {"input-stationary", "IS"}}) {
    const std::string f = from;
    if (t.compare(0, f.size(), f) == 0)
      return std::string(to) + t.substr(f.size());
  }
  return t;
}

// [SECTION] die
ReportText die_line(const Tx8Spec &a) {
  ReportText out;
  out.text =
      "die: " + str(a.tiles) + " tiles (" + str(a.mesh_x) + "x" + str(a.mesh_y) + "); per tile ";
  out.text += units::flop_rate(a.gemm_flops);
  out.text += fmt(" GEMM, %.4g Gop/s vector, %.2f MiB SRAM; per die ", a.vector_ops / 1e9,
                  a.sram_bytes / 1048576.0);
  out.text += units::bandwidth(a.dram_bw);
  out.text += " DRAM (shared); NoC ";
  out.text += units::bandwidth(a.noc_bw);
  out.text += fmt(" per link; ridge %.0f FLOP/B", tx8::ridge_flop_per_byte(a));
  out.help = "Per tile: GEMM and vector units, SRAM (usable ";
  out.help += units::grouped(static_cast<i64>(a.sram_usable_bytes));
  out.help += " B); per die: DRAM shared by the tiles, " + t_(a.dram_latency);
  out.help += " per DMA; NoC " + t_(a.hop_latency);
  out.help += " per hop. Ridge = die GEMM FLOP/s / DRAM bandwidth (docs/formulas.md, tx8). Ring "
              "GEMM hides the NoC at Tm >= ";
  out.help +=
      fmt("%.1f, the weight stream at Tm >= %.0f, output writes at K >= %.0f.",
          tx8::gemm_noc_hidden_tm(a), tx8::gemm_weight_hidden_tm(a), tx8::gemm_output_hidden_k(a));
  return out;
}

// [SECTION] operators
std::string op_help(const tx8::OpRow &o) {
  const tx8::OpCost &k = o.map.cost;
  const tx8::SearchStats &st = o.map.search;
  std::string h = o.map.type + "  " + o.map.shape + "\ntiling: " + o.map.tiling;
  h += "\nlatency " + t_(k.latency);
  h += " (without double buffering " + t_(k.serial_latency);
  h += fmt("), %.0f rounds", k.rounds);
  h += "\ncompute " + t_(k.compute_time);
  h += ", DRAM " + t_(k.dram_time);
  h += ", NoC " + t_(k.noc_time);
  h += "\nDRAM bytes " + units::bytes(k.dram_bytes);
  h += " (compulsory " + units::bytes(k.compulsory_bytes);
  h += "), SRAM per tile " + tx8::bytes_mib(k.sram_bytes);
  h += "\nsearch: " + str(st.candidates) + " tilings, " + str(st.pruned_sram);
  h += " over SRAM, " + str(st.pruned_bound) + " cut by the bound, ";
  h += str(st.evaluated) + " evaluated";
  if (o.cached)
    h += " (shape searched earlier: cached)";
  return h;
}

void ops_table(const tx8::Tx8Result &r, ReportTable &t) {
  const bool counts = r.video;
  const bool stages = r.stages.size() > 1;
  t.key = "tx8_ops";
  t.title = counts ? "Operators on one die" : "The operator";
  t.help = "Each operator mapped by its mapper (GEMM: stationary operand and Tm, Tn, Tk; vector: "
           "rows per tile; flash attention: loop order and Tx, Ty), the searched optimum "
           "(docs/formulas.md, tx8). Hover a name for the search and the cost terms.";
  t.note = counts ? "x/step: times per sampling step; latency per occurrence; x count = latency "
                    "x x/step; WS/IS: weight/input-stationary; *: the largest of compute, "
                    "DRAM, NoC (what bounds the operator)."
                  : "WS/IS: weight/input-stationary; *: the largest of compute, DRAM, NoC.";
  t.hover_help = true;
  t.columns = {{"op", "operator"}};
  if (stages)
    t.columns.push_back({"stage", "stage"});
  if (counts)
    t.columns.push_back({"per_step", "x/step"});
  t.columns.push_back({"type", "type", {}, {}, true});
  t.columns.push_back({"shape", "shape", {}, {}, true});
  t.columns.push_back({"tiling", "tiling", {}, {}, true});
  t.columns.push_back({"latency", "latency", Unit::seconds, Better::lower});
  if (counts)
    t.columns.push_back({"total", "x count", Unit::seconds, Better::lower});
  t.columns.push_back({"util", "util", Unit::percent, Better::higher, false, true});
  t.columns.push_back({"compute", "compute", Unit::seconds});
  t.columns.push_back({"dram", "DRAM", Unit::seconds});
  t.columns.push_back({"noc", "NoC", Unit::seconds});
  t.columns.push_back({"dram_bytes", "DRAM bytes", Unit::bytes});
  t.columns.push_back({"evaluated", "evaluated"});
  for (const tx8::OpRow &o : r.ops) {
    const tx8::OpCost &k = o.map.cost;
    std::vector<ReportCell> cells = {words(o.name)};
    if (stages)
      cells.push_back({str(o.stage), d(o.stage)});
    if (counts)
      cells.push_back(count(o.count));
    cells.push_back(words(o.map.type == "flash_attention" ? "flash" : o.map.type));
    cells.push_back(words(o.map.shape));
    cells.push_back(words(short_tiling(o.map.tiling)));
    cells.push_back(time_cell(k.latency));
    if (counts)
      cells.push_back(time_cell(k.latency * o.count));
    cells.push_back({units::percent(k.utilization), k.utilization});
    const double most = std::max({k.compute_time, k.dram_time, k.noc_time});
    for (const double v : {k.compute_time, k.dram_time, k.noc_time}) {
      ReportCell c = time_cell(v);
      c.mark = v == most && v > 0 ? Mark::warn : Mark::dim;
      cells.push_back(c);
    }
    cells.push_back({units::bytes(k.dram_bytes), k.dram_bytes});
    cells.push_back(count(static_cast<double>(o.map.search.evaluated)));
    t.rows.push_back({o.name, op_help(o), Mark::none, std::move(cells)});
  }
}

void op_detail_table(const Config &c, const tx8::Tx8Result &r, ReportTable &t) {
  const tx8::OpRow &row = r.ops.front();
  const tx8::OpCost &k = row.map.cost;
  const Tx8Spec &a = *c.hardware.tx8;
  t.key = "tx8_op";
  t.title = "One " + row.map.type + " on one " + c.hardware.name + " die";
  t.columns = {{"quantity", "quantity"}, {"value", "value"}};
  const auto add = [&](const char *key, const char *name, ReportCell v, const char *help,
                       Mark mark = Mark::none) {
    t.rows.push_back({key, help, mark, {words(name), std::move(v)}});
  };
  add("latency", "latency (double-buffered pipeline)", time_cell(k.latency),
      "DMA loads, compute and stores of consecutive rounds overlap (docs/formulas.md, tx8).",
      Mark::total);
  add("serial", "latency without double buffering", time_cell(k.serial_latency), "");
  add("rounds", "rounds", count(k.rounds), "");
  add("compute", "compute on one tile", time_cell(k.compute_time), "All tiles run in parallel.");
  add("dram", "DMA busy (DRAM)", time_cell(k.dram_time), "Loads + stores, DMA latencies included.");
  add("noc", "NoC busy", time_cell(k.noc_time), "");
  add("dram_bytes", "DRAM bytes", {units::bytes(k.dram_bytes), k.dram_bytes},
      "Every byte between DRAM and SRAM.");
  add("compulsory", "  compulsory (inputs once, output once)",
      {units::bytes(k.compulsory_bytes), k.compulsory_bytes},
      "Inputs read once, output written once.");
  if (k.flops > 0)
    add("flops", "FLOPs", {units::flops(k.flops), k.flops}, "");
  if (k.vector_ops > 0)
    add("vector_ops", "vector ops", {fmt("%.4g", k.vector_ops), k.vector_ops}, "");
  add("util", "utilization", {units::percent(k.utilization), k.utilization},
      "FLOPs / (latency x tiles x tile GEMM FLOP/s); vector ops against the vector units.");
  add("sram", "SRAM per tile", {tx8::bytes_mib(k.sram_bytes), k.sram_bytes}, "");
  add("floor", "roofline floor (compute, vector, compulsory DRAM)",
      time_cell(std::max({k.flops / tx8::die_gemm_flops(a), k.vector_ops / tx8::die_vector_ops(a),
                          k.compulsory_bytes / a.dram_bw})),
      "max(FLOPs / die GEMM peak, vector ops / die vector rate, compulsory bytes / DRAM "
      "bandwidth): no tiling beats it.");
}

// [SECTION] video totals
void step_table(const Config &c, const tx8::Tx8Result &r, ReportTable &t) {
  t.key = "tx8_step";
  t.title = "Time per sampling step (one die)";
  t.help = "One denoising step on one die; the dies of a stage run in parallel. Whole request = "
           "steps x per step + the latent gather once.";
  t.columns = {{"part", "part"},
               {"time", "time", Unit::seconds, Better::lower},
               {"share", "share", Unit::percent}};
  const auto add = [&](const char *key, const char *name, double v, std::string help) {
    const double f = r.per_step > 0 ? v / r.per_step : 0;
    t.rows.push_back(
        {key, std::move(help), Mark::none, {words(name), time_cell(v), {units::percent(f), f}}});
  };
  if (r.stages.size() == 1) {
    const double blocks = d(c.model.layers);
    add("spatial", "spatial blocks", blocks * r.spatial_block,
        "Every spatial block once per step: " + str(c.model.layers) + " x " + t_(r.spatial_block) +
            " (self-attention over the tokens of a frame).");
    add("temporal", "temporal blocks", blocks * r.temporal_block,
        "Every temporal block once per step: " + str(c.model.layers) + " x " +
            t_(r.temporal_block) + " (self-attention over the frames of a position).");
    add("comm", "die-to-die communication", r.comm_exposed_per_step,
        "Exposed die-to-die communication of the scheme (see the table).");
    add("embed", "embedders", r.embed,
        "Patch, position, caption and timestep embedders, once per step.");
    add("final", "final layer + sampler", r.final,
        "Final norm/modulate, the final linear layer and the sampler update.");
  } else {
    add("operators", "operators", r.compute_per_step,
        "The operators of every stage a micro-batch passes through.");
    add("comm", "die-to-die communication", r.comm_exposed_per_step,
        "Exposed die-to-die communication, stage-to-stage sends included.");
    add("pipeline", "pipeline fill and drain",
        std::max(0.0, r.per_step - r.compute_per_step - r.comm_exposed_per_step),
        "Fill and drain of the die pipeline.");
  }
  t.rows.push_back({"per_step",
                    "",
                    Mark::total,
                    {words("per step"), time_cell(r.per_step), {units::percent(1), 1}}});
}

void totals_table(const Config &c, const tx8::Tx8Result &r, ReportTable &t) {
  const Tx8Spec &a = *c.hardware.tx8;
  t.key = "tx8_totals";
  t.title = "Totals (one die; the dies run in parallel)";
  t.columns = {{"quantity", "quantity"}, {"value", "value"}};
  const auto add = [&](const char *key, std::string name, ReportCell v, std::string help,
                       Mark mark = Mark::none) {
    t.rows.push_back({key, std::move(help), mark, {words(std::move(name)), std::move(v)}});
  };
  add("spatial", "spatial block", time_cell(r.spatial_block),
      "The operators of one spatial block on one die: norms, modulate, QKV, q/k norms, "
      "self-attention over a frame, output projection, cross-attention, FFN.");
  add("temporal", "temporal block", time_cell(r.temporal_block),
      "The same operators with self-attention over the frames of each position.");
  add("layer", "layer (spatial + temporal + exposed communication)", time_cell(r.per_layer),
      "spatial + temporal block + their exposed die-to-die communication.");
  add("embed", "embedders, per step", time_cell(r.embed), "");
  add("final", "final layer + sampler, per step", time_cell(r.final), "");
  add("operators", "operators, per step", time_cell(r.compute_per_step), "");
  add("comm", "exposed die-to-die communication, per step", time_cell(r.comm_exposed_per_step),
      "Bytes each die sends per step: " + units::bytes(r.comm_bytes_per_die_per_step) + ".");
  add("per_step", "per step", time_cell(r.per_step), "", Mark::total);
  add("once", "latent gather, once", time_cell(r.once),
      "The latent gathered to one die after the last step.");
  add("request", "whole request (" + str(r.shape.steps) + " steps)", time_cell(r.latency),
      "steps x per step + latent gather.", Mark::total);
  add("flops", "model FLOPs per step (all dies)",
      {units::flops(r.flops_per_step), r.flops_per_step},
      "Useful matmul FLOPs of one step over all dies (2 per multiply-add).");
  std::string util = "utilization (" + str(r.dies) + " dies x ";
  util += units::flop_rate(tx8::die_gemm_flops(a));
  util += ")";
  add("util", util, {units::percent(r.utilization), r.utilization},
      "model FLOPs per step / (per step x dies x die GEMM peak).");
}

void comm_table(const tx8::Tx8Result &r, ReportTable &t) {
  t.key = "tx8_comm";
  t.title = "Die-to-die communication per step (bytes each die sends)";
  t.help = "Bytes each die sends per occurrence, its time on the die mesh (docs/formulas.md, "
           "tx8: all-to-all bounded by the bisection or the per-die injection, rings by the "
           "slowest link, + hops x latency), occurrences per step, and what stays on the "
           "critical path (ring attention overlaps the spatial attention).";
  if (r.comm.empty())
    t.note = "none (one die per stage)";
  t.columns = {{"kind", "kind"},
               {"stage", "stage"},
               {"bytes", "bytes/die", Unit::bytes},
               {"time", "time each", Unit::seconds},
               {"per_step", "x/step"},
               {"exposed", "exposed/step", Unit::seconds, Better::lower}};
  for (const tx8::CommRow &cr : r.comm) {
    t.rows.push_back({cr.kind,
                      "",
                      Mark::none,
                      {words(cr.kind),
                       {str(cr.stage), d(cr.stage)},
                       {units::bytes(cr.bytes_per_die), cr.bytes_per_die},
                       time_cell(cr.time),
                       count(cr.per_step),
                       time_cell(cr.exposed)}});
  }
}

bool is_chosen(const tx8::SchemeRow &row, const tx8::Tx8Result &r) {
  return !r.stages.empty() && row.name == tx8::scheme_name(r.scheme) &&
         row.stages == static_cast<i64>(r.stages.size()) && !row.meshes.empty() &&
         row.meshes.front().nx == r.stages.front().mesh.nx &&
         row.meshes.front().ny == r.stages.front().mesh.ny;
}

int schemes_table(const tx8::Tx8Result &r, ReportTable &t) {
  t.key = "tx8_schemes";
  t.title = "Sequence-parallel schemes and mesh splits (best first)";
  t.help = "Every scheme the heads allow (DSP, Ulysses, Ring, Megatron-SP, USP u x c; the DSP "
           "paper, Zhao et al. 2024) on every split of the die mesh into equal pipeline stages, "
           "each mapped in full.";
  t.columns = {{"scheme", "scheme"},
               {"stages", "stages"},
               {"submesh", "sub-mesh", {}, {}, true},
               {"per_step", "per step", Unit::seconds, Better::lower},
               {"operators", "operators", Unit::seconds},
               {"comm", "comm exposed", Unit::seconds},
               {"comm_bytes", "comm bytes/die", Unit::bytes},
               {"request", "request", Unit::seconds, Better::lower}};
  int chosen = -1;
  for (std::size_t i = 0; i < r.schemes.size(); ++i) {
    const tx8::SchemeRow &s = r.schemes[i];
    if (is_chosen(s, r))
      chosen = static_cast<int>(i);
    const std::string sub =
        s.meshes.empty() ? "-" : str(s.meshes.front().nx) + "x" + str(s.meshes.front().ny);
    std::vector<ReportCell> cells = {words(s.name), {str(s.stages), d(s.stages)}, words(sub)};
    if (!s.feasible) {
      for (int k = 0; k < 4; ++k)
        cells.push_back(words("-"));
      cells.push_back(words(s.why));
    } else {
      cells.push_back(time_cell(s.per_step));
      cells.push_back(time_cell(s.compute));
      cells.push_back(time_cell(s.comm_exposed));
      cells.push_back({units::bytes(s.comm_bytes_per_die), s.comm_bytes_per_die});
      cells.push_back(time_cell(s.latency));
    }
    t.rows.push_back(
        {s.name, s.feasible ? "" : s.why, s.feasible ? Mark::none : Mark::dim, std::move(cells)});
  }
  return chosen;
}

void presets_table(const tx8::Tx8Result &r, ReportTable &t) {
  t.key = "tx8_presets";
  t.title = r.video ? "Reference preset tilings vs the searched optimum (projections TmTn 256x32, "
                      "FFN-down 4x128, attention Tx_Ty 256x256 order B)"
                    : "Reference preset tiling vs the searched optimum";
  t.columns = {{"op", "op"},
               {"searched", "searched tiling", {}, {}, true},
               {"latency", "latency", Unit::seconds},
               {"preset", "reference preset tiling", {}, {}, true},
               {"preset_latency", "latency", Unit::seconds},
               {"gain", "gain"}};
  for (const tx8::OpRow &o : r.ops) {
    if (o.stage != 0 || (!o.has_preset && o.preset_error.empty()))
      continue;
    std::vector<ReportCell> cells = {words(o.name), words(short_tiling(o.map.tiling)),
                                     time_cell(o.map.cost.latency)};
    if (!o.preset_error.empty()) {
      cells.push_back(words("does not fit"));
      cells.push_back(words("-"));
      cells.push_back(words("-"));
    } else {
      const double gain = o.preset.cost.latency / o.map.cost.latency;
      cells.push_back(words(short_tiling(o.preset.tiling)));
      cells.push_back(time_cell(o.preset.cost.latency));
      cells.push_back({fmt("%.2fx", gain), gain});
    }
    t.rows.push_back({o.name, o.preset_error, Mark::none, std::move(cells)});
  }
  if (!r.preset_error.empty())
    t.note =
        (r.video ? "with the reference presets the request does not map: " : "reference preset: ") +
        r.preset_error;
  else if (r.video)
    t.note = "per step: reference presets " + t_(r.preset_per_step) + " vs searched " +
             t_(r.per_step) + fmt(" (%.2fx); whole request ", r.preset_per_step / r.per_step) +
             t_(r.preset_latency) + " vs " + t_(r.latency);
  else if (t.rows.empty())
    t.note = "there is no reference preset for vector ops (the split is searched)";
}

} // namespace

Tx8Report tx8_report(const Config &c, const tx8::Tx8Result &r) {
  Tx8Report out;
  const Tx8Spec &a = *c.hardware.tx8;
  out.die = die_line(a);
  ops_table(r, out.ops);
  if (r.presets)
    presets_table(r, out.presets);
  double evaluated = 0;
  for (const tx8::OpRow &o : r.ops)
    evaluated += static_cast<double>(o.map.search.evaluated);
  if (!r.video) {
    const tx8::OpRow &row = r.ops.front();
    out.title = "one " + row.map.type + " on one " + c.hardware.name + " die";
    op_detail_table(c, r, out.op_detail);
    const tx8::SearchStats &s = row.map.search;
    out.search = "search: " + str(s.candidates) + " tilings, " + str(s.pruned_sram);
    out.search += " rejected by SRAM, " + str(s.pruned_bound);
    out.search += " cut by the lower bound, " + str(s.evaluated) + " evaluated";
    if (s.skipped > 0)
      out.search += "; " + units::count(s.skipped) +
                    " more tilings not looked at (the search's bounded ladder of tile sizes)";
    return out;
  }
  const tx8::VideoShape &v = r.shape;
  const std::vector<i64> mesh = c.cluster.mesh.empty() ? std::vector<i64>{1, 1} : c.cluster.mesh;
  out.title = c.model.name + " video inference on " + c.cluster.name + " (" + str(mesh[0]) + "x" +
              str(mesh[1]) + " " + c.hardware.name + " dies";
  if (r.dies > 1) {
    out.title += ", die-to-die " + units::bandwidth(c.cluster.d2d.bw);
    out.title += " per link, " + t_(c.cluster.d2d.latency) + " per hop";
  }
  out.title += ")";
  std::string req = "request: batch " + str(v.batch) + ", " + str(v.frames) + " frames";
  if (c.workload.seconds > 0)
    req += fmt(" (%g s x 25.5 fps)", c.workload.seconds);
  req += ", " + str(c.workload.height) + "x" + str(c.workload.width) + ", " + str(v.text);
  req += " text tokens, " + str(v.steps) + " steps";
  std::string lat = "latent " + str(v.latent_t) + " x " + str(v.latent_h) + " x " +
                    str(v.latent_w) + " (frames*5//17, H/8, W/8); tokens " + str(v.grid_t) + " x " +
                    str(v.grid_h) + " x " + str(v.grid_w) + " = ";
  lat += units::grouped(v.tokens()) + " per sample (";
  lat += units::grouped(v.spatial()) + " per frame)";
  const char *open_sora = "Open-Sora: latent frames = frames*5//17, latent H/8 x W/8, patch (1, "
                          "2, 2): tokens per frame = H*W/256; T5 prompt padded to 300 tokens; "
                          "each sampling step runs every spatial and temporal block once.";
  out.request = {{req, ""}, {lat, open_sora}};
  std::string sch = "scheme: " + tx8::scheme_name(r.scheme) + " over " +
                    str(r.stages.front().mesh.dies()) + " die(s)";
  if (r.stages.size() > 1)
    sch += " per stage, " + str(static_cast<i64>(r.stages.size())) + " pipeline stages, " +
           str(r.micro_batches) + " micro-batch(es)";
  sch += r.chosen_by == "planner" ? " (the planner's best: parallel.sp_kind not set)"
                                  : " (from the configuration)";
  if (c.workload.fusion)
    sch += "; norm + modulate fused";
  out.scheme.push_back(sch);
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const tx8::StageRow &s = r.stages[i];
    out.scheme.push_back("stage " + str(static_cast<i64>(i)) + ": sub-mesh " + str(s.mesh.nx) +
                         "x" + str(s.mesh.ny) + " at (" + str(s.mesh.x0) + ", " + str(s.mesh.y0) +
                         "), blocks " + str(s.first) + "-" + str(s.last));
  }
  step_table(c, r, out.step);
  totals_table(c, r, out.totals);
  comm_table(r, out.comm);
  out.chosen_scheme = schemes_table(r, out.schemes);
  out.search = "search: " + str(r.searches) + " operator searches (" + str(r.cache_hits);
  out.search += fmt(" repeats served from the cache, %.0f tilings evaluated)", evaluated);
  if (!r.schemes.empty())
    out.search += " and " + str(static_cast<i64>(r.schemes.size())) + " schemes";
  return out;
}

} // namespace rl
