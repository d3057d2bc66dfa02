// ridgeline time: the achievable fraction of peak for one GEMM shape (docs/calibration.md
// "GEMM"). The large-GEMM efficiency is fitted per chip to cuBLAS microbenchmarks; a shape
// loses to wave quantisation (NVIDIA Deep Learning Performance guide, "Matrix
// Multiplication Background": output tiles spread over the SMs in waves, the last one
// partly idle) and to a short reduction dimension (each tile's fixed prologue/epilogue
// against its K loop).
#pragma once

#include "core/config.hpp"

namespace rl {

// Output-tile shapes cuBLAS chooses among on A100/H100 (CUTLASS's default CTA tiles).
struct GemmTile {
  double m, n;
};

// Fraction of the SMs' tile slots doing useful work for `count` GEMMs of an m x n output:
// the best over the tile shapes of  m n count / (waves x sm_count x tile area).
double wave_utilization(double m, double n, double count, i64 sm_count);

// Large-GEMM efficiency at the precision: FP8 and MXFP8 GEMMs use gemm_efficiency_fp8 when it
// is set; FP4 ones gemm_efficiency_fp4, else the FP8 one, else the bf16 one.
double base_gemm_efficiency(const HardwareSpec &hw, Dtype precision);

// Efficiency of `count` GEMMs [m x k] x [k x n]: base x wave utilisation x k / (k + k_half).
double gemm_shape_efficiency(const HardwareSpec &hw, Dtype precision, double m, double k, double n,
                             double count = 1);

// The efficiency the serving model applies to its GEMM-shaped work at a precision: the
// large-GEMM one (base_gemm_efficiency: FP8 and FP4 their own) less the calibrated compute
// overhead (hardware.compute_overhead).
double serving_gemm_efficiency(const HardwareSpec &hw, Dtype precision);

} // namespace rl
