// [SECTION] table  [SECTION] one operator  [SECTION] video request  [SECTION] entry
#include "shell/tx8_command.hpp"

#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/tx8_json.hpp"
#include "core/io/units.hpp"
#include "core/tx8/arch.hpp"
#include "core/tx8/request.hpp"
#include "shell/table.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace rl::shell {

namespace {

// [SECTION] table: shell/table.hpp

std::string fmt(const char *f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}
std::string t_(double s) {
  return s > 0 ? units::seconds(s) : "-";
}
std::string pct(double f) {
  return units::percent(f);
}

void print_arch(std::ostream &os, const Tx8Spec &a) {
  os << "  die: " << a.tiles << " tiles (" << a.mesh_x << "x" << a.mesh_y << "), per tile "
     << units::flop_rate(a.gemm_flops) << " GEMM, " << fmt("%.4g", a.vector_ops / 1e9)
     << " Gop/s vector, " << fmt("%.2f", a.sram_bytes / 1048576.0) << " MiB SRAM ("
     << units::grouped(static_cast<std::int64_t>(a.sram_usable_bytes)) << " B usable); per die "
     << units::bandwidth(a.dram_bw) << " DRAM (shared), " << t_(a.dram_latency) << "/DMA; NoC "
     << units::bandwidth(a.noc_bw) << " per link, " << t_(a.hop_latency) << "/hop\n";
  os << "  ridge " << fmt("%.0f", tx8::ridge_flop_per_byte(a))
     << " FLOP/B per die; ring GEMM hides the NoC at Tm >= "
     << fmt("%.1f", tx8::gemm_noc_hidden_tm(a))
     << ", the weight stream at Tm >= " << fmt("%.0f", tx8::gemm_weight_hidden_tm(a))
     << ", output writes at K >= " << fmt("%.0f", tx8::gemm_output_hidden_k(a)) << "\n";
}

void op_table(std::ostream &os, const std::vector<tx8::OpRow> &ops, bool counts) {
  Table t;
  t.head = {"op",   "type", "shape",      "tiling", "latency",  "compute",
            "DRAM", "NoC",  "DRAM bytes", "util",   "evaluated"};
  t.left = {true, true, true, true};
  if (counts) {
    t.head.insert(t.head.begin() + 1, "x/step");
    t.head.insert(t.head.begin() + 6, "x count");
    t.left = {true, false, true, true, true};
  }
  for (const tx8::OpRow &r : ops) {
    const tx8::OpCost &c = r.map.cost;
    std::vector<std::string> row = {r.name,
                                    r.map.type == "flash_attention" ? "flash" : r.map.type,
                                    r.map.shape,
                                    r.map.tiling,
                                    t_(c.latency),
                                    t_(c.compute_time),
                                    t_(c.dram_time),
                                    t_(c.noc_time),
                                    units::bytes(c.dram_bytes),
                                    pct(c.utilization),
                                    fmt("%.0f", static_cast<double>(r.map.search.evaluated))};
    if (counts) {
      row.insert(row.begin() + 1, fmt("%.0f", r.count));
      row.insert(row.begin() + 6, t_(c.latency * r.count));
    }
    t.rows.push_back(row);
  }
  t.print(os);
}

void preset_table(std::ostream &os, const std::vector<tx8::OpRow> &ops, bool counts) {
  Table t;
  t.head = {"op", "searched tiling", "latency", "reference preset tiling", "latency", "gain"};
  t.left = {true, true, false, true};
  for (const tx8::OpRow &r : ops) {
    if (!r.has_preset && r.preset_error.empty())
      continue;
    if (!r.preset_error.empty()) {
      t.rows.push_back({r.name, r.map.tiling, t_(r.map.cost.latency), "does not fit", "-", "-"});
      continue;
    }
    (void)counts;
    t.rows.push_back({r.name, r.map.tiling, t_(r.map.cost.latency), r.preset.tiling,
                      t_(r.preset.cost.latency),
                      fmt("%.2fx", r.preset.cost.latency / r.map.cost.latency)});
  }
  t.print(os);
}

// [SECTION] one operator
void print_op(std::ostream &os, const Config &c, const tx8::Tx8Result &r, double seconds) {
  const Tx8Spec &a = *c.hardware.tx8;
  const tx8::OpRow &row = r.ops.front();
  const tx8::OpCost &k = row.map.cost;
  os << "ridgeline tx8: one " << row.map.type << " on one " << c.hardware.name << " die\n";
  print_arch(os, a);
  os << "\n";
  op_table(os, r.ops, false);
  os << "\n";
  Table t;
  t.head = {"quantity", "value"};
  t.left = {true, false};
  t.rows.push_back({"latency (double-buffered pipeline)", t_(k.latency)});
  t.rows.push_back({"latency without double buffering", t_(k.serial_latency)});
  t.rows.push_back({"rounds", fmt("%.0f", k.rounds)});
  t.rows.push_back({"compute on one tile", t_(k.compute_time)});
  t.rows.push_back({"DMA busy (DRAM)", t_(k.dram_time)});
  t.rows.push_back({"NoC busy", t_(k.noc_time)});
  t.rows.push_back({"DRAM bytes", units::bytes(k.dram_bytes)});
  t.rows.push_back({"  compulsory (inputs once, output once)", units::bytes(k.compulsory_bytes)});
  if (k.flops > 0)
    t.rows.push_back({"FLOPs", units::flops(k.flops)});
  if (k.vector_ops > 0)
    t.rows.push_back({"vector ops", fmt("%.4g", k.vector_ops)});
  t.rows.push_back({"utilization", pct(k.utilization)});
  t.rows.push_back({"SRAM per tile", tx8::bytes_mib(k.sram_bytes)});
  t.rows.push_back(
      {"roofline floor (compute, vector, compulsory DRAM)",
       t_(std::max({k.flops / tx8::die_gemm_flops(a), k.vector_ops / tx8::die_vector_ops(a),
                    k.compulsory_bytes / a.dram_bw}))});
  t.print(os);
  if (r.presets) {
    os << "\nReference preset tiling vs the searched optimum\n";
    if (!r.preset_error.empty())
      os << "  reference preset: " << r.preset_error << "\n";
    else if (row.has_preset)
      preset_table(os, r.ops, false);
    else
      os << "  there is no reference preset for vector ops (the split is searched)\n";
  }
  const tx8::SearchStats &s = row.map.search;
  os << "\nsearch: " << s.candidates << " tilings, " << s.pruned_sram << " rejected by SRAM, "
     << s.pruned_bound << " cut by the lower bound, " << s.evaluated << " evaluated, in "
     << t_(seconds) << "\n";
  if (s.skipped > 0)
    os << "        " << units::count(s.skipped)
       << " more tilings not looked at (the search's bounded ladder of tile sizes)\n";
}

// [SECTION] video request
void print_video(std::ostream &os, const Config &c, const tx8::Tx8Result &r, double seconds) {
  const Tx8Spec &a = *c.hardware.tx8;
  const tx8::VideoShape &v = r.shape;
  const std::vector<i64> mesh = c.cluster.mesh.empty() ? std::vector<i64>{1, 1} : c.cluster.mesh;
  os << "ridgeline tx8: " << c.model.name << " video inference on " << c.cluster.name << " ("
     << mesh[0] << "x" << mesh[1] << " " << c.hardware.name << " dies";
  if (r.dies > 1)
    os << ", d2d " << units::bandwidth(c.cluster.d2d.bw) << " per link, "
       << t_(c.cluster.d2d.latency) << "/hop";
  os << ")\n";
  os << "  request: batch " << v.batch << ", " << v.frames << " frames";
  if (c.workload.seconds > 0)
    os << " (" << fmt("%g", c.workload.seconds) << " s x 25.5 fps)";
  os << ", " << c.workload.height << "x" << c.workload.width << ", " << v.text << " text tokens, "
     << v.steps << " steps\n";
  os << "  latent " << v.latent_t << " x " << v.latent_h << " x " << v.latent_w
     << " (frames*5//17, H/8, W/8); tokens " << v.grid_t << " x " << v.grid_h << " x " << v.grid_w
     << " = " << units::grouped(v.tokens()) << " per sample (" << units::grouped(v.spatial())
     << " per frame)\n";
  print_arch(os, a);
  os << "  scheme: " << tx8::scheme_name(r.scheme) << " over " << r.stages.front().mesh.dies()
     << " die(s)";
  if (r.stages.size() > 1)
    os << " per stage, " << r.stages.size() << " pipeline stages, " << r.micro_batches
       << " micro-batch(es)";
  os << " (" << (r.chosen_by == "planner" ? "the planner's best" : "from the configuration") << ")"
     << (c.workload.fusion ? "; norm + modulate fused" : "") << "\n";
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const tx8::StageRow &s = r.stages[i];
    os << "  stage " << i << ": sub-mesh " << s.mesh.nx << "x" << s.mesh.ny << " at (" << s.mesh.x0
       << ", " << s.mesh.y0 << "), blocks " << s.first << "-" << s.last << "\n";
  }
  for (std::size_t si = 0; si < r.stages.size(); ++si) {
    std::vector<tx8::OpRow> ops;
    for (const tx8::OpRow &o : r.ops)
      if (o.stage == static_cast<i64>(si))
        ops.push_back(o);
    os << "\nOperators on one die"
       << (r.stages.size() > 1 ? " of stage " + std::to_string(si) : std::string())
       << " (x/step: times per sampling step; times per occurrence)\n";
    op_table(os, ops, true);
  }
  os << "\nTotals (one die; the dies run in parallel)\n";
  Table t;
  t.head = {"quantity", "value"};
  t.left = {true, false};
  t.rows.push_back({"spatial block", t_(r.spatial_block)});
  t.rows.push_back({"temporal block", t_(r.temporal_block)});
  t.rows.push_back({"layer (spatial + temporal + exposed communication)", t_(r.per_layer)});
  t.rows.push_back({"embedders, per step", t_(r.embed)});
  t.rows.push_back({"final layer + sampler, per step", t_(r.final)});
  t.rows.push_back({"operators, per step", t_(r.compute_per_step)});
  t.rows.push_back({"exposed die-to-die communication, per step", t_(r.comm_exposed_per_step)});
  t.rows.push_back({"per step", t_(r.per_step)});
  t.rows.push_back({"latent gather, once", t_(r.once)});
  t.rows.push_back({"whole request (" + std::to_string(v.steps) + " steps)", t_(r.latency)});
  t.rows.push_back({"model FLOPs per step (all dies)", units::flops(r.flops_per_step)});
  t.rows.push_back({"utilization (" + std::to_string(r.dies) + " dies x " +
                        units::flop_rate(tx8::die_gemm_flops(a)) + ")",
                    pct(r.utilization)});
  t.print(os);
  os << "\nDie-to-die communication per step (bytes each die sends)\n";
  if (r.comm.empty()) {
    os << "  none (one die per stage)\n";
  } else {
    Table ct;
    ct.head = {"kind", "stage", "bytes/die", "time each", "x/step", "exposed/step"};
    ct.left = {true};
    for (const tx8::CommRow &cr : r.comm)
      ct.rows.push_back({cr.kind, std::to_string(cr.stage), units::bytes(cr.bytes_per_die),
                         t_(cr.time), fmt("%.0f", cr.per_step), t_(cr.exposed)});
    ct.print(os);
  }
  if (!r.schemes.empty()) {
    os << "\nSequence-parallel schemes and mesh splits (best first)\n";
    Table st;
    st.head = {"scheme",    "stages",       "sub-mesh",       "per step",
               "operators", "comm exposed", "comm bytes/die", "request"};
    st.left = {true, false, true};
    const std::size_t shown = std::min<std::size_t>(r.schemes.size(), 12);
    for (std::size_t i = 0; i < shown; ++i) {
      const tx8::SchemeRow &s = r.schemes[i];
      const std::string sub =
          std::to_string(s.meshes.front().nx) + "x" + std::to_string(s.meshes.front().ny);
      if (!s.feasible)
        st.rows.push_back({s.name, std::to_string(s.stages), sub, "-", "-", "-", "-", s.why});
      else
        st.rows.push_back({s.name, std::to_string(s.stages), sub, t_(s.per_step), t_(s.compute),
                           t_(s.comm_exposed), units::bytes(s.comm_bytes_per_die), t_(s.latency)});
    }
    st.print(os);
    if (shown < r.schemes.size())
      os << "  ... " << r.schemes.size() - shown << " more (--json lists them all)\n";
  }
  if (r.presets) {
    os << "\nReference preset tilings vs the searched optimum (projections TmTn 256x32, FFN-down "
          "4x128, attention Tx_Ty 256x256 order B)\n";
    std::vector<tx8::OpRow> ops;
    for (const tx8::OpRow &o : r.ops)
      if (o.stage == 0)
        ops.push_back(o);
    preset_table(os, ops, true);
    if (!r.preset_error.empty())
      os << "  with the reference presets the request does not map: " << r.preset_error << "\n";
    else
      os << "  per step: reference presets " << t_(r.preset_per_step) << " vs searched "
         << t_(r.per_step) << " (" << fmt("%.2fx", r.preset_per_step / r.per_step)
         << "); whole request " << t_(r.preset_latency) << " vs " << t_(r.latency) << "\n";
  }
  double evaluated = 0;
  for (const tx8::OpRow &o : r.ops)
    evaluated += static_cast<double>(o.map.search.evaluated);
  os << "\nsearch: " << r.searches << " operator searches (" << r.cache_hits
     << " repeats served from the cache, " << fmt("%.0f", evaluated) << " tilings evaluated) in "
     << t_(seconds) << " for the whole request";
  if (!r.schemes.empty())
    os << " and " << r.schemes.size() << " schemes";
  os << "\n";
}

} // namespace

