// ridgeline model: LoRA adapters (Hu et al. 2021, arXiv 2106.09685) and QLoRA's NF4 base
// (Dettmers et al. 2023, arXiv 2305.14314): adapter parameter counts and the frozen base's
// bytes (docs/formulas.md "Fine-tuning").
#pragma once

#include "core/config.hpp"
#include "core/model/params.hpp"

namespace rl {

// NF4 with double quantisation (QLoRA sec. 3): 4-bit values, an 8-bit absmax per block of 64
// and an fp32 constant per 256 of those: 4 + 8/64 + 32/(64 x 256) = 4.127 bits a weight.
constexpr double kNf4Bits = 4 + 8.0 / 64 + 32.0 / (64 * 256);

// Bytes a frozen base weight is stored in: bf16 2, fp8 1, nf4 4.127/8.
double base_weight_bytes(BaseDtype d);

// One LoRA adapter beside a weight of in x out: A (in x r) and B (r x out), r (in + out).
double lora_adapter_params(double in, double out, i64 rank);

// Adapter parameters of one layer by part (HF PEFT's per-module adapters: Q, K and V each
// their own), whole layer, no parallel split: the attention's (qkv and o targets), the dense
// MLP's or the shared experts' (mlp), and the routed experts' (mlp: every one of E, and the
// top_k a token passes).
struct LoraLayer {
  double attention = 0, mlp = 0, experts = 0, experts_active = 0;
  double total() const { return attention + mlp + experts; }
  double active() const { return attention + mlp + experts_active; }
};
LoraLayer lora_layer(const ModelSpec &m, bool moe, const FinetuneSpec &f);

// The whole model's adapters (a LoRA's trainable parameters) and those one token passes.
struct LoraCount {
  double total = 0, active = 0;
};
LoraCount lora_params(const ModelSpec &m, const FinetuneSpec &f);

// Weights a fine-tune trains: every parameter (full) or the adapters.
double trainable_params(const ModelSpec &m, const ModelParams &mp,
                        const std::optional<FinetuneSpec> &f);

} // namespace rl
