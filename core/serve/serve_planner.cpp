#include "core/serve/serve_planner.hpp"

#include "core/error.hpp"
#include "core/parallel/knobs.hpp"
#include "core/serve/iteration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace rl {

bool meets_slo(const ServeSpec &s, const ServeResult &r) {
  return !r.truncated && !r.stopped_at_miss && r.dropped == 0 && r.attainment >= s.slo_attainment;
}

namespace {

// Cheaper to run: the lower cost per hour, then (no price, or equal) the fewer devices.
bool cheaper(const Deployment &a, const Deployment &b) {
  if (a.cost_per_hour != b.cost_per_hour)
    return a.cost_per_hour < b.cost_per_hour;
  return a.devices < b.devices;
}

// The same instance on the same hardware, engine and precision, split and KV tiers: the
// deployments of one candidate but for max batch, chunk, replicas and routing.
bool same_instance(const Deployment &a, const Deployment &b) {
  const WorkloadSpec &aw = a.config.workload, &bw = b.config.workload;
  return a.hardware == b.hardware && a.cluster == b.cluster &&
         aw.serve.engine.name == bw.serve.engine.name && aw.weight_dtype == bw.weight_dtype &&
         aw.precision == bw.precision && a.layout.tp == b.layout.tp && a.layout.pp == b.layout.pp &&
         a.layout.ep == b.layout.ep && a.layout.attention_dp == b.layout.attention_dp &&
         a.disaggregated == b.disaggregated && a.draft_tokens == b.draft_tokens &&
         a.kv_offload == b.kv_offload;
}

// The fewest instances n in [lo, hi] with ok(n), assuming ok is monotone in n; nullopt
// when even hi fails. Doubling from lo, then bisection.
template <class F> std::optional<i64> fewest(i64 hi, F ok) {
  if (ok(1))
    return 1;
  if (hi <= 1)
    return std::nullopt;
  i64 bad = 1, good = -1;
  for (i64 n = 2;; n *= 2) {
    n = std::min(n, hi);
    if (ok(n)) {
      good = n;
      break;
    }
    bad = n;
    if (n == hi)
      return std::nullopt;
  }
  while (good - bad > 1) {
    const i64 mid = bad + (good - bad) / 2;
    (ok(mid) ? good : bad) = mid;
  }
  return good;
}

// The simulations fewest(hi, ...) runs at most: ok(1), the doublings, the bisection.
i64 fewest_calls(i64 hi) {
  i64 doublings = 0;
  for (i64 n = 1; n < hi; n *= 2)
    ++doublings;
  return 1 + 2 * doublings;
}

// The scheduler settings a candidate takes: max batch, prefill chunk.
constexpr i64 kMaxBatches[] = {64, 256};
constexpr i64 kChunks[] = {512, 2048};
constexpr int kVerifyTries = 5;  // a deployment's whole simulation, growing a pool 4 times
constexpr int kTierHalvings = 3; // the host tier of a shown pick: down to an eighth
// The policies compared (ServePlanResult::routing): the default first (a session kept on its
// replica, other requests at random), then SGLang's cache-aware router, least-loaded (its
// fallback) and round-robin.
constexpr Routing kRoutings[] = {Routing::none, Routing::prefix_aware, Routing::least_loaded,
                                 Routing::round_robin};

// The field that makes a request's simulation long: the trace, the outputs or the prompts.
const char *longest_field(const WorkloadSpec &w, i64 chunk) {
  if (!w.serve.trace.empty())
    return "workload.trace";
  return w.gen_len >= (w.prompt_len + chunk - 1) / chunk ? "workload.gen_len"
                                                         : "workload.prompt_len";
}

std::string count_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 1e7 ? "%.0f" : "%.2g", x);
  return buf;
}

} // namespace

