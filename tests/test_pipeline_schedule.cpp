// The pipeline schedule simulator (core/parallel/pipeline_schedule.cpp) the page draws,
// against Narayanan et al. 2021's bubble formula and the activation memory's warm-up rule.
#include "core/memory/activations.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "helpers.hpp"

#include <algorithm>
#include <array>
#include <map>

using namespace rl;

namespace {
// The most forward passes a stage has run whose backward has not finished, at any moment.
i64 max_in_flight(const PipeTimeline &t, i64 stage) {
  std::vector<std::pair<double, int>> events; // (time, +1 forward start / -1 backward end)
  for (const PipePass &p : t.passes)
    if (p.stage == stage && !p.weight)
      events.push_back(p.backward ? std::make_pair(p.end, -1) : std::make_pair(p.start, +1));
  std::sort(events.begin(), events.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second; // ends first
  });
  i64 now = 0, most = 0;
  for (const auto &e : events)
    most = std::max(most, now += e.second);
  return most;
}
} // namespace

TEST_CASE("Pipeline schedules: the simulated bubble is Narayanan's (p - 1) / (v m)", "[pipeline]") {
  // Narayanan et al. 2021 sec. 2.2: 1F1B bubble (p - 1) / m, interleaved (p - 1) / (v m)
  for (const auto &[p, v, m] : std::vector<std::array<i64, 3>>{
           {2, 1, 8}, {4, 1, 8}, {8, 1, 32}, {4, 2, 8}, {4, 4, 16}, {8, 2, 16}}) {
    const PpSchedule s = v > 1 ? PpSchedule::interleaved : PpSchedule::one_f_one_b;
    const PipeTimeline t = simulate_pipeline(s, p, v, m);
    INFO("p " << p << " v " << v << " m " << m);
    REQUIRE(t.error.empty());
    CHECK(t.passes.size() == static_cast<std::size_t>(2 * p * v * m));
    CHECK(t.bubble_fraction() == Approx(bubble_fraction_formula(p, v, m)));
  }
  // GPipe: all forwards, then all backwards: (m + p - 1) x 3 units
  const PipeTimeline g = simulate_pipeline(PpSchedule::gpipe, 4, 1, 8);
  CHECK(g.makespan == Approx((8 + 4 - 1) * 3.0));
  // interleaving needs m to be a multiple of p (Megatron-LM asserts it)
  CHECK_FALSE(simulate_pipeline(PpSchedule::interleaved, 4, 2, 6).error.empty());
}

TEST_CASE("The activation memory's micro-batches in flight are the simulator's", "[pipeline]") {
  // core/memory/activations.cpp keeps warm-up + 1 chunks per stage: the most forwards the
  // simulated schedule has outstanding on that stage
  for (const auto &[p, v, m] :
       std::vector<std::array<i64, 3>>{{4, 1, 8}, {8, 1, 4}, {4, 2, 8}, {4, 3, 12}, {2, 1, 1}}) {
    Layout l;
    l.pp = p;
    l.vpp = v;
    l.num_micro = m;
    l.schedule = v > 1 ? PpSchedule::interleaved : PpSchedule::one_f_one_b;
    const PipeTimeline t = simulate_pipeline(l.schedule, p, v, m);
    REQUIRE(t.error.empty());
    for (i64 j = 0; j < p; ++j) {
      INFO("p " << p << " v " << v << " m " << m << " stage " << j);
      CHECK(chunks_in_flight(l, j) == static_cast<double>(max_in_flight(t, j)));
    }
  }
  Layout g;
  g.pp = 4;
  g.num_micro = 8;
  g.schedule = PpSchedule::gpipe;
  CHECK(chunks_in_flight(g, 0) ==
        static_cast<double>(max_in_flight(simulate_pipeline(PpSchedule::gpipe, 4, 1, 8), 0)));
}

TEST_CASE("DualPipe's timeline: DeepSeek-V3's bubble and p + 1 stages in flight", "[pipeline]") {
  // DualPipe's README (Table 2 of DeepSeek-V3): bubble (S/2 - 1)(F&B + B - 3W) in chunk times,
  // S stages; activations S + 1 stages on every device. Chunk times: DualPipe's stage F 1, B 2,
  // W 1 (forward = 1, backward = 2 x forward, half of it weight gradients); the V's half-stage
  // half of those. F&B computes F + B.
  for (const auto &[p, m] : std::vector<std::array<i64, 2>>{{4, 8}, {4, 20}, {8, 20}, {8, 32}}) {
    for (const PpSchedule s : {PpSchedule::dualpipe, PpSchedule::dualpipev}) {
      const bool v = s == PpSchedule::dualpipev;
      const PipeTimeline t = simulate_pipeline(s, p, 1, m);
      INFO("p " << p << " m " << m << (v ? " dualpipev" : " dualpipe"));
      REQUIRE(t.error.empty());
      // every micro-batch's forward and backward through each of its S stages, and the
      // weight passes of the zero-bubble backwards
      i64 fwd = 0, bwd = 0, wgt = 0;
      for (const PipePass &x : t.passes)
        (x.weight ? wgt : x.backward ? bwd : fwd) += 1;
      const i64 stages = v ? 2 * p : p, per_dir = v ? m : m / 2, dirs = v ? 1 : 2;
      CHECK(fwd == stages * per_dir * dirs);
      CHECK(bwd == fwd);
      CHECK(wgt > 0);
      const double c = v ? 0.5 : 1.0; // a chunk's share of the micro-batch's pass
      const double F = c, B = 2 * c, W = c;
      const double bubble = (static_cast<double>(stages) / 2 - 1) * ((F + B) + B - 3 * W);
      CHECK(t.makespan - t.busy_per_stage == Approx(bubble));
      Layout l;
      l.pp = p;
      l.num_micro = m;
      l.schedule = s;
      for (i64 j = 0; j < p; ++j) {
        INFO("rank " << j);
        CHECK(max_in_flight(t, j) == stages + 1);
        CHECK(chunks_in_flight(l, j) == static_cast<double>(max_in_flight(t, j)));
      }
    }
  }
  // dualpipe.py: num_ranks % 2 == 0 and num_chunks >= num_ranks * 2, even
  CHECK_FALSE(simulate_pipeline(PpSchedule::dualpipe, 3, 1, 12).error.empty());
  CHECK_FALSE(simulate_pipeline(PpSchedule::dualpipe, 4, 1, 6).error.empty());
  CHECK_FALSE(simulate_pipeline(PpSchedule::dualpipev, 4, 1, 7).error.empty());
}
