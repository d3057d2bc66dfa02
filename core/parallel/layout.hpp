// ridgeline parallel: a complete parallel layout (every knob decided) and its legality.
#pragma once

#include "core/config.hpp"

#include <string>
#include <vector>

namespace rl {

struct Layout {
  i64 dp = 1, tp = 1, pp = 1, vpp = 1;
  i64 cp = 1;      // total sequence-parallel degree (ring x Ulysses)
  i64 ulysses = 1; // Ulysses part of cp
  i64 ring = 1;    // ring part of cp
  i64 ep = 1, zero = 0;
  i64 microbatch = 1; // sequences per micro-batch (b)
  i64 num_micro = 1;  // micro-batches per pipeline per step (m = B / (dp * b))
  bool sp = false, flash = true, uneven_pp = false;
  bool overlap_tp = false, overlap_dp = true, overlap_pp = false;
  std::vector<std::string> order{"tp", "cp", "dp", "pp"}; // innermost first
  CpKind cp_kind = CpKind::ring;
  Recompute recompute = Recompute::none;
  PpSchedule schedule = PpSchedule::one_f_one_b;
  i64 devices() const { return dp * tp * pp * cp; }
};

// Fills every knob left out (tp, pp, cp, ep 1; dp = devices / (tp*pp*cp); zero 0; sp when
// tp > 1; FlashAttention on; no recompute; 1F1B, interleaved when vpp > 1) and checks
// legality. Throws ConfigError naming the field and the numbers.
Layout resolve_layout(const Config &c);

// Why `value` for the integer knob `knob` (tp, pp, vpp, cp, ulysses, ep, microbatch) would
// make c's layout illegal: resolve_layout's own message, or "" when legal. dp follows the
// other knobs (a pinned dp is released) so that each knob can be judged on its own.
std::string knob_error(const Config &c, const std::string &knob, i64 value);

// Distance in device order between neighbours of one axis ("tp", "cp", "dp", "pp"): the
// product of the degrees of the axes placed inside it.
i64 axis_stride(const Layout &l, const std::string &axis);

// Query heads, and KV heads, one TP rank holds (KV heads replicated when tp > kv_heads).
i64 heads_per_rank(const ModelSpec &m, i64 tp);
i64 kv_heads_per_rank(const ModelSpec &m, i64 tp);

// Transformer layers held by each pipeline stage (uneven: the first L % p stages get one more).
std::vector<i64> stage_layer_counts(i64 layers, i64 pp);
// Layer indices held by pipeline stage j (interleaved: chunks j, j+p, j+2p, ...).
std::vector<i64> stage_layers(i64 layers, const Layout &l, i64 stage);

} // namespace rl