ServePlanSearch::ServePlanSearch(std::vector<Config> choices, const ServePlanOptions &o)
    : choices_(std::move(choices)), o_(o) {
  if (choices_.empty())
    throw ConfigError("workload.hardware_options", "no hardware to plan on");
  const Config &c = choices_.front();
  if (c.workload.mode != Mode::serve)
    throw ConfigError("workload.mode", "the serving planner needs mode \"serve\"");
  const ServeSpec &s0 = c.workload.serve;
  if (s0.slo_ttft <= 0 && s0.slo_tpot <= 0)
    throw ConfigError("workload.slo",
                      "give a TTFT or TPOT target (slo.ttft, slo.tpot) to plan for");
  rate_ = s0.trace.empty() ? s0.request_rate
                           : static_cast<double>(s0.trace.size()) /
                                 std::max(s0.trace.back().t - s0.trace.front().t, 1e-9);
  const ModelSpec &m = c.model;
  const ParallelSpec &p = c.parallel;
  // The space: per choice (hardware x engine x precision), tp over one node, pp 1-4 and, for
  // MoE, attention DP with the experts either split by tensor (moe_tp = tp x attention_dp,
  // ep 1) or by expert (ep = tp x attention_dp, moe_tp 1: SGLang --ep, vLLM
  // --enable-expert-parallel, TensorRT-LLM moe_expert_parallel_size), up to 64 GPUs of
  // attention; then max batch, chunk, aggregated / disaggregated. Fixed fields of `parallel`
  // restrict it. Smallest instances first, so that a budget cut drops the largest.
  // speculative decoding's draft tokens: off and 1 to 4, and the configuration's own
  // a conversation's turn sent when its previous one completes needs the instance that
  // serves both phases: no disaggregated candidates
  // (and a closed loop's clients: they are sized by the instance that serves them whole)
  const bool chained =
      s0.sessions.has_value() || s0.concurrency > 0 ||
      std::any_of(s0.trace.begin(), s0.trace.end(), [](const TraceRow &r) { return r.think >= 0; });
  // KV tiers below HBM: without them and with the workload's (host memory costs nothing
  // here: the price per device-hour is the node's)
  std::vector<bool> offloads{false};
  if (s0.kv_offload) {
    offloads.push_back(true);
    result_.kv_tiers = true;
  }
  result_.prefix_reuse = s0.prefix_cache && shares_prefixes(s0);
  // Routing matters where a replica holds what a request needs (cached prefixes, adapters):
  // compared at the verification unless the configuration names a policy
  result_.routing = s0.routing == Routing::none && (result_.prefix_reuse || s0.lora.has_value());
  std::vector<i64> drafts{0};
  if (const auto &sp = s0.speculative) {
    result_.speculative = true;
    drafts = {0, 1, 2, 3, 4};
    if (sp->draft_tokens > 4)
      drafts.push_back(sp->draft_tokens);
  }
  for (std::size_t h = 0; h < choices_.size(); ++h) {
    const ClusterSpec &cl = choices_[h].cluster;
    // an instance's tp within one NVLink domain (a torus: its chips, at most 16)
    std::vector<i64> tps = tp_candidates(cl, cl.topology == Topology::switched ? cl.nvlink_devices()
                                                                               : cl.devices),
                     pps{1, 2, 4}, adps{1};
    if (p.tp)
      tps = {*p.tp};
    if (p.pp)
      pps = {*p.pp};
    if (m.moe)
      for (i64 a = 2; a <= 64; a *= 2)
        adps.push_back(a);
    if (p.attention_dp)
      adps = {*p.attention_dp};
    for (const i64 tp : tps)
      for (const i64 adp : adps) {
        if (tp * adp > std::max<i64>(64, tp))
          continue;
        std::vector<i64> eps{1};
        if (m.moe && tp * adp > 1 && m.moe->experts % (tp * adp) == 0)
          eps.push_back(tp * adp);
        if (p.ep)
          eps = {*p.ep};
        for (const i64 ep : eps)
          for (const i64 pp : pps)
            for (const i64 mb : kMaxBatches)
              for (const i64 ch : kChunks)
                for (const bool disagg : {false, true})
                  for (const i64 k : drafts)
                    for (const bool off : offloads)
                      if (!disagg || !chained)
                        space_.push_back({h, tp, adp, pp, ep, mb, ch, disagg, k, off});
      }
  }
  std::stable_sort(space_.begin(), space_.end(), [](const Candidate &a, const Candidate &b) {
    return a.tp * a.adp * a.pp < b.tp * b.adp * b.pp;
  });
  result_.candidates = static_cast<i64>(space_.size());
  check_work();
}

