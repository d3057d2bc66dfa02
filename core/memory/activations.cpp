#include "core/memory/activations.hpp"

#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/parallel/pipeline_schedule.hpp"

#include <algorithm>

namespace rl {

ActLayout act_layout(const Layout &l, Dtype precision) {
  return ActLayout{l.tp,
                   l.sp && l.tp > 1,
                   l.cp,
                   l.flash,
                   is_scaled_float(precision) ? dtype_bytes(precision) : 2.0,
                   l.recompute_norm,
                   l.recompute_mla_up,
                   l.recompute_moe_act,
                   l.expert_folding,
                   l.moe_tp};
}

LayerActivations layer_activations(const ModelSpec &m, bool moe, double b, double s,
                                   const ActLayout &l) {
  const double t = static_cast<double>(l.tp);
  const double h = static_cast<double>(m.hidden);
  // Per TP rank: a/t query heads; KV heads split, or one replicated head when t > k.
  const double a = static_cast<double>(m.heads) / t;
  const double k = m.mla ? a : static_cast<double>(kv_heads_per_rank(m, l.tp));
  const double dqk = m.mla ? static_cast<double>(m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim)
                           : static_cast<double>(m.head_dim);
  const double dv = m.mla ? static_cast<double>(m.mla->v_head_dim) : dqk;
  // Replicated under plain TP, split by t under Megatron-SP.
  const double rep = l.sp ? 1.0 / t : 1.0;
  const double sbh = s * b * h;
  // The linear layers' saved inputs at linear_input bytes (QKV, output projection, MLP input,
  // the second MLP GEMM's input, MLA up-projections, MoE dispatched tokens); the rest bf16.
  const double li = l.linear_input;
  LayerActivations x;
  x.norm_inputs = 4 * sbh * rep;
  x.qkv_input = li * sbh * rep;
  x.qk = 2 * s * b * dqk * (a + k);
  x.v = 2 * s * b * dv * k;
  x.out_input = li * s * b * a * dv;
  x.attn_dropout = m.dropout ? sbh * rep : 0;
  if (l.flash) {
    x.flash_stats = 4 * a * s * b; // docs/formulas.md: fp32 softmax statistics
  } else {
    x.softmax = 2 * a * s * s * b;
    x.softmax_dropout = m.dropout ? 3 * a * s * s * b : 0;
  }
  if (m.mla) {
    const MlaSpec &q = *m.mla;
    x.mla_latent =
        li * s * b * static_cast<double>(q.q_lora_rank + q.kv_lora_rank + q.qk_rope_head_dim);
  }
  x.mlp_input = li * sbh * rep;
  // gated 6sbf, plain 4sbf in bf16: the first GEMM's output (2f or f values, kept for the
  // activation's backward) and the second GEMM's input (f values, at linear_input)
  const double per_f = ((m.gated_mlp ? 4.0 : 2.0) + li) * s * b / t;
  if (moe && m.moe) {
    // ridgeline's MoE extension: the experts' saved inputs (the routed tokens they compute,
    // h wide, at linear_input bytes), their hidden terms ((4 + q) or (2 + q) a value of the
    // FFN share they hold), the shared experts' hidden terms (split by t), and the fp32
    // router logits. The routed tokens: the rank's sequence shard x top_k, gathered over the
    // experts' TP group (core/parallel/layout: expert_share; Megatron's alltoall dispatcher
    // gathers them over the expert-TP group before the experts).
    const MoeSpec &e = *m.moe;
    const ExpertShare share = expert_share(e, l.tp, l.sp, l.expert_folding, l.moe_tp, s * b, 1);
    const double routed = share.routed, ffn_rank = share.ffn;
    const double per_value = (m.gated_mlp ? 4.0 : 2.0) + li;
    x.mlp_hidden =
        li * routed * h + per_value * routed * ffn_rank +
        per_f * static_cast<double>(e.expert_ffn) * static_cast<double>(e.shared_experts);
    x.router = 4 * s * b * static_cast<double>(e.experts) * rep;
    x.moe_act = li * routed * ffn_rank;
  } else {
    x.mlp_hidden = per_f * static_cast<double>(m.ffn);
  }
  x.mlp_dropout = m.dropout ? sbh * rep : 0;
  if (l.seq_div > 1) { // ring CP / Ulysses: every term divided (docs/formulas.md: A/N)
    const double n = static_cast<double>(l.seq_div);
    for (double *f : {&x.norm_inputs, &x.qkv_input, &x.qk, &x.v, &x.out_input, &x.attn_dropout,
                      &x.softmax, &x.softmax_dropout, &x.flash_stats, &x.mla_latent, &x.mlp_input,
                      &x.mlp_hidden, &x.mlp_dropout, &x.router, &x.moe_act})
      *f /= n;
  }
  return x;
}

double layer_activations_kept(const LayerActivations &full, Recompute r, const ModelSpec &m,
                              double b, double s, const ActLayout &l) {
  switch (r) {
  case Recompute::none:
    return full.total();
  case Recompute::selective:
    return full.total() - full.selective_drops(l.recompute_norm,
                                               l.recompute_mla_up && m.mla.has_value(),
                                               l.recompute_moe_act);
  case Recompute::full: {
    // The layer input only: 2sbh, split by t under SP and by the CP/Ulysses degree.
    const double rep = l.sp ? static_cast<double>(l.tp) : 1.0;
    return 2 * s * b * static_cast<double>(m.hidden) / rep / static_cast<double>(l.seq_div);
  }
  }
  return full.total();
}

double chunks_in_flight(const Layout &l, i64 stage) {
  // the warm-up forwards plus the one in flight, at most every chunk every micro-batch passes
  // (DualPipe: S + 1 stages' worth on every device, S = p, or 2p for the V: its README's
  // "Activation Per Device")
  const i64 v = chunk_passes(l);
  return static_cast<double>(
      std::min(warmup_forwards(l.schedule, l.pp, v, l.num_micro, stage) + 1, l.num_micro * v));
}

double embedding_activation_bytes(const ModelSpec &m, double b, double s, const ActLayout &l) {
  if (!m.dropout)
    return 0;
  const double rep = l.sp ? static_cast<double>(l.tp) : 1.0;
  return s * b * static_cast<double>(m.hidden) / rep / static_cast<double>(l.seq_div);
}

double output_activation_bytes(const ModelSpec &m, double b, double s, const ActLayout &l,
                               bool fused_loss) {
  if (m.vocab == 0)
    return 0;
  // Korthikanti: 4sbh(1 + v/h) = final-norm input 2sbh + head input 2sbh + fp32 logits 4sbv.
  // Under TP the logits are split by t; the two sbh tensors only with SP.
  const double t = static_cast<double>(l.tp);
  const double rep = l.sp ? t : 1.0;
  const double sb = s * b;
  const double logit = fused_loss ? 2.0 : 4.0;
  const double bytes =
      4 * sb * static_cast<double>(m.hidden) / rep + logit * sb * static_cast<double>(m.vocab) / t;
  return bytes / static_cast<double>(l.seq_div);
}

StageActivations stage_activations(const ModelSpec &m, const Layout &l, i64 stage, double s,
                                   Dtype precision, bool fused_loss) {
  return stage_activations(m, l, stage, s, stage_layer_mix(m, l)[static_cast<std::size_t>(stage)],
                           layer_activation_bytes(m, l, s, precision), fused_loss);
}

LayerActivationBytes layer_activation_bytes(const ModelSpec &m, const Layout &l, double s,
                                            Dtype precision, bool with_bf16) {
  const double b = static_cast<double>(l.microbatch);
  LayerActivationBytes out;
  const auto kept = [&](bool moe, const ActLayout &al, double *full) {
    const LayerActivations a = layer_activations(m, moe, b, s, al);
    if (full)
      *full = a.total();
    return layer_activations_kept(a, l.recompute, m, b, s, al);
  };
  const ActLayout al = act_layout(l, precision);
  out.kept_dense = kept(false, al, &out.full_dense);
  if (m.moe)
    out.kept_moe = kept(true, al, &out.full_moe);
  if (with_bf16) {
    const ActLayout al16 = act_layout(l, Dtype::bf16);
    out.kept_dense_bf16 = kept(false, al16, &out.full_dense_bf16);
    if (m.moe)
      out.kept_moe_bf16 = kept(true, al16, &out.full_moe_bf16);
  }
  return out;
}

StageActivations stage_activations(const ModelSpec &m, const Layout &l, i64 stage, double s,
                                   const StageLayerCount &n, const LayerActivationBytes &per,
                                   bool fused_loss) {
  const ActLayout al = act_layout(l);
  const double b = static_cast<double>(l.microbatch);
  StageActivations out;
  if (n.total() == 0)
    return out;
  // Average kept bytes per layer over the stage's layers (dense and MoE may mix).
  double kept = 0, full_max = 0;
  if (n.dense > 0) {
    kept += static_cast<double>(n.dense - n.dense_bf16) * per.kept_dense +
            static_cast<double>(n.dense_bf16) * per.kept_dense_bf16;
    full_max = std::max(full_max, n.dense_bf16 > 0 ? per.full_dense_bf16 : per.full_dense);
  }
  if (n.moe > 0) {
    kept += static_cast<double>(n.moe - n.moe_bf16) * per.kept_moe +
            static_cast<double>(n.moe_bf16) * per.kept_moe_bf16;
    full_max = std::max(full_max, n.moe_bf16 > 0 ? per.full_moe_bf16 : per.full_moe);
  }
  const double layers = static_cast<double>(n.total());
  const double per_layer = kept / layers;
  const double layers_per_chunk = layers / static_cast<double>(model_chunks(l));
  out.layers_in_flight = chunks_in_flight(l, stage) * layers_per_chunk;
  // Offloaded layers' activations live in host memory but for the one in transit
  // (Transformer Engine's CPU offload without double buffering).
  if (l.offload_layers > 0)
    out.layers_in_flight -= static_cast<double>(std::min<i64>(l.offload_layers, n.total()) - 1);
  out.layers = out.layers_in_flight * per_layer;
  if (l.recompute == Recompute::full)
    out.layers += full_max;      // one layer's full working set while it is recomputed
  if (holds_embedding(l, stage)) // the micro-batches in flight through its first chunk
    out.embedding = embedding_activation_bytes(m, b, s, al) * chunks_in_flight(l, 0) /
                    static_cast<double>(model_chunks(l));
  if (holds_head(l, stage))
    out.output = output_activation_bytes(m, b, s, al, fused_loss);
  return out;
}

} // namespace rl
