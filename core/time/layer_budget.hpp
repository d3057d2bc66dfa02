// One layer's forward + backward by component, as the step-time model times it before the
// compute overhead: the budget a kernel profile of one layer measures
// (tools/measure/layer_profile.py), and what `calibrate` compares it with.
#pragma once

#include "core/config.hpp"
#include "core/time/step_time.hpp"

#include <vector>

namespace rl {

struct LayerBudget {
  double gemm = 0;        // the linear layers' GEMMs (and MLA's, the router's)
  double attention = 0;   // FlashAttention, or the unfused scores, softmax and weighted sum
  double elementwise = 0; // norms, rotary, activation, residual adds, dropout, MoE routing
  double quantize = 0;    // FP8/FP4 casts and amax passes
  double total() const { return gemm + attention + elementwise + quantize; }
};

// Sums one layer's operators (layer_ops), each forward plus its backward (the operator's own
// when it has one, else twice the forward: docs/formulas.md "Step time").
LayerBudget layer_budget(const std::vector<OpCost> &ops);

// A Llama-style decoder layer alone on one device: RMSNorm, rotary, GQA with FlashAttention
// (causal, its masked half skipped), SwiGLU MLP, no biases, no dropout; the shape
// tools/measure/layer_profile.py times.
LayerBudget llama_layer_budget(const HardwareSpec &hw, i64 hidden, i64 heads, i64 kv_heads, i64 ffn,
                               i64 seq, i64 micro_batch, Dtype dtype);

} // namespace rl
