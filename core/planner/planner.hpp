// ridgeline planner: search every parallel knob the configuration leaves free (DP/ZeRO,
// TP + Megatron-SP, PP with 1F1B or interleaving, ring/Ulysses context parallelism, EP,
// micro-batch, recompute), prune by legality and memory before timing, rank by step time
// (training) or time per output token (inference), and say why each plan wins and why the
// best infeasible ones fail.
#pragma once

#include "core/config.hpp"
#include "core/estimate/estimate.hpp"

#include <map>
#include <string>
#include <vector>

namespace rl {

// Bounded work (a count, no clock): each candidate costs one unit per model layer (the
// estimate walks the layers); the search stops when the next one would pass the budget
// and reports how many it never looked at. The default keeps a search near 1 s natively.
constexpr i64 kPlanBudget = 4'000'000;

// What the plans are ranked by. Training: step time, tokens/s, time to train
// workload.train_tokens, or cost (to train it, or per token without a token budget; needs
// hardware.price_per_hour). Inference ranks by time per output token.
enum class Objective { step, tokens, time_to_train, cost };

struct PlanOptions {
  i64 top = 10;       // plans returned
  i64 infeasible = 5; // best infeasible candidates returned (closest to fitting)
  i64 budget = kPlanBudget;
  Objective objective = Objective::step;
};

struct Plan {
  ParallelSpec parallel; // every knob decided
  Estimate estimate;
  double objective = 0; // step s, s per token, s to train, or $ (train); TPOT s (infer)
  std::string why;      // what it wins on
};

struct Infeasible {
  ParallelSpec parallel;
  std::string kind;    // memory | divisibility | heads | batch
  std::string path;    // the field that failed
  std::string message; // with the numbers
  double overflow = 0; // memory: bytes over capacity
};

struct PlanResult {
  std::vector<Plan> plans; // best first
  std::vector<Infeasible> infeasible;
  std::map<std::string, i64> rejected; // by kind
  Objective objective = Objective::step;
  i64 feasible = 0;   // legal layouts that fit (timed or dominated)
  i64 candidates = 0; // layouts enumerated
  i64 timed = 0;      // layouts that reached the step-time model
  i64 space = 0;      // layouts the free knobs allow (counted first)
  i64 skipped = 0;    // of those, never looked at: the budget ran out
  i64 work = 0;       // budget units spent
  std::vector<std::string> free_knobs;
};

PlanResult plan(const Config &c, const PlanOptions &o = {});

// The same search in steps, so a page can spread it over frames (and drop it to cancel):
// step(units) spends about `units` of the budget and says whether the search is over;
// result() gives what plan() would return once it is (and the best so far before).
class PlanSearch {
public:
  PlanSearch(const Config &c, const PlanOptions &o); // ConfigError as plan()
  ~PlanSearch();
  PlanSearch(PlanSearch &&) noexcept;
  PlanSearch &operator=(PlanSearch &&) noexcept;
  bool step(i64 units);
  bool done() const { return done_; }
  double progress() const; // candidates looked at / the space
  i64 looked_at() const { return r_.candidates; }
  PlanResult result() const;

private:
  struct Group;
  Config c_;
  PlanOptions o_;
  bool train_ = true, done_ = false;
  i64 unit_ = 1;
  std::vector<i64> zeros_;
  std::vector<Recompute> rcs_;
  std::vector<Group> groups_;
  std::size_t next_ = 0;
  PlanResult r_;
  std::vector<Plan> plans_;
  std::vector<Infeasible> infeasible_;
};

} // namespace rl
