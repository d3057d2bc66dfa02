// ridgeline time: a fine-tune's operators over a frozen base (workload.finetune lora, qlora;
// docs/formulas.md "Fine-tuning").
#pragma once

#include "core/config.hpp"
#include "core/time/step_time.hpp"

#include <vector>

namespace rl {

// Rewrites one layer's forward operators (layer_ops) for a fine-tune with adapters:
// - a frozen GEMM's backward computes the input gradient only: its forward's time once;
// - each targeted GEMM gains its adapter's two thin bf16 GEMMs, x A (k -> r per adapted
//   matrix) and (x A) B (r -> n), whose backward is twice their forward (HF PEFT's LoRA layers);
// - a base stored below the GEMMs' operand width (NF4; FP8 under bf16 GEMMs) is dequantised to
//   bf16 before every GEMM that reads it, forward and backward: its packed bytes read and two
//   bytes a weight written (bitsandbytes Linear4bit, torchao NF4Tensor).
void adapt_for_finetune(std::vector<OpCost> &ops, const ModelSpec &m, const FinetuneSpec &f,
                        const HardwareSpec &hw, Dtype precision);

// The name of the dequantisation operator it adds.
inline constexpr const char *kDequantizeOp = "dequantize base";

} // namespace rl
