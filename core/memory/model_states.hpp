// ridgeline memory: weights, gradients and optimizer states per device (docs/formulas.md
// "Model states"): bf16 weights 2 B, bf16 grads 2 B (fp32 4 B), Adam fp32 master+m+v 12 B;
// ZeRO-1 shards the optimizer over the data-parallel group, ZeRO-2 also the gradients,
// ZeRO-3/FSDP also the weights (plus the gathered weights of the layers in use).
#pragma once

#include "core/config.hpp"
#include "core/model/params.hpp"
#include "core/parallel/layout.hpp"

namespace rl {

// Parameters one device of pipeline stage j holds, split into the part every data-parallel
// rank replicates (dense) and the routed experts (replicated only over dp*cp/ep ranks).
struct StageParams {
  double dense = 0;
  double experts = 0;
  double largest_layer = 0; // one layer's parameters on this device (ZeRO-3 gather unit)
  double total() const { return dense + experts; }
};

// One layer's parameters on one device under TP t and EP e (Megatron placement: column-
// parallel weights and biases split, row-parallel biases and norms replicated, KV heads
// replicated when t > k, routed experts divided by e and each split by moe_tp; moe_tp 0: t).
StageParams layer_params_per_device(const ModelSpec &m, bool moe, i64 tp, i64 ep, i64 moe_tp = 0);
// The same from the layer's counts (model_params(m).dense_layer or .moe_layer).
StageParams layer_params_per_device(const ModelSpec &m, const LayerParams &lp, bool moe, i64 tp,
                                    i64 ep, i64 moe_tp = 0);
StageParams stage_params(const ModelSpec &m, const Layout &l, i64 stage);
// The same from the stage's dense and MoE layer counts (stage_layer_mix) and the model's
// counts (model_params), for callers that evaluate many layouts.
StageParams stage_params(const ModelSpec &m, const ModelParams &mp, const Layout &l, i64 stage,
                         const StageLayerCount &n);

struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};

// Bytes per parameter (docs/formulas.md).
constexpr double kWeightBytes = 2, kGradBytes = 2, kGradBytesFp32 = 4, kAdamBytes = 12;
// Adam with its moments in BF16 (workload.bf16_moments): the fp32 master 4 + m 2 + v 2.
constexpr double kAdamBytesBf16Moments = 8;
double dtype_bytes(Dtype d);

// Bytes per parameter of the weight copy the GEMMs read and of the gradients, by recipe: bf16
// weights, or FP8 ones (Megatron-LM --fp8-param-gather, NeMo fp8_params: Transformer Engine
// keeps the module weights in the GEMMs' FP8, the fp32 master copy stays in the optimizer);
// bf16 gradients, or fp32 (--accumulate-allreduce-grads-in-fp32); Adam's state, its moments in
// fp32 or BF16 (workload.bf16_moments). The data-parallel parameter all-gather and gradient
// reduction move the first two widths too.
struct StateWidths {
  double weights = kWeightBytes, grads = kGradBytes, optimizer = kAdamBytes;
};
StateWidths state_widths(const WorkloadSpec &w);

// Training states on one device: ZeRO over dp*cp ranks (dense) and dp*cp/ep (experts).
// ZeRO-3 adds the gathered weights of `prefetch_layers` layers in use.
ModelStateBytes training_states(const StageParams &p, const Layout &l, const StateWidths &b,
                                double prefetch_layers = 2);

// The LoRA adapters one device of a stage holds (core/model/lora), split as their base weights
// are: the attention's and the dense MLP's (or shared experts') by tp, the routed experts' by ep
// and moe_tp.
StageParams lora_stage_params(const ModelSpec &m, const Layout &l, const StageLayerCount &n,
                              const FinetuneSpec &f);
// The linear layers' weights one device of a stage holds (its layers' parameters less their
// norms): what a frozen base stores at base_weight_bytes.
double stage_linear_params(const ModelSpec &m, const ModelParams &mp, const Layout &l,
                           const StageLayerCount &n);

// Training states on one device of a stage: full training's (training_states), or with
// adapters (workload.finetune lora, qlora) the frozen base (its linear weights at the base
// dtype's bytes, the rest bf16; sharded by ZeRO-3 as weights are) beside the adapters' weights,
// gradients and Adam states; with parallel.offload_optimizer no optimizer state on the device.
ModelStateBytes stage_training_states(const Config &c, const ModelParams &mp, const Layout &l,
                                      const StageParams &p, const StageLayerCount &n);

} // namespace rl
