// ridgeline memory: training activation bytes, term by term (docs/formulas.md "Activation
// memory"; Korthikanti et al. 2022). bf16 tensors, 1-byte dropout masks.
#pragma once

#include "core/config.hpp"
#include "core/parallel/layout.hpp"

#include <vector>

namespace rl {

// One layer, one micro-batch, one device. Every field in bytes.
struct LayerActivations {
  double norm_inputs = 0;     // 4sbh: the two norm inputs
  double qkv_input = 0;       // 2sbh
  double qk = 0;              // 2sbd(a+k): Q and K for QK^T
  double v = 0;               // 2sbdk
  double out_input = 0;       // 2sbad: output-projection input
  double attn_dropout = 0;    // sbh mask
  double softmax = 0;         // 2as^2b
  double softmax_dropout = 0; // 3as^2b: mask + output
  double flash_stats = 0;     // 4asb fp32 softmax statistics (FlashAttention)
  double mla_latent = 0;      // 2sb(r_q + r_kv + rope): MLA up-projection inputs
  double mlp_input = 0;       // 2sbh
  double mlp_hidden = 0;      // plain 4sbf, gated 6sbf (MoE: dispatched inputs + experts)
  double mlp_dropout = 0;     // sbh mask
  double router = 0;          // 4sbE fp32 router logits
  // Of mlp_hidden: the routed experts' activation output (the down projections' input, at
  // linear_input bytes), which recompute_moe_act drops.
  double moe_act = 0;
  double total() const {
    return norm_inputs + qkv_input + qk + v + out_input + attn_dropout + softmax + softmax_dropout +
           flash_stats + mla_latent + mlp_input + mlp_hidden + mlp_dropout + router;
  }
  double score_terms() const { return softmax + softmax_dropout; }
  // What selective recompute drops with its modules (Megatron-LM --recompute-modules): the s^2
  // terms (core_attn), the norms' outputs (layernorm), MLA's Q, K, V (mla_up_proj), the
  // experts' activation output (moe_act).
  double selective_drops(bool norm, bool mla_up, bool moe_act_out) const {
    return score_terms() + (norm ? qkv_input + mlp_input : 0.0) + (mla_up ? qk + v : 0.0) +
           (moe_act_out ? moe_act : 0.0);
  }
};

// The parallel knobs that shape activations.
struct ActLayout {
  i64 tp = 1;
  bool sp = false;
  i64 seq_div = 1; // ring CP x Ulysses degree: every term divided by it (docs/formulas.md: A/N)
  bool flash = false;
  // Bytes per element of what a linear layer saves for its weight gradient: its input, which
  // Transformer Engine keeps quantized in an FP8 or FP4 recipe (transformer_engine/pytorch/
  // module/linear.py: saved_inputmat is the quantized inputmat); 2 in bf16.
  double linear_input = 2;
  // Selective recompute's modules beyond the attention core (Layout::recompute_norm etc.;
  // recompute_mla_up only with MLA).
  bool recompute_norm = false, recompute_mla_up = false, recompute_moe_act = false;
  // MoE parallel folding (Layout::expert_folding) and the experts' TP degree under it.
  bool expert_folding = false;
  i64 moe_tp = 1;
};

// Stored activations of one layer (before recompute), b sequences of length s.
LayerActivations layer_activations(const ModelSpec &m, bool moe, double b, double s,
                                   const ActLayout &l);
// What recompute keeps of a layer: selective drops the s^2 terms; full keeps the layer input.
double layer_activations_kept(const LayerActivations &full, Recompute r, const ModelSpec &m,
                              double b, double s, const ActLayout &l);

// Micro-batch "chunks" in flight on pipeline stage j, each chunk holding L/(p*v) layers
// (Megatron's warm-up counts): 1F1B min(p-j, m) chunks of L/p layers; interleaved
// min(2(p-j-1) + (v-1)p + 1, m*v) chunks of L/(pv) (stage 0: L(1 + (p-1)/(pv)) layers,
// Korthikanti); GPipe all m micro-batches; DualPipe p + 1 and DualPipeV 2p + 1 chunks of half
// a device's layers (DualPipe's README).
double chunks_in_flight(const Layout &l, i64 stage);

struct StageActivations {
  double layers = 0;           // transformer layers, all micro-batches in flight
  double embedding = 0;        // input dropout mask (first stage)
  double output = 0;           // final norm, head input, fp32 logits (last stage)
  double layers_in_flight = 0; // in layer-micro-batch units
  double total() const { return layers + embedding + output; }
};

// `precision`: the training GEMMs' (workload.precision), which sets ActLayout::linear_input.
// fused_loss (workload.ce_fusion): the loss keeps the logits' bf16 gradient, not an fp32 softmax.
StageActivations stage_activations(const ModelSpec &m, const Layout &l, i64 stage, double s,
                                   Dtype precision = Dtype::bf16, bool fused_loss = false);
// What one layer of each type keeps and needs while recomputed (one micro-batch, one device).
struct LayerActivationBytes {
  double kept_dense = 0, kept_moe = 0, full_dense = 0, full_moe = 0;
  // the same layers kept in BF16 under an FP8/FP4 precision (StageLayerCount::dense_bf16)
  double kept_dense_bf16 = 0, kept_moe_bf16 = 0, full_dense_bf16 = 0, full_moe_bf16 = 0;
};
// with_bf16: also the BF16 layers' bytes (for a stage mix that has some).
LayerActivationBytes layer_activation_bytes(const ModelSpec &m, const Layout &l, double s,
                                            Dtype precision = Dtype::bf16, bool with_bf16 = false);
// The same from the stage's dense and MoE layer counts (stage_layer_mix) and the per-layer
// bytes, for callers that evaluate many stages.
StageActivations stage_activations(const ModelSpec &m, const Layout &l, i64 stage, double s,
                                   const StageLayerCount &n, const LayerActivationBytes &per,
                                   bool fused_loss = false);

// Korthikanti embedding/output terms, one micro-batch.
double embedding_activation_bytes(const ModelSpec &m, double b, double s, const ActLayout &l);
// The logits kept for the loss's backward: Korthikanti's fp32 softmax (4 B a logit), or with
// the fused cross-entropy (`fused_loss`: Megatron-LM --cross-entropy-loss-fusion, Transformer
// Engine's parallel cross-entropy, which writes the bf16 gradient over the logits in the
// forward; core/time/loss_and_routing) 2 B.
double output_activation_bytes(const ModelSpec &m, double b, double s, const ActLayout &l,
                               bool fused_loss = false);

ActLayout act_layout(const Layout &l, Dtype precision = Dtype::bf16);

} // namespace rl
