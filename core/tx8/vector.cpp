#include "core/tx8/vector.hpp"

#include "core/error.hpp"
#include "core/tx8/arch.hpp"

#include <algorithm>
#include <cmath>

namespace rl::tx8 {

// docs/formulas.md (tx8): add 1 op per element.
VectorOp vector_add(i64 rows, i64 width, i64 inputs) {
  VectorOp v;
  v.rows = rows, v.width = width, v.inputs = inputs, v.ops_per_element = 1;
  return v;
}
// docs/formulas.md (tx8): modulate x*(1 + scale) + shift: 2 ops; shift and scale are parameter
// vectors.
VectorOp vector_modulate(i64 rows, i64 width) {
  VectorOp v;
  v.rows = rows, v.width = width, v.ops_per_element = 2, v.params = 2;
  return v;
}
// LLMPerf-for-TiledArch Gate_ResAdd: x + gate*y: 2 ops, two inputs, the gate a parameter vector.
VectorOp vector_gate_residual(i64 rows, i64 width) {
  VectorOp v;
  v.rows = rows, v.width = width, v.inputs = 2, v.ops_per_element = 2, v.params = 1;
  return v;
}
// docs/formulas.md (tx8): RMSNorm ~ 4 ops per element + one rsqrt per row.
VectorOp vector_rmsnorm(const Tx8Spec &a, i64 rows, i64 width) {
  VectorOp v;
  v.rows = rows, v.width = width, v.ops_per_element = 4, v.ops_per_row = a.exp_ops;
  return v;
}
// docs/formulas.md (tx8): SiLU ~ exp + 2.
VectorOp vector_silu(const Tx8Spec &a, i64 rows, i64 width) {
  VectorOp v;
  v.rows = rows, v.width = width, v.ops_per_element = a.exp_ops + 2;
  return v;
}

// docs/formulas.md (tx8): SRAM 2*(in + out) + params <= C.
double vector_sram_bytes(const Tx8Spec &a, const VectorOp &op, i64 s) {
  const double row = static_cast<double>(op.width);
  return 2.0 * static_cast<double>(s) * row *
             (a.elem_bytes * static_cast<double>(op.inputs) + a.elem_bytes) +
         static_cast<double>(op.params) * row * a.elem_bytes;
}

i64 vector_max_rows(const Tx8Spec &a, const VectorOp &op) {
  const double per_row = vector_sram_bytes(a, op, 1) - vector_sram_bytes(a, op, 0);
  const double room = a.sram_usable_bytes - vector_sram_bytes(a, op, 0);
  if (room < per_row)
    return 0;
  i64 s = static_cast<i64>(std::floor(room / per_row));
  while (s > 0 && vector_sram_bytes(a, op, s) > a.sram_usable_bytes) // rounding guard
    --s;
  return s;
}

namespace {
// One wave: `rows` rows over the tiles, `s` on the busiest tile (docs/formulas.md (tx8)).
// `param_tiles` tiles fetch the parameter vectors in the first wave.
Round vector_round(const Tx8Spec &a, const VectorOp &op, i64 rows, i64 s, bool first,
                   i64 param_tiles) {
  const double H = static_cast<double>(op.width), e = a.elem_bytes;
  const double R = static_cast<double>(rows);
  const double active = static_cast<double>(param_tiles);
  Round r;
  // docs/formulas.md (tx8): compute kappa*s*H/F_v (+ per-row ops)
  r.compute =
      (op.ops_per_element * static_cast<double>(s) * H + op.ops_per_row * static_cast<double>(s)) /
      a.vector_ops;
  r.busy = r.compute;
  // docs/formulas.md (tx8): load L_d + T_w*s*H*e*inputs/B_d (every tile that works fetches the
  // parameter vectors once, in the first wave); store L_d + T_w*s*H*e/B_d.
  const double load = (op.in_sram ? 0.0 : R * H * e * static_cast<double>(op.inputs)) +
                      (first ? active * static_cast<double>(op.params) * H * e : 0.0);
  const double store = op.out_sram ? 0.0 : R * H * e;
  r.load = dma_s(a, load);
  r.store = dma_s(a, store);
  r.bytes = load + store;
  return r;
}
} // namespace

OpCost evaluate_vector(const Tx8Spec &a, const VectorOp &op, i64 s) {
  s = std::min(s, ceil_div(op.rows, a.tiles));
  const auto runs = with_ends(split_blocks(op.rows, s, a.tiles));
  const i64 param_tiles = std::min(a.tiles, ceil_div(op.rows, s));
  Seq total;
  for (const Run &r : runs)
    total =
        then(total,
             repeat(seq_of(vector_round(a, op, r.part.size, r.part.per_tile, r.first, param_tiles)),
                    r.count));
  OpCost c = cost_of(total);
  const double R = static_cast<double>(op.rows), H = static_cast<double>(op.width),
               e = a.elem_bytes;
  c.vector_ops = op.ops_per_element * R * H + op.ops_per_row * R;
  c.utilization = c.vector_ops / (c.latency * die_vector_ops(a));
  c.compulsory_bytes = (op.in_sram ? 0.0 : R * H * e * static_cast<double>(op.inputs)) +
                       static_cast<double>(op.params) * H * e + (op.out_sram ? 0.0 : R * H * e);
  c.sram_bytes = vector_sram_bytes(a, op, s);
  return c;
}

VectorMapping map_vector(const Tx8Spec &a, const VectorOp &op, std::optional<i64> fixed,
                         const std::string &path) {
  if (op.rows < 1 || op.width < 1)
    throw ConfigError(path, "vector rows and width must be >= 1");
  const i64 full = ceil_div(op.rows, a.tiles);
  const i64 s_max = vector_max_rows(a, op);
  VectorMapping best;
  if (fixed) {
    const i64 s = std::min(*fixed, full);
    const double need = vector_sram_bytes(a, op, s);
    if (need > a.sram_usable_bytes)
      throw ConfigError(path, "does not fit in SRAM: " + std::to_string(s) +
                                  " rows per tile of width " + std::to_string(op.width) + " need " +
                                  bytes_mib(need) + " > " + bytes_mib(a.sram_usable_bytes) +
                                  " usable per tile");
    best.rows_per_tile = s;
    best.cost = evaluate_vector(a, op, s);
    best.search.candidates = best.search.evaluated = 1;
  } else {
    if (s_max < 1)
      throw ConfigError(path, "does not fit in SRAM: one row of width " + std::to_string(op.width) +
                                  " needs " + bytes_mib(vector_sram_bytes(a, op, 1)) + " > " +
                                  bytes_mib(a.sram_usable_bytes) + " usable per tile");
    best.search.candidates = full;
    best.search.pruned_sram = std::max<i64>(0, full - s_max);
    bool found = false;
    // Every s while there are at most kMaxTileCandidates x 8 of them, else a ladder.
    const i64 fitting = std::min(full, s_max);
    const auto sizes = tile_candidates(fitting, 1, kMaxTileCandidates * 8);
    best.search.skipped = static_cast<double>(fitting) - static_cast<double>(sizes.size());
    best.search.candidates -= static_cast<i64>(best.search.skipped);
    for (const i64 s : sizes) {
      ++best.search.evaluated;
      const OpCost c = evaluate_vector(a, op, s);
      if (!found || c.latency < best.cost.latency * (1 - 1e-12) ||
          (c.latency <= best.cost.latency * (1 + 1e-12) && c.dram_bytes < best.cost.dram_bytes)) {
        found = true;
        best.rows_per_tile = s;
        best.cost = c;
      }
    }
  }
  return best;
}

OpMapping describe(const VectorOp &op, const VectorMapping &m) {
  OpMapping o;
  o.type = "vector";
  o.shape = "R " + std::to_string(op.rows) + " H " + std::to_string(op.width) +
            (op.inputs > 1 ? " x" + std::to_string(op.inputs) + " in" : std::string());
  o.dims = {{"rows", op.rows}, {"width", op.width}, {"inputs", op.inputs}};
  o.variant = std::string(op.in_sram ? "in-SRAM " : "") + (op.out_sram ? "out-SRAM" : "");
  o.tile = {{"rows_per_tile", m.rows_per_tile}};
  o.tiling = "s " + std::to_string(m.rows_per_tile) + " rows/tile" +
             (o.variant.empty() ? std::string() : " " + o.variant);
  o.cost = m.cost;
  o.search = m.search;
  return o;
}

} // namespace rl::tx8
