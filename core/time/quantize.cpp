#include "core/time/quantize.hpp"

#include "core/memory/model_states.hpp"
#include "core/parallel/layout.hpp"

namespace rl {

QuantizeFormat quantize_format(Dtype precision, Fp8Recipe recipe) {
  switch (precision) {
  case Dtype::fp8:
    if (recipe == Fp8Recipe::blockwise)
      return {1 + 4.0 / 128, 2, false};
    return {1, 2, recipe == Fp8Recipe::tensorwise};
  case Dtype::mxfp8:
    return {dtype_bytes(Dtype::mxfp8), 2, false};
  case Dtype::nvfp4:
    return {dtype_bytes(Dtype::nvfp4), 2, true};
  case Dtype::mxfp4:
    return {dtype_bytes(Dtype::mxfp4), 2, false};
  default:
    return {};
  }
}

namespace {
double quantize_share(double measured, const HardwareSpec &hw) {
  return hw.hbm_bw * (measured > 0 ? measured : hw.hbm_efficiency);
}
} // namespace

namespace {
// A tensor's cast: the copies written, and the bf16 read unless the producer's kernel writes
// the copies itself (a fused cast; current scaling cannot fuse). Its amax pass: one more read.
double cast_bytes(const QuantizeFormat &f, const QuantizedTensor &x) {
  const double written = x.elements * f.out_bytes * f.copies;
  return x.fused && !f.amax_pass ? written : 2 * x.elements + written;
}
double amax_bytes(const QuantizeFormat &f, const QuantizedTensor &x) {
  return f.amax_pass ? 2 * x.elements : 0.0;
}
// The fixed time of a tensor's kernels: a standalone cast's and an amax pass's.
double kernel_latency(const HardwareSpec &hw, const QuantizeFormat &f, const QuantizedTensor &x) {
  return (x.fused && !f.amax_pass ? 0.0 : hw.quantize_latency) +
         (f.amax_pass ? hw.amax_latency : 0.0);
}
// The time a tensor's bytes stream for, at the measured shares of HBM.
double stream_time(const HardwareSpec &hw, const QuantizeFormat &f, const QuantizedTensor &x) {
  return cast_bytes(f, x) / quantize_share(hw.quantize_bw_efficiency, hw) +
         amax_bytes(f, x) / quantize_share(hw.amax_bw_efficiency, hw);
}
} // namespace

double quantize_bytes(const QuantizeFormat &f, const QuantizedTensor &x) {
  return cast_bytes(f, x) + amax_bytes(f, x);
}

double quantize_time(const HardwareSpec &hw, const QuantizeFormat &f, const QuantizedTensor &x) {
  if (f.copies == 0 || x.elements <= 0)
    return 0;
  return kernel_latency(hw, f, x) + stream_time(hw, f, x);
}

LayerQuantize layer_quantize(const ModelSpec &m, bool moe, double tok, i64 tp, double sp_split,
                             double routed, double expert_ffn) {
  const double t = static_cast<double>(tp), h = static_cast<double>(m.hidden);
  const double a_l = static_cast<double>(heads_per_rank(m, tp));
  const double kv_l = static_cast<double>(kv_heads_per_rank(m, tp));
  const double gate = m.gated_mlp ? 2.0 : 1.0;
  LayerQuantize q;
  auto both = [&q](double in, bool in_fused, double out_grad, bool grad_fused) {
    q.forward.push_back({in, in_fused});
    q.backward.push_back({out_grad, grad_fused});
  };
  // Attention: inputs from the norm (fused, on the SP shard), the output projection's from
  // the attention kernel (standalone); the output gradients arrive from the attention
  // backward (QKV) and the residual stream (output projection), both standalone.
  double dv = static_cast<double>(m.head_dim);
  if (m.mla) {
    const MlaSpec &x = *m.mla;
    const double dqk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
    dv = static_cast<double>(x.v_head_dim);
    const double rq = static_cast<double>(x.q_lora_rank), rkv = static_cast<double>(x.kv_lora_rank);
    const double rope = static_cast<double>(x.qk_rope_head_dim);
    if (rq > 0) {
      both(tok * h / sp_split, true, tok * rq, false);
      both(tok * rq, true, tok * a_l * dqk, false); // after the q_a norm
    } else {
      both(tok * h / sp_split, true, tok * a_l * dqk, false);
    }
    both(tok * h / sp_split, true, tok * (rkv + rope), false);
    both(tok * rkv, true, tok * a_l * (static_cast<double>(x.qk_nope_head_dim) + dv), false);
  } else {
    const double d = static_cast<double>(m.head_dim);
    both(tok * h / sp_split, true, tok * d * (a_l + 2 * kv_l), false);
  }
  both(tok * a_l * dv, false, tok * h / sp_split, false);
  // MLP: the first GEMM's input from the norm and the second's from the activation function
  // (both fused); gradients: the first GEMM's from the activation's backward (fused,
  // dact + cast), the second's from the residual stream.
  auto mlp = [&](double f) {
    both(tok * h / sp_split, true, tok * gate * f, true);
    both(tok * f, true, tok * h / sp_split, false);
  };
  if (moe && m.moe) {
    const MoeSpec &e = *m.moe;
    const double fe = expert_ffn;
    // The experts' grouped GEMMs take permuted tokens (cast standalone after the
    // permutation) and Megatron's own activation kernel (standalone cast).
    q.forward.push_back({routed * h, false});
    q.backward.push_back({routed * gate * fe, false});
    q.forward.push_back({routed * fe, false});
    q.backward.push_back({routed * h, false});
    if (e.shared_experts > 0) // the shared experts are split like the attention, by tp
      mlp(static_cast<double>(e.expert_ffn) / t * static_cast<double>(e.shared_experts));
  } else {
    mlp(static_cast<double>(m.ffn) / t);
  }
  return q;
}

double linear_weights_per_layer(const ModelSpec &m, bool moe, i64 ep) {
  const double attention = m.mla ? (m.mla->q_lora_rank > 0 ? 2.0 : 1.0) + 3 : 2.0;
  if (!(moe && m.moe))
    return attention + 2;
  const MoeSpec &e = *m.moe;
  return attention + 2 * static_cast<double>(e.experts / ep) + (e.shared_experts > 0 ? 2 : 0);
}

double weight_quantize_time(const HardwareSpec &hw, const QuantizeFormat &f, double params,
                            double matrices, bool fp8_params) {
  if (f.copies == 0 || params <= 0)
    return 0;
  if (fp8_params) // the column-wise copy from the FP8 weight
    return matrices * hw.quantize_latency +
           params * 2 * f.out_bytes / quantize_share(hw.quantize_bw_efficiency, hw);
  // one standalone cast (and amax) per matrix, the bytes of all of them
  const QuantizedTensor all{params, false};
  return matrices * kernel_latency(hw, f, all) + stream_time(hw, f, all);
}

} // namespace rl
