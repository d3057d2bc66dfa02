// ridgeline time: the thresholds How to Scale Your Model derives from rooflines (ch.1, ch.5-6), as
// functions of the hardware so that they follow any preset.
#pragma once

#include "core/config.hpp"

namespace rl {

// How to Scale Your Model ch. 1: a bf16 matmul with weights streamed from HBM is compute-bound when
// the batch (tokens) exceeds peak FLOP/s / HBM bytes/s (v5e: 1.97e14 / 8.2e11 = 240).
double critical_batch_tokens(double peak_flops, double hbm_bw);

// How to Scale Your Model ch. 5: data parallelism / FSDP over `axes` ICI axes stays compute-bound
// while the tokens per chip exceed peak / (W_bidir * axes) (v5p: 4.59e14 / 1.8e11 = 2550).
double fsdp_min_tokens_per_chip(double peak_flops, double link_bidir_bw, double axes);

// How to Scale Your Model ch. 5: Y-way tensor parallelism of an MLP of width F stays compute-bound
// while Y < F / (peak / W_bidir).
double tp_max_degree(double ffn, double peak_flops, double link_bidir_bw);

// How to Scale Your Model ch. 5: with mixed FSDP x TP on N chips, the FSDP degree that balances the
// two communications is sqrt(2 B N / F) for a batch of B tokens.
double optimal_fsdp_degree(double batch_tokens, double chips, double ffn);

// How to Scale Your Model ch. 6: wall-clock time of `flops` on `chips` at a model FLOPs
// utilisation.
double training_seconds(double flops, double chips, double peak_flops, double mfu);

} // namespace rl
