#include "core/time/loss_and_routing.hpp"

namespace rl {

LossBytes cross_entropy_bytes(double logits, bool fused) {
  if (fused)
    return {4 * logits, 4 * logits};
  return {(6 + 4 + 8 + 8 + 4 + 8) * logits, (8 + 6) * logits};
}

double moe_routing_bytes(double tok, double h, double routed, double experts, bool chunk_sort) {
  const double router = 16 * tok * experts;
  const double permute = 2 * routed * h + 2 * routed * h;
  const double unpermute = 2 * routed * h + 2 * tok * h + 2 * tok * h;
  const double sort = chunk_sort ? 2 * (4 * routed * h) : 0.0;
  return router + permute + unpermute + sort;
}

double dispatch_wire_bytes(const WorkloadSpec &w) {
  if (!w.moe_fp8_dispatch || !is_scaled_float(w.precision))
    return 2;
  const bool blockwise = w.precision == Dtype::fp8 && w.fp8_recipe == Fp8Recipe::blockwise;
  return blockwise ? 1 + 4.0 / 128 : 1 + 1.0 / 32;
}

} // namespace rl
