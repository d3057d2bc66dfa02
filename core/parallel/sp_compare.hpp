// ridgeline parallel: the DSP paper's (Zhao et al. 2024) "Comparison of Different Parallelism in
// Training" table (DS-SP, Ring-SP, DP, ZeRO1, USP+ZeRO1/2/3, TP, Megatron-SP), computed for one
// model, micro-batch, sequence and degree N from the same functions as `estimate`.
#pragma once

#include "core/config.hpp"

#include <string>
#include <vector>

namespace rl {

struct SpRow {
  std::string name;
  std::string split;      // the DSP paper's split-dimension label
  std::string param_comm; // collective on parameters/gradients per step
  double param_bytes = 0; // bytes per device per step
  std::string act_comm;   // collective on activations per layer
  double act_bytes = 0;   // bytes per device per layer, forward + backward
  double pg_bytes = 0;    // bf16 weights + gradients per device
  double os_bytes = 0;    // Adam states per device
  double act_mem = 0;     // activation bytes per device per layer
};

struct SpComparison {
  i64 degree = 1, ulysses = 1, ring = 1; // USP split
  double b = 1, s = 1;
  double params = 0; // whole model
  std::vector<SpRow> rows;
};

// N = parallel.cp if > 1, else parallel.tp if > 1, else 8; b = parallel.microbatch (1),
// s = seq_len.
SpComparison compare_sp(const Config &c);
SpComparison compare_sp(const ModelSpec &m, double b, double s, i64 n);

} // namespace rl