// A closed loop sizes and checks with its clients' own requests (all of them, at most: one
// instance of n takes its share).
i64 ServePlanSearch::sim_requests() const {
  const ServeSpec &s = choices_.front().workload.serve;
  return s.concurrency > 0 ? simulated_requests(s)
                           : std::min(o_.sim_requests, std::max<i64>(1, s.requests));
}

i64 ServePlanSearch::verify_requests() const {
  const ServeSpec &s = choices_.front().workload.serve;
  return s.concurrency > 0 ? simulated_requests(s) : std::min(s.requests, o_.verify_requests);
}

// Before any simulation: --top, and the most work the search may do (every pool of the
// candidates it may size taking fewest()'s most runs, every kept deployment every try), its
// requests at their mean lengths in the smallest chunks.
void ServePlanSearch::check_work() const {
  if (o_.top < 1 || o_.top > kMaxServePlanTop)
    throw ConfigError(
        "--top", "the serving planner shows 1 to " + std::to_string(kMaxServePlanTop) +
                     " deployments (it keeps and verifies 3 x top), not " + std::to_string(o_.top));
  WorkloadSpec w = choices_.front().workload;
  w.serve.chunk = kChunks[0];
  i64 pools = 0; // sized apart: one per candidate, two disaggregated
  for (const Candidate &x : space_)
    pools += x.disagg ? 2 : 1;
  const double sizing = static_cast<double>(std::min(pools, 2 * o_.candidate_budget) *
                                            fewest_calls(o_.max_instances));
  const double checks = static_cast<double>(3 * o_.top * kVerifyTries +
                                            (result_.kv_tiers ? o_.top * kTierHalvings : 0));
  const ServeWork one = serve_work(w, sim_requests()), whole = serve_work(w, verify_requests());
  const double work = sizing * one.units() + checks * whole.units();
  if (work > kServePlanWork)
    throw ConfigError(longest_field(w, kChunks[0]),
                      "the serving planner may run " + count_text(sizing) +
                          " sizing simulations of " + count_text(one.requests) + " requests and " +
                          count_text(checks) + " checks of " + count_text(whole.requests) + " (" +
                          count_text(one.steps / std::max(one.requests, 1.0)) +
                          " prefill chunks and decode steps a request): " + count_text(work) +
                          " units of work, over the limit of " + count_text(kServePlanWork) +
                          "; plan shorter requests");
}

// The cheapest (cost per hour, devices) found so far, at most 3 x top of them, ascending.
void ServePlanSearch::keep_cheapest(double cost, i64 devices) {
  const std::pair<double, i64> v{cost, devices};
  cheapest_.insert(std::upper_bound(cheapest_.begin(), cheapest_.end(), v), v);
  if (static_cast<i64>(cheapest_.size()) > 3 * o_.top)
    cheapest_.pop_back();
}

// Whether a deployment of this cost and device count would rank after all that finish()
// keeps (finish's order: cost per hour, then devices); strictly, so ties stay.
bool ServePlanSearch::beaten(double cost, i64 devices) const {
  return static_cast<i64>(cheapest_.size()) >= 3 * o_.top &&
         std::make_pair(cost, devices) > cheapest_.back();
}

