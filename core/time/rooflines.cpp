#include "core/time/rooflines.hpp"

#include <cmath>

namespace rl {

double critical_batch_tokens(double peak_flops, double hbm_bw) {
  return peak_flops / hbm_bw;
}

double fsdp_min_tokens_per_chip(double peak_flops, double link_bidir_bw, double axes) {
  return peak_flops / (link_bidir_bw * axes);
}

double tp_max_degree(double ffn, double peak_flops, double link_bidir_bw) {
  return ffn / (peak_flops / link_bidir_bw);
}

double optimal_fsdp_degree(double batch_tokens, double chips, double ffn) {
  return std::sqrt(2 * batch_tokens * chips / ffn);
}

double training_seconds(double flops, double chips, double peak_flops, double mfu) {
  return flops / (chips * peak_flops * mfu);
}

} // namespace rl
