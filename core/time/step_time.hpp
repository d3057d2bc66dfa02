// ridgeline time: training step time (docs/formulas.md "Step time"): per-GEMM rooflines with the
// chip's calibrated GEMM efficiency, element-wise traffic at HBM bandwidth, collectives on
// the critical path unless overlapped, pipeline bubble, DP sync and the optimizer step.
#pragma once

#include "core/comm/collective.hpp"
#include "core/config.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/parallel/layout.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rl {

// What an operator is, for the overlap rules: Megatron's column-parallel GEMMs (QKV, MLP up)
// overlap their backward TP collectives; the attention core is what selective recompute
// reruns and what ring CP hides behind.
enum class OpKind { column, row, attention, memory, other };

// One operator of one layer, forward, one micro-batch, one device (the roofline's points).
struct OpCost {
  std::string name;
  OpKind kind = OpKind::other;
  double flops = 0;
  double bytes = 0; // HBM traffic
  double time = 0;  // max(flops / (peak * eff), bytes / hbm_bw)
  double bwd = -1;  // its backward's time (< 0: twice the forward's, as for a GEMM)
  // A GEMM's shape, count x [m x k] x [k x n] (0: not a GEMM): its weight is k x n x count.
  double m = 0, k = 0, n = 0, count = 0;
  double backward() const { return bwd >= 0 ? bwd : 2 * time; }
};

// The name of the FP8/FP4 quantisation operator layer_ops adds under a training recipe.
inline constexpr const char *kQuantizeOp = "quantize";

// Roofline of one GEMM [m x k] x [k x n], `count` of them (batched), bf16 operands.
OpCost gemm_cost(const std::string &name, double m, double k, double n, double count, double peak,
                 double eff, double hbm_bw, double elem_bytes = 2);

// Gradient bucket in parameters; the last bucket's reduction cannot overlap the backward.
// Megatron-Core DDP: max(40M, 1M x data-parallel size) (distributed_data_parallel.py);
// DeepSpeed ZeRO-2: reduce_bucket_size, 5e8 elements (deepspeed/runtime/zero/config.py).
double ddp_bucket_params(i64 zero, i64 dp);

// Whether the attention kernel skips the masked half of a causal score matrix: with
// FlashAttention (blocks above the diagonal are never computed) when workload.causal_skip.
bool skips_causal_half(bool causal_skip, const Layout &l);

// The forward operators of one layer on one device for one micro-batch. GEMMs run at their
// shape's efficiency (gemm_efficiency.hpp); under FP8 (FP4) the linear layers' GEMMs run at the
// FP8 (FP4) peak and the attention core, router and head in bf16 (Transformer Engine's defaults).
// `imbalance`: tokens on the busiest expert-parallel rank over the mean (MoE layers).
// `recipe` (training): the FP8/FP4 recipe whose quantisation kernels run around the linear
// layers (core/time/quantize), one "quantize" operator with its own backward; none (inference:
// the engines' measured GEMMs carry their activation quantisation) adds nothing.
std::vector<OpCost> layer_ops(const ModelSpec &m, bool moe, const Layout &l, double s,
                              const HardwareSpec &hw, Dtype precision, bool causal_skip,
                              double imbalance = 1, std::optional<Fp8Recipe> recipe = std::nullopt);

// The effective MoE load imbalance: workload.moe_imbalance, capped by the capacity factor.
double moe_load_factor(const WorkloadSpec &w);

// Element-wise HBM bytes of one layer's forward on one device for `tok` tokens (norms,
// residual adds, activation function, rotary, dropout; bf16), the h-wide part split by
// `sp_split` (Megatron-SP: tp; else 1). Shared by training and serving.
double elementwise_bytes(const ModelSpec &m, bool moe, double tok, i64 tp, double sp_split);
// Of which the MLP's (or the experts') activation function: it reads the gate (and up) output
// and writes one f-wide tensor, bf16, per token and TP rank.
double activation_function_bytes(const ModelSpec &m, bool moe, double tok, i64 tp);

// One MoE layer's routed experts on one device (tp 1, ep 1) for `tokens` tokens: the
// operators layer_ops times for them (the grouped up and down GEMMs, the routing kernels) and
// the activation function's bytes; no compute_overhead. What `ridgeline validate` checks
// against measured MoE layers (docs/calibration.md "MoE experts").
double moe_experts_time(const HardwareSpec &hw, Dtype precision, i64 hidden, i64 expert_ffn,
                        i64 experts, i64 top_k, double tokens);

// Communication of one kind over a whole step, per device.
struct CommCost {
  std::string kind; // tp, sp, ulysses, ring_cp, ep, etp (expert TP gather), pp, dp, zero3
  std::string collective;
  i64 group = 1;
  double bytes_per_device = 0;
  double time = 0;    // if nothing overlapped
  double exposed = 0; // on the critical path
};

// Compute time by component, forward + backward: the GEMMs (the output layer's among them),
// the attention core, and the memory-bound kernels (norms, activation function, residuals,
// rotary, routing, the cross-entropy, FP8/FP4 quantisation), before hardware.compute_overhead
// (which multiplies their sum); and the computation's time lost to the SMs overlapped
// collectives hold (comm_sms: wall time under them, not multiplied).
struct ComputeParts {
  double gemm = 0, attention = 0, memory = 0, comm_sms = 0;
  double total() const { return gemm + attention + memory + comm_sms; }
};