bool ServePlanSearch::step(i64 candidates) {
  const Config &c0 = choices_.front();
  const ServeSpec &s0 = c0.workload.serve;
  const i64 sim_n = sim_requests();
  for (i64 done = 0; done < candidates && next_ < space_.size(); ++done) {
    const Candidate x = space_[next_++];
    ServePlanResult &out = result_;
    // Pipeline stages add latency and no throughput to an engine that runs one iteration
    // at a time (core/serve/iteration): once a depth fits, deeper ones are dominated.
    const auto group = std::make_tuple(x.choice, x.tp, x.adp, x.ep);
    if (const auto f = fitted_pp_.find(group); f != fitted_pp_.end() && x.pp > f->second) {
      ++out.rejected["dominated"];
      continue;
    }
    if (out.evaluated >= o_.candidate_budget) {
      ++out.rejected["budget"];
      continue;
    }
    const Config &cc = choices_[x.choice];
    Config k = cc;
    k.parallel = ParallelSpec{};
    k.parallel.tp = x.tp;
    k.parallel.pp = x.pp;
    k.parallel.ep = x.ep;
    if (c0.model.moe) { // the experts inside the instance: moe_tp x ep = tp x attention_dp
      k.parallel.attention_dp = x.adp;
      k.parallel.moe_tp = x.tp * x.adp / x.ep;
    }
    k.parallel.uneven_pp = cc.parallel.uneven_pp.value_or(false);
    k.cluster.devices = x.tp * x.adp * x.pp;
    k.workload.serve.max_batch = x.max_batch;
    k.workload.serve.chunk = x.chunk;
    k.workload.serve.max_tokens = std::max<i64>(s0.max_tokens, x.max_batch + x.chunk);
    k.workload.serve.prefill_instances = 0;
    if (!x.offload)
      k.workload.serve.kv_offload.reset();
    if (x.draft_tokens == 0)
      k.workload.serve.speculative.reset();
    else
      k.workload.serve.speculative->draft_tokens = x.draft_tokens; // the last rate carries on
    Layout l;
    if (!fill_layout(k, l).ok()) { // the core's own legality rules
      ++out.rejected["layout"];
      continue;
    }
    // Bound: at its fewest instances (1, or 1 + 1 disaggregated) the candidate already costs
    // more than the 3 x top cheapest found, which are all finish() keeps.
    const double inst = static_cast<double>(l.instance_devices());
    const double least = x.disagg ? 2 : 1;
    if (beaten(least * inst * k.hardware.price_per_hour, static_cast<i64>(least * inst))) {
      ++out.rejected["bound"];
      continue;
    }
    if (!serve_memory(k, l).fits) {
      ++out.rejected["memory"];
      continue;
    }
    fitted_pp_.emplace(group, x.pp);
    ++out.evaluated;
    // The most instances (both pools) it may take and still rank among the 3 x top cheapest
    // (whole nodes only add to them): sizing stops there, a pool needing more is out by the
    // same bound.
    const i64 unbounded = (x.disagg ? 2 : 1) * o_.max_instances;
    i64 most = static_cast<i64>(least), over = unbounded + 1; // kept, beaten
    while (over - most > 1) {
      const i64 mid = most + (over - most) / 2;
      (beaten(static_cast<double>(mid) * inst * k.hardware.price_per_hour,
              mid * l.instance_devices())
           ? over
           : most) = mid;
    }
    const char *const short_of = most < unbounded ? "bound" : "slo";
    auto reqs_at = [&](double r) { return make_requests(k.workload, r, sim_n); };
    // A closed loop: one of n instances serves its share of the clients, each sending as many
    // requests as the workload's clients do (split_clients: client j on instance j mod n).
    auto one_of = [&](i64 n) {
      Config kn = k;
      ServeSpec &s = kn.workload.serve;
      const i64 c = (s0.concurrency + n - 1) / n;
      if (s.requests_per_client <= 0)
        s.requests = std::max<i64>(c, s.requests * c / s0.concurrency);
      s.concurrency = c;
      return kn;
    };
    Deployment d;
    d.hardware = cc.hardware.name;
    d.cluster = cc.cluster.name;
    d.layout = l;
    d.max_batch = x.max_batch;
    d.chunk = x.chunk;
    d.disaggregated = x.disagg;
    d.draft_tokens = x.draft_tokens;
    d.kv_offload = x.offload;
    if (!x.disagg) {
      std::map<i64, double> tokens; // output tokens/s of one instance at rate / n, when met
      auto ok = [&](i64 n) {
        ++out.simulations;
        const Config kn = s0.concurrency > 0 ? one_of(n) : k;
        const ServeResult r =
            s0.concurrency > 0
                ? simulate_serving(
                      kn, l, make_requests(kn.workload, 1.0, simulated_requests(kn.workload.serve)),
                      1, 0, kServeIterationBudget, true)
                : simulate_serving(k, l, reqs_at(rate_ / static_cast<double>(n)), 1, 0,
                                   kServeIterationBudget, true);
        out.iterations += r.iterations;
        const bool met = meets_slo(k.workload.serve, r);
        if (met)
          tokens[n] = r.output_tokens_per_s;
        return met;
      };
      const auto n = fewest(most, ok);
      if (!n) {
        ++out.rejected[short_of];
        continue;
      }
      // whole nodes: the instances past the fewest serve the rate with room to spare
      d.instances = whole_node_instances(cc.cluster, l.instance_devices(), *n);
      d.sized_tokens_per_s = tokens[*n] * static_cast<double>(*n);
    } else {
      const double att = k.workload.serve.slo_attainment;
      std::map<i64, double> tokens; // the decode pool's, as above
      // A decode pool never prefills: the chunk does not enter its simulation, so the sizing
      // of one chunk's candidate serves the other's (same choice, instance, batch, budget).
      const auto memo_key = std::make_tuple(x.choice, x.tp, x.adp, x.ep, x.pp, x.max_batch,
                                            k.workload.serve.max_tokens, i64{0});
      auto ok_pool = [&](Pool pool, i64 n) {
        auto key = memo_key;
        std::get<7>(key) = n;
        if (pool == Pool::decode)
          if (const auto m = decode_memo_.find(key); m != decode_memo_.end()) {
            if (m->second.first)
              tokens[n] = m->second.second;
            return m->second.first;
          }
        ++out.simulations;
        const ServeResult r = simulate_pool(k, l, reqs_at(rate_ / static_cast<double>(n)), 1, pool,
                                            kServeIterationBudget, true);
        out.iterations += r.iterations;
        const bool met = !r.truncated && !r.stopped_at_miss && r.dropped == 0 &&
                         (pool == Pool::prefill ? r.attainment_ttft : r.attainment_tpot) >= att;
        if (met && pool == Pool::decode)
          tokens[n] = r.output_tokens_per_s;
        if (pool == Pool::decode)
          decode_memo_[key] = {met, r.output_tokens_per_s};
        return met;
      };
      const auto np = fewest(std::min(o_.max_instances, most - 1),
                             [&](i64 n) { return ok_pool(Pool::prefill, n); });
      const auto nd = np ? fewest(std::min(o_.max_instances, most - *np),
                                  [&](i64 n) { return ok_pool(Pool::decode, n); })
                         : std::nullopt;
      if (!np || !nd) {
        ++out.rejected[short_of];
        continue;
      }
      d.prefill_instances = *np;
      // whole nodes: the decode pool takes the instances the nodes add
      d.instances = whole_node_instances(cc.cluster, l.instance_devices(), *np + *nd);
      d.decode_instances = d.instances - *np;
      d.sized_tokens_per_s = tokens[*nd] * static_cast<double>(*nd);
    }
    ++out.feasible;
    d.devices = d.instances * l.instance_devices();
    d.cost_per_hour = static_cast<double>(d.devices) * k.hardware.price_per_hour;
    d.config = k;
    found_.push_back(d);
    keep_cheapest(d.cost_per_hour, d.devices);
  }
  if (next_ < space_.size())
    return false;
  // then the picks verified whole, then their host tiers sized, one simulation a call (a page
  // frame stays short)
  if (!verify_started_)
    begin_verify();
  if (verified_ < verify_.size()) {
    if (candidates > 0)
      verify_try();
    return false;
  }
  if (!tiers_started_)
    begin_tiers();
  if (tiered_ < tier_queue_.size() && candidates > 0)
    tier_try();
  return tiered_ >= tier_queue_.size();
}

