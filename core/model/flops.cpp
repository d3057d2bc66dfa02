#include "core/model/flops.hpp"

#include "core/model/params.hpp"

namespace rl {

LayerFlops layer_forward_flops(const ModelSpec &m, bool moe, double b, double s, bool causal_skip) {
  const double t = b * s; // tokens
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
  const double k = static_cast<double>(m.kv_heads), d = static_cast<double>(m.head_dim);
  LayerFlops f;
  const double causal = causal_skip ? 0.5 : 1.0;
  if (m.mla) {
    const MlaSpec &x = *m.mla;
    const double dqk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
    const double dv = static_cast<double>(x.v_head_dim);
    const double rq = static_cast<double>(x.q_lora_rank), rkv = static_cast<double>(x.kv_lora_rank);
    const double q = rq > 0 ? h * rq + rq * a * dqk : h * a * dqk;
    const double kv = h * (rkv + static_cast<double>(x.qk_rope_head_dim)) +
                      rkv * a * (static_cast<double>(x.qk_nope_head_dim) + dv);
    f.qkv = 2 * t * (q + kv);
    f.scores = causal * (2 * b * s * s * a * dqk + 2 * b * s * s * a * dv);
    f.out = 2 * t * a * dv * h;
  } else {
    f.qkv = 2 * t * h * d * (a + 2 * k);       // docs/formulas.md: 2bshd(a+2k)
    f.scores = causal * 4 * b * s * s * a * d; // docs/formulas.md: 4bs^2ad
    f.out = 2 * t * a * d * h;                 // docs/formulas.md: 2bsadh
  }
  const double per_ffn = (m.gated_mlp ? 6.0 : 4.0) * t * h; // x f: gated 6bshf, plain 4bshf
  if (moe && m.moe) {
    const MoeSpec &e = *m.moe;
    f.mlp = per_ffn * static_cast<double>(e.expert_ffn) *
            static_cast<double>(e.top_k + e.shared_experts);
    f.router = 2 * t * h * static_cast<double>(e.experts); // docs/formulas.md: 2bshE
  } else {
    f.mlp = per_ffn * static_cast<double>(m.ffn);
  }
  return f;
}

ModelFlops model_forward_flops(const ModelSpec &m, double b, double s, bool causal_skip) {
  ModelFlops f;
  f.moe_layers = count_moe_layers(m);
  f.dense_layers = m.layers - f.moe_layers;
  f.dense_layer = layer_forward_flops(m, false, b, s, causal_skip);
  if (f.moe_layers > 0)
    f.moe_layer = layer_forward_flops(m, true, b, s, causal_skip);
  f.head = 2 * b * s * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
  return f;
}

double training_model_flops(const ModelFlops &f) {
  return 3 * f.forward();
}

double training_hardware_flops(const ModelFlops &f, Recompute r) {
  return training_model_flops(f) + recompute_flops(f, r);
}

double recompute_flops(const ModelFlops &f, Recompute r) {
  switch (r) {
  case Recompute::full:
    return f.layers_forward();
  case Recompute::selective:
    return f.scores_forward();
  case Recompute::none:
    break;
  }
  return 0;
}

// Frozen weights: forward F, backward the input gradients only (F less the attention core,
// whose backward is still twice its forward): 2F + scores. Adapters: 3 x their forward.
double adapter_training_flops(const ModelFlops &f, double adapter_forward) {
  return 2 * f.forward() + f.scores_forward() + 3 * adapter_forward;
}

} // namespace rl
