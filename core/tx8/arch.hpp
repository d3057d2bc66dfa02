// ridgeline tx8: the die's figures as the mappers use them, and the closed forms docs/formulas.md
// (tx8) derives from them. Units: bytes, seconds, FLOP/s, op/s. Scope: GEMM, vector and SRAM per
// tile; DRAM bandwidth per die, shared by its tiles; NoC bandwidth per link, one direction
// (docs/formulas.md "tx8 accelerator"). SRAM is 3 MiB = 3,145,728 B per tile (the
// LLMPerf-for-TiledArch's "3 MB" is MiB); the mappers fit tilings into sram_usable_bytes (3,014,656
// B).
#pragma once

#include "core/config.hpp"

#include <string>

namespace rl::tx8 {

// The tx8 figures of a hardware spec; ConfigError at `path` when it has none.
const Tx8Spec &arch_of(const HardwareSpec &h, const std::string &path);

// Integer helpers: ceil(a / b) and a rounded up to a multiple of g.
i64 ceil_div(i64 a, i64 b);
i64 round_up(i64 a, i64 g);

// docs/formulas.md (tx8): DMA = L_d + bytes/B_d (B_d shared by the tiles moving data at once); 0 B:
// no DMA.
double dma_s(const Tx8Spec &a, double bytes);
// docs/formulas.md (tx8): NoC = hops*L_h + bytes/B_n.
double noc_s(const Tx8Spec &a, double bytes, i64 hops);
// docs/formulas.md (tx8): GEMM time of a Tm x Tk x Tn block = 2*Tm*Tk*Tn/(F_g*eta) with eta = dims
// / dims rounded up to the array granule, i.e. 2 * the padded dims / F_g.
double gemm_block_s(const Tx8Spec &a, i64 tm, i64 tk, i64 tn);
// docs/formulas.md (tx8): engine efficiency eta of a block.
double gemm_efficiency(const Tx8Spec &a, i64 tm, i64 tk, i64 tn);

// Die peaks: T tiles x per-tile figures.
double die_gemm_flops(const Tx8Spec &a);
double die_vector_ops(const Tx8Spec &a);
// docs/formulas.md (tx8): FLOP per DRAM byte needed to be compute-bound: T*F_g/B_d (1280 on tx8).
double ridge_flop_per_byte(const Tx8Spec &a);
// docs/formulas.md (tx8): ring-GEMM NoC hidden when Tm >= e*F_g/(2*B_n) (62.5).
double gemm_noc_hidden_tm(const Tx8Spec &a);
// docs/formulas.md (tx8): weight stream hidden when Tm >= e*F_g/(2*B_d) (80).
double gemm_weight_hidden_tm(const Tx8Spec &a);
// docs/formulas.md (tx8): output writes hidden when K >= T*e*F_g/(2*B_d) (1280).
double gemm_output_hidden_k(const Tx8Spec &a);
// docs/formulas.md (tx8): flash attention vector / GEMM time per block = (4 + exp)*F_g/(4*d*F_v)
// (160/d).
double attention_vector_gemm_ratio(const Tx8Spec &a, i64 head_dim);

// "3,014,656 B (2.88 MiB)" for error messages.
std::string bytes_mib(double bytes);

} // namespace rl::tx8