double ServePlanSearch::progress() const {
  const double verify = static_cast<double>(verify_started_ ? verify_.size() : 3 * o_.top);
  const double tiers = static_cast<double>(
      tiers_started_ ? tier_queue_.size()
                     : (result_.kv_tiers ? static_cast<std::size_t>(o_.top) : 0));
  const double total = static_cast<double>(space_.size()) + verify + tiers;
  const double done = static_cast<double>(next_ + verified_ + tiered_);
  return total > 0 ? done / total : 1.0;
}

namespace {

// The order of the table: the cost per million output tokens of the whole simulation (equal
// $/h can serve the rate at different simulated throughputs); without a price (0 $/M for all),
// by devices; ties to the lower p90 TTFT, then p90 TPOT.
bool ranks_before(const Deployment &a, const Deployment &b) {
  if (a.cost_per_million_tokens != b.cost_per_million_tokens)
    return a.cost_per_million_tokens < b.cost_per_million_tokens;
  if (cheaper(a, b) || cheaper(b, a))
    return cheaper(a, b);
  if (a.result.ttft.p90 != b.result.ttft.p90)
    return a.result.ttft.p90 < b.result.ttft.p90;
  return a.result.tpot.p90 < b.result.tpot.p90;
}

} // namespace

// The deployments to verify: the cheapest first (devices when no price; then the higher output
// rate of the sizing runs, which ranks the many deployments of one price by their likely cost
// per token), 3 x top of them.
void ServePlanSearch::begin_verify() {
  verify_started_ = true;
  verify_ = found_;
  auto first = [](const Deployment &a, const Deployment &b) {
    if (cheaper(a, b) || cheaper(b, a))
      return cheaper(a, b);
    return a.sized_tokens_per_s > b.sized_tokens_per_s;
  };
  std::stable_sort(verify_.begin(), verify_.end(), first);
  // The first pick of each instance (its max batch and chunk aside) of several aggregated
  // replicas under every routing policy compared, as far as the 3 x top verifications go (one
  // replica, or a disaggregated pair, is not routed); a policy's verdict is the instance's.
  const std::size_t most = static_cast<std::size_t>(3 * o_.top);
  std::vector<Deployment> picks;
  for (const Deployment &d : verify_) {
    const bool compare = result_.routing && !d.disaggregated && d.instances > 1 &&
                         std::none_of(picks.begin(), picks.end(),
                                      [&](const Deployment &x) { return same_instance(x, d); });
    const std::size_t from = picks.size();
    for (const Routing r : kRoutings) {
      if (picks.size() == most || (r != Routing::none && !compare))
        break;
      picks.push_back(d);
      if (result_.routing)
        picks.back().config.workload.serve.routing = r;
    }
    if (compare && trials_to_ == 0) { // the first compared: its verdicts shown
      trials_from_ = from;
      trials_to_ = picks.size();
    }
  }
  verify_ = std::move(picks);
}

