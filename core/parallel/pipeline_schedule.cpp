#include "core/parallel/pipeline_schedule.hpp"

#include <algorithm>

namespace rl {

i64 warmup_forwards(PpSchedule schedule, i64 p, i64 v, i64 m, i64 stage) {
  switch (schedule) {
  case PpSchedule::gpipe:
    return m;
  case PpSchedule::one_f_one_b:
    return std::min(p - stage - 1, m);
  case PpSchedule::interleaved:
    return std::min((p - stage - 1) * 2 + (v - 1) * p, m * v);
  // DualPipe (dualpipe.py, steps 1-2): 2 (p/2 - r - 1) + 2 (r + 1) = p chunk forwards on every
  // rank r of the mirrored half, a micro-batch one chunk of the device; DualPipeV
  // (dualpipev.py): 2 (p - r - 1) + 2 (r + 1) = 2p, a micro-batch both chunks
  case PpSchedule::dualpipe:
    return std::min(p, m);
  case PpSchedule::dualpipev:
    return std::min(2 * p, 2 * m);
  }
  return 0;
}

namespace {

struct Op {
  i64 microbatch, chunk;
  bool backward;
};

// The order in which stage j runs its passes (Megatron-LM's schedules).
std::vector<Op> stage_order(PpSchedule s, i64 p, i64 v, i64 m, i64 j) {
  std::vector<Op> ops;
  if (s == PpSchedule::gpipe) {
    for (i64 i = 0; i < m; ++i)
      ops.push_back({i, 0, false});
    for (i64 i = 0; i < m; ++i)
      ops.push_back({i, 0, true});
    return ops;
  }
  if (s == PpSchedule::one_f_one_b || v == 1) {
    const i64 warmup = warmup_forwards(PpSchedule::one_f_one_b, p, 1, m, j);
    for (i64 i = 0; i < warmup; ++i)
      ops.push_back({i, 0, false});
    for (i64 i = 0; i < m - warmup; ++i) {
      ops.push_back({warmup + i, 0, false});
      ops.push_back({i, 0, true});
    }
    for (i64 i = m - warmup; i < m; ++i)
      ops.push_back({i, 0, true});
    return ops;
  }
  // Interleaved: virtual micro-batch k -> (micro-batch, chunk), groups of p micro-batches.
  const i64 total = m * v;
  auto fwd = [&](i64 k) { return Op{(k / (p * v)) * p + k % p, (k % (p * v)) / p, false}; };
  auto bwd = [&](i64 k) { return Op{(k / (p * v)) * p + k % p, v - 1 - (k % (p * v)) / p, true}; };
  const i64 warmup = warmup_forwards(PpSchedule::interleaved, p, v, m, j);
  for (i64 k = 0; k < warmup; ++k)
    ops.push_back(fwd(k));
  for (i64 i = 0; i < total - warmup; ++i) {
    ops.push_back(fwd(warmup + i));
    ops.push_back(bwd(i));
  }
  for (i64 k = total - warmup; k < total; ++k)
    ops.push_back(bwd(k));
  return ops;
}

} // namespace

PipeTimeline simulate_pipeline(PpSchedule schedule, i64 p, i64 v, i64 m, double backward_units) {
  PipeTimeline t;
  if (schedule != PpSchedule::interleaved)
    v = 1;
  t.stages = p;
  t.chunks = v;
  t.microbatches = m;
  if (p < 1 || v < 1 || m < 1) {
    t.error = "needs pp, vpp and micro-batches >= 1";
    return t;
  }
  if (schedule == PpSchedule::dualpipe || schedule == PpSchedule::dualpipev) {
    t.error = "the DualPipe schedules' timeline is not drawn: their bubble is DeepSeek-V3's "
              "(p/2 - 1)(F&B + B - 3W) (Table 2)";
    return t;
  }
  if (schedule == PpSchedule::interleaved && m % p != 0) {
    t.error = "interleaving needs micro-batches to be a multiple of pp";
    return t;
  }
  const double f = kForwardUnits / static_cast<double>(v);
  const double b = backward_units / static_cast<double>(v);
  t.busy_per_stage = static_cast<double>(m) * (kForwardUnits + backward_units);

  // end[kind][stage][chunk][microbatch], -1 = not run yet.
  const auto idx = [&](bool bw, i64 j, i64 c, i64 i) {
    return static_cast<std::size_t>((((bw ? 1 : 0) * p + j) * v + c) * m + i);
  };
  std::vector<double> end(static_cast<std::size_t>(2 * p * v * m), -1.0);
  std::vector<std::vector<Op>> order;
  for (i64 j = 0; j < p; ++j)
    order.push_back(stage_order(schedule, p, v, m, j));
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free_at(static_cast<std::size_t>(p), 0.0);

  // The pass this one waits for: the previous stage (forward) or the next one (backward);
  // chunks chain from the last stage back to the first.
  const auto dependency = [&](const Op &o, i64 j) -> double {
    if (!o.backward) {
      if (j > 0)
        return end[idx(false, j - 1, o.chunk, o.microbatch)];
      if (o.chunk > 0)
        return end[idx(false, p - 1, o.chunk - 1, o.microbatch)];
      return 0.0;
    }
    if (j < p - 1)
      return end[idx(true, j + 1, o.chunk, o.microbatch)];
    if (o.chunk < v - 1)
      return end[idx(true, 0, o.chunk + 1, o.microbatch)];
    return end[idx(false, p - 1, v - 1, o.microbatch)];
  };

  std::size_t remaining = static_cast<std::size_t>(2 * p * v * m);
  bool progress = true;
  while (remaining > 0 && progress) {
    progress = false;
    for (i64 j = 0; j < p; ++j) {
      auto &ops = order[static_cast<std::size_t>(j)];
      auto &n = next[static_cast<std::size_t>(j)];
      while (n < ops.size()) {
        const Op &o = ops[n];
        const double dep = dependency(o, j);
        if (dep < 0)
          break;
        PipePass pass;
        pass.stage = j;
        pass.microbatch = o.microbatch;
        pass.chunk = o.chunk;
        pass.backward = o.backward;
        pass.start = std::max(free_at[static_cast<std::size_t>(j)], dep);
        pass.end = pass.start + (o.backward ? b : f);
        free_at[static_cast<std::size_t>(j)] = pass.end;
        end[idx(o.backward, j, o.chunk, o.microbatch)] = pass.end;
        t.makespan = std::max(t.makespan, pass.end);
        t.passes.push_back(pass);
        ++n;
        --remaining;
        progress = true;
      }
    }
  }
  if (remaining > 0)
    t.error = "schedule deadlocked (internal error)";
  return t;
}

} // namespace rl
