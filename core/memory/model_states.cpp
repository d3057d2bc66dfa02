#include "core/memory/model_states.hpp"

#include "core/model/lora.hpp"
#include "core/model/params.hpp"

#include <algorithm>

namespace rl {

double dtype_bytes(Dtype d) {
  switch (d) {
  case Dtype::fp32:
    return 4;
  case Dtype::bf16:
  case Dtype::fp16:
    return 2;
  case Dtype::fp8:
  case Dtype::int8:
    return 1;
  case Dtype::int4:
    return 0.5;
  case Dtype::nvfp4: // NVIDIA NVFP4 blog: 4-bit E2M1 + one E4M3 scale per 16 (+ an FP32 per tensor)
    return 0.5 + 1.0 / 16;
  case Dtype::mxfp4: // OCP MX v1.0: 4-bit E2M1 + one E8M0 scale per 32
    return 0.5 + 1.0 / 32;
  case Dtype::mxfp8: // OCP MX v1.0: 8-bit E4M3 + one E8M0 scale per 32
    return 1.0 + 1.0 / 32;
  }
  return 2;
}

StageParams layer_params_per_device(const ModelSpec &m, bool moe, i64 tp, i64 ep, i64 moe_tp) {
  return layer_params_per_device(m, layer_params(m, moe), moe, tp, ep, moe_tp);
}

StageParams layer_params_per_device(const ModelSpec &m, const LayerParams &lp, bool moe, i64 tp,
                                    i64 ep, i64 moe_tp) {
  const double t = static_cast<double>(tp);
  const double h = static_cast<double>(m.hidden);
  StageParams out;
  double attn = 0, attn_bias = 0;
  if (m.mla) {
    attn = static_cast<double>(lp.attention) / t; // ridgeline: MLA split evenly by t
  } else {
    const double d = static_cast<double>(m.head_dim);
    const double q_heads = static_cast<double>(heads_per_rank(m, tp));
    const double kv_heads = static_cast<double>(kv_heads_per_rank(m, tp));
    attn = h * d * (2 * q_heads + 2 * kv_heads);
    attn_bias = (m.qkv_bias ? d * (q_heads + 2 * kv_heads) : 0) + (m.o_bias ? h : 0);
  }
  out.dense = attn + attn_bias + static_cast<double>(lp.norms);
  if (moe && m.moe) {
    const MoeSpec &e = *m.moe;
    const double ffn = static_cast<double>(e.expert_ffn);
    // One expert split f ways (a shared expert runs with the attention at t; a routed one at
    // moe_tp: Megatron MoE parallel folding, arXiv 2504.14960).
    auto expert = [&](double f) {
      return static_cast<double>(mlp_weight_params(m, e.expert_ffn)) / f +
             (m.mlp_bias ? (m.gated_mlp ? 2 * ffn : ffn) / f + h : 0);
    };
    const double et = static_cast<double>(moe_tp > 0 ? moe_tp : tp);
    out.experts = static_cast<double>(e.experts / ep) * expert(et);
    out.dense += static_cast<double>(e.shared_experts) * expert(t) + static_cast<double>(lp.router);
  } else {
    const double ffn = static_cast<double>(m.ffn);
    out.dense +=
        static_cast<double>(lp.mlp) / t + (m.mlp_bias ? (m.gated_mlp ? 2 * ffn : ffn) / t + h : 0);
  }
  out.largest_layer = out.total();
  return out;
}

StageParams stage_params(const ModelSpec &m, const Layout &l, i64 stage) {
  return stage_params(m, model_params(m), l, stage,
                      stage_layer_mix(m, l)[static_cast<std::size_t>(stage)]);
}

StageParams stage_params(const ModelSpec &m, const ModelParams &mp, const Layout &l, i64 stage,
                         const StageLayerCount &n) {
  StageParams out;
  auto add = [&](bool moe, i64 count) {
    if (count <= 0)
      return;
    const StageParams lp =
        layer_params_per_device(m, moe ? mp.moe_layer : mp.dense_layer, moe, l.tp, l.ep, l.moe_tp);
    out.dense += static_cast<double>(count) * lp.dense;
    out.experts += static_cast<double>(count) * lp.experts;
    out.largest_layer = std::max(out.largest_layer, lp.total());
  };
  add(false, n.dense);
  add(true, n.moe);
  const double t = static_cast<double>(l.tp);
  // Vocabulary-parallel embedding and head; positions and final norm replicated. (DualPipe's
  // end devices hold both, one of each copy; DualPipeV's first device both ends of the V.)
  if (holds_embedding(l, stage))
    out.dense += static_cast<double>(mp.embedding) / t + static_cast<double>(mp.pos_embedding);
  if (holds_head(l, stage)) {
    out.dense += static_cast<double>(mp.final_norm);
    // The head, or with tied embeddings on pp > 1 a second copy of the embedding.
    if (!m.tied_embeddings)
      out.dense += static_cast<double>(mp.head) / t;
    else if (l.pp > 1)
      out.dense += static_cast<double>(mp.embedding) / t;
  }
  return out;
}

StateWidths state_widths(const WorkloadSpec &w) {
  StateWidths b;
  if (w.fp8_params)
    b.weights = dtype_bytes(w.precision); // fp8 1, mxfp8 1 + 1/32 (its E8M0 block scales)
  b.grads = w.fp32_grads ? kGradBytesFp32 : kGradBytes;
  b.optimizer = w.bf16_moments ? kAdamBytesBf16Moments : kAdamBytes;
  return b;
}

ModelStateBytes training_states(const StageParams &p, const Layout &l, const StateWidths &b,
                                double prefetch_layers) {
  const double g_dense = static_cast<double>(l.dp * l.cp);
  const double g_expert = static_cast<double>(expert_dp(l));
  auto shard = [&](bool sharded) {
    return sharded ? p.dense / g_dense + p.experts / g_expert : p.total();
  };
  ModelStateBytes s;
  s.weights = b.weights * shard(l.zero >= 3);
  if (l.zero >= 3)
    s.weights += b.weights * prefetch_layers * p.largest_layer;
  s.gradients = b.grads * shard(l.zero >= 2);
  s.optimizer = b.optimizer * shard(l.zero >= 1);
  return s;
}

StageParams lora_stage_params(const ModelSpec &m, const Layout &l, const StageLayerCount &n,
                              const FinetuneSpec &f) {
  const double t = static_cast<double>(l.tp);
  const double et = static_cast<double>(l.ep) * static_cast<double>(l.moe_tp > 0 ? l.moe_tp : l.tp);
  const LoraLayer d = lora_layer(m, false, f), x = lora_layer(m, true, f);
  StageParams out;
  out.dense = (static_cast<double>(n.dense) * d.total() +
               static_cast<double>(n.moe) * (x.attention + x.mlp)) /
              t;
  out.experts = static_cast<double>(n.moe) * x.experts / et;
  out.largest_layer = std::max(d.total() / t, (x.attention + x.mlp) / t + x.experts / et);
  return out;
}

double stage_linear_params(const ModelSpec &m, const ModelParams &mp, const Layout &l,
                           const StageLayerCount &n) {
  auto linear = [&](bool moe) {
    const LayerParams &lp = moe ? mp.moe_layer : mp.dense_layer;
    return layer_params_per_device(m, lp, moe, l.tp, l.ep, l.moe_tp).total() -
           static_cast<double>(lp.norms);
  };
  return static_cast<double>(n.dense) * linear(false) +
         (n.moe > 0 ? static_cast<double>(n.moe) * linear(true) : 0.0);
}

ModelStateBytes stage_training_states(const Config &c, const ModelParams &mp, const Layout &l,
                                      const StageParams &p, const StageLayerCount &n) {
  const WorkloadSpec &w = c.workload;
  const StateWidths b = state_widths(w);
  ModelStateBytes s;
  if (!w.finetune || !w.finetune->adapters()) {
    s = training_states(p, l, b);
  } else {
    const FinetuneSpec &f = *w.finetune;
    // the frozen base: linear weights at the base dtype, embeddings, head and norms bf16
    const double bb = base_weight_bytes(f.base_dtype);
    const double linear = stage_linear_params(c.model, mp, l, n);
    const double dense_linear = std::max(0.0, linear - p.experts);
    const double dense_bytes = dense_linear * bb + (p.dense - dense_linear) * kWeightBytes;
    const double expert_bytes = p.experts * bb;
    if (l.zero >= 3)
      s.weights = dense_bytes / static_cast<double>(l.dp * l.cp) +
                  expert_bytes / static_cast<double>(expert_dp(l)) + 2 * p.largest_layer * bb;
    else
      s.weights = dense_bytes + expert_bytes;
    const ModelStateBytes a = training_states(lora_stage_params(c.model, l, n, f), l, b);
    s.weights += a.weights;
    s.gradients = a.gradients;
    s.optimizer = a.optimizer;
  }
  if (l.offload_optimizer)
    s.optimizer = 0; // on the host (DeepSpeed ZeRO-Offload)
  return s;
}

} // namespace rl
