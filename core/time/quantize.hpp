// ridgeline time: the quantisation kernels an FP8 or FP4 recipe runs around its GEMMs
// (Transformer Engine; docs/formulas.md "FP8 and FP4 recipes", docs/calibration.md "FP8
// quantisation kernels").
#pragma once

#include "core/config.hpp"

#include <vector>

namespace rl {

// What a recipe writes for each quantised element and what it runs before the cast.
struct QuantizeFormat {
  double out_bytes = 0;   // one low-precision copy, its block scales included, B per element
  int copies = 0;         // row-wise and column-wise (transposed) copies written
  bool amax_pass = false; // a separate amax kernel reads the tensor before the cast
};
// Per precision and recipe: every copy is written twice, row-wise for one GEMM and
// column-wise for the other (Hopper's FP8 GEMMs take K-major operands only: Transformer
// Engine's cast_transpose; MX and block scales run along K: both directions are quantised).
// delayed: E4M3/E5M2 at 1 B, its amax taken inside the cast; tensorwise: 1 B after an amax
// pass; blockwise: 1 B and an fp32 scale per 128 (DeepSeek-V3 sec. 3.3.2); mxfp8: 1 B and an
// E8M0 scale per 32 (OCP MX v1.0); nvfp4: 0.5 B and an E4M3 scale per 16, after an amax pass
// for its fp32 per-tensor scale (NVIDIA's NVFP4 recipe); mxfp4: 0.5 B and an E8M0 per 32.
// precision not scaled: {0, 0, false}.
QuantizeFormat quantize_format(Dtype precision, Fp8Recipe recipe);

// One tensor quantised: `elements` bf16 values. A fused cast (the norm's or the activation
// function's kernel writes the low-precision copies itself, Transformer Engine's
// LayerNormLinear / LayerNormMLP) costs only the extra writes; a standalone one a kernel that
// reads the bf16 tensor and writes the copies. An amax pass, where the recipe has one, reads
// the tensor once more in a kernel of its own (current scaling cannot fuse the cast into the
// producer: the scale needs the whole tensor's amax first).
struct QuantizedTensor {
  double elements = 0;
  bool fused = false;
};
double quantize_time(const HardwareSpec &hw, const QuantizeFormat &f, const QuantizedTensor &x);
double quantize_bytes(const QuantizeFormat &f, const QuantizedTensor &x);

// The tensors one layer quantises for one micro-batch on one device: forward, the linear
// layers' inputs; backward, their output gradients. `tok` tokens on the device, `sp_split`
// Megatron-SP's split of the h-wide tensors (tp, else 1), `routed` the tokens x top_k the
// busiest expert rank computes and `expert_ffn` the expert FFN width it holds (ExpertShare).
struct LayerQuantize {
  std::vector<QuantizedTensor> forward, backward;
};
LayerQuantize layer_quantize(const ModelSpec &m, bool moe, double tok, i64 tp, double sp_split,
                             double routed, double expert_ffn);

// The weights quantised once a step (Transformer Engine caches their copies across a step's
// micro-batches): `params` bf16 weights in `matrices` tensors; under fp8_params they are
// already FP8, and only the column-wise copy is written (read 1 B, write 1 B).
// The weight matrices one layer quantises on one device: the attention's (QKV and output
// projection; MLA's down, up and output projections), the MLP's two, or each local expert's
// two and the shared experts' (the router stays bf16).
double linear_weights_per_layer(const ModelSpec &m, bool moe, i64 ep);
double weight_quantize_time(const HardwareSpec &hw, const QuantizeFormat &f, double params,
                            double matrices, bool fp8_params);

} // namespace rl
