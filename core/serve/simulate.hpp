// ridgeline serve: a request-level discrete-event simulation of serving engines. Each
// instance runs iterations (core/serve/iteration) chosen by a scheduler like vLLM's:
// continuous batching with chunked prefill under a token budget, or static batching;
// paged KV blocks admit requests and preempt the newest (recompute) when they run out.
// Requests go to a uniformly random instance (Poisson splitting: each of N instances sees
// Poisson arrivals at rate / N). Disaggregated deployments prefill on their own instances
// and ship the KV cache to decode instances over the network (DistServe, Zhong et al. 2024;
// Splitwise, Patel et al. 2024).
#pragma once

#include "core/config.hpp"
#include "core/parallel/layout.hpp"
#include "core/serve/requests.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rl {

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};
// Nearest-rank percentiles of the values (empty: zeros).
Percentiles percentiles(std::vector<double> v);
// Percentiles of `rest` requests the samples `a` stand for, with the samples `b` (one each).
Percentiles weighted_percentiles(const std::vector<double> &a, double rest,
                                 const std::vector<double> &b);

// Bytes of one chip's HBM `capacity` an engine gives its KV cache at memory fraction `f`,
// after `weights` and the activations' `workspace` (negative: none), by its rule:
//   hbm:         f x capacity - weights - workspace  (vLLM vllm/v1/worker/gpu_worker.py
//                determine_available_memory: gpu_memory_utilization of the device, less the
//                profiled weights and peak activations)
//   static_pool: min(f x capacity - weights, capacity - weights - workspace)  (SGLang
//                model_runner_kv_cache_mixin.py: free memory after loading the weights less
//                (1 - mem_fraction_static) x capacity; the activations must fit in that rest)
//   free:        f x (capacity - weights - workspace)  (TensorRT-LLM
//                _torch/pyexecutor/_util.py _cal_max_tokens: free_gpu_memory_fraction of the
//                memory the profiled peak of weights and activations leaves)
double kv_cache_room(EngineSpec::KvMemory rule, double capacity, double f, double weights,
                     double workspace);
// The engine's memory argument in its own words ("TensorRT-LLM free_gpu_memory_fraction 0.90
// of the memory the weights and the workspace leave").
std::string kv_memory_rule_text(EngineSpec::KvMemory rule, double f);

// Memory of one chip of an instance (the worst pipeline stage).
struct ServeMemory {
  double weights = 0;
  double workspace = 0;        // activations of one max_tokens iteration through one layer
  double lora = 0;             // workload.lora: the resident adapters' weights
  double kv_cache = 0;         // bytes left for paged KV at memory_fraction
  double total = 0;            // weights + workspace + kv_cache: what the engine takes
  double capacity = 0;         // HBM
  double kv_tokens = 0;        // tokens of KV one instance holds
  i64 kv_blocks = 0;           // paged blocks per instance
  double kv_fragmentation = 0; // simulated: share of allocated block slots holding no token
  bool fits = false;           // the weights and workspace leave room for one block
};

ServeMemory serve_memory(const Config &c, const Layout &l);

// Prefix reuse in a serving run: the prompt tokens admitted (each request's first admission)
// and those found cached, in all and by the tier they were found in (hbm, host, disk).
struct ServeCache {
  bool on = false; // the engines reused prefixes (workload.scheduler.prefix_cache)
  double prompt_tokens = 0, hit_tokens = 0, hit_rate = 0;
  struct Tier {
    std::string tier;
    double hit_rate = 0;
    // host and disk: what eviction stored there, per chip, over the simulated span (B/s), and
    // that over the tier's link (assumed to overlap the engine's work: docs/serving.md)
    double write_bw = 0, write_share = 0;
  };
  std::vector<Tier> tiers;
};

