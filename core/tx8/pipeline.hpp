// ridgeline tx8: the pipeline building block of every mapper (docs/formulas.md (tx8)). A mapping is
// a sequence of rounds, each with a load l, a compute c and a store s. Double-buffered:
//   T = l_1 + sum_{i>=2} max(l_i + s_{i-1}, c_{i-1}) + c_n + s_n
// (the store of a round streams out while the next load shares the DMA); without room for
// double buffering T = sum(l + c + s). Long sequences are kept as run summaries (first and
// last round, the sum over consecutive pairs) so a mapping with 10^5 rounds costs O(1).
#pragma once

#include <vector>

namespace rl::tx8 {

struct Round {
  double load = 0, compute = 0, store = 0; // s: DMA in, the tiles' round time, DMA out
  double busy = 0;  // s of arithmetic inside `compute` (the rest waits on the NoC)
  double noc = 0;   // s the NoC links carry data in this round
  double bytes = 0; // DRAM bytes moved (in + out)
};

// A run of rounds in order.
struct Seq {
  double count = 0;  // rounds
  Round first, last; // valid when count > 0
  double pairs = 0;  // sum over consecutive rounds of max(l_i + s_{i-1}, c_{i-1})
  // Sums over the rounds.
  double load = 0, compute = 0, store = 0, busy = 0, noc = 0, bytes = 0;
};

Seq seq_of(const Round &r);
// a followed by b.
Seq then(const Seq &a, const Seq &b);
// s repeated n times (n >= 0).
Seq repeat(const Seq &s, double n);

// docs/formulas.md (tx8): double-buffered latency of a sequence (0 for an empty one).
double double_buffered_s(const Seq &s);
// docs/formulas.md (tx8): serial latency sum(l + c + s).
double serial_s(const Seq &s);

// The same two formulas on an explicit list of rounds (tests check the run algebra).
double double_buffered_s(const std::vector<Round> &rounds);
double serial_s(const std::vector<Round> &rounds);

} // namespace rl::tx8
