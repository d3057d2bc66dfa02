// ridgeline tx8: what every mapper returns, and how a dimension is cut into blocks.
#pragma once

#include "core/config.hpp"
#include "core/tx8/pipeline.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace rl::tx8 {

// The cost of one mapped operator on one die. Seconds and bytes.
struct OpCost {
  double latency = 0;          // double-buffered pipeline (docs/formulas.md (tx8))
  double serial_latency = 0;   // the same rounds without double buffering
  double compute_time = 0;     // arithmetic of one tile (all tiles run in parallel)
  double dram_time = 0;        // DMA busy time, loads + stores, latencies included
  double noc_time = 0;         // NoC link busy time
  double dram_bytes = 0;       // bytes between DRAM and SRAM, every byte counted
  double compulsory_bytes = 0; // inputs read once + outputs written once
  double flops = 0;            // useful matmul FLOPs (2 per multiply-add)
  double vector_ops = 0;       // useful vector-unit ops
  double utilization = 0;      // flops/(latency*T*F_g); vector ops: ops/(latency*T*F_v)
  double sram_bytes = 0;       // per tile, of the chosen tiling
  double rounds = 0;           // pipeline rounds
};

// Bounded work (counts, no clock): a dimension offers at most kMaxTileCandidates tile
// sizes (beyond that a ladder, see tile_candidates), and one operator's search looks at
// most at kMaxSearchCandidates tilings and fully evaluates at most kMaxSearchEvaluations of
// them; the rest are counted as skipped.
constexpr i64 kMaxTileCandidates = 128;
constexpr i64 kMaxSearchCandidates = 1'000'000;
constexpr i64 kMaxSearchEvaluations = 100'000; // full cost evaluations (the expensive step)

// The work one operator's search may do; the defaults are the limits above, a caller may
// give less (a quicker, possibly worse answer, with the rest counted as skipped).
struct SearchBudget {
  i64 candidates = kMaxSearchCandidates;
  i64 evaluations = kMaxSearchEvaluations;
};

// How the search went: candidates enumerated, rejected by SRAM before evaluation, cut by
// the lower bound before evaluation, fully evaluated; tilings of the full space never
// looked at (thinned ladders, the candidate budget; a double: the space may pass 2^63).
// No wall time: the core keeps no clock (the CLI and the page time the whole search).
struct SearchStats {
  i64 candidates = 0, pruned_sram = 0, pruned_bound = 0, evaluated = 0;
  double skipped = 0;
};

// One operator mapped, as the request and the CLI show it.
struct OpMapping {
  std::string type;                              // gemm | vector | flash_attention
  std::string shape;                             // "M 108000 K 1152 N 3456"
  std::vector<std::pair<std::string, i64>> dims; // the same numbers, keyed
  std::string variant;                           // input-stationary, order a, ...
  std::vector<std::pair<std::string, i64>> tile; // tm/tn/tk, rows, tx/ty/heads_fused/pack
  std::string tiling;                            // "input-stationary Tm 256 Tn 64 Tk 1152"
  OpCost cost;
  SearchStats search;
};

// Fills the derived fields of a cost from a pipeline sequence.
OpCost cost_of(const Seq &s);

// A list of at most N values kept inline, without the heap: the searches build these for
// every candidate tiling, so the search allocates nothing per candidate.
template <class T, std::size_t N> class InlineList {
public:
  void push_back(const T &v) { items_[size_++] = v; } // callers stay within N (see below)
  const T *begin() const { return items_.data(); }
  const T *end() const { return items_.data() + size_; }
  std::size_t size() const { return size_; }
  const T &operator[](std::size_t i) const { return items_[i]; }

private:
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

// One run of equal blocks along a dimension: `size` elements per block (the whole die),
// `per_tile` of them on the busiest tile, `count` blocks.
struct Part {
  i64 size = 0, per_tile = 0;
  double count = 0;
};
// `total` cut into super-blocks of tiles*tile elements, tile elements per tile; the
// remainder super-block is spread evenly over the tiles and goes first (so a new tiny
// block never ends the pipeline, and latency never falls as a dimension grows).
// At most two runs: the remainder and the full super-blocks.
using Parts = InlineList<Part, 2>;
Parts split_blocks(i64 total, i64 tile, i64 tiles);
i64 block_count(const Parts &parts);
i64 max_per_tile(const Parts &parts);

// The blocks in order with the first and the last one marked (K chunks: partial sums;
// KV blocks: Q loads and O stores).
struct Run {
  Part part;
  double count = 0;
  bool first = false, last = false;
};
// At most four: the first part's first block and middle, the second part's middle and last.
using Runs = InlineList<Run, 4>;
Runs with_ends(const Parts &parts);

// Tile sizes the search tries along a dimension whose per-tile share is at most `full`:
// multiples of the granule below it, and `full` itself (rounded-up tiles, not divisors).
// When there are more than `cap`, the list is thinned before it is built: every multiple up
// to cap/4 granules, then a geometric ladder of granule multiples up to `full`.
std::vector<i64> tile_candidates(i64 full, i64 granule, i64 cap = kMaxTileCandidates);
// How many sizes the unthinned list has: ceil(full / granule).
double tile_candidate_space(i64 full, i64 granule);

} // namespace rl::tx8
