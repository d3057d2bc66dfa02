// The planner: legality and memory pruning, ranking, and pruning that never loses the best.
#include "helpers.hpp"

#include "core/planner/planner.hpp"

using namespace rl;
using nlohmann::json;

namespace {
Config small() {
  return io::parse_config(json::parse(R"({"model": "llama2-7b", "hardware": "a100-80gb",
    "cluster": {"base": "dgx-a100", "devices": 16, "devices_per_node": 8,
                "inter_node": {"bw": 25e9, "latency": 5e-6}},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096}})"));
}
} // namespace

TEST_CASE("Plans are legal, fit, ranked, and re-estimate to the same time", "[planner]") {
  const Config c = small();
  const PlanResult r = plan(c);
  REQUIRE(!r.plans.empty());
  i64 rejected = 0;
  for (const auto &[k, n] : r.rejected)
    rejected += n;
  CHECK(rejected + r.timed == r.candidates);
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const Plan &p = r.plans[i];
    CHECK(p.estimate.memory.fits);
    if (i > 0)
      CHECK(r.plans[i - 1].objective <= p.objective);
    Config x = c;
    x.parallel = p.parallel;
    CHECK(estimate(x).time.step == Approx(p.objective));
  }
  for (const auto &inf : r.infeasible) {
    CHECK(inf.kind == "memory");
    CHECK(inf.overflow > 0);
  }
}

TEST_CASE("Pruning never loses the best plan (exhaustive check on a small cluster)", "[planner]") {
  const Config c = small();
  const PlanResult r = plan(c, PlanOptions{1, 0});
  REQUIRE(r.plans.size() == 1);
  double best = 1e30;
  for (const i64 tp : {1, 2, 4, 8})
    for (const i64 pp : {1, 2, 4, 8, 16})
      for (const i64 vpp : {1, 2, 4})
        for (const i64 z : {0, 1, 2, 3})
          for (const i64 mb : {1, 2, 4, 8})
            for (const Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
              Config x = c;
              x.parallel.tp = tp;
              x.parallel.pp = pp;
              x.parallel.vpp = vpp;
              x.parallel.zero = z;
              x.parallel.microbatch = mb;
              x.parallel.recompute = rc;
              try {
                const Estimate e = estimate(x);
                if (e.memory.fits)
                  best = std::min(best, e.time.step);
              } catch (const ConfigError &) {
              }
            }
  CHECK(r.plans[0].objective == Approx(best));
}

TEST_CASE("Fixed knobs stay fixed; nothing fits gives reasons", "[planner]") {
  Config c = small();
  c.parallel.tp = 2;
  c.parallel.recompute = Recompute::full;
  for (const auto &p : plan(c).plans) {
    CHECK(*p.parallel.tp == 2);
    CHECK(*p.parallel.recompute == Recompute::full);
  }
  Config big = io::parse_config(json::parse(R"({"model": "llama3-405b", "hardware": "a100-40gb",
    "cluster": {"base": "dgx-a100", "devices": 8}, "workload": {"mode": "train",
    "global_batch": 8, "seq_len": 4096}})"));
  const PlanResult r = plan(big);
  CHECK(r.plans.empty());
  REQUIRE(!r.infeasible.empty());
  CHECK(r.infeasible[0].message.find("GB per device >") != std::string::npos);
  CHECK(r.rejected.at("memory") > 0);
}

TEST_CASE("planner: the stepped search (the page's, a frame at a time) equals plan()",
          "[planner]") {
  // The same search cut into small steps must find exactly what one call finds.
  const rl::Config c = rl::test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": "dgx-h100-1024", "workload": {"mode": "train", "global_batch": 1024,
    "seq_len": 8192}})");
  rl::PlanOptions o;
  o.top = 5;
  const rl::PlanResult whole = rl::plan(c, o);
  rl::PlanSearch s(c, o);
  int steps = 0;
  while (!s.step(2000))
    ++steps;
  const rl::PlanResult stepped = s.result();
  CHECK(steps > 10); // it really was spread out
  CHECK(stepped.candidates == whole.candidates);
  CHECK(stepped.space == whole.space);
  REQUIRE(stepped.plans.size() == whole.plans.size());
  for (std::size_t i = 0; i < whole.plans.size(); ++i)
    CHECK(stepped.plans[i].objective == whole.plans[i].objective);
  CHECK(s.progress() == Approx(1.0).margin(1e-12));
}

TEST_CASE("planner: objectives (time to train, cost) and their preconditions", "[planner]") {
  // LLaMA-3 70B on 1024 H100 (h100-sxm carries $3.00 per device-hour), 15T tokens as Meta
  // trained LLaMA-3 (Dubey et al. 2024).
  const char *base = R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": "dgx-h100-1024", "workload": {"mode": "train", "global_batch": 1024,
    "seq_len": 8192, "train_tokens": 15e12}, "parallel": {"tp": 8, "pp": 8}})";
  const rl::Config c = rl::test::config(base);
  rl::PlanOptions o;
  o.top = 3;
  const rl::PlanResult by_step = rl::plan(c, o);
  o.objective = rl::Objective::time_to_train;
  const rl::PlanResult by_time = rl::plan(c, o);
  o.objective = rl::Objective::cost;
  const rl::PlanResult by_cost = rl::plan(c, o);
  REQUIRE(!by_step.plans.empty());
  REQUIRE(by_time.plans.size() == by_step.plans.size());
  REQUIRE(by_cost.plans.size() == by_step.plans.size());
  const rl::Estimate &e = by_step.plans.front().estimate;
  // Whole steps: ceil(15e12 / (1024 x 8192)) = ceil(1,788,139.3) = 1,788,140.
  CHECK(e.train_steps == 1788140);
  CHECK(e.time_to_train == Approx(1788140 * e.time.step));
  // $ = 1024 devices x $3.00/h x hours.
  CHECK(e.cost_per_hour == Approx(3072.0));
  CHECK(e.cost_to_train == Approx(3072.0 * e.time_to_train / 3600));
  // Fixed devices and hardware: time and cost are the step time times a constant, so the
  // three rankings agree; the objective values are the time and the cost themselves.
  for (std::size_t i = 0; i < by_step.plans.size(); ++i) {
    CHECK(by_time.plans[i].estimate.time.step == by_step.plans[i].estimate.time.step);
    CHECK(by_cost.plans[i].estimate.time.step == by_step.plans[i].estimate.time.step);
    CHECK(by_time.plans[i].objective == by_time.plans[i].estimate.time_to_train);
    CHECK(by_cost.plans[i].objective == by_cost.plans[i].estimate.cost_to_train);
  }
  CHECK(by_step.feasible >= by_step.timed);
  // Preconditions name the missing field.
  rl::Config no_tokens = c;
  no_tokens.workload.train_tokens = 0;
  o.objective = rl::Objective::time_to_train;
  CHECK(rl::test::error_of([&] { rl::plan(no_tokens, o); }) ==
        "workload.train_tokens: is required to rank by time to train (the tokens of the run)");
  rl::Config no_price = c;
  no_price.hardware.price_per_hour = 0;
  o.objective = rl::Objective::cost;
  CHECK(rl::test::error_of([&] { rl::plan(no_price, o); }) ==
        "hardware.price_per_hour: is required to rank by cost ($ per device-hour)");
}