// [SECTION] entry
const char *const kTx8Help = R"(usage: ridgeline tx8 CFG [--json] [--presets]

Maps one operator or a whole Open-Sora STDiT3 video request onto tx8 dies (16 tiles,
per-tile SRAM, shared DRAM, ring NoC) and, for a request, onto a mesh of dies.
  one operator  {"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm",
                "m": 4096, "k": 1152, "n": 4608, "fuse": "silu"}}}   (types gemm, vector,
                flash_attention; optional "tiling", "stationary", "loop_order",
                "heads_fused", "in_sram", "out_sram")
  video request {"model": "stdit3-720m", "hardware": "tx8", "cluster": "tx8-2x2",
                "workload": {"mode": "video", "batch": 1, "seconds": 4, "resolution":
                [720, 1280], "text_tokens": 300, "steps": 30}, "parallel": {"sp_kind":
                "dsp"}}   (sp_kind dsp | ulysses | ring | megatron-sp | usp; without it the
                planner picks the best scheme and mesh split; "pp", "stage_ids",
                "submeshes" for pipeline stages)
Prints the per-operator table (tiling, latency, compute / DRAM / NoC time, bytes,
utilization, search time), the totals per block, per step and for the whole request, the
die-to-die communication and the schemes compared.
  --json     the same as JSON (ops[], total, comm[], video, parallel, schemes[], search)
  --presets  also map with the reference preset tilings (TmTn 256x32, FFN-down 4x128, flash
             attention Tx_Ty 256x256) and show what the search gains
)";

int run_tx8(const nlohmann::json &config, bool json_out, bool compare_presets, std::ostream &out) {
  const Config c = io::parse_config(config);
  tx8::arch_of(c.hardware, "hardware");
  tx8::Tx8Options o;
  o.compare_presets = compare_presets;
  // the wall time is measured here: the core keeps no clock
  const auto t0 = std::chrono::steady_clock::now();
  const tx8::Tx8Result r = tx8::solve(c, o);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (json_out) {
    nlohmann::json j = io::to_json(r);
    j["search"]["seconds"] = seconds;
    out << io::dump(j, 2) << "\n";
    return 0;
  }
  if (r.video)
    print_video(out, c, r, seconds);
  else
    print_op(out, c, r, seconds);
  return 0;
}

} // namespace rl::shell
