// ridgeline serve: the serving planner. For a model, a request rate, length distributions
// and TTFT/TPOT targets it finds the cheapest deployment: hardware (workload.
// hardware_options), engine (engine_options), weight precision (precision_options), TP/PP
// per instance and, for MoE, attention DP with the experts' EP x MoE TP over the same GPUs,
// max batch and chunk, aggregated or disaggregated prefill/decode with their instance counts,
// and under workload.speculative its draft tokens (0, off, to 4, and the configuration's). For
// each candidate instance it finds the fewest instances N whose simulation (each instance at rate /
// N, Poisson splitting) meets the SLO attainment; disaggregated pools are sized apart (prefill for
// TTFT, decode for TPOT). The cheapest are then simulated whole: where requests share prefixes
// or LoRA adapters and workload.routing is unset, under each routing policy; with the KV tiers
// of workload.scheduler.kv_offload, the host tier of the shown picks is halved while the SLO
// holds on the same replicas. Ranked by cost per million output tokens (price per device-hour
// from the hardware preset), or by devices when no price is known.
#pragma once

#include "core/config.hpp"
#include "core/serve/simulate.hpp"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace rl {

struct Deployment {
  std::string hardware, cluster;
  Layout layout; // one instance (dp = 1)
  i64 max_batch = 0, chunk = 0;
  bool disaggregated = false;
  i64 draft_tokens = 0;    // speculative decoding's draft tokens (0: off)
  bool kv_offload = false; // the KV tiers below HBM of workload.scheduler.kv_offload, used
                           // (the host tier's size, and the routing, are in config)
  i64 instances = 0;       // aggregated: all; disaggregated: prefill + decode
  i64 prefill_instances = 0, decode_instances = 0;
  i64 devices = 0;
  double cost_per_hour = 0;
  double cost_per_million_tokens = 0;
  double sized_tokens_per_s = 0; // output tokens/s of the sizing runs (instances x one's)
  ServeResult result;            // the whole deployment simulated at the request rate
  Config config; // the deployment as a serve configuration (what `serve` would run): its
                 // engine, weight_dtype and precision among them
};

// Bounded work (README "Limits"), checked before the search: at most kMaxServePlanTop
// deployments shown (the search keeps and verifies 3 x top), and the simulations it may run
// (the candidates it sizes x the sizing runs of each, plus the verifications) at most
// kServePlanWork units of serve_work (requests and prefill chunks and decode steps). Measured
// natively, 0.2-2 ns of search a unit of this bound: the README's two plans 0.6e9 and 1.1e9
// (0.23 s, 0.52 s), 2,048 output tokens of 4,096-token prompts 3.4e9 (4 s); 8,192 refused.
constexpr i64 kMaxServePlanTop = 20;
constexpr double kServePlanWork = 4e9;

struct ServePlanOptions {
  i64 top = 10;               // 1 to kMaxServePlanTop
  i64 max_instances = 4096;   // per pool
  i64 sim_requests = 500;     // requests per sizing simulation (at most the workload's)
  i64 candidate_budget = 400; // instance candidates simulated
  i64 verify_requests = 5000; // requests of each whole-deployment check (at most the workload's)
};

struct ServePlanResult {
  std::vector<Deployment> deployments; // cheapest first, each meeting the SLO
  i64 candidates = 0, evaluated = 0, feasible = 0, simulations = 0;
  i64 iterations = 0;                  // engine iterations of all the simulations
  std::map<std::string, i64> rejected; // layout | memory | slo | dominated | budget
  bool speculative = false;            // draft tokens were searched (workload.speculative)
  bool kv_tiers = false;               // KV offload was searched (workload.scheduler.kv_offload)
  bool prefix_reuse = false;           // the requests share prefixes: hit rates shown
  bool routing = false;                // routing policies were compared (workload.routing unset)
  // The first pick compared under each policy, as verified (met or not): the default first
  std::vector<Deployment> routing_trials;
};

// Whether the simulated requests meet the SLO attainment (and nothing was cut short).
bool meets_slo(const ServeSpec &s, const ServeResult &r);

// The search in steps, so that a page can spread it over frames and show its progress:
// step(n) examines the next n candidates (true when none is left); finish() simulates the
// cheapest whole and ranks them. plan_serving is step until done, then finish.
class ServePlanSearch {
public:
  ServePlanSearch(std::vector<Config> choices, const ServePlanOptions &o = {});
  // Up to `candidates` candidates sized, then (the space done) one whole-deployment
  // verification simulation a call; true once both are done.
  bool step(i64 candidates);
  double progress() const;
  // The ranked deployments (what the steps have not done yet is done first).
  ServePlanResult finish();

private:
  struct Candidate {
    std::size_t choice = 0; // of choices_ (hardware x engine x precision)
    i64 tp = 1, adp = 1, pp = 1, ep = 1, max_batch = 0, chunk = 0;
    bool disagg = false;
    i64 draft_tokens = 0; // speculative decoding's k (0: off)
    bool offload = false; // the workload's KV tiers below HBM (searched: off and on)
  };
  std::vector<Config> choices_;
  ServePlanOptions o_;
  double rate_ = 0;
  std::vector<Candidate> space_;
  std::size_t next_ = 0;
  // (choice, tp, attention DP, ep) -> the shallowest pp that fits
  std::map<std::tuple<std::size_t, i64, i64, i64>, i64> fitted_pp_;
  // decode-pool sizing verdicts (met, output tokens/s) by (choice, tp, attention DP, ep, pp,
  // max batch, max tokens, instances): the chunk never enters a decode pool's simulation
  std::map<std::tuple<std::size_t, i64, i64, i64, i64, i64, i64, i64>, std::pair<bool, double>>
      decode_memo_;
  std::vector<Deployment> found_;
  std::vector<std::pair<double, i64>> cheapest_; // (cost per hour, devices), 3 x top at most
  i64 sim_requests() const;                      // requests of a sizing simulation
  i64 verify_requests() const;                   // requests of a whole-deployment check
  void check_work() const; // ConfigError past kMaxServePlanTop or kServePlanWork
  void keep_cheapest(double cost, i64 devices);
  bool beaten(double cost, i64 devices) const;
  void begin_verify();
  void verify_try();
  ServeResult simulate_whole(Deployment &d, bool probe = false) const;
  void begin_tiers();
  void tier_try();
  bool verify_started_ = false;
  std::vector<Deployment> verify_; // the picks (with their routing), cheapest first, 3 x top
  std::size_t verified_ = 0;
  int tries_ = 0;             // of the pick being verified
  i64 default_instances_ = 0; // the last default-routed pick's replicas, as verified
  std::size_t trials_from_ = 0, trials_to_ = 0; // verify_'s picks kept as routing_trials
  // The picks shown (top of them), then their host tier sized: halved while the SLO holds
  bool tiers_started_ = false;
  std::vector<Deployment> shown_;
  std::vector<std::size_t> tier_queue_; // indices into shown_
  std::size_t tiered_ = 0;
  int halvings_ = 0; // of the pick being sized
  ServePlanResult result_;
};

// choices: the configuration once per hardware x engine x precision option (replaced by the
// io layer from workload.hardware_options, engine_options, precision_options), or just the
// configuration.
ServePlanResult plan_serving(const std::vector<Config> &choices, const ServePlanOptions &o = {});

} // namespace rl
