#include "core/model/params.hpp"

#include <algorithm>

#include "core/error.hpp"

#include <string>

namespace rl {

namespace {
// Counts are exact integers: each formula runs in 128 bits (the accepted sizes keep every
// product below 2^100) and must land within kMaxParams, so no i64 sum can overflow.
using wide = __int128;

std::string count_text(wide v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return s;
}

i64 narrow(wide v) {
  if (v > static_cast<wide>(kMaxParams))
    throw ConfigError("model", "has at least " + count_text(v) + " parameters; the limit is 10^15");
  return static_cast<i64>(v);
}
} // namespace

bool is_moe_layer(const ModelSpec &m, i64 layer) {
  if (!m.moe)
    return false;
  // DeepSeek-V3 modeling code: layer >= first_k_dense_replace and layer % moe_layer_freq == 0.
  return layer >= m.moe->first_dense && layer % m.moe->every == 0;
}

i64 count_moe_layers(const ModelSpec &m) {
  return moe_layers_in(m, 0, m.layers);
}

i64 moe_layers_in(const ModelSpec &m, i64 begin, i64 end) {
  if (!m.moe || m.moe->every <= 0)
    return 0;
  begin = std::max(begin, m.moe->first_dense);
  if (end <= begin)
    return 0;
  // multiples of `every` in [begin, end)
  const i64 k = m.moe->every;
  return (end - 1) / k - (begin + k - 1) / k + 1;
}

// docs/formulas.md: layernorm 2h (scale + shift), rmsnorm h.
i64 norm_params(Norm n, i64 width) {
  return narrow(n == Norm::layernorm ? 2 * wide{width} : wide{width});
}

i64 attention_weight_params(const ModelSpec &m) {
  const wide h = m.hidden, a = m.heads;
  if (m.mla) {
    // DeepSeek-V2/V3 MLA: q_a (h x r_q) + q_a_norm + q_b (r_q x a*(nope+rope)), or plain q;
    // kv_a (h x (r_kv + rope)) + kv_a_norm + kv_b (r_kv x a*(nope+v)); o (a*v x h).
    const MlaSpec &x = *m.mla;
    const wide dqk = wide{x.qk_nope_head_dim} + x.qk_rope_head_dim, rq = x.q_lora_rank,
               rkv = x.kv_lora_rank;
    const wide q =
        rq > 0 ? h * rq + norm_params(m.norm, x.q_lora_rank) + rq * a * dqk : h * a * dqk;
    const wide kv = h * (rkv + x.qk_rope_head_dim) + norm_params(m.norm, x.kv_lora_rank) +
                    rkv * a * (wide{x.qk_nope_head_dim} + x.v_head_dim);
    const wide o = a * x.v_head_dim * h;
    return narrow(q + kv + o);
  }
  // docs/formulas.md: h*d*(2a + 2k)
  return narrow(h * m.head_dim * (2 * a + 2 * wide{m.kv_heads}));
}

i64 attention_bias_params(const ModelSpec &m) {
  // docs/formulas.md: d*(a+2k) for Q,K,V and h for O.
  const wide qkv = m.mla ? 0 : wide{m.head_dim} * (wide{m.heads} + 2 * wide{m.kv_heads});
  return narrow((m.qkv_bias ? qkv : 0) + (m.o_bias ? m.hidden : 0));
}

i64 mlp_weight_params(const ModelSpec &m, i64 ffn) {
  return narrow(wide{m.gated_mlp ? 3 : 2} * m.hidden *
                ffn); // docs/formulas.md: gated 3hf, plain 2hf
}

i64 mlp_bias_params(const ModelSpec &m, i64 ffn) {
  if (!m.mlp_bias)
    return 0;
  return narrow(m.gated_mlp ? 2 * wide{ffn} + m.hidden : wide{ffn} + m.hidden); // docs/formulas.md
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
    p.experts_routed = narrow(wide{e.experts} * (wide{expert} + expert_bias));
    p.experts_active = narrow(wide{e.top_k} * (wide{expert} + expert_bias));
    p.mlp = narrow(wide{e.experts} * expert + wide{e.shared_experts} * expert);
    p.mlp_bias = narrow(wide{e.experts} * expert_bias + wide{e.shared_experts} * expert_bias);
    p.router = narrow(wide{m.hidden} * e.experts); // docs/formulas.md: router h*E
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
  p.embedding = narrow(wide{m.vocab} * m.hidden);
  p.head = m.tied_embeddings ? 0 : p.embedding;
  p.final_norm = m.vocab > 0 ? norm_params(m.norm, m.hidden) : 0;
  p.pos_embedding = m.learned_pos_emb ? narrow(wide{m.max_seq} * m.hidden) : 0;
  // The whole model within kMaxParams: every sum of ModelParams then fits an i64.
  const wide total = wide{p.dense_layers} * p.dense_layer.total() +
                     wide{p.moe_layers} * p.moe_layer.total() + p.embedding + p.head +
                     p.final_norm + p.pos_embedding;
  narrow(total);
  return p;
}

} // namespace rl