struct StepTime {
  double t_fwd = 0, t_bwd = 0; // one micro-batch on the slowest stage (compute + exposed comm)
  double compute = 0;          // per step, slowest stage, including recompute
  double recompute = 0;        // of which recompute
  double comm_exposed = 0;
  double sync_sms = 0; // of compute: the SMs the hidden DP sync holds (parts.comm_sms)
  double host = 0;     // per step, slowest stage: the GPU waiting for the host (moe_host_time)
  double bubble = 0;
  double optimizer = 0;
  double step = 0;
  i64 slowest_stage = 0;
  std::vector<CommCost> comm;
  std::vector<OpCost> ops; // one dense layer's forward operators
  double peak = 0;         // FLOP/s per device at the workload's precision
  // The slowest stage's compute without recompute, by component: compute - recompute =
  // parts.total() x (1 + compute_overhead).
  ComputeParts parts;
};

// Dense peak at a precision: FP8/MXFP8 at peak.fp8 (bf16 when absent), FP4 at peak.fp4.
double peak_flops(const HardwareSpec &hw, Dtype precision);
// Whether the chip has the peak a precision's GEMMs run at (FP4 needs peak.fp4; the others
// fall back to bf16).
bool has_precision_peak(const HardwareSpec &hw, Dtype precision);
// ConfigError on workload.precision when its GEMMs need a peak the chip lacks (FP4).
void check_precision_peak(const HardwareSpec &hw, Dtype precision);
// Bytes per GEMM operand element: FP8 and FP4 formats at dtype_bytes (block scales
// included), the rest as bf16 (2 B).
double gemm_operand_bytes(Dtype d);

// One layer type's costs on one device for one micro-batch (training): the pieces a step is
// assembled from, computed once per layer type (and reused by the planner across the
// layouts that share them: same tp, sp, cp split, ep, micro-batch, recompute, FlashAttention,
// TP overlap, group placement and, under ZeRO-3, dp).
struct LayerTimes {
  double f = 0; // forward compute (with hardware.compute_overhead and parts.comm_sms' share)
  double b = 0; // backward compute (the same), without recompute
  double attention = 0; // of which the attention core
  double column = 0;    // of which the column-parallel GEMMs (QKV, MLP/expert up)
  double w = 0;         // of b, the weight gradients (the GEMMs' backward beyond their input
                        // gradients): what DualPipe's zero-bubble steps defer
  double r = 0;         // recompute (backward)
  double fwd = 0;       // exposed communication, forward (TP/SP, Ulysses, ring CP, EP, ZeRO-3)
  double bwd = 0;       // exposed communication, backward
  double host = 0;      // the GPU idle for the host: moe_host_time beyond the layer's pass
  ComputeParts parts;   // f + b by component, before the overhead
};

// The SMs a collective's kernels hold while it overlaps computation (NCCL's CTAs,
// cluster.collective_sms, or Transformer Engine's userbuffers' kUserbufferSms) as a share of
// the chip's: the computation under it runs on the rest, so `hidden` seconds of overlap cost
// it `hidden x share` (the SM-time the collective held). 0 where sm_count is unknown.
double overlap_sm_share(const HardwareSpec &hw, double sms);
// Transformer Engine's userbuffers (--tp-comm-overlap): its pipelined and bulk overlaps run
// their communication on 16 SMs and launch the GEMM on the rest (num_sm 16, set_sm_margin;
// transformer_engine/pytorch/module/base.py initialize_ub); its ring exchange uses the copy
// engines (use_ce) and no SMs.
inline constexpr double kUserbufferSms = 16;
// bf16: the layer kept in BF16 under an FP8/FP4 precision (workload.bf16_first_layers).
LayerTimes layer_times(const Config &c, const Layout &l, bool moe, bool bf16 = false);
// Every layer type's times: dense and MoE, and the same kept in BF16 (computed only where the
// configuration has such layers).
struct LayerSet {
  LayerTimes dense, moe, dense_bf16, moe_bf16;
};
LayerSet layer_set(const Config &c, const Layout &l);
// A per-layer quantity summed over a stage's layers of each type.
double over_layers(const StageLayerCount &n, const LayerSet &t, double (*of)(const LayerTimes &));

// The parameters one device of a stage trains (and synchronises, and updates): its weights, or
// a fine-tune's adapters (workload.finetune lora, qlora).
StageParams trained_stage_params(const Config &c, const ModelParams &mp, const Layout &l, i64 stage,
                                 const StageLayerCount &n);

// The step from its layer types and the stages' layer mix (stage_layer_mix with the
// workload's bf16_layers): slowest stage, bubble, DP sync, optimizer. Numbers only (no ops, no
// comm list).
StepTime step_time_from(const Config &c, const ModelParams &mp, const Layout &l, const LayerSet &t,
                        const std::vector<StageLayerCount> &mix);

// step_time_from with the explaining parts: one dense layer's operators and the slowest
// stage's communication list.
StepTime training_step_time(const Config &c, const Layout &l);

} // namespace rl
