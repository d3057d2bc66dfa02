#include "core/time/gemm_efficiency.hpp"

#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

double wave_utilization(double m, double n, double count, i64 sm_count) {
  if (sm_count <= 0 || m <= 0 || n <= 0 || count <= 0)
    return 1.0;
  // CUTLASS/cuBLAS CTA tiles for bf16 tensor-core GEMMs: 128 x 256, 256 x 128, 128 x 128.
  constexpr GemmTile kTiles[] = {{128, 256}, {256, 128}, {128, 128}};
  const double sms = static_cast<double>(sm_count);
  double best = 0;
  for (const GemmTile &t : kTiles) {
    const double tiles = std::ceil(m / t.m) * std::ceil(n / t.n) * count;
    const double waves = std::ceil(tiles / sms);
    best = std::max(best, m * n * count / (waves * sms * t.m * t.n));
  }
  return std::min(1.0, best);
}

double base_gemm_efficiency(const HardwareSpec &hw, Dtype precision) {
  if (is_fp4(precision) && hw.gemm_efficiency_fp4 > 0)
    return hw.gemm_efficiency_fp4;
  return is_scaled_float(precision) && hw.gemm_efficiency_fp8 > 0 ? hw.gemm_efficiency_fp8
                                                                  : hw.gemm_efficiency;
}

double gemm_shape_efficiency(const HardwareSpec &hw, Dtype precision, double m, double k, double n,
                             double count) {
  // gemm_k_half is given for bf16; a tile's fixed overhead is a time, so in K-loop length it
  // grows with the tensor-core rate (FP8: twice the bf16 K per second).
  const double rate = hw.peak.bf16 > 0 ? peak_flops(hw, precision) / hw.peak.bf16 : 1.0;
  const double k_half = hw.gemm_k_half * rate;
  const double reduction = k_half > 0 ? k / (k + k_half) : 1.0;
  return base_gemm_efficiency(hw, precision) * wave_utilization(m, n, count, hw.sm_count) *
         reduction;
}

double serving_gemm_efficiency(const HardwareSpec &hw, Dtype precision) {
  return base_gemm_efficiency(hw, precision) / (1 + hw.compute_overhead);
}

} // namespace rl
