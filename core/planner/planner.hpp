// ridgeline planner: search every parallel knob the configuration leaves free (DP/ZeRO,
// TP + Megatron-SP, every PP degree with Megatron's uneven first/last stages, every
// interleaving depth the stages allow, ring/Ulysses/USP context parallelism, EP, every
// micro-batch dividing the per-replica batch, recompute, the DP/PP axis order), check
// legality as values and memory with a headroom before timing, rank by the objective, keep
// the time/memory Pareto front, and say why each plan wins and why the best infeasible ones
// fail. Training layouts are timed by the fast evaluator (per-layer-type costs shared by the
// layouts that differ only in pp, vpp, dp or ZeRO); only the plans returned get the full,
// explaining estimate, whose numbers are the same.
#pragma once

#include "core/config.hpp"
#include "core/estimate/estimate.hpp"
#include "core/estimate/step_band.hpp"
#include "core/memory/model_states.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rl {

// Bounded work (a count, no clock): each training candidate costs one unit plus one per
// pipeline stage (the evaluator walks the stages); an inference candidate one per model layer
// (the full estimate). The search stops when the next one would pass the budget and reports
// how many it never looked at. The default keeps every search near 1 s natively.
constexpr i64 kPlanBudget = 4'000'000;

// What the plans are ranked by. Training: step time, tokens/s, time to train
// workload.train_tokens, or cost (to train it, or per token without a token budget; needs
// hardware.price_per_hour), or energy per token (needs hardware.power_w). Inference ranks by
// time per output token.
enum class Objective { step, tokens, time_to_train, cost, energy };

struct PlanOptions {
  i64 top = 10;       // plans returned
  i64 infeasible = 5; // best infeasible candidates returned (closest to fitting)
  i64 budget = kPlanBudget;
  Objective objective = Objective::step;
  double headroom = -1; // bytes a plan leaves free; < 0: hardware.memory_reserve
};

// A layout on the time/memory front: no other feasible layout is both faster (by the
// objective) and smaller.
struct ParetoPoint {
  ParallelSpec parallel;
  std::string layout; // in a line
  double objective = 0, step = 0, memory = 0;
};

struct Plan {
  ParallelSpec parallel; // every knob decided
  Estimate estimate;
  double objective = 0; // step s, s per token, s to train, or $ (train); TPOT s (infer)
  // As the search's fast evaluator found them (equal to estimate's, tested).
  double searched_step = 0, searched_memory = 0;
  std::string why; // what it wins on
  // Its step time's band and the difference to the next plan with that difference's band
  // (core/estimate/step_band; training plans with times only).
  double step_band = 0;
  std::optional<StepDifference> vs_next;
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
  i64 feasible = 0;    // legal layouts that fit (all timed)
  i64 candidates = 0;  // layouts enumerated
  i64 timed = 0;       // layouts that reached the step-time model
  i64 evaluated = 0;   // legal layouts the model evaluated (memory; time when they fit)
  i64 space = 0;       // layouts the free knobs allow (counted first)
  i64 skipped = 0;     // of those, never looked at: the budget ran out
  i64 work = 0;        // budget units spent
  double headroom = 0; // bytes each plan leaves free
  std::vector<std::string> free_knobs;
  std::vector<ParetoPoint> pareto; // time/memory front, fastest first
};

// Megatron's stage splits of `layers` over pp stages: (0, 0) for the even split when pp
// divides the layers; otherwise the first and last stages hold fewer layers
// (--decoder-first/last-pipeline-num-layers) and the pp - 2 others ceil(L/pp) each, the
// remainder halved between first and last (both ways when odd): Llama 3 405B's 126 layers
// on 16 stages give (7, 7). Empty when no such split exists.
std::vector<std::pair<i64, i64>> stage_splits(i64 layers, i64 pp);

PlanResult plan(const Config &c, const PlanOptions &o = {});

// "needs 74.52 GB per device > 74.50 GB": a need over a limit in GB with as many decimals
// (1 to 3) as make the two read apart; within 1 MB, "by N kB" after them.
std::string over_limit_text(double need_bytes, double limit_bytes);
// The lead of a plan's "why": "3.6% faster than the next plan", "0.04% faster ..." under
// 0.1%, "as fast as the next plan (within 0.01%)" when it rounds to nothing; `better` is
// "faster", "cheaper" or "lower time per token".
std::string margin_text(double relative, const char *better);

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
  struct Kept;
  struct Cache;
  void evaluate(const std::vector<StageLayerCount> &mix, Layout &l);
  void keep(const Layout &l, double objective, double step, double memory);
  Config c_;
  ModelParams mp_;
  double trained_ = 0; // the parameters a step trains (trainable_params), once per search
  PlanOptions o_;
  bool train_ = true, done_ = false;
  std::vector<i64> zeros_;
  // A recompute choice: none, selective (the attention core), selective with the modules the
  // model has (Megatron-LM --recompute-modules: norms, MLA's up-projections, the experts'
  // activation; DeepSeek-V3's production recompute), full.
  struct RecomputeChoice {
    Recompute rc;
    bool modules;
  };
  std::vector<RecomputeChoice> rcs_;
  std::vector<Group> groups_;
  std::size_t next_ = 0;
  PlanResult r_;
  std::vector<Kept> kept_;  // the best `top` so far
  std::vector<Kept> front_; // time/memory front so far
  std::vector<Infeasible> infeasible_;
  std::unique_ptr<Cache> cache_;
};

// "What should I run on": the layout search on every (hardware, device count) choice of
// the configuration (workload.hardware_options x workload.device_options, expanded by the io
// layer), each choice's best plan, and the fastest and the cheapest of them that train
// workload.train_tokens within workload.deadline_days.
struct ChoicePlan {
  std::string hardware, cluster;
  i64 devices = 0;
  PlanResult result;          // the layout search on this choice (plans empty: nothing fits)
  double time_to_train = 0;   // of its best plan (s; 0 without a token budget)
  double cost = 0;            // to train the budget, or $ per token without one; 0: no price
  bool meets_deadline = true; // its best plan trains the budget within the deadline
};
struct JointPlanResult {
  std::vector<ChoicePlan> choices; // in the configuration's order
  i64 fastest = -1, cheapest = -1; // meeting the deadline, with a plan (-1: none)
  std::vector<i64> front;          // time/cost Pareto front over the choices' best plans
  double deadline = 0;             // s (0: none)
};

// The same in steps (a choice's layout search at a time), for the page.
class JointPlanSearch {
public:
  JointPlanSearch(std::vector<Config> choices, const PlanOptions &o); // ConfigError as plan()
  bool step(i64 units);
  bool done() const { return next_ >= choices_.size(); }
  double progress() const;
  JointPlanResult result() const;

private:
  std::vector<Config> choices_;
  PlanOptions o_;
  std::size_t next_ = 0;
  std::optional<PlanSearch> running_;
  std::vector<PlanResult> results_;
};

JointPlanResult plan_choices(const std::vector<Config> &choices, const PlanOptions &o = {});

} // namespace rl