struct ServeResult {
  Percentiles ttft, tpot, e2e;    // s
  double output_tokens_per_s = 0; // output tokens/s over the steady state (steady_s)
  double requests_per_s = 0;      // completions/s over the steady state
  double goodput = 0;             // requests/s meeting every SLO target
  double attainment = 0;          // fraction of all requests meeting every SLO target
  double attainment_ttft = 0, attainment_tpot = 0; // each target alone
  double mean_batch = 0;                           // decoding sequences per iteration, mean
  double mean_in_system = 0; // time-average requests queued or running (Little's L)
  double kv_transfer = 0;    // disaggregated: mean KV transfer per request, s
  ServeMemory memory;
  i64 requests = 0, completed = 0, dropped = 0; // dropped: longer than the whole KV cache
  i64 iterations = 0, preemptions = 0;
  i64 peak_kv_blocks = 0; // the most blocks one instance held at once
  double simulated_s = 0; // makespan: first arrival to last completion
  // The steady state the throughput is measured over (output_tokens_per_s, requests_per_s):
  // the arrivals' window without the ramp-up (and a closed loop's first and last requests),
  // so no drain; 0 when too few requests lie inside, the makespan's figures then.
  double steady_s = 0;
  // Closed loop: requests left out of the latency statistics at each end (each client's
  // first and last: the warm-up burst and the drain); 0 for an open loop.
  i64 warmup_excluded = 0;
  i64 warmup_counted = 0; // count_warmup: the opening burst's requests, counted
  bool truncated = false; // the iteration budget ran out first
  // A sizing check (stop_when_missed) stopped once too many requests had missed the SLO for
  // its attainment to be met: only the verdict holds, the other figures are partial.
  bool stopped_at_miss = false;
  // deployment
  Layout layout;
  i64 devices_per_instance = 1, instances = 1, prefill_instances = 0, decode_instances = 0;
  i64 devices = 1;
  double cost_per_hour = 0, cost_per_million_tokens = 0; // 0 without a price
  // Energy (hardware.power_w given; docs/formulas.md "Energy"): the deployment's draw at the
  // facility meter (W) and per output token (J), and the electricity per million output
  // tokens ($; cluster.energy_price_per_kwh). 0: no power given.
  double facility_w = 0, joules_per_output_token = 0, energy_cost_per_million_tokens = 0;
  ServeCache cache;
  // Speculative decoding: tokens a decoding sequence keeps per iteration (1 without).
  double committed_tokens = 1;
  // What the run was timed with: the engine preset (workload.engine: its host times, own
  // all-reduce, bands and source) and the measured small-M GEMM fit its weight GEMMs used on
  // this chip and dtype (nullopt: none applies, the chip's roofline).
  EngineSpec engine;
  std::optional<EngineSpec::SmallGemm> engine_gemm;
  // and the share of peak its routed MoE experts ran at (0: the dense GEMM efficiency)
  double engine_moe_efficiency = 0;
  // and the share of the bf16 peak its prompts' attention ran at: the engine's measured context
  // kernel (measured true) or the chip's attention_efficiency (0 under the roofline bound)
  double prefill_attention_efficiency = 0;
  bool prefill_attention_measured = false;
};

// Work limit of one simulation: engine iterations over all instances.
constexpr i64 kServeIterationBudget = 20'000'000;

// The work of a serving simulation, bounded above before it runs: its requests (routing,
// admission, the statistics' sorts: O(log n) each) and its sequence steps, every request's
// prefill chunks and decode steps (an engine iteration costs one step per sequence it runs
// and takes at least one, so this bounds the iterations too; preemptions aside).
struct ServeWork {
  double requests = 0, steps = 0;
  // In the calibration's and the planners' units (one per model layer per estimate, ~0.1 us
  // natively): measured, 5 per request and 1 per 5 steps (a 1,000,000-client closed loop of
  // 16 + 4 tokens: 0.45 s; 40,000 requests at batch 4,096: 17 ns a step).
  double units() const { return 5 * requests + steps / 5; }
};
// What make_requests(w, rate, requests) gives: w's trace, or `requests` of w's mean prompt
// and output lengths (prompts in chunks of w.serve.chunk).
ServeWork serve_work(const WorkloadSpec &w, i64 requests);
// What simulate_serving(c) runs: its requests, and a closed loop's opening burst again when
// it counts it (count_warmup).
ServeWork serve_work(const Config &c);

// Simulates `instances` instances of layout l serving `reqs` (prefill_instances of them
// prefill only when > 0). Throws ConfigError when an instance's weights do not fit.
// stop_when_missed (an open loop): stop as soon as the SLO attainment can no longer be met
// (the serving planner's sizing, which needs only the verdict).
ServeResult simulate_serving(const Config &c, const Layout &l, const std::vector<Request> &reqs,
                             i64 instances, i64 prefill_instances,
                             i64 budget = kServeIterationBudget, bool stop_when_missed = false);

// One pool of a disaggregated deployment alone, `instances` of them: prefill (TTFT only:
// the first token at the end of the prompt) or decode (requests arrive with their KV).
enum class Pool { prefill, decode };
// stop_when_missed: as for simulate_serving, on the pool's own target (TTFT for prefill,
// TPOT for decode).
ServeResult simulate_pool(const Config &c, const Layout &l, const std::vector<Request> &reqs,
                          i64 instances, Pool pool, i64 budget = kServeIterationBudget,
                          bool stop_when_missed = false);

// The configuration's own deployment: layout from `parallel`, instances = devices / (tp x
// pp x ep), w.serve's requests at w.serve.request_rate.
ServeResult simulate_serving(const Config &c);

// The same simulations in steps, so a page can spread one over frames (and drop it to
// cancel): step(passes) runs that many passes of the engines' scheduler loops (an engine
// iteration each, at most) and says whether the simulation is over; result() is then what
// the one-call functions above return (tested equal).
enum class ServeRun { aggregated, disaggregated, prefill_pool, decode_pool };
class ServeSimulation {
public:
  explicit ServeSimulation(const Config &c); // simulate_serving(c)
  ServeSimulation(const Config &c, const Layout &l, std::vector<Request> reqs, i64 instances,
                  i64 prefill_instances, ServeRun mode, i64 budget = kServeIterationBudget,
                  bool stop_when_missed = false);
  ~ServeSimulation();
  ServeSimulation(ServeSimulation &&) noexcept;
  ServeSimulation &operator=(ServeSimulation &&) noexcept;
  bool step(i64 passes);
  bool done() const;
  double progress() const; // engines finished / engines
  const ServeResult &result() const;

private:
  ServeSimulation(const Config &c, const Layout &l);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace rl
