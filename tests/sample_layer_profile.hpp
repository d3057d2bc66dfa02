// tests/data/samples/layer_profile_llama3_8b_h100.csv (illustrative figures), embedded for the
// WASM build of the suite, which cannot read files: the readers' and the calibration's tests.
#pragma once

namespace rl::test {

inline const char *const kLayerProfileSample =
    R"sample(kernel_class,calls,seconds,hidden,heads,kv_heads,ffn,seq,micro_batch,dtype
gemm,12,0.0076,4096,32,8,14336,4096,1,bf16
attention,5,0.00152,4096,32,8,14336,4096,1,bf16
norm,30,0.00061,4096,32,8,14336,4096,1,bf16
rotary,24,0.00054,4096,32,8,14336,4096,1,bf16
activation,8,0.00048,4096,32,8,14336,4096,1,bf16
elementwise,6,0.0003,4096,32,8,14336,4096,1,bf16
reduce/softmax,4,5e-05,4096,32,8,14336,4096,1,bf16
memcpy,10,0.0002,4096,32,8,14336,4096,1,bf16
other,1,2e-05,4096,32,8,14336,4096,1,bf16
gap,0,0.00035,4096,32,8,14336,4096,1,bf16
)sample";

} // namespace rl::test
