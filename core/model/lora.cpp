#include "core/model/lora.hpp"

namespace rl {

double base_weight_bytes(BaseDtype d) {
  switch (d) {
  case BaseDtype::fp8:
    return 1;
  case BaseDtype::nf4:
    return kNf4Bits / 8;
  case BaseDtype::bf16:
    break;
  }
  return 2;
}

// Hu et al. 2021 sec. 4.1: W0 + B A with B in R^{d x r}, A in R^{r x k}.
double lora_adapter_params(double in, double out, i64 rank) {
  return static_cast<double>(rank) * (in + out);
}

LoraLayer lora_layer(const ModelSpec &m, bool moe, const FinetuneSpec &f) {
  LoraLayer out;
  const i64 r = f.rank;
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
  double dv = static_cast<double>(m.head_dim);
  if (f.qkv) {
    if (m.mla) { // DeepSeek's q_a/q_b (or q) and kv_a/kv_b projections, each adapted
      const MlaSpec &x = *m.mla;
      const double dqk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
      const double rq = static_cast<double>(x.q_lora_rank),
                   rkv = static_cast<double>(x.kv_lora_rank);
      out.attention += rq > 0 ? lora_adapter_params(h, rq, r) + lora_adapter_params(rq, a * dqk, r)
                              : lora_adapter_params(h, a * dqk, r);
      out.attention +=
          lora_adapter_params(h, rkv + static_cast<double>(x.qk_rope_head_dim), r) +
          lora_adapter_params(rkv, a * static_cast<double>(x.qk_nope_head_dim + x.v_head_dim), r);
    } else { // q_proj, k_proj, v_proj
      const double d = static_cast<double>(m.head_dim), k = static_cast<double>(m.kv_heads);
      out.attention += lora_adapter_params(h, a * d, r) + 2 * lora_adapter_params(h, k * d, r);
    }
  }
  if (m.mla)
    dv = static_cast<double>(m.mla->v_head_dim);
  if (f.o)
    out.attention += lora_adapter_params(a * dv, h, r);
  if (f.mlp) {
    // gate and up (h -> f) and down (f -> h); a plain MLP up and down
    auto mlp = [&](i64 ffn) {
      const double fw = static_cast<double>(ffn);
      return (m.gated_mlp ? 2 : 1) * lora_adapter_params(h, fw, r) + lora_adapter_params(fw, h, r);
    };
    if (moe && m.moe) {
      const MoeSpec &e = *m.moe;
      const double one = mlp(e.expert_ffn);
      out.mlp += static_cast<double>(e.shared_experts) * one;
      out.experts += static_cast<double>(e.experts) * one;
      out.experts_active += static_cast<double>(e.top_k) * one;
    } else {
      out.mlp += mlp(m.ffn);
    }
  }
  return out;
}

LoraCount lora_params(const ModelSpec &m, const FinetuneSpec &f) {
  const double moe = static_cast<double>(count_moe_layers(m));
  const double dense = static_cast<double>(m.layers) - moe;
  const LoraLayer d = lora_layer(m, false, f), x = lora_layer(m, true, f);
  return {dense * d.total() + moe * x.total(), dense * d.active() + moe * x.active()};
}

double trainable_params(const ModelSpec &m, const ModelParams &mp,
                        const std::optional<FinetuneSpec> &f) {
  return f && f->adapters() ? lora_params(m, *f).total : static_cast<double>(mp.total());
}

} // namespace rl
