// ridgeline tx8: the vector mapper (docs/formulas.md (tx8) "vector mapper"). Rows R of width H,
// kappa ops per element (+ ops per row), `inputs` input tensors of R x H, `params` parameter
// vectors of H. Rows are cut into chunks of s per tile, in waves of T tiles (the last wave spread
// evenly, and first). Per wave: compute kappa*s*H/F_v; load L_d + rows*H*e*inputs/B_d;
// store L_d + rows*H*e/B_d. SRAM: 2*(in + out) + params <= C. "Input already in SRAM" /
// "output stays in SRAM" drop the load / store (fusion). Every s is tried.
#pragma once

#include "core/config.hpp"
#include "core/tx8/mapping.hpp"

#include <optional>
#include <string>

namespace rl::tx8 {

struct VectorOp {
  i64 rows = 0, width = 0, inputs = 1, params = 0;
  double ops_per_element = 1, ops_per_row = 0;
  bool in_sram = false, out_sram = false;
};

// Common kappas (docs/formulas.md (tx8)): add 1, modulate 2, SiLU exp + 2, RMSNorm 4 + one rsqrt
// per row.
VectorOp vector_add(i64 rows, i64 width, i64 inputs);
VectorOp vector_modulate(i64 rows, i64 width);
VectorOp vector_gate_residual(i64 rows, i64 width);
VectorOp vector_rmsnorm(const Tx8Spec &a, i64 rows, i64 width);
VectorOp vector_silu(const Tx8Spec &a, i64 rows, i64 width);

// docs/formulas.md (tx8): 2*(in + out) + params, for s rows per tile.
double vector_sram_bytes(const Tx8Spec &a, const VectorOp &op, i64 s);
// The most rows per tile that fit the usable SRAM (0 when not even one row fits).
i64 vector_max_rows(const Tx8Spec &a, const VectorOp &op);
OpCost evaluate_vector(const Tx8Spec &a, const VectorOp &op, i64 s);

struct VectorMapping {
  i64 rows_per_tile = 0;
  OpCost cost;
  SearchStats search;
};
// Fixed `rows_per_tile` or a search over every s; ConfigError at `path` with the numbers
// when a chunk does not fit SRAM.
VectorMapping map_vector(const Tx8Spec &a, const VectorOp &op, std::optional<i64> rows_per_tile,
                         const std::string &path);

OpMapping describe(const VectorOp &op, const VectorMapping &m);

} // namespace rl::tx8
