#include "core/model/params.hpp"

namespace rl {

bool is_moe_layer(const ModelSpec &m, i64 layer) {
  if (!m.moe)
    return false;
  // DeepSeek-V3 modeling code: layer >= first_k_dense_replace and layer % moe_layer_freq == 0.
  return layer >= m.moe->first_dense && layer % m.moe->every == 0;
}

i64 count_moe_layers(const ModelSpec &m) {
  i64 n = 0;
  for (i64 i = 0; i < m.layers; ++i)
    n += is_moe_layer(m, i) ? 1 : 0;
  return n;
}

// FORMULAS.md: layernorm 2h (scale + shift), rmsnorm h.
i64 norm_params(Norm n, i64 width) {
  return n == Norm::layernorm ? 2 * width : width;
}

i64 attention_weight_params(const ModelSpec &m) {
  const i64 h = m.hidden, a = m.heads;
  if (m.mla) {
    // DeepSeek-V2/V3 MLA: q_a (h x r_q) + q_a_norm + q_b (r_q x a*(nope+rope)), or plain q;
    // kv_a (h x (r_kv + rope)) + kv_a_norm + kv_b (r_kv x a*(nope+v)); o (a*v x h).
    const MlaSpec &x = *m.mla;
    const i64 dqk = x.qk_nope_head_dim + x.qk_rope_head_dim;
    const i64 q = x.q_lora_rank > 0 ? h * x.q_lora_rank + norm_params(m.norm, x.q_lora_rank) +
                                          x.q_lora_rank * a * dqk
                                    : h * a * dqk;
    const i64 kv = h * (x.kv_lora_rank + x.qk_rope_head_dim) + norm_params(m.norm, x.kv_lora_rank) +
                   x.kv_lora_rank * a * (x.qk_nope_head_dim + x.v_head_dim);
    const i64 o = a * x.v_head_dim * h;
    return q + kv + o;
  }
  // FORMULAS.md: h*d*(2a + 2k)
  return h * m.head_dim * (2 * a + 2 * m.kv_heads);
}

i64 attention_bias_params(const ModelSpec &m) {
  // FORMULAS.md: d*(a+2k) for Q,K,V and h for O.
  const i64 qkv = m.mla ? 0 : m.head_dim * (m.heads + 2 * m.kv_heads);
  return (m.qkv_bias ? qkv : 0) + (m.o_bias ? m.hidden : 0);
}

i64 mlp_weight_params(const ModelSpec &m, i64 ffn) {
  return (m.gated_mlp ? 3 : 2) * m.hidden * ffn; // FORMULAS.md: gated 3hf, plain 2hf
}

i64 mlp_bias_params(const ModelSpec &m, i64 ffn) {
  if (!m.mlp_bias)
    return 0;
  return m.gated_mlp ? 2 * ffn + m.hidden : ffn + m.hidden; // FORMULAS.md
}

LayerParams layer_params(const ModelSpec &m, bool moe) {
  LayerParams p;
  p.attention = attention_weight_params(m);
  p.attention_bias = attention_bias_params(m);
  p.norms = 2 * norm_params(m.norm, m.hidden);
  if (moe && m.moe) {
    const MoeSpec &e = *m.moe;
    const i64 expert = mlp_weight_params(m, e.expert_ffn);
    const i64 expert_bias = mlp_bias_params(m, e.expert_ffn);
    p.experts_routed = e.experts * (expert + expert_bias);
    p.experts_active = e.top_k * (expert + expert_bias);
    p.mlp = e.experts * expert + e.shared_experts * expert;
    p.mlp_bias = e.experts * expert_bias + e.shared_experts * expert_bias;
    p.router = m.hidden * e.experts; // FORMULAS.md: router h*E
  } else {
    p.mlp = mlp_weight_params(m, m.ffn);
    p.mlp_bias = mlp_bias_params(m, m.ffn);
  }
  return p;
}

ModelParams model_params(const ModelSpec &m) {
  ModelParams p;
  p.moe_layers = count_moe_layers(m);
  p.dense_layers = m.layers - p.moe_layers;
  p.dense_layer = layer_params(m, false);
  if (p.moe_layers > 0)
    p.moe_layer = layer_params(m, true);
  p.embedding = m.vocab * m.hidden;
  p.head = m.tied_embeddings ? 0 : m.vocab * m.hidden;
  p.final_norm = m.vocab > 0 ? norm_params(m.norm, m.hidden) : 0;
  p.pos_embedding = m.learned_pos_emb ? m.max_seq * m.hidden : 0;
  return p;
}

} // namespace rl
