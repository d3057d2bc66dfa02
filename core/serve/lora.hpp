// ridgeline serve: many LoRA adapters on one base model (workload.lora; Hu et al. 2021 LoRA,
// S-LoRA (Sheng et al. 2024) and Punica (Chen et al. 2024) serving): an adapter of rank r
// beside each linear layer of attention (q, k, v, o) and of a dense MLP (gate, up, down;
// an MoE layer's experts keep none, as vLLM's LoRA layers cover them only for some models),
// in bf16. Its weights per layer are r x (in + out) per adapted matrix.
#pragma once

#include "core/config.hpp"

namespace rl {

// Sum over one layer's adapted matrices of (in + out): an adapter's parameters per unit of
// rank (a dense layer: attention and MLP; an MoE layer: attention).
double lora_layer_width(const ModelSpec &m, bool moe_layer);

// Bytes of one adapter of rank r over the whole model, in bf16.
double lora_adapter_bytes(const ModelSpec &m, i64 rank);

// Adapter probabilities: Zipf with exponent s over n adapters (s = 0: uniform), as S-LoRA's
// evaluation draws them; the cumulative distribution, for a draw by bisection.
std::vector<double> lora_popularity(i64 n, double s);

} // namespace rl
