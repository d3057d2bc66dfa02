// ridgeline tx8: the GEMM mapper (docs/formulas.md (tx8) "GEMM mapper"): a ring GEMM as the chip
// does it. C[M x N] = A[M x K] * B[K x N]. Input-stationary: each of the T tiles holds an A block
// of Tm rows x Tk; each round loads T B shards of Tk x Tn and rotates them T-1 times, one hop each,
// so a round computes a (T*Tm) x (T*Tn) block for one K chunk. Weight-stationary is the same model
// on N x K x M. Loop order: M blocks, K chunks, N blocks (A read once; B once per M block; partial
// sums spill to DRAM in fp32 when K is split).
#pragma once

#include "core/config.hpp"
#include "core/tx8/mapping.hpp"

#include <optional>
#include <string>

namespace rl::tx8 {

enum class Stationary { input, weight };
const char *name_of(Stationary s);

struct GemmOp {
  i64 m = 0, k = 0, n = 0;
  bool silu = false;    // epilogue fused on the last K chunk (LLMPerf-for-TiledArch: FFN up & SiLU)
  bool in_sram = false; // the activation A is already in SRAM: no load
  bool out_sram = false; // the output stays in SRAM: no store
};

// Tm, Tn, Tk in the op's own terms (Tm along M, Tn along N).
struct GemmTiling {
  Stationary stationary = Stationary::input;
  i64 tm = 0, tn = 0, tk = 0;
};

// docs/formulas.md (tx8): SiLU ~ exp + 2 vector ops per output element.
double silu_ops(const Tx8Spec &a);
// docs/formulas.md (tx8) "2-3-2": 2*Tm*Tk*e + 3*Tk*Tn*e + 2*Tm*Tn*e_out (+ Tm*Tn*e_a when K is
// split), with the stationary block Tm x Tk (weight-stationary: Tn x Tk), on the tiles' real sizes.
double gemm_sram_bytes(const Tx8Spec &a, const GemmOp &op, const GemmTiling &t);
// The cost of one tiling (no SRAM check).
OpCost evaluate_gemm(const Tx8Spec &a, const GemmOp &op, const GemmTiling &t);

// What the search may choose; a set field is fixed (the reference presets fix Tm and Tn).
struct GemmChoice {
  std::optional<Stationary> stationary;
  std::optional<i64> tm, tn, tk;
  bool prune = true; // false: evaluate every candidate (brute force, for tests)
  SearchBudget budget;
};

struct GemmMapping {
  GemmTiling tiling;
  OpCost cost;
  SearchStats search;
};

// Every legal tiling (stationarity x Tm x Tn x Tk, rounded-up tiles with remainders),
// pruned by SRAM and by a DRAM/compute lower bound; the lowest latency wins, ties go to
// fewer DRAM bytes. ConfigError at `path` with the numbers when nothing fits SRAM.
GemmMapping map_gemm(const Tx8Spec &a, const GemmOp &op, const GemmChoice &choice,
                     const std::string &path);

OpMapping describe(const GemmOp &op, const GemmMapping &m);

} // namespace rl::tx8
