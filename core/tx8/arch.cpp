#include "core/tx8/arch.hpp"

#include "core/error.hpp"

#include <cmath>
#include <cstdio>

namespace rl::tx8 {

const Tx8Spec &arch_of(const HardwareSpec &h, const std::string &path) {
  if (!h.tx8)
    throw ConfigError(path, "\"" + h.name + "\" has no tx8 figures (kind tx8 needed)");
  return *h.tx8;
}

i64 ceil_div(i64 a, i64 b) {
  return (a + b - 1) / b;
}
i64 round_up(i64 a, i64 g) {
  return ceil_div(a, g) * g;
}

// docs/formulas.md (tx8): DMA = L_d + bytes/B_d.
double dma_s(const Tx8Spec &a, double bytes) {
  return bytes > 0 ? a.dram_latency + bytes / a.dram_bw : 0.0;
}

// docs/formulas.md (tx8): NoC = hops*L_h + bytes/B_n.
double noc_s(const Tx8Spec &a, double bytes, i64 hops) {
  return static_cast<double>(hops) * a.hop_latency + bytes / a.noc_bw;
}

// docs/formulas.md (tx8): 2*Tm*Tk*Tn/(F_g*eta), eta = dims / padded dims.
double gemm_block_s(const Tx8Spec &a, i64 tm, i64 tk, i64 tn) {
  const i64 g = a.granule;
  return 2.0 * static_cast<double>(round_up(tm, g)) * static_cast<double>(round_up(tk, g)) *
         static_cast<double>(round_up(tn, g)) / a.gemm_flops;
}

// docs/formulas.md (tx8): eta = Tm*Tn*Tk / (each rounded up to the granule).
double gemm_efficiency(const Tx8Spec &a, i64 tm, i64 tk, i64 tn) {
  const i64 g = a.granule;
  return static_cast<double>(tm) / round_up(tm, g) * static_cast<double>(tk) / round_up(tk, g) *
         static_cast<double>(tn) / round_up(tn, g);
}

double die_gemm_flops(const Tx8Spec &a) {
  return static_cast<double>(a.tiles) * a.gemm_flops;
}
double die_vector_ops(const Tx8Spec &a) {
  return static_cast<double>(a.tiles) * a.vector_ops;
}

// docs/formulas.md (tx8): 128 TFLOP/s against 100 GB/s: ~1280 FLOP/byte to be compute-bound.
double ridge_flop_per_byte(const Tx8Spec &a) {
  return die_gemm_flops(a) / a.dram_bw;
}

// docs/formulas.md (tx8): 2*Tm*Tk*Tn/F_g >= Tk*Tn*e/B_n  <=>  Tm >= e*F_g/(2*B_n).
double gemm_noc_hidden_tm(const Tx8Spec &a) {
  return a.elem_bytes * a.gemm_flops / (2 * a.noc_bw);
}

// docs/formulas.md (tx8): T*Tk*Tn*e/B_d <= T*2*Tm*Tk*Tn/F_g  <=>  Tm >= e*F_g/(2*B_d).
double gemm_weight_hidden_tm(const Tx8Spec &a) {
  return a.elem_bytes * a.gemm_flops / (2 * a.dram_bw);
}

// docs/formulas.md (tx8): T^2*Tm*Tn*e/B_d <= T*2*Tm*Tn*K/F_g  <=>  K >= T*e*F_g/(2*B_d).
double gemm_output_hidden_k(const Tx8Spec &a) {
  return static_cast<double>(a.tiles) * a.elem_bytes * a.gemm_flops / (2 * a.dram_bw);
}

// docs/formulas.md (tx8): (4 + exp)*Tx*Ty/F_v over 4*Tx*Ty*d/F_g.
double attention_vector_gemm_ratio(const Tx8Spec &a, i64 head_dim) {
  return (4 + a.exp_ops) * a.gemm_flops / (4.0 * static_cast<double>(head_dim) * a.vector_ops);
}

std::string bytes_mib(double bytes) {
  const auto n = static_cast<long long>(std::llround(bytes));
  std::string digits = std::to_string(n), grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      grouped += ',';
    grouped += digits[i];
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, " B (%.2f MiB)", bytes / 1048576.0);
  return grouped + buf;
}

} // namespace rl::tx8