// A deployment simulated whole at the full rate and request count (closed loop: all its
// clients), its instances and routing as they stand; `probe`: one whose miss is discarded,
// stopped as soon as the SLO attainment is out of reach.
ServeResult ServePlanSearch::simulate_whole(Deployment &d, bool probe) const {
  Config &k = d.config;
  const ServeSpec &s0 = choices_.front().workload.serve;
  k.cluster.devices = d.devices;
  k.parallel.dp = d.instances * (d.layout.ep_in_instance ? 1 : d.layout.ep);
  k.workload.serve.prefill_instances = d.prefill_instances;
  const Layout l = resolve_layout(k);
  return simulate_serving(k, l,
                          s0.concurrency > 0
                              ? make_requests(k.workload, 1.0, simulated_requests(s0))
                              : make_requests(k.workload, rate_, verify_requests()),
                          d.instances, d.prefill_instances, kServeIterationBudget, probe);
}

// One whole-deployment simulation of the next pick, at the full rate and request count: when
// it misses the attainment (sizing ran one instance on fewer requests), the short pool grows
// by one instance and the pick is simulated again, up to kVerifyTries times.
void ServePlanSearch::verify_try() {
  Deployment &d = verify_[verified_];
  const Config &k = d.config;
  const ServeSpec &s0 = choices_.front().workload.serve;
  // A policy compared with the default (which is verified first, then each policy on the same
  // pick) grows as the default does, one replica a try, up to the default's final count: past
  // it, the default serves the same pick on fewer GPUs.
  const bool compared = k.workload.serve.routing != s0.routing;
  d.result = simulate_whole(d, compared);
  ++result_.simulations;
  result_.iterations += d.result.iterations;
  if (!compared)
    default_instances_ = d.instances;
  if (meets_slo(s0, d.result) || ++tries_ == kVerifyTries ||
      (compared && d.instances >= default_instances_)) {
    // per million output tokens: the simulation's own figure (ServeResult), one definition
    d.cost_per_million_tokens = d.result.cost_per_million_tokens;
    if (verified_ >= trials_from_ && verified_ < trials_to_)
      result_.routing_trials.push_back(d);
    ++verified_;
    tries_ = 0;
    return;
  }
  // Routed by the configuration's policy, a replica's share is not what sizing saw: half again
  // a try.
  if (!d.disaggregated)
    d.instances += s0.routing != Routing::none ? std::max<i64>(1, d.instances / 2) : 1;
  else if (d.result.attainment_ttft < d.result.attainment_tpot)
    d.prefill_instances += 1;
  else
    d.decode_instances += 1;
  if (d.disaggregated)
    d.instances = d.prefill_instances + d.decode_instances;
  const i64 whole = whole_node_instances(k.cluster, d.layout.instance_devices(), d.instances);
  d.decode_instances += d.disaggregated ? whole - d.instances : 0;
  d.instances = whole;
  d.devices = d.instances * d.layout.instance_devices();
  d.cost_per_hour = static_cast<double>(d.devices) * k.hardware.price_per_hour;
}

