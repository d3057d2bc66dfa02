// ridgeline tx8: the flash-attention mapper (docs/formulas.md (tx8) "flash-attention mapper").
// groups = batch x heads independent attentions of S_q queries over S_kv keys, head dim d; h_f
// heads fused per tile; blocks Tx (Q) and Ty (KV) per tile. Four loop orders:
//   a          Q stays, K/V shards rotate around the ring (FlashAttention-2 movement)
//   b          K/V stay, Q/O/statistics re-streamed (FlashAttention-1, LLMPerf-for-TiledArch's
//   "outer
//              loop over K/V")
//   broadcast  the whole K/V of a head group goes to every tile once (cross attention to
//              300 text tokens), Q blocks stay local
//   packed     whole short sequences per tile, p of them packed block-diagonally into one
//              matmul (temporal attention over ~30 frames)
// Per block: GEMM 4*Tx*Ty*d*h_f/(F_g*eta); vector h_f*((4 + exp)*Tx*Ty + Tx*d + Tx)/F_v;
// compute = GEMM + vector unless the units overlap.
#pragma once

#include "core/config.hpp"
#include "core/tx8/mapping.hpp"

#include <optional>
#include <string>

namespace rl::tx8 {

enum class LoopOrder { a, b, broadcast, packed };
const char *name_of(LoopOrder o);
std::optional<LoopOrder> loop_order_of(const std::string &s); // "" -> nullopt

struct FlashOp {
  i64 groups = 1, seq_q = 0, seq_kv = 0, head_dim = 0;
  bool in_sram = false;  // Q already in SRAM (first pass)
  bool out_sram = false; // O stays in SRAM
};

struct FlashTiling {
  LoopOrder order = LoopOrder::a;
  i64 tx = 0, ty = 0;  // per-tile Q and KV block rows (broadcast: ty = S_kv; packed: whole)
  i64 heads_fused = 1; // h_f (packed: packs of `pack` sequences per tile)
  i64 pack = 1;        // packed: sequences per matmul
};

// docs/formulas.md (tx8): GEMM time of one block step, 4*Tx*Ty*d*h_f/(F_g*eta).
double flash_block_gemm_s(const Tx8Spec &a, i64 tx, i64 ty, i64 d, i64 hf);
// docs/formulas.md (tx8): vector time of one block step, h_f*((4 + exp)*Tx*Ty + Tx*d + Tx)/F_v.
double flash_block_vector_s(const Tx8Spec &a, i64 tx, i64 ty, i64 d, i64 hf);
// docs/formulas.md (tx8): DRAM bytes, order A: S_q*d*h*(e + e_out) + 2*S_kv*d*h*e*ceil(S_q/(T*Tx)).
double flash_bytes_order_a(const Tx8Spec &a, const FlashOp &op, i64 tx);
// docs/formulas.md (tx8): order B: 2*S_kv*d*h*e + S_q*d*h*e*n_kv + (2*S_q*d*h*e_a + 16*S_q*h)*(n_kv
// - 1)
// + S_q*d*h*e_out, n_kv = ceil(S_kv/(T*Ty)) (16 = two fp32 statistics written and read).
double flash_bytes_order_b(const Tx8Spec &a, const FlashOp &op, i64 ty);

double flash_sram_bytes(const Tx8Spec &a, const FlashOp &op, const FlashTiling &t);
OpCost evaluate_flash(const Tx8Spec &a, const FlashOp &op, const FlashTiling &t);

struct FlashChoice {
  std::optional<LoopOrder> order;
  std::optional<i64> tx, ty, heads_fused;
  bool prune = true;
  SearchBudget budget;
};

struct FlashMapping {
  FlashTiling tiling;
  OpCost cost;
  SearchStats search;
};

// Every loop order x Tx x Ty x h_f (x pack), rounded-up blocks; lowest latency, ties to
// fewer DRAM bytes. ConfigError at `path` with the numbers when nothing fits SRAM.
FlashMapping map_flash(const Tx8Spec &a, const FlashOp &op, const FlashChoice &choice,
                       const std::string &path);

OpMapping describe(const FlashOp &op, const FlashMapping &m);

} // namespace rl::tx8
