// ridgeline model: parameter counts (docs/formulas.md "Parameters"; Narayanan et al. 2021).
#pragma once

#include "core/config.hpp"

namespace rl {

// The largest model ridgeline counts (a stated limit, ~500x today's largest): bigger sizes
// are an input error (ConfigError at "model") rather than an integer overflow.
constexpr i64 kMaxParams = 1'000'000'000'000'000;

// Parameters of one transformer layer, by part.
struct LayerParams {
  i64 attention = 0; // Q, K, V, O weights (+ MLA down/up projections and their norms)
  i64 attention_bias = 0;
  i64 mlp = 0; // dense MLP, or all routed experts + shared experts
  i64 mlp_bias = 0;
  i64 router = 0;         // MoE gate h*E
  i64 norms = 0;          // the two per-layer norms
  i64 experts_active = 0; // routed-expert parameters a token touches (top_k of them)
  i64 experts_routed = 0; // all routed-expert parameters (E of them)
  i64 total() const { return attention + attention_bias + mlp + mlp_bias + router + norms; }
  // What one token touches: total minus the routed experts it does not use.
  i64 active() const { return total() - experts_routed + experts_active; }
};

struct ModelParams {
  LayerParams dense_layer; // a layer with a dense MLP
  LayerParams moe_layer;   // a layer with the MoE MLP (zeros without MoE)
  i64 dense_layers = 0;
  i64 moe_layers = 0;
  i64 embedding = 0; // v*h
  i64 head = 0;      // v*h unless tied
  i64 final_norm = 0;
  i64 pos_embedding = 0; // s_max*h for learned positions
  i64 layers_total() const {
    return dense_layers * dense_layer.total() + moe_layers * moe_layer.total();
  }
  i64 total() const { return layers_total() + embedding + head + final_norm + pos_embedding; }
  i64 active() const {
    return dense_layers * dense_layer.active() + moe_layers * moe_layer.active() + embedding +
           head + final_norm + pos_embedding;
  }
};

// Is layer i (0-based) an MoE layer? (DeepSeek: first_dense dense layers, then every k-th.)
bool is_moe_layer(const ModelSpec &m, i64 layer);
i64 count_moe_layers(const ModelSpec &m);
// MoE layers among layers [begin, end), counted without a loop.
i64 moe_layers_in(const ModelSpec &m, i64 begin, i64 end);

// Norm parameters of one norm of width w: rmsnorm w, layernorm 2w.
i64 norm_params(Norm n, i64 width);
// Narayanan et al. 2021 / docs/formulas.md: h*d*(2a+2k), or MLA's low-rank projections.
i64 attention_weight_params(const ModelSpec &m);
i64 attention_bias_params(const ModelSpec &m);
// gated 3*h*f, plain 2*h*f.
i64 mlp_weight_params(const ModelSpec &m, i64 ffn);
// gated 2f + h, plain f + h (when mlp_bias).
i64 mlp_bias_params(const ModelSpec &m, i64 ffn);

LayerParams layer_params(const ModelSpec &m, bool moe);
// ConfigError at "model" when the model has more than kMaxParams parameters.
ModelParams model_params(const ModelSpec &m);

} // namespace rl
