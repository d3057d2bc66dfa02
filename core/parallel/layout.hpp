// ridgeline parallel: a complete parallel layout (every knob decided) and its legality.
#pragma once

#include "core/comm/collective.hpp"
#include "core/config.hpp"

#include <string>
#include <vector>

namespace rl {

struct Layout {
  i64 dp = 1, tp = 1, pp = 1, vpp = 1;
  i64 cp = 1;      // total sequence-parallel degree (ring x Ulysses)
  i64 ulysses = 1; // Ulysses part of cp
  i64 ring = 1;    // ring part of cp
  i64 ep = 1, zero = 0;
  // Serving MoE layouts (SGLang --enable-dp-attention, TensorRT-LLM attention DP; Megatron
  // --expert-tensor-parallel-size): an instance's attention runs tp x attention_dp, its routed
  // experts moe_tp x ep over the same GPUs. ep_in_instance false: EP is carved from dp (Megatron;
  // a serving instance is then ep dp-replicas with moe_tp = tp). moe_tp 0: tp (complete_layout
  // sets it).
  i64 attention_dp = 1, moe_tp = 0;
  bool ep_in_instance = false;
  // Training with Megatron's MoE parallel folding (--expert-tensor-parallel-size, arXiv
  // 2504.14960): the experts' own grid, moe_tp (innermost) x ep x expert-dp, over the same
  // tp x cp x dp ranks of a stage as the attention's; set when moe_tp differs from tp.
  bool expert_folding = false;
  i64 microbatch = 1; // sequences per micro-batch (b)
  i64 num_micro = 1;  // micro-batches per pipeline per step (m = B / (dp * b))
  bool sp = false, flash = true, uneven_pp = false;
  // Megatron's --decoder-first/last-pipeline-num-layers: layers on the first and the last
  // stage (0: an even share); the other stages split the rest evenly.
  i64 first_layers = 0, last_layers = 0;
  bool overlap_tp = false, overlap_dp = true, overlap_pp = false, overlap_ep = false;
  std::vector<std::string> order{"tp", "cp", "dp", "pp"}; // innermost first
  CpKind cp_kind = CpKind::ring;
  Recompute recompute = Recompute::none;
  // Selective recompute's extra modules (ParallelSpec::recompute_norm etc.).
  bool recompute_norm = false, recompute_mla_up = false, recompute_moe_act = false;
  i64 offload_layers = 0;         // ParallelSpec::offload_layers
  bool offload_optimizer = false; // ParallelSpec::offload_optimizer
  PpSchedule schedule = PpSchedule::one_f_one_b;
  i64 devices() const { return dp * tp * attention_dp * pp * cp; }
  // Attention data-parallel ranks of one serving instance (each with its own requests and KV).
  i64 instance_dp() const { return ep_in_instance ? attention_dp : ep; }
  // Serving instances (replicas) of the cluster and the GPUs of one.
  i64 instances() const { return ep_in_instance ? dp : dp / ep; }
  i64 instance_devices() const { return tp * instance_dp() * pp * cp; }
  // Sequences are split over dp x attention_dp attention replicas.
  i64 attention_replicas() const { return dp * attention_dp; }
};

// Why a layout is illegal, as a value (the planner counts these; nothing is thrown).
// framework: launchable by the core's rules, refused by workload.framework's own
// (core/parallel/frameworks).
enum class LayoutFault { none, heads, divisibility, pipeline, experts, devices, batch, framework };
const char *name_of(LayoutFault f);

struct LayoutCheck {
  LayoutFault fault = LayoutFault::none;
  std::string path;    // the field to change
  std::string message; // with the numbers
  bool ok() const { return fault == LayoutFault::none; }
};

// Whether `devices` GPUs make a whole cluster of c's shape: one node or whole nodes, one
// NVLink domain or whole domains. The key ("devices_per_node", "nvlink_domain") and why when
// not; an empty key when they do. The parser's rule for cluster.devices and the serving
// planner's for a deployment's size.
struct ClusterSizeFault {
  const char *key = "";
  std::string message;
  bool ok() const { return !*key; }
};
ClusterSizeFault cluster_size_fault(const ClusterSpec &c, i64 devices);
// The fewest n' >= n instances of `instance` devices that make a whole cluster of c's shape
// (a deployment rents whole nodes: 3 instances of 4 on 8-GPU nodes become 4).
i64 whole_node_instances(const ClusterSpec &c, i64 instance, i64 n);

// Completes a layout whose knobs are set (tp, pp, vpp, cp, cp_kind, ulysses for USP, ep,
// micro-batch, schedule, stage split; dp 0 = devices / (tp*pp*cp)): derives dp, the ring and
// Ulysses parts of cp and the micro-batch count, and checks every legality rule in the
// order resolve_layout reports them.
// explain = false leaves the message empty (the planner counts faults by kind only).
LayoutCheck complete_layout(const Config &c, Layout &l, bool explain = true);

// Fills every knob left out (tp, pp, cp, ep 1; dp = devices / (tp*pp*cp); zero 0; sp when
// tp > 1; FlashAttention on; no recompute; 1F1B, interleaved when vpp > 1) and checks
// legality. Throws ConfigError naming the field and the numbers.
Layout resolve_layout(const Config &c);
// The same, the verdict as a value (l is complete only when it is ok).
LayoutCheck fill_layout(const Config &c, Layout &l);
// The parallel object that resolves to l: every knob at l's value (the stage split and the
// axis order only when not the default; attention_dp and moe_tp for a serving instance's MoE).
ParallelSpec spec_of(const Layout &l);

// Why `value` for an integer knob (a row of core/schema parallel_fields: tp, pp, vpp, ...) would
// make c's layout illegal: resolve_layout's own message, or "" when legal. dp follows the
// other knobs (a pinned dp is released) so that each knob can be judged on its own.
std::string knob_error(const Config &c, const std::string &knob, i64 value);

// Selective recompute's modules the layout reruns beyond the attention core, as " +norm",
// " +mla_up", " +moe_act" (Megatron-LM's layernorm, mla_up_proj, moe_act); "" for none.
std::string recompute_modules_label(const Layout &l);

// Distance in device order between neighbours of one axis ("tp", "cp", "dp", "pp"): the
// product of the degrees of the axes placed inside it.
i64 axis_stride(const Layout &l, const std::string &axis);

// dp = devices / (tp x pp x cp): the one place it is derived (0 when tp x pp x cp does not
// divide the devices).
i64 derived_dp(i64 devices, i64 tp, i64 pp, i64 cp);

// The communication groups of a layout, placed by its axis order (default tp-cp-dp-pp,
// innermost first); Ulysses is the inner part of cp, EP the inner part of dp. The dense
// gradient group spans dp x cp: contiguous when cp sits just inside dp, otherwise placed at
// dp's stride. The one placement the step time, the serving model and the serving simulator
// all use.
struct LayoutGroups {
  Group tp, uly, ring, dp, ep, edp, pp;
  Group etp;      // the experts' TP group: moe_tp ranks under folding (innermost), else tp
  Group instance; // tp x attention_dp: DP attention's all-gather / reduce-scatter
};
LayoutGroups layout_groups(const Layout &l);
// The ranks holding a replica of a rank's experts (their data-parallel group, the experts'
// ZeRO shard): dp x cp / ep (Megatron's EP inside dp), tp x cp x dp / (ep x moe_tp) under
// folding, dp x cp in a serving instance that holds its own EP.
i64 expert_dp(const Layout &l);

// An MoE layer's tokens at one rank's experts, per micro-batch of `tok` tokens on the rank
// (imbalance: the busiest rank's share over the mean). The rank dispatches its sequence shard's
// tokens x top_k (tok / tp under SP); its experts see those of its experts' TP group: moe_tp
// ranks under folding, else the TP group, whose ranks all hold the micro-batch's tokens (SP
// gathers them; without SP they are replicated). The expert FFN is split the same way.
struct ExpertShare {
  double dispatched = 0; // tokens x top_k this rank sends to the AllToAll
  double routed = 0;     // tokens x top_k its experts compute
  // The ranks whose dispatched tokens those are: the expert-TP group that Megatron's alltoall
  // dispatcher all-gathers them over after the AllToAll and reduce-scatters them back over
  // before the combine (token_dispatcher.py dispatch_postprocess / combine_preprocess); 1: none.
  i64 gathered_over = 1;
  double ffn = 0; // the expert FFN width this rank holds
};
ExpertShare expert_share(const ModelSpec &m, const Layout &l, double tok, double imbalance);
// The same from the knobs that decide it (the activation model's ActLayout): tp, whether
// Megatron-SP splits the sequence, folding and its moe_tp.
ExpertShare expert_share(const MoeSpec &e, i64 tp, bool sp, bool folding, i64 moe_tp, double tok,
                         double imbalance);

// Query heads, and KV heads, one TP rank holds (KV heads replicated when tp > kv_heads).
i64 heads_per_rank(const ModelSpec &m, i64 tp);
i64 kv_heads_per_rank(const ModelSpec &m, i64 tp);

// Transformer layers held by each of pp parts (uneven: the first L % p parts get one more).
std::vector<i64> stage_layer_counts(i64 layers, i64 pp);
// Layers of each virtual stage in model order (virtual stage c runs on pipeline rank c % pp).
// Even or uneven_pp: L over pp*vpp chunks, the first L % (pp*vpp) one layer more. With
// first/last stage layers (Megatron): the first and last ranks hold those, the others
// (L - first - last) / (pp - 2) each; a rank's n layers split into vpp chunks, the first
// n % vpp one layer more.
std::vector<i64> chunk_layer_counts(i64 layers, const Layout &l);
// Layer indices held by pipeline stage j (interleaved: chunks j, j+p, j+2p, ...).
std::vector<i64> stage_layers(i64 layers, const Layout &l, i64 stage);

// The model chunks a pipeline device holds: vpp interleaved; 2 under DualPipe (a stage of
// each of the model's two copies, device j stages j and p - 1 - j: DeepSeek-V3 sec. 3.2.1)
// and DualPipeV (the V of 2p stages, device j stages j and 2p - 1 - j: DualPipe's README);
// otherwise 1. chunk_layer_counts has model_chunks x pp entries.
i64 model_chunks(const Layout &l);
// The device that holds chunk c of chunk_layer_counts.
i64 chunk_device(const Layout &l, i64 c);
// The share of a device's layers one micro-batch runs through: 1/2 under DualPipe (a
// micro-batch goes one way, through one of the two copies), 1 otherwise.
double pass_share(const Layout &l);
// The chunks of a device one micro-batch runs through, model_chunks x pass_share: vpp
// interleaved, 2 under DualPipeV, 1 otherwise (DualPipe's one of its two). Each is a pipeline
// send each way, and pp x this the stages a micro-batch passes.
i64 chunk_passes(const Layout &l);
// Whether pipeline device j holds the embedding / the output head: the first / the last
// device; under DualPipe the first and the last both (each copy's ends); under DualPipeV the
// first holds both ends of the V.
bool holds_embedding(const Layout &l, i64 device);
bool holds_head(const Layout &l, i64 device);
// Dense and MoE layers held by each pipeline stage (size pp), without listing them.
struct StageLayerCount {
  i64 dense = 0, moe = 0;
  i64 dense_bf16 = 0, moe_bf16 = 0; // of which kept in BF16 under an FP8/FP4 precision
  i64 total() const { return dense + moe; }
};
// The model's first and last layers an FP8/FP4 recipe keeps in BF16 (workload.bf16_first_layers,
// bf16_last_layers; none under a plain precision).
struct Bf16Layers {
  i64 first = 0, last = 0;
};
Bf16Layers bf16_layers(const WorkloadSpec &w);
std::vector<StageLayerCount> stage_layer_mix(const ModelSpec &m, const Layout &l,
                                             Bf16Layers bf16 = {});

} // namespace rl
