#include "core/parallel/pipeline_schedule.hpp"

#include <algorithm>
#include <array>

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

// DualPipe's ops on one rank: its two chunks (0: the rank's position h in its direction, 1:
// position 2n - 1 - h), n the V's ranks or DualPipe's half of them, mc the micro-batches
// through each chunk (dualpipe.py / dualpipev.py step(), steps 1-8).
struct DualOp {
  enum Kind { forward, backward, weight } kind;
  int chunk;
  bool zero_bubble;    // a backward of the input gradient only, its weight gradient deferred
  bool paired = false; // a forward run together with the backward after it (F&B): both
                       // inputs received first, both outputs sent after
};

std::vector<DualOp> dual_order(i64 n, i64 h, i64 mc, bool last) {
  std::vector<DualOp> o;
  const auto f = [&](int c) { o.push_back({DualOp::forward, c, false}); };
  const auto fb = [&](int c, int cb) {
    o.push_back({DualOp::forward, c, false, true});
    o.push_back({DualOp::backward, cb, false});
  };
  const auto b = [&](int c, bool zb) { o.push_back({DualOp::backward, c, zb}); };
  const auto w = [&] { o.push_back({DualOp::weight, -1, false}); };
  for (i64 i = 0; i < 2 * (n - h - 1); ++i) // 1: warm-up forwards of chunk 0
    f(0);
  for (i64 i = 0; i < h + 1; ++i) { // 2: forward pairs
    f(0);
    f(1);
  }
  for (i64 i = 0; i < n - h - 1; ++i) { // 3: zero-bubble backward, its weight, a forward
    b(1, true);
    w();
    f(1);
  }
  for (i64 i = 0; i < mc - 2 * n + h + 1; ++i) { // 4: the main forward-backward pairs
    if (i == 0 && last) { // the rank where the V turns (DualPipe's middle): not overlapped
      f(0);
      b(1, false);
    } else {
      fb(0, 1);
    }
    fb(1, 0);
  }
  for (i64 i = 0; i < n - h - 1; ++i) { // 5
    b(1, false);
    fb(1, 0);
  }
  const i64 half = (h + 1) / 2; // 6: the drain, its second half zero-bubble
  for (i64 i = 0; i < h + 1; ++i) {
    b(1, i > half || (i == half && h % 2 == 1));
    b(0, i >= half);
  }
  for (i64 i = 0; i < n - h - 1; ++i) { // 7
    w();
    b(0, true);
  }
  for (i64 i = 0; i < h + 1; ++i) // 8: the deferred weights
    w();
  return o;
}

