// ridgeline parallel: the pipeline schedule as a timeline (the page's Gantt panel draws it).
// Each device runs its passes in Megatron's order (GPipe: all forwards then all backwards;
// 1F1B: p-j-1 warm-up forwards, then one forward / one backward; interleaved: warm-up
// 2(p-j-1) + (v-1)p model-chunk forwards, chunks in groups of p micro-batches); a pass starts
// when its device is free and its input has arrived. Forward = 1 unit, backward = 2 units
// (backward FLOPs = 2 x forward, docs/formulas.md); a model chunk of an interleaved stage takes
// 1/v.
#pragma once

#include "core/config.hpp"

#include <string>
#include <vector>

namespace rl {

// Forward passes stage j runs before its first backward (Megatron-LM's schedules): GPipe all
// m; 1F1B min(p - j - 1, m); interleaved min(2 (p - j - 1) + (v - 1) p, m v) model-chunk
// forwards; DualPipe p and DualPipeV 2p chunk forwards on every device (DeepSeek's
// dualpipe.py / dualpipev.py, steps 1 and 2). The activation memory of a stage holds these plus the
// one in flight (core/memory/activations.cpp).
i64 warmup_forwards(PpSchedule schedule, i64 p, i64 v, i64 m, i64 stage);

struct PipePass {
  i64 stage = 0, microbatch = 0, chunk = 0;
  bool backward = false; // the backward pass (DualPipe's zero-bubble ones: the input gradient)
  bool weight = false;   // DualPipe's deferred weight gradient of an earlier backward
  double start = 0, end = 0;
};

struct PipeTimeline {
  i64 stages = 1, chunks = 1, microbatches = 1;
  std::vector<PipePass> passes;
  double makespan = 0;
  double busy_per_stage = 0; // m x (forward + backward)
  std::string error;         // set when the schedule cannot be built (e.g. m % p for interleaved)
  // Idle share of a stage's time line relative to its busy time: (makespan - busy) / busy.
  double bubble_fraction() const {
    return busy_per_stage > 0 ? (makespan - busy_per_stage) / busy_per_stage : 0;
  }
};

inline constexpr double kForwardUnits = 1.0, kBackwardUnits = 2.0;

// `backward_units`: a backward pass in forward passes (a fine-tune over a frozen base: its
// step model's t_bwd / t_fwd, near 1 without weight gradients). `weight_units`: of it, the
// weight gradients DualPipe's zero-bubble steps defer (the GEMMs' second backward half: 1 of
// 2 when the layer is all GEMMs); other schedules run the backward whole.
// DualPipe and DualPipeV: rank r's eight steps as DeepSeek's dualpipe.py / dualpipev.py run
// them (warm-up forwards of its first chunk, forward pairs, zero-bubble backward + weight +
// forward, the main forward-backward pairs, then the drain and the deferred weights), rows
// the p ranks, each with its two chunks (DualPipe: micro-batches m/2 .. m - 1 come from the
// far end). A forward and a backward run together take their sum: what the pairing hides is
// communication, which the timeline does not draw.
PipeTimeline simulate_pipeline(PpSchedule schedule, i64 stages, i64 chunks, i64 microbatches,
                               double backward_units = kBackwardUnits,
                               double weight_units = kBackwardUnits / 2);

// docs/formulas.md: bubble fraction (p - 1) / (v * m).
inline double bubble_fraction_formula(i64 p, i64 v, i64 m) {
  return m > 0 && v > 0 ? static_cast<double>(p - 1) / static_cast<double>(v * m) : 0;
}

} // namespace rl
