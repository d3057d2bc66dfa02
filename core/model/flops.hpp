// ridgeline model: matmul FLOPs (docs/formulas.md "FLOPs"; Narayanan et al. 2021).
// 2*m*n*k per GEMM; element-wise ops are not counted.
#pragma once

#include "core/config.hpp"

namespace rl {

// Forward FLOPs of one layer for `tokens` = b*s tokens of sequence length s.
struct LayerFlops {
  double qkv = 0;    // Q, K, V projections (MLA: its down/up projections)
  double scores = 0; // QK^T and attention x V
  double out = 0;    // output projection
  double mlp = 0;    // dense MLP or the top_k routed + shared experts a token visits
  double router = 0; // MoE gate
  double total() const { return qkv + scores + out + mlp + router; }
};

struct ModelFlops {
  LayerFlops dense_layer;
  LayerFlops moe_layer;
  i64 dense_layers = 0;
  i64 moe_layers = 0;
  double head = 0; // LM head 2*b*s*h*v
  double layers_forward() const {
    return dense_layers * dense_layer.total() + moe_layers * moe_layer.total();
  }
  double scores_forward() const {
    return dense_layers * dense_layer.scores + moe_layers * moe_layer.scores;
  }
  double forward() const { return layers_forward() + head; }
};

// docs/formulas.md: per layer, b sequences of length s. causal_skip halves the score GEMMs.
LayerFlops layer_forward_flops(const ModelSpec &m, bool moe, double b, double s, bool causal_skip);
ModelFlops model_forward_flops(const ModelSpec &m, double b, double s, bool causal_skip);

// Training: backward = 2 x forward, step = 3 x forward (Narayanan et al. 2021); recompute adds one
// more forward of every layer (full) or of the attention-score GEMMs (selective).
double training_model_flops(const ModelFlops &f);
double training_hardware_flops(const ModelFlops &f, Recompute r);
// The forward FLOPs recompute reruns: every layer's (full) or the attention scores' (selective).
double recompute_flops(const ModelFlops &f, Recompute r);
// Fine-tuning over a frozen base with adapters (LoRA, QLoRA): the frozen weights' backward
// computes input gradients only (no weight gradient: one forward's worth), the attention core's
// backward twice its forward, the adapters' forward `adapter_forward` and their backward twice
// it: 2F + scores + 3 x adapter_forward, about 2/3 of full training's 3F (Hu et al. 2021).
double adapter_training_flops(const ModelFlops &f, double adapter_forward);

} // namespace rl