PipeTimeline simulate_dualpipe(PpSchedule schedule, i64 p, i64 m, double backward_units,
                               double weight_units) {
  PipeTimeline t;
  t.stages = p;
  t.chunks = 2;
  t.microbatches = m;
  const bool v = schedule == PpSchedule::dualpipev;
  if (p < 2 || (!v && p % 2 != 0) || m < 2 * p || (!v && m % 2 != 0)) {
    t.error = v ? "DualPipeV needs pp >= 2 and micro-batches >= 2 x pp"
                : "DualPipe needs an even pp and an even number of micro-batches >= 2 x pp";
    return t;
  }
  // S positions a direction; the V one direction of 2p, DualPipe two of p, each m/2
  const i64 n = v ? p : p / 2, positions = 2 * n, dirs = v ? 1 : 2, mc = v ? m : m / 2;
  // a chunk runs half a micro-batch's pass on the V's device, all of it on DualPipe's
  const double per = v ? 0.5 : 1.0;
  const double f = kForwardUnits * per, b = backward_units * per,
               w = std::min(weight_units, backward_units) * per;
  t.busy_per_stage = static_cast<double>(m) * (kForwardUnits + backward_units);
  // end[F/B][dir][pos][i], -1 = not run yet
  const auto idx = [&](bool bw, i64 dir, i64 pos, i64 i) {
    return static_cast<std::size_t>((((bw ? 1 : 0) * dirs + dir) * positions + pos) * mc + i);
  };
  std::vector<double> end(static_cast<std::size_t>(2 * dirs * positions * mc), -1.0);
  struct Rank {
    std::vector<DualOp> ops;
    std::size_t next = 0;
    double free_at = 0;
    i64 dir[2], pos[2], fwd[2] = {0, 0}, bwd[2] = {0, 0};
    std::vector<std::array<i64, 3>> deferred; // (dir, pos, i) awaiting their weight pass
    std::size_t weights = 0;
  };
  std::vector<Rank> ranks(static_cast<std::size_t>(p));
  for (i64 r = 0; r < p; ++r) {
    Rank &k = ranks[static_cast<std::size_t>(r)];
    const i64 h = v ? r : std::min(r, p - 1 - r);
    k.ops = dual_order(n, h, mc, h == n - 1);
    k.dir[0] = v || r < n ? 0 : 1; // DualPipe: chunk 0 in the direction the rank starts
    k.dir[1] = v ? 0 : 1 - k.dir[0];
    k.pos[0] = h;
    k.pos[1] = 2 * n - 1 - h;
  }
  std::size_t remaining = 0;
  for (const Rank &k : ranks)
    remaining += k.ops.size();
  bool progress = true;
  while (remaining > 0 && progress) {
    progress = false;
    for (i64 r = 0; r < p; ++r) {
      Rank &k = ranks[static_cast<std::size_t>(r)];
      while (k.next < k.ops.size()) {
        // what an op computes: (dir, position, micro-batch), when its input is there (-1: not
        // yet), its length; nothing is taken until it runs
        struct Step {
          std::array<i64, 3> at{};
          double dep = 0, length = 0;
        };
        const auto look = [&](const DualOp &o) {
          Step x;
          if (o.kind == DualOp::weight) {
            x.at = k.deferred[k.weights];
            x.length = w;
            return x;
          }
          const bool bw = o.kind == DualOp::backward;
          const i64 dir = k.dir[o.chunk], pos = k.pos[o.chunk];
          const i64 i = bw ? k.bwd[o.chunk] : k.fwd[o.chunk];
          x.at = {dir, pos, i};
          if (!bw)
            x.dep = pos > 0 ? end[idx(false, dir, pos - 1, i)] : 0.0;
          else
            x.dep = pos < positions - 1 ? end[idx(true, dir, pos + 1, i)]
                                        : end[idx(false, dir, positions - 1, i)];
          x.length = !bw ? f : o.zero_bubble ? b - w : b;
          return x;
        };
        const DualOp &o = k.ops[k.next];
        if (o.kind == DualOp::weight && k.weights >= k.deferred.size()) {
          t.error = "DualPipe: a weight pass before its backward (internal error)";
          return t;
        }
        const std::size_t count = o.paired ? 2 : 1;
        Step steps[2] = {look(o), {}};
        if (o.paired)
          steps[1] = look(k.ops[k.next + 1]);
        if (steps[0].dep < 0 || steps[1].dep < 0)
          break;
        double at = std::max({k.free_at, steps[0].dep, steps[1].dep});
        const double done = at + steps[0].length + steps[1].length; // a pair's outputs go together
        for (std::size_t q = 0; q < count; ++q) {
          const DualOp &op = k.ops[k.next + q];
          const Step &x = steps[q];
          PipePass pass;
          pass.stage = r;
          pass.backward = op.kind == DualOp::backward;
          pass.weight = op.kind == DualOp::weight;
          if (pass.weight)
            ++k.weights;
          else
            (pass.backward ? k.bwd : k.fwd)[op.chunk] += 1;
          if (pass.backward && op.zero_bubble)
            k.deferred.push_back(x.at);
          pass.chunk = x.at[0] == k.dir[1] && x.at[1] == k.pos[1] ? 1 : 0;
          pass.microbatch = x.at[2] + x.at[0] * mc; // DualPipe's second direction: m/2 on
          pass.start = at;
          pass.end = at + x.length;
          at = pass.end;
          if (!pass.weight)
            end[idx(pass.backward, x.at[0], x.at[1], x.at[2])] = o.paired ? done : pass.end;
          t.passes.push_back(pass);
        }
        k.free_at = at;
        t.makespan = std::max(t.makespan, at);
        k.next += count;
        remaining -= count;
        progress = true;
      }
    }
  }
  if (remaining > 0)
    t.error = "schedule deadlocked (internal error)";
  return t;
}

} // namespace

PipeTimeline simulate_pipeline(PpSchedule schedule, i64 p, i64 v, i64 m, double backward_units,
                               double weight_units) {
  if (is_dualpipe(schedule))
    return simulate_dualpipe(schedule, p, m, backward_units, weight_units);
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