// The deployments shown: the verified picks that meet the SLO (a pick whose whole simulation
// still misses it after its tries is not shown as one that meets it), ranked, twins dropped,
// `top` of them. Then the host tier's size (workload.scheduler.kv_offload.host_bytes is what a
// node can give): each shown with it is tried at half its host memory, then half again
// (kTierHalvings), on the same replicas; the smallest that still meets the SLO is kept, with
// its simulation.
void ServePlanSearch::begin_tiers() {
  tiers_started_ = true;
  const ServeSpec &s0 = choices_.front().workload.serve;
  std::vector<Deployment> found = verify_;
  const auto missed =
      std::erase_if(found, [&](const Deployment &d) { return !meets_slo(s0, d.result); });
  if (missed > 0)
    result_.rejected["verify"] += static_cast<i64>(missed);
  std::stable_sort(found.begin(), found.end(), ranks_before);
  // A larger max batch or chunk that never binds gives the same deployment: keep the first.
  for (Deployment &d : found) {
    const bool twin = std::any_of(shown_.begin(), shown_.end(), [&](const Deployment &x) {
      return same_instance(x, d) && x.instances == d.instances &&
             x.prefill_instances == d.prefill_instances &&
             x.config.workload.serve.routing == d.config.workload.serve.routing &&
             x.result.ttft.p90 == d.result.ttft.p90 && x.result.tpot.p90 == d.result.tpot.p90 &&
             x.result.e2e.mean == d.result.e2e.mean;
    });
    if (!twin && static_cast<i64>(shown_.size()) < o_.top)
      shown_.push_back(std::move(d));
  }
  for (std::size_t i = 0; i < shown_.size(); ++i)
    if (shown_[i].kv_offload && shown_[i].config.workload.serve.kv_offload->host_bytes > 0)
      tier_queue_.push_back(i);
}

void ServePlanSearch::tier_try() {
  Deployment half = shown_[tier_queue_[tiered_]];
  half.config.workload.serve.kv_offload->host_bytes /= 2;
  half.result = simulate_whole(half, true);
  ++result_.simulations;
  result_.iterations += half.result.iterations;
  const bool met = meets_slo(choices_.front().workload.serve, half.result);
  if (met) {
    half.cost_per_million_tokens = half.result.cost_per_million_tokens;
    shown_[tier_queue_[tiered_]] = std::move(half);
  }
  if (!met || ++halvings_ == kTierHalvings) {
    ++tiered_;
    halvings_ = 0;
  }
}

ServePlanResult ServePlanSearch::finish() {
  while (!step(1)) { // what the steps have not done yet
  }
  ServePlanResult out = result_;
  out.deployments = shown_;
  std::stable_sort(out.deployments.begin(), out.deployments.end(), ranks_before);
  return out;
}

ServePlanResult plan_serving(const std::vector<Config> &choices, const ServePlanOptions &o) {
  ServePlanSearch search(choices, o);
  while (!search.step(64)) {
  }
  return search.finish();
}

} // namespace rl
