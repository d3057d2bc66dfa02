#include "core/serve/simulate.hpp"

#include "core/estimate/energy.hpp"

#include "core/error.hpp"
#include "core/inference/serving.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/kv_blocks.hpp"
#include "core/serve/lora.hpp"
#include "core/serve/speculative.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>

namespace rl {

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty())
    return p;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (const double x : v)
    sum += x;
  p.mean = sum / static_cast<double>(v.size());
  auto rank = [&](double q) { // nearest rank: the ceil(q n)-th smallest
    const auto n = static_cast<double>(v.size());
    const auto i = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n)) - 1);
    return v[std::min(i, v.size() - 1)];
  };
  p.p50 = rank(0.50);
  p.p90 = rank(0.90);
  p.p99 = rank(0.99);
  return p;
}

// Percentiles of `rest` requests that the samples `a` stand for (each a weight rest / |a|)
// together with the samples `b` (weight 1 each): nearest rank on the cumulative weight.
Percentiles weighted_percentiles(const std::vector<double> &a, double rest,
                                 const std::vector<double> &b) {
  std::vector<std::pair<double, double>> v;
  const double wa = a.empty() ? 0 : rest / static_cast<double>(a.size());
  for (const double x : a)
    v.emplace_back(x, wa);
  for (const double x : b)
    v.emplace_back(x, 1.0);
  Percentiles p;
  double total = 0, sum = 0;
  for (const auto &[x, w] : v) {
    total += w;
    sum += x * w;
  }
  if (v.empty() || !(total > 0))
    return percentiles(b);
  std::sort(v.begin(), v.end());
  p.mean = sum / total;
  auto rank = [&](double q) {
    double acc = 0;
    for (const auto &[x, w] : v) {
      acc += w;
      if (acc >= q * total * (1 - 1e-12))
        return x;
    }
    return v.back().first;
  };
  p.p50 = rank(0.50);
  p.p90 = rank(0.90);
  p.p99 = rank(0.99);
  return p;
}

double kv_cache_room(EngineSpec::KvMemory rule, double capacity, double f, double weights,
                     double workspace) {
  switch (rule) {
  case EngineSpec::KvMemory::static_pool:
    return std::min(f * capacity - weights, capacity - weights - workspace);
  case EngineSpec::KvMemory::free:
    return f * (capacity - weights - workspace);
  case EngineSpec::KvMemory::hbm:
    break;
  }
  return f * capacity - weights - workspace;
}

std::string kv_memory_rule_text(EngineSpec::KvMemory rule, double f) {
  const char *what =
      rule == EngineSpec::KvMemory::static_pool
          ? "of the device's memory for the weights and the KV cache (SGLang "
            "mem_fraction_static), the workspace in the rest"
      : rule == EngineSpec::KvMemory::free
          ? "of what the weights and the workspace leave (TensorRT-LLM free_gpu_memory_fraction)"
          : "of the device's memory for the weights, the workspace and the KV cache (vLLM "
            "gpu_memory_utilization)";
  char buf[40];
  std::snprintf(buf, sizeof buf, "memory_fraction %.2f ", f);
  return buf + std::string(what);
}

ServeMemory serve_memory(const Config &c, const Layout &l) {
  const ServeSpec &s = c.workload.serve;
  const IterationModel model(c, l);
  ServeMemory m;
  m.capacity = engine_memory(c.hardware);
  m.weights = model.weight_bytes();
  m.workspace = prefill_working_set(c.model, l, static_cast<double>(s.max_tokens));
  if (s.lora) // the resident adapters' slots, beside the weights (vLLM allocates them first)
    m.lora = static_cast<double>(s.lora->resident) * lora_adapter_bytes(c.model, s.lora->rank) /
             static_cast<double>(l.tp * l.pp);
  const double room = kv_cache_room(s.engine.kv_memory, m.capacity, s.memory_fraction,
                                    m.weights + m.lora, m.workspace);
  m.kv_tokens = model.kv_tokens(room);
  m.kv_blocks = static_cast<i64>(std::floor(m.kv_tokens / static_cast<double>(s.block_size)));
  m.kv_cache = std::max(room, 0.0);
  m.total = m.weights + m.lora + m.workspace + m.kv_cache;
  m.fits = m.kv_blocks >= 1;
  return m;
}

ServeWork serve_work(const WorkloadSpec &w, i64 requests) {
  const ServeSpec &s = w.serve;
  const auto chunks = [&](double prompt) {
    return std::ceil(prompt / static_cast<double>(std::max<i64>(1, s.chunk)));
  };
  ServeWork out;
  if (!s.trace.empty()) { // make_requests takes the whole trace
    for (const TraceRow &e : s.trace)
      out.steps += chunks(static_cast<double>(e.prompt)) + static_cast<double>(e.gen);
    out.requests = static_cast<double>(s.trace.size());
    return out;
  }
  out.requests = static_cast<double>(requests);
  out.steps =
      out.requests * (chunks(static_cast<double>(w.prompt_len)) + static_cast<double>(w.gen_len));
  return out;
}

ServeWork serve_work(const Config &c) {
  const ServeSpec &s = c.workload.serve;
  const i64 n = simulated_requests(s);
  ServeWork out = serve_work(c.workload, n);
  if (s.count_warmup && s.concurrency > 0) {
    const ServeWork burst = serve_work(c.workload, std::min(n, s.concurrency));
    out.requests += burst.requests;
    out.steps += burst.steps;
  }
  return out;
}

namespace {

enum class Role { both, prefill, decode };

struct Track {
  double arrival = 0; // at the deployment
  i64 prompt = 0, gen = 0;
  i64 generated = 0;
  double first = -1;  // first output token
  double finish = -1; // last output token (prefill role: prefill done)
  i64 resume = 0;     // prefill target after a preemption (0: the prompt), in this phase
  bool dropped = false;
};

// A completed request as the statistics count it: TTFT with the front end's time, TPOT over
// its later tokens (0 with one token), and whether each meets its SLO target (none: met).
struct Latency {
  double ttft = 0, tpot = 0;
  bool ttft_ok = true, tpot_ok = true;
};
// The steady state of a run: from the time the requests in flight have settled to the arrival
// of the last request. Settled: one mean request lifetime (arrival to last token) after the
// first arrival, when the first cohort has come and gone (Little's law holds from there), and
// no earlier than the first request the statistics count (a closed loop's) or the first tenth
// of the arrivals (an open loop's ramp-up). t1 <= t0 when fewer than 20 requests arrive inside.
struct SteadyWindow {
  double t0 = 0, t1 = 0;
};
SteadyWindow steady_window(const std::vector<Track> &tr, const std::vector<char> &steady) {
  std::vector<double> arrivals;
  bool trimmed = false;
  double life = 0, done = 0, first = tr.empty() ? 0 : tr.front().arrival;
  for (std::size_t i = 0; i < tr.size(); ++i) {
    first = std::min(first, tr[i].arrival);
    if (tr[i].finish >= 0) {
      life += tr[i].finish - tr[i].arrival;
      done += 1;
    }
    if (steady[i])
      arrivals.push_back(tr[i].arrival);
    else
      trimmed = true;
  }
  std::sort(arrivals.begin(), arrivals.end());
  const std::size_t skip = trimmed ? 0 : arrivals.size() / 10;
  if (arrivals.size() < skip + 20 || done == 0)
    return {};
  const double t0 = std::max(arrivals[skip], first + life / done);
  const auto inside = arrivals.end() - std::lower_bound(arrivals.begin(), arrivals.end(), t0);
  if (inside < 20)
    return {};
  return {t0, arrivals.back()};
}

// Output tokens of a completed request generated inside [t0, t1]: the first at r.first, the
// others spread evenly up to r.finish.
double tokens_within(const Track &r, double t0, double t1) {
  double n = r.first > t0 && r.first <= t1 ? 1 : 0;
  const double rest = static_cast<double>(r.gen - 1);
  if (rest <= 0)
    return n;
  if (r.finish <= r.first)
    return n + (r.finish > t0 && r.finish <= t1 ? rest : 0);
  const double lo = std::max(t0, r.first), hi = std::min(t1, r.finish);
  return n + (hi > lo ? rest * (hi - lo) / (r.finish - r.first) : 0);
}

Latency latency_of(const ServeSpec &s, const Track &r) {
  Latency x;
  x.ttft = r.first - r.arrival + s.engine.request_overhead;
  x.tpot = r.gen > 1 ? (r.finish - r.first) / static_cast<double>(r.gen - 1) : 0;
  x.ttft_ok = s.slo_ttft <= 0 || x.ttft <= s.slo_ttft;
  x.tpot_ok = s.slo_tpot <= 0 || x.tpot <= s.slo_tpot;
  return x;
}

struct Seq {
  i64 id = 0;
  i64 target = 0; // tokens to prefill (prompt, or prompt + generated after a preemption)
  i64 kv = 0;     // tokens in the KV cache
  i64 blocks = 0;
  i64 cached = 0;   // leading blocks it references in the prefix cache
  double ready = 0; // its cached blocks brought up from a lower tier by then
  bool prefilled = false;
};

// What the requests share and how they follow each other, by request: the blocks each prompt
// names (prefix reuse), and for a turn sent after another completes, its successor and think
// time (sessions).
struct Streams {
  std::vector<BlockName> name;
  std::vector<i64> follow; // the request its completion releases (-1: none)
  std::vector<double> think;
  std::vector<i64> adapter; // workload.lora: each request's (-1: none)
  bool chained = false;
};

// An instance's GPU slots for LoRA adapters (vLLM's max_loras, SGLang's max_loras_per_batch):
// the adapters resident, those the running sequences use, and the least recently used of the
// others, which a new adapter replaces (vLLM's LRUCacheWorkerLoRAManager).
class AdapterSlots {
public:
  explicit AdapterSlots(i64 slots = 0) : slots_(slots) {}
  bool on() const { return slots_ > 0; }
  // Whether a request of adapter a can run now: resident, or a slot free or held by an adapter
  // no running sequence uses.
  bool placeable(i64 a) const {
    return a < 0 || resident_.count(a) > 0 || static_cast<i64>(resident_.size()) < slots_ ||
           !idle_.empty();
  }
  // A sequence of adapter a starts running; true when the adapter has to be loaded.
  bool acquire(i64 a) {
    if (a < 0)
      return false;
    auto it = resident_.find(a);
    const bool load = it == resident_.end();
    if (load) {
      if (static_cast<i64>(resident_.size()) >= slots_) { // replace the least recently used
        resident_.erase(idle_.front());
        idle_.pop_front();
      }
      it = resident_.emplace(a, Slot{}).first;
    }
    Slot &s = it->second;
    if (s.users++ == 0 && !load)
      idle_.erase(s.at);
    return load;
  }
  void release(i64 a) {
    if (a < 0)
      return;
    Slot &s = resident_.at(a);
    if (--s.users == 0)
      s.at = idle_.insert(idle_.end(), a);
  }
  bool resident(i64 a) const { return resident_.count(a) > 0; }
  // adapters the running sequences use
  double in_use() const { return static_cast<double>(resident_.size() - idle_.size()); }

private:
  struct Slot {
    i64 users = 0;
    std::list<i64>::iterator at; // in idle_ while users == 0
  };
  i64 slots_ = 0;
  std::unordered_map<i64, Slot> resident_;
  std::list<i64> idle_; // resident, used by no running sequence, least recently used first
};

// The lower tiers' links: a block's bytes on one chip and each tier's bandwidth to it.
struct TierLinks {
  double block_bytes = 0, host_bw = 0, disk_bw = 0;
  i64 host_blocks = 0, disk_blocks = 0;
  double adapter_bytes = 0, adapter_bw = 0; // workload.lora: one adapter on one chip, its link
};

struct EngineStats {
  i64 iterations = 0, preemptions = 0, peak_blocks = 0, dropped = 0;
  // prompt tokens of first admissions, and those of them found cached, by tier
  double prompt_tokens = 0, hit_hbm = 0, hit_host = 0, hit_disk = 0;
  i64 written[2] = {0, 0}; // KV blocks written to host memory and disk (the tiers' stores)
  i64 missed = 0;          // completed requests that missed the SLO target of their role
  double decode_sum = 0, area = 0;
  double block_slots = 0, kv_slots = 0; // integrals over time of allocated and used KV slots
  bool truncated = false;
};

i64 ceil_div(i64 a, i64 b) {
  return (a + b - 1) / b;
}

constexpr std::size_t kNone = SIZE_MAX;

// A binary min-heap of positions (in an engine's `ids`) whose keys may change: the least in
// O(1), a position added, the least taken, or a key moved in O(log n). `less` orders two
// positions by their keys at the time of each call.
class PositionHeap {
public:
  bool empty() const { return heap_.empty(); }
  std::size_t top() const { return heap_.front(); }
  bool contains(std::size_t p) const { return p < slot_.size() && slot_[p] != kNone; }
  template <class Less> void push(std::size_t p, Less less) {
    if (slot_.size() <= p)
      slot_.resize(p + 1, kNone);
    heap_.push_back(p);
    slot_[p] = heap_.size() - 1;
    up(heap_.size() - 1, less);
  }
  template <class Less> void pop(Less less) {
    const std::size_t last = heap_.back();
    slot_[heap_.front()] = kNone;
    heap_.pop_back();
    if (heap_.empty())
      return;
    put(0, last);
    down(0, less);
  }
  // The entry of position `from` stands for position `to` now (not in the heap), whose key is
  // no smaller.
  template <class Less> void moved(std::size_t from, std::size_t to, Less less) {
    if (slot_.size() <= to)
      slot_.resize(to + 1, kNone);
    const std::size_t h = slot_[from];
    slot_[from] = kNone;
    put(h, to);
    down(h, less);
  }

private:
  void put(std::size_t h, std::size_t p) {
    heap_[h] = p;
    slot_[p] = h;
  }
  template <class Less> void up(std::size_t h, Less less) {
    const std::size_t p = heap_[h];
    for (; h > 0 && less(p, heap_[(h - 1) / 2]); h = (h - 1) / 2)
      put(h, heap_[(h - 1) / 2]);
    put(h, p);
  }
  template <class Less> void down(std::size_t h, Less less) {
    const std::size_t p = heap_[h], n = heap_.size();
    for (std::size_t c = 2 * h + 1; c < n; h = c, c = 2 * h + 1) {
      if (c + 1 < n && less(heap_[c + 1], heap_[c]))
        ++c;
      if (!less(heap_[c], p))
        break;
      put(h, heap_[c]);
    }
    put(h, p);
  }
  std::vector<std::size_t> heap_, slot_; // slot_[position]: its index in heap_, or kNone
};

// Positions in an engine's ids by (arrival, position): the first of equal arrivals in ids
// comes first.
struct Sooner {
  const std::vector<i64> &ids;
  const std::vector<double> &arrive;
  bool operator()(std::size_t a, std::size_t b) const {
    const double x = arrive[static_cast<std::size_t>(ids[a])],
                 y = arrive[static_cast<std::size_t>(ids[b])];
    return x < y || (x == y && a < b);
  }
};

// One engine serving the requests `ids` (sorted by their arrival at this engine, `arrive`):
// the scheduler loop of vLLM-like continuous batching, one pass per step(), so a simulation
// can be spread over a page's frames.
struct TierWrites;

class Engine {
  friend struct TierWrites;

public:
  // clients > 0: a closed loop; the first `clients` of `order` arrive as *arrivals says (the
  // caller staggers them) and each completion releases the next think_time later (the others'
  // arrivals are set then).
  // streams->chained: each request's successor is released when it completes (sessions),
  // whatever the clients; every request with a known arrival starts pending.
  // release_to (routed: one engine of a fleet run side by side): requests come by add(), and
  // a completed request's successor goes back to the router through it.
  Engine(const ServeSpec &spec, i64 blocks, Role r, std::vector<i64> order,
         std::vector<double> *arrivals, const Streams *streams, const TierLinks &links,
         i64 clients = 0, std::function<void(i64)> release_to = {})
      : s(spec), total_blocks(blocks), role(r), ids(std::move(order)), arrive(arrivals),
        is_static(spec.policy == SchedulerPolicy::static_batch), bs(spec.block_size),
        kv(blocks, spec.prefix_cache && r != Role::decode && !is_static, links.host_blocks,
           links.disk_blocks),
        streams(streams), links(links), adapters(spec.lora ? spec.lora->resident : 0),
        chained(streams->chained || bool(release_to)), release_to(std::move(release_to)),
        closed(clients > 0 || chained),
        commit(spec.speculative ? committed_tokens(*spec.speculative) : 1.0),
        verify(spec.speculative ? 1 + spec.speculative->draft_tokens : 1) {
    if (chained) {
      for (std::size_t p = 0; p < ids.size(); ++p) {
        where[ids[p]] = p;
        if (std::isfinite(arrival_at(p)))
          pending.push(p, sooner());
      }
      return;
    }
    for (; closed && released < std::min(ids.size(), static_cast<std::size_t>(clients)); ++released)
      pending.push(released, sooner());
  }
  bool finished() const { return done; }
  // Routed: request `id` (its arrival known) joins this engine.
  void add(i64 id) {
    where[id] = ids.size();
    ids.push_back(id);
    pending.push(ids.size() - 1, sooner());
    ++outstanding;
  }
  // Routed: when this engine next has something to do (infinite: nothing until a request is
  // added), its requests outstanding, and the blocks of a prompt it holds cached.
  double next_event() const {
    if (done)
      return INFINITY;
    if (!running.empty() || !waiting.empty())
      return t;
    return next < ids.size() ? std::max(t, arrival_at(earliest())) : INFINITY;
  }
  i64 load() const { return outstanding; }
  bool has_adapter(i64 a) const { return adapters.on() && adapters.resident(a); }
  BlockMatch cached(const BlockName &name, i64 limit) const { return kv.match(name, limit); }
  // Routed: the engine runs no decode-only stretch past this time (another engine's event or an
  // arrival the router has not placed yet may concern it).
  double horizon = INFINITY;
  // One pass of the loop; false once this engine has served everything (or the budget ran
  // out).
  bool step(IterationModel &model, std::vector<Track> &tr, EngineStats &st, i64 &budget);

private:
  // A run of decode-only iterations that nothing interrupts (no prompt waits or is part-way,
  // no request completes, no block runs short) is played without re-scheduling: the same
  // iterations, sums and bookkeeping as one pass each, the batch's O(batch) scheduling done
  // once. Returns false when no such run of 2 or more iterations starts here.
  bool decode_run(IterationModel &model, std::vector<Track> &tr, EngineStats &st, i64 &budget);
  bool finish() {
    done = true;
    return false;
  }
  // Closed loop: request `id` completed (or was dropped) at `at`; its client sends the next
  // (chained: the turn that follows it, think time later).
  void complete(double at, i64 id0, std::vector<Track> &tr) {
    --outstanding;
    if (chained) {
      const i64 f = streams->follow[static_cast<std::size_t>(id0)];
      if (f < 0)
        return;
      const auto fid = static_cast<std::size_t>(f);
      const double send = at + s.engine.request_overhead + streams->think[fid];
      tr[fid].arrival = send;
      (*arrive)[fid] = send;
      if (release_to)
        release_to(f); // the router places it when it arrives
      else
        pending.push(where.at(f), sooner());
      return;
    }
    if (!closed || released >= ids.size())
      return;
    const std::size_t p = released++;
    const auto id = static_cast<std::size_t>(ids[p]);
    const double send = at + s.engine.request_overhead + s.think_time; // the client saw it
    tr[id].arrival = send;
    (*arrive)[id] = send;
    pending.push(p, sooner());
  }
  // SGLang's receive gate (scheduler_recv_skipper.py): before each pass the weight of the last
  // iteration is added to a counter, and new requests are taken when it reaches the interval
  // (then it restarts at 0). A decode iteration weighs 1, one with prefill kExtendWeight; an
  // idle engine's loop spins, so it takes an arrival at once.
  static constexpr i64 kExtendWeight = 1000; // SGLang's _DEFAULT_WEIGHT (every mode but decode)
  // Whether the pass after an iteration of weight w takes new requests (nothing counted).
  bool gate_opens(i64 w) const {
    return s.recv_interval <= 1 || recv_counter + w >= s.recv_interval;
  }
  // The pass after an iteration of weight w: counted; whether it takes new requests.
  bool receives(i64 w) {
    if (!gate_opens(w)) {
      recv_counter += w;
      return false;
    }
    recv_counter = 0;
    return true;
  }
  // TensorRT-LLM's batch waiting (py_executor.py `_waiting_requests`): with sequences
  // decoding, whether this iteration holds its prompts back, `ctx` the prompt tokens it would
  // schedule and `gen` its decode tokens.
  bool hold_prompts(i64 ctx, i64 gen) {
    if (s.batch_wait_iters <= 0 || ctx <= 0 || gen <= 0)
      return false;
    if (wait_count >= s.batch_wait_iters ||
        static_cast<double>(ctx + gen) >=
            s.batch_wait_tokens_ratio * static_cast<double>(s.max_tokens)) {
      wait_count = 0;
      return false;
    }
    ++wait_count;
    return true;
  }
  // TensorRT-LLM's attention-DP balance (py_executor.py `_balance_adp_requests`, every
  // iteration): `ranks` attention-DP ranks, `ctx` the requests waiting or part-way through
  // their prompt, `gen` those decoding, each spread evenly over the ranks (the executor hands
  // new requests to the least loaded rank). Every rank holding a context request schedules
  // them (after adp_batching_wait_iters more while every rank decodes too); otherwise the
  // iteration holds them and counts, until the count reaches adp_balance_iters or a rank has
  // nothing to decode.
  bool hold_for_balance(i64 ranks, i64 ctx, i64 gen) {
    if (s.adp_balance_iters <= 0 || ranks <= 1)
      return false;
    if (ctx >= ranks) {
      adp_waited = 0;
      if (gen >= ranks && adp_batched < s.adp_batching_wait_iters) {
        ++adp_batched;
        return true;
      }
      adp_batched = 0;
      return false;
    }
    if (++adp_waited >= s.adp_balance_iters || gen < ranks) {
      adp_waited = 0;
      return false;
    }
    return true;
  }
  // The requests waiting or part-way through their prompt.
  i64 context_requests() const {
    i64 n = static_cast<i64>(waiting.size());
    for (const Seq &q : running)
      n += q.prefilled ? 0 : 1;
    return n;
  }
  // The prompt tokens waiting or part-way, at most `cap`.
  i64 prompt_tokens(const std::vector<Track> &tr, i64 cap) const {
    i64 n = 0;
    for (const Seq &q : running)
      if (!q.prefilled && (n += q.target - q.kv) >= cap)
        return cap;
    for (const i64 id : waiting) {
      const Track &r = tr[static_cast<std::size_t>(id)];
      if ((n += r.resume > 0 ? r.resume : r.prompt) >= cap)
        return cap;
    }
    return n;
  }
  double arrival_at(std::size_t p) const { return (*arrive)[static_cast<std::size_t>(ids[p])]; }
  Sooner sooner() const { return {ids, *arrive}; }
  // The position in ids of the next request to arrive (next < ids.size()): `next` itself with
  // arrivals in order (open loop); in a closed loop the earliest of those released and not
  // yet arrived (the heap's least), since a client's first request (staggered) may come after
  // another client's second.
  std::size_t earliest() const { return closed && !pending.empty() ? pending.top() : next; }
  // The request at position j = earliest() arrives: it takes position `next` and the request
  // there takes j, as the closed loop's linear scan did (the order that breaks its ties).
  void take(std::size_t j) {
    if (closed) {
      pending.pop(sooner());
      // the request at `next` moves to j; chained, it may not be pending yet (a later turn)
      const bool listed = j != next && pending.contains(next);
      std::swap(ids[next], ids[j]);
      if (chained) {
        where[ids[next]] = next;
        where[ids[j]] = j;
      }
      if (listed)
        pending.moved(next, j, sooner());
      return;
    }
    std::swap(ids[next], ids[j]);
  }
  // A request completed: whether it missed the target its role answers for (prefill: TTFT;
  // decode: TPOT; both: either), as Impl::finish judges it.
  bool missed(const Track &r) const {
    const Latency x = latency_of(s, r);
    return role == Role::prefill  ? !x.ttft_ok
           : role == Role::decode ? !x.tpot_ok
                                  : !(x.ttft_ok && x.tpot_ok);
  }
  const BlockName &name_of(const Seq &q) const {
    return streams->name[static_cast<std::size_t>(q.id)];
  }
  i64 adapter_of(const Seq &q) const { return streams->adapter[static_cast<std::size_t>(q.id)]; }
  void release(Seq &q) {
    if (adapters.on())
      adapters.release(adapter_of(q));
    kv.release(name_of(q), q.cached, std::min(q.blocks, q.kv / bs), q.blocks);
    q.blocks = 0;
    q.cached = 0;
    kv_tokens -= q.kv;
  }
  // Admission with prefix reuse: the prompt's leading blocks found cached are referenced (or
  // brought up from a lower tier, when that is sooner than computing them again) and only the
  // rest is prefilled. Returns false when the KV blocks cannot hold the prompt now.
  bool admit_cached(Seq &q, const Track &r, IterationModel &model, EngineStats &st);
  // vLLM's recompute preemption of the newest running request.
  void preempt_last(std::vector<Track> &tr, EngineStats &st) {
    Seq q = running.back();
    running.pop_back();
    release(q);
    Track &r = tr[static_cast<std::size_t>(q.id)];
    r.resume = r.prompt + r.generated;
    waiting.push_front(q.id);
    ++st.preemptions;
  }

  // The tokens every decoding sequence keeps in decode iteration n of this engine: 1, or under
  // speculative decoding floor((n + 1) g) - floor(n g) for g committed tokens an iteration on
  // average (the expectation, spread evenly over the iterations).
  i64 kept_tokens(i64 n) const {
    if (commit == 1)
      return 1;
    const auto at = [&](i64 i) {
      return static_cast<i64>(std::floor(static_cast<double>(i) * commit + 1e-9));
    };
    return at(n + 1) - at(n);
  }
  // What a decoding sequence keeps this iteration: kept_tokens, or what it has left.
  i64 kept_by(const Track &r, i64 now) const {
    return std::max<i64>(1, std::min(now, r.gen - r.generated));
  }

  const ServeSpec &s;
  i64 total_blocks;
  Role role;
  std::vector<i64> ids;
  std::vector<double> *arrive;
  bool is_static;
  i64 bs;
  KvBlocks kv;
  i64 counted[2] = {0, 0}; // kv.written(t) already added to the stats
  // The tiers' writes since the last call, into the stats.
  void count_writes(EngineStats &st) {
    for (int t = 0; t < 2; ++t) {
      st.written[t] += kv.written(t) - counted[t];
      counted[t] = kv.written(t);
    }
  }
  const Streams *streams;
  TierLinks links;
  AdapterSlots adapters;
  bool chained = false;
  std::function<void(i64)> release_to;
  i64 outstanding = 0;                        // routed: requests added and not completed
  std::unordered_map<i64, std::size_t> where; // chained: each request's position in ids
  double host_busy = 0, disk_busy = 0;        // the tiers' links busy until then
  std::deque<i64> waiting;
  std::vector<Seq> running;
  std::size_t next = 0;
  double t = 0;
  i64 kv_tokens = 0; // tokens held in the blocks of running sequences
  bool done = false;
  bool closed = false;      // closed loop
  double commit = 1;        // tokens a decoding sequence keeps per iteration (speculative)
  i64 verify = 1;           // tokens a decoding sequence runs per iteration: 1 + draft tokens
  i64 decode_iters = 0;     // decode iterations so far (kept_tokens' clock)
  std::size_t released = 0; // closed loop: requests of `ids` given an arrival so far
  PositionHeap pending;     // closed loop: positions [next, released) of ids, by arrival
  i64 recv_counter = 0;     // the receive gate's counter
  i64 last_weight = kExtendWeight;     // the last iteration's weight (first pass: receive)
  i64 wait_count = 0;                  // hold_prompts(): iterations the prompts have waited
  i64 adp_waited = 0, adp_batched = 0; // hold_for_balance(): its two counters
  // scratch of one pass, kept to spare the allocations: the prefill chunks (running index,
  // tokens), the decoding sequences, the sequences that stay, a run's new blocks
  std::vector<std::pair<std::size_t, i64>> chunks;
  std::vector<std::size_t> decodes;
  std::vector<Seq> keep;
  std::vector<i64> alloc;
};

// What an engine's step writes to the KV tiers, counted into the stats when it returns.
struct TierWrites {
  Engine &e;
  EngineStats &st;
  ~TierWrites() { e.count_writes(st); }
};

bool Engine::step(IterationModel &model, std::vector<Track> &tr, EngineStats &st, i64 &budget) {
  const TierWrites writes{*this, st};
  if (done)
    return false;
  auto preempt = [&] { preempt_last(tr, st); };
  if (running.empty() && waiting.empty())
    last_weight = kExtendWeight; // idle: the loop spins until a request arrives
  const bool recv = receives(last_weight);
  for (std::size_t j = 0; recv && next < ids.size() &&
                          (*arrive)[static_cast<std::size_t>(ids[j = earliest()])] <= t;) {
    take(j);
    st.area += t - (*arrive)[static_cast<std::size_t>(ids[next])];
    waiting.push_back(ids[next++]);
  }
  if (running.empty() && waiting.empty()) {
    if (next == ids.size())
      return release_to ? true : finish(); // routed: more may be added
    t = std::max(t, (*arrive)[static_cast<std::size_t>(ids[earliest()])]);
    return true;
  }
  if (decode_run(model, tr, st, budget))
    return true;
  if (--budget < 0) {
    st.truncated = true;
    return finish();
  }
  IterationLoad x;
  i64 tokens = s.max_tokens;
  chunks.clear();
  decodes.clear();
  // Without mixed prefill an iteration is all prefill while any prompt is part-way or waits
  // (steps 2 and 3 alone), else all decode (step 1 alone).
  const bool prefill_only =
      !s.mixed_prefill && role != Role::decode &&
      (!waiting.empty() ||
       std::any_of(running.begin(), running.end(), [](const Seq &q) { return !q.prefilled; }));
  // 1. every prefilled sequence decodes one token; a new block when its last is full,
  //    preempting the newest sequences while none is free
  const i64 now = kept_tokens(decode_iters);
  auto decode_all = [&] {
    for (std::size_t i = 0; i < running.size(); ++i) {
      Seq &q = running[i];
      if (!q.prefilled || q.ready > t)
        continue;
      const i64 need = ceil_div(q.kv + kept_by(tr[static_cast<std::size_t>(q.id)], now), bs);
      bool self = false;
      while (need - q.blocks > kv.free()) {
        self = i + 1 == running.size();
        preempt();
        if (self)
          break;
      }
      if (self)
        break;
      if (need > q.blocks) {
        kv.take(need - q.blocks);
        q.blocks = need;
      }
      decodes.push_back(i);
      x.decode += 1;
      x.decode_context += static_cast<double>(q.kv);
      tokens -= verify; // the drafts are scheduled tokens too (vLLM's token budget)
    }
  };
  if (!prefill_only)
    decode_all();
  // TensorRT-LLM's batch waiting, or with attention DP its balance, may hold this
  // iteration's prompts back (steps 2 and 3); the executor skips the batch waiting under
  // attention DP (py_executor.py `_schedule`)
  const i64 ranks = model.attention_ranks();
  const bool hold =
      role != Role::decode &&
      (ranks > 1 ? hold_for_balance(ranks, context_requests(), static_cast<i64>(x.decode))
                 : hold_prompts(prompt_tokens(tr, tokens), static_cast<i64>(x.decode) * verify));
  // 2. sequences part-way through their prompt take the next chunk
  auto schedule_chunk = [&](std::size_t i) {
    Seq &q = running[i];
    const i64 cap = is_static ? tokens : std::min(s.chunk, tokens);
    const i64 n = std::min(q.target - q.kv, cap);
    if (n <= 0)
      return false;
    if (q.ready > t)
      return false; // its cached blocks are still coming up from a lower tier
    const i64 need = ceil_div(q.kv + n, bs) - q.blocks;
    if (need > kv.free())
      return false;
    if (need > 0) {
      q.blocks += need;
      kv.take(need);
    }
    chunks.emplace_back(i, n);
    const double prior = static_cast<double>(q.kv), nn = static_cast<double>(n);
    x.prefill += nn;
    x.prefill_pairs += nn * (prior + nn / 2);
    x.prefill_kv += prior + nn;
    tokens -= n;
    return true;
  };
  for (std::size_t i = 0; !hold && i < running.size() && tokens > 0; ++i)
    if (!running[i].prefilled)
      schedule_chunk(i);
  // 3. admission: the scheduler's batch limit, the token budget and the KV blocks (the
  //    whole prompt must fit; static batching reserves prompt + output up front)
  const bool admit = !hold && (!is_static || running.empty() || role == Role::decode);
  while (admit && !waiting.empty() && static_cast<i64>(running.size()) < s.max_batch &&
         (tokens > 0 || role == Role::decode)) {
    if (adapters.on()) { // vLLM skips a request whose adapter has no slot now, for later ones
      const auto it = std::find_if(waiting.begin(), waiting.end(), [&](i64 w) {
        return adapters.placeable(streams->adapter[static_cast<std::size_t>(w)]);
      });
      if (it == waiting.end())
        break;
      if (it != waiting.begin()) {
        const i64 w = *it;
        waiting.erase(it);
        waiting.push_front(w);
      }
    }
    const i64 id = waiting.front();
    const Track &r = tr[static_cast<std::size_t>(id)];
    Seq q;
    q.id = id;
    q.target = r.resume > 0 ? r.resume : r.prompt;
    const i64 longest = r.prompt + r.gen;
    if (ceil_div(longest, bs) > total_blocks) { // can never fit: dropped
      waiting.pop_front();
      tr[static_cast<std::size_t>(id)].dropped = true;
      ++st.dropped;
      complete(t, id, tr);
      continue;
    }
    const i64 reserve = is_static ? ceil_div(longest, bs) : ceil_div(q.target + 1, bs);
    if (kv.reuse()) {
      if (!admit_cached(q, r, model, st))
        break;
    } else if (reserve > kv.free()) {
      break;
    }
    waiting.pop_front();
    if (adapters.on() && adapters.acquire(adapter_of(q))) { // loaded over the host link
      host_busy = std::max(t, host_busy) + links.adapter_bytes / links.adapter_bw;
      q.ready = std::max(q.ready, host_busy);
    }
    if (role == Role::decode) { // the KV arrives whole from a prefill instance
      q.kv = q.target;
      q.prefilled = true;
      q.blocks = ceil_div(q.kv, bs);
      kv.take(q.blocks);
      kv_tokens += q.kv;
      running.push_back(q);
      continue;
    }
    if (is_static) {
      q.blocks = reserve;
      kv.take(reserve);
    }
    running.push_back(q);
    schedule_chunk(running.size() - 1);
  }
  if (prefill_only && x.prefill == 0)
    decode_all(); // no prompt could take a chunk (KV or batch limit): decode instead
  st.peak_blocks = std::max(st.peak_blocks, kv.used());
  if (x.tokens() == 0) {
    double up = INFINITY; // the first sequence whose blocks are coming up from a lower tier
    for (const Seq &q : running)
      if (q.ready > t)
        up = std::min(up, q.ready);
    if (std::isfinite(up)) {
      t = up;
      return true;
    }
    if (!running.empty() && role != Role::decode) {
      preempt(); // stuck on KV with nothing to decode: make room
      return true;
    }
    if (running.empty() && next < ids.size()) {
      // the next arrival (none known when every request before it was dropped: the next
      // pass takes it)
      const double a = arrival_at(earliest());
      t = std::isfinite(a) ? std::max(t, a) : t;
      return true;
    }
    if (running.empty())
      return true;
  }
  // outputs: decodes plus prompts whose last chunk runs now
  x.outputs = x.decode;
  for (const auto &[i, n] : chunks)
    if (running[i].kv + n == running[i].target)
      x.outputs += 1;
  x.lora_adapters = adapters.in_use();
  const double dt = model.time(x).total;
  st.area += static_cast<double>(waiting.size() + running.size()) * dt;
  t += dt;
  ++st.iterations;
  last_weight = x.prefill > 0 ? kExtendWeight : 1;
  st.decode_sum += x.decode;
  // apply the iteration
  for (const auto &[i, n] : chunks) {
    Seq &q = running[i];
    q.kv += n;
    kv_tokens += n;
    if (kv.reuse()) { // its full blocks join the cache as they are computed (vLLM v1)
      kv.publish(name_of(q), q.cached, q.kv / bs);
      q.cached = std::max(q.cached, q.kv / bs);
    }
    if (q.kv == q.target) {
      q.prefilled = true;
      Track &r = tr[static_cast<std::size_t>(q.id)];
      r.generated += 1;
      if (r.first < 0)
        r.first = t;
    }
  }
  for (const std::size_t i : decodes) {
    Seq &q = running[i];
    Track &r = tr[static_cast<std::size_t>(q.id)];
    const i64 kept = kept_by(r, now);
    q.kv += kept;
    kv_tokens += kept;
    r.generated += kept;
  }
  if (!decodes.empty())
    ++decode_iters;
  // paged-block fragmentation: slots of allocated blocks that hold no token, time-weighted
  st.block_slots += static_cast<double>(kv.used() * bs) * dt;
  st.kv_slots += std::min(static_cast<double>(kv_tokens), static_cast<double>(kv.used() * bs)) * dt;
  keep.clear();
  for (Seq &q : running) {
    Track &r = tr[static_cast<std::size_t>(q.id)];
    const bool done = role == Role::prefill ? q.prefilled : r.generated >= r.gen;
    if (done) {
      r.finish = t;
      st.missed += missed(r) ? 1 : 0;
      release(q);
      complete(t, q.id, tr);
    } else {
      keep.push_back(q);
    }
  }
  running.swap(keep);
  return true;
}

bool Engine::admit_cached(Seq &q, const Track &r, IterationModel &model, EngineStats &st) {
  const BlockName &name = name_of(q);
  // every prompt computes at least its last token (vLLM caps a full hit at prompt - 1)
  BlockMatch m = kv.match(name, (q.target - 1) / bs);
  double ready = t, host_end = host_busy, disk_end = disk_busy;
  if (const i64 lower = m.host + m.disk; lower > 0) {
    // brought up when the transfers (each tier's link in turn) end sooner than the prefill of
    // those tokens alone would
    const double b = links.block_bytes;
    if (m.host > 0)
      host_end = std::max(t, host_busy) + static_cast<double>(m.host) * b / links.host_bw;
    if (m.disk > 0)
      disk_end = std::max(t, disk_busy) + static_cast<double>(m.disk) * b / links.disk_bw;
    IterationLoad x;
    const double n = static_cast<double>(lower * bs), prior = static_cast<double>(m.hbm * bs);
    x.prefill = n;
    x.prefill_pairs = n * (prior + n / 2);
    x.prefill_kv = prior + n;
    ready = std::max(m.host > 0 ? host_end : t, m.disk > 0 ? disk_end : t);
    if (ready - t >= model.time(x).total) {
      m = kv.match(name, m.lead); // the HBM blocks before the first lower-tier one
      ready = t;
    }
  }
  const i64 used = m.blocks();
  // new blocks: the prompt's and its first output's beyond the HBM hits, and the hits no
  // request references leave the free pool
  if (ceil_div(q.target + 1, bs) - m.hbm + m.unreferenced > kv.free())
    return false;
  kv.acquire(name, used);
  q.blocks = q.cached = used;
  q.kv = used * bs;
  kv_tokens += q.kv;
  if (ready > t) {
    q.ready = ready;
    host_busy = m.host > 0 ? host_end : host_busy;
    disk_busy = m.disk > 0 ? disk_end : disk_busy;
  }
  if (r.resume == 0) {
    st.prompt_tokens += static_cast<double>(r.prompt);
    st.hit_hbm += static_cast<double>(m.hbm * bs);
    st.hit_host += static_cast<double>(m.host * bs);
    st.hit_disk += static_cast<double>(m.disk * bs);
  }
  return true;
}

bool Engine::decode_run(IterationModel &model, std::vector<Track> &tr, EngineStats &st,
                        i64 &budget) {
  const TierWrites writes{*this, st};
  // speculative decoding keeps a varying number of tokens an iteration: one pass each
  if (role == Role::prefill || !waiting.empty() || running.empty() || commit != 1)
    return false;
  i64 k = INT64_MAX; // iterations before the first completion
  double ctx = 0;
  for (const Seq &q : running) {
    if (!q.prefilled || q.ready > t)
      return false;
    const Track &r = tr[static_cast<std::size_t>(q.id)];
    k = std::min(k, r.gen - r.generated - 1);
    ctx += static_cast<double>(q.kv);
  }
  k = std::min(k, budget);
  // new blocks over k iterations: a sequence's first when its kv passes blocks x bs, then
  // one every bs tokens; the run is cut to what the free blocks cover
  auto allocations = [&](i64 n) {
    i64 a = 0;
    for (const Seq &q : running) {
      const i64 j0 = q.blocks * bs - q.kv;
      if (j0 < n)
        a += 1 + (n - 1 - j0) / bs;
    }
    return a;
  };
  while (k >= 2 && allocations(k) > kv.free())
    k /= 2;
  if (k < 2)
    return false;
  alloc.assign(static_cast<std::size_t>(k), 0); // new blocks at each iteration
  for (const Seq &q : running)
    for (i64 j = q.blocks * bs - q.kv; j < k; j += bs)
      alloc[static_cast<std::size_t>(j)] += 1;
  const double next_arrival =
      next < ids.size() ? (*arrive)[static_cast<std::size_t>(ids[earliest()])] : INFINITY;
  const double b = static_cast<double>(running.size());
  IterationLoad x;
  x.decode = b;
  x.outputs = b;
  x.lora_adapters = adapters.in_use();
  // A decode iteration's time is affine in its KV context (IterationModel::time: attention,
  // max(FLOPs, bytes), both proportional to it, is the only term that reads it), and the
  // context grows by b an iteration: two evaluations give the whole run.
  x.decode_context = ctx;
  const double dt0 = model.time(x).total;
  x.decode_context = ctx + b;
  const double slope = model.time(x).total - dt0;
  i64 j = 0;
  for (; j < k; ++j) {
    // the pass before iteration j: an arrival it would take ends the run (the next pass
    // takes it); else it is counted as SGLang's receive gate counts a decode iteration
    if (j > 0) {
      if ((t >= next_arrival && gate_opens(1)) || t >= horizon)
        break;
      receives(1);
    }
    --budget;
    kv.take(alloc[static_cast<std::size_t>(j)]);
    st.peak_blocks = std::max(st.peak_blocks, kv.used());
    const double dt = dt0 + static_cast<double>(j) * slope;
    st.area += b * dt;
    t += dt;
    ++st.iterations;
    st.decode_sum += x.decode;
    kv_tokens += static_cast<i64>(running.size());
    st.block_slots += static_cast<double>(kv.used() * bs) * dt;
    st.kv_slots +=
        std::min(static_cast<double>(kv_tokens), static_cast<double>(kv.used() * bs)) * dt;
  }
  for (Seq &q : running) {
    q.kv += j;
    q.blocks = std::max(q.blocks, ceil_div(q.kv, bs));
    tr[static_cast<std::size_t>(q.id)].generated += j;
  }
  last_weight = 1;
  return true;
}

} // namespace

// The whole simulation as a state machine: the engines of the current phase run one after
// another (each to its end, as one call would), a pass of the scheduler loop per unit.
struct ServeSimulation::Impl {
  Config c;
  Layout l;
  std::vector<Request> reqs;
  i64 instances = 1, prefill_instances = 0;
  ServeRun mode = ServeRun::aggregated;
  i64 left = 0; // iterations the budget still allows
  bool stop_when_missed = false;
  std::optional<IterationModel> model;
  ServeResult res;
  std::vector<Track> tr;
  std::vector<double> arrive, at;
  std::vector<i64> order;
  std::optional<SplitMix64> route;
  EngineStats st;
  Streams streams;
  TierLinks links;
  // The current phase's instances that have requests, each one's engine built when its turn
  // comes: one engine's state at a time, and nothing for an instance without a request.
  struct Part {
    std::vector<i64> ids;
    i64 clients = 0; // closed loop: the instance's clients
  };
  std::vector<Part> parts;
  // Routed (workload.routing): every instance's engine side by side, the one whose next
  // event is soonest stepped; the router places each request when it arrives.
  bool routed = false;
  std::vector<Engine> fleet;
  std::priority_queue<std::pair<double, i64>, std::vector<std::pair<double, i64>>,
                      std::greater<>>
      inbox;    // (arrival, request) known and not placed yet
  i64 turn = 0; // round-robin's next replica
  Role role = Role::both;
  std::vector<double> *arr = nullptr; // the phase's arrivals
  std::optional<Engine> engine;       // parts[current]'s
  std::size_t current = 0;
  int phase = 0; // disaggregated: 0 the prefill pool, 1 the decode pool
  i64 engines_total = 1, engines_done = 0;
  bool finished = false;
  ServeResult out;
  // The opening burst of a benchmark that counts it (count_warmup): every client's first
  // request at 0 on an empty engine, simulated on its own, all counted.
  bool burst = false;

  // Uniform random routing of `ids` over n instances: the parts of those that get any, in
  // the order of the instances, each in the order of `ids`. A session's turns follow its
  // first turn's instance, where its conversation's KV blocks are (session affinity).
  void spread(i64 n, const std::vector<i64> &ids) {
    std::vector<std::pair<i64, i64>> routed; // (instance, id)
    std::unordered_map<i64, i64> session;    // stream -> instance
    routed.reserve(ids.size());
    for (const i64 id : ids) {
      const i64 stream = reqs[static_cast<std::size_t>(id)].stream;
      const auto it = stream >= 0 ? session.find(stream) : session.end();
      const i64 to =
          it != session.end()
              ? it->second
              : std::min<i64>(n - 1, static_cast<i64>(route->uniform() * static_cast<double>(n)));
      if (stream >= 0)
        session.emplace(stream, to);
      routed.emplace_back(to, id);
    }
    std::stable_sort(routed.begin(), routed.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (std::size_t i = 0; i < routed.size(); ++i) {
      if (i == 0 || routed[i].first != routed[i - 1].first)
        parts.emplace_back();
      parts.back().ids.push_back(routed[i].second);
    }
  }
  // Closed loop: request i is client (i mod C)'s, and client k talks to instance k mod n, its
  // requests in turn; an instance without a client gets no request.
  void split_clients(i64 n, const std::vector<i64> &ids, i64 clients) {
    const i64 m = std::min(n, clients);
    parts.resize(static_cast<std::size_t>(m));
    for (std::size_t i = 0; i < ids.size(); ++i)
      parts[(i % static_cast<std::size_t>(clients)) % static_cast<std::size_t>(m)].ids.push_back(
          ids[i]);
    for (i64 j = 0; j < m; ++j)
      parts[static_cast<std::size_t>(j)].clients = clients / n + (j < clients % n ? 1 : 0);
    std::erase_if(parts, [](const Part &p) { return p.ids.empty(); });
  }
  // Closed loop, clients out of phase: the gap between the first requests of an engine's k
  // clients, one request's cycle over k. Real clients drift apart (a benchmark's network,
  // tokenizer and streaming jitter splits any group that completes together, and nothing
  // merges them again), so a steady state has their requests spread over the cycle; with
  // every client starting at 0 and fixed lengths the simulation would keep them in lockstep
  // forever, prefilling all k prompts in one iteration. The cycle is the mean request's:
  // its prompt prefilled alone, then gen - 1 decode iterations at batch k over the mean
  // context, plus the think time (the iteration model, no fitted constant).
  // An engine without mixed prefill keeps them in lockstep: every decode pauses while any
  // prompt prefills, so a group that arrives together starts decoding together and completes
  // together, whatever jitter split its arrivals; its clients start together, as a benchmark's
  // do (docs/serving.md "Prefill without mixing").
  double client_stagger(i64 k) {
    const WorkloadSpec &w = c.workload;
    if (k <= 1)
      return 0;
    IterationLoad prefill;
    prefill.prefill = static_cast<double>(w.prompt_len);
    prefill.prefill_pairs = prefill.prefill * prefill.prefill / 2;
    prefill.prefill_kv = prefill.prefill;
    prefill.outputs = 1;
    IterationLoad decode;
    decode.decode = static_cast<double>(std::min(k, w.serve.max_batch));
    decode.decode_context = decode.decode * static_cast<double>(w.prompt_len + w.gen_len / 2);
    decode.outputs = decode.decode;
    // a conversation's pauses: think_time between its turns, the workload's between two
    const std::optional<SessionsSpec> &ss = w.serve.sessions;
    const double think =
        ss ? (static_cast<double>(ss->turns - 1) * ss->think_time + w.serve.think_time) /
                 static_cast<double>(ss->turns)
           : w.serve.think_time;
    const double cycle = model->time(prefill).total +
                         static_cast<double>(w.gen_len - 1) * model->time(decode).total + think;
    return cycle / static_cast<double>(k);
  }
  // The phase's requests `ids` over n instances of this role, arriving at *a; the instances
  // without a request count as served.
  void add_engines(i64 n, const std::vector<i64> &ids, Role r, std::vector<double> *a) {
    parts.clear();
    current = 0;
    role = r;
    arr = a;
    const i64 clients = c.workload.serve.concurrency;
    if (clients > 0 && role == Role::both)
      split_clients(n, ids, clients);
    else
      spread(n, ids);
    engines_done += n - static_cast<i64>(parts.size());
  }
  // The engine of parts[current]. A closed loop's first request of each client arrives
  // (staggered), the others once released.
  void open_engine() {
    Part &p = parts[current];
    const double stagger =
        p.clients > 0 && c.workload.serve.mixed_prefill && !burst ? client_stagger(p.clients) : 0;
    for (std::size_t i = 0; p.clients > 0 && i < p.ids.size(); ++i) {
      const auto id = static_cast<std::size_t>(p.ids[i]);
      (*arr)[id] =
          i < static_cast<std::size_t>(p.clients) ? static_cast<double>(i) * stagger : INFINITY;
      tr[id].arrival = (*arr)[id];
    }
    engine.emplace(c.workload.serve, res.memory.kv_blocks, role, std::move(p.ids), arr, &streams,
                   links, p.clients);
  }
  void start();
  void next_phase();
  void start_routed();
  // The replica request `id` goes to, by the routing policy, as the engines stand.
  std::size_t choose(i64 id);
  bool advance_routed(i64 passes);
  // What the requests share (their blocks' names) and how they follow each other, and the
  // tiers below HBM.
  void make_streams();
  // The result, now.
  void end() {
    if (mode == ServeRun::prefill_pool)
      for (Track &r : tr)
        r.gen = std::min<i64>(r.gen, 1); // the pool's job ends at the first token
    out = finish();
    finished = true;
  }
  // Closed loop: the requests left out of the steady state at each end (the first and the
  // last C to arrive, at most a quarter of them each); 0 where every request counts.
  i64 steady_trim() const {
    const ServeSpec &s = c.workload.serve;
    return s.concurrency > 0 && mode == ServeRun::aggregated && !burst
               ? std::min(s.concurrency, static_cast<i64>(tr.size()) / 4)
               : 0;
  }
  // Too many requests missed the SLO for its attainment to be met, whatever the rest do.
  // finish() counts every request of an open loop; a closed loop's steady state leaves out
  // k at each end (warmup_excluded), so a sure miss is one even if all 2k left out were among
  // the misses. A closed loop whose opening burst is counted (count_warmup) is weighted at the
  // end: never stopped.
  bool unreachable() const {
    const ServeSpec &s = c.workload.serve;
    const i64 k = steady_trim();
    if (k > 0 && s.count_warmup)
      return false;
    // the most that can still meet it over the requests counted, divided as finish() divides
    // them (1 - attainment in floating point would call a run that meets it exactly a miss)
    const i64 counted = static_cast<i64>(tr.size()) - 2 * k;
    const i64 best = counted - std::max<i64>(0, st.missed - 2 * k);
    return counted > 0 &&
           static_cast<double>(best) / static_cast<double>(counted) < s.slo_attainment;
  }
  ServeResult finish() const;
  bool advance(i64 passes);
  // TTFT and end-to-end latency of each request of the opening burst.
  void burst_latencies(std::vector<double> &ttft, std::vector<double> &e2e) const;
};

void ServeSimulation::Impl::start() {
  const ServeSpec &s = c.workload.serve;
  res.layout = l;
  res.engine = s.engine;
  res.memory = serve_memory(c, l);
  if (!res.memory.fits) {
    char msg[480];
    std::snprintf(msg, sizeof msg,
                  "one instance (tp %lld x pp %lld x ep %lld) holds %.1f GB of weights and %.1f "
                  "GB of workspace per chip: no room for the KV cache in %.1f GB at %s (raise "
                  "tp or pp, or lower the weight dtype)",
                  static_cast<long long>(l.tp), static_cast<long long>(l.pp),
                  static_cast<long long>(l.ep), res.memory.weights / 1e9,
                  res.memory.workspace / 1e9, res.memory.capacity / 1e9,
                  kv_memory_rule_text(s.engine.kv_memory, s.memory_fraction).c_str());
    throw ConfigError("parallel", msg);
  }
  model.emplace(c, l);
  res.engine_gemm = model->gemm_fit();
  res.engine_moe_efficiency = moe_efficiency(c);
  res.prefill_attention_efficiency = model->prefill_attention_efficiency();
  res.prefill_attention_measured = model->prefill_attention_measured();
  res.devices_per_instance = model->devices();
  res.instances = instances;
  const bool disagg = mode == ServeRun::disaggregated;
  if (disagg && prefill_instances >= instances)
    throw ConfigError("workload.scheduler.prefill_instances", std::to_string(prefill_instances) +
                                                                  " leaves no decode instance of " +
                                                                  std::to_string(instances));
  res.prefill_instances = disagg ? prefill_instances : 0;
  res.decode_instances = disagg ? instances - prefill_instances : 0;
  res.devices = instances * res.devices_per_instance;
  res.requests = static_cast<i64>(reqs.size());

  tr.assign(reqs.size(), Track{});
  arrive.assign(reqs.size(), 0);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    tr[i].arrival = reqs[i].arrival;
    tr[i].prompt = reqs[i].prompt;
    tr[i].gen = reqs[i].gen;
    arrive[i] = reqs[i].arrival;
  }
  make_streams();
  if (s.routing != Routing::none) {
    if (mode != ServeRun::aggregated)
      throw ConfigError("workload.routing", "spreads requests over aggregated replicas; a "
                                            "disaggregated deployment's pools are not routed");
    start_routed();
    return;
  }
  route.emplace(s.seed ^ 0x5eedULL);
  order.assign(reqs.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<i64>(i);
  if (mode == ServeRun::aggregated || mode == ServeRun::prefill_pool) {
    add_engines(instances, order, mode == ServeRun::aggregated ? Role::both : Role::prefill,
                &arrive);
  } else if (mode == ServeRun::decode_pool) {
    std::vector<i64> ready;
    for (Track &r : tr) {
      r.first = r.arrival; // the first token came from the prefill pool
      r.generated = 1;
      if (r.gen <= 1)
        r.finish = r.arrival;
    }
    for (std::size_t i = 0; i < tr.size(); ++i)
      if (tr[i].gen > 1)
        ready.push_back(static_cast<i64>(i));
    add_engines(instances, ready, Role::decode, &arrive);
  } else {
    add_engines(prefill_instances, order, Role::prefill, &arrive);
  }
  engines_total = instances;
}

void ServeSimulation::Impl::start_routed() {
  const ServeSpec &s = c.workload.serve;
  routed = true;
  engines_total = instances;
  const i64 clients = s.concurrency;
  if (clients > 0 && !streams.chained) // a plain closed loop: each client's requests in turn
    for (std::size_t i = 0; i + static_cast<std::size_t>(clients) < reqs.size(); ++i) {
      streams.follow[i] = static_cast<i64>(i) + clients;
      streams.think[i + static_cast<std::size_t>(clients)] = s.think_time;
    }
  streams.chained = clients > 0 || streams.chained;
  fleet.reserve(static_cast<std::size_t>(instances));
  for (i64 k = 0; k < instances; ++k)
    fleet.emplace_back(s, res.memory.kv_blocks, Role::both, std::vector<i64>{}, &arrive, &streams,
                       links, 0,
                       [this](i64 id) { inbox.emplace(arrive[static_cast<std::size_t>(id)], id); });
  // A closed loop's clients start over one cycle (client_stagger), a replica's share of them
  // spread as the unrouted engines' are; the opening burst of a counted warm-up starts at 0.
  const i64 per = clients > 0 ? (clients + instances - 1) / instances : 0;
  const double gap =
      clients > 0 && s.mixed_prefill && !burst
          ? client_stagger(per) * static_cast<double>(per) / static_cast<double>(clients)
          : 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const bool head = clients > 0 ? i < static_cast<std::size_t>(clients) : reqs[i].after < 0;
    if (clients > 0)
      arrive[i] = tr[i].arrival = head ? static_cast<double>(i) * gap : INFINITY;
    if (head && std::isfinite(arrive[i]))
      inbox.emplace(arrive[i], static_cast<i64>(i));
  }
}

std::size_t ServeSimulation::Impl::choose(i64 id) {
  const ServeSpec &s = c.workload.serve;
  const std::size_t n = fleet.size();
  std::size_t least = 0;
  for (std::size_t k = 1; k < n; ++k)
    if (fleet[k].load() < fleet[least].load())
      least = k;
  switch (s.routing) {
  case Routing::round_robin:
    return static_cast<std::size_t>(turn++ % static_cast<i64>(n));
  case Routing::least_loaded:
    return least;
  default: // prefix_aware
    break;
  }
  // SGLang's cache-aware router (sgl-model-gateway, policy cache_aware): while the loads are
  // in balance, the replica with the longest cached prefix if it covers more than
  // kCacheThreshold of the prompt; out of balance (most - fewest > kBalanceAbs and most >
  // kBalanceRel x fewest), or with no such match, the least loaded.
  constexpr double kCacheThreshold = 0.3, kBalanceRel = 1.5;
  constexpr i64 kBalanceAbs = 64;
  i64 most = 0;
  for (const Engine &e : fleet)
    most = std::max(most, e.load());
  const i64 fewest = fleet[least].load();
  if (most - fewest > kBalanceAbs &&
      static_cast<double>(most) > kBalanceRel * static_cast<double>(fewest))
    return least;
  const auto i = static_cast<std::size_t>(id);
  const i64 limit = (reqs[i].prompt - 1) / s.block_size;
  std::size_t best = least;
  i64 hit = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const i64 m = fleet[k].cached(streams.name[i], limit).blocks();
    if (m > hit || (m == hit && m > 0 && fleet[k].load() < fleet[best].load())) {
      hit = m;
      best = k;
    }
  }
  const double share = static_cast<double>(hit * s.block_size) /
                       static_cast<double>(std::max<i64>(1, reqs[i].prompt));
  if (share > kCacheThreshold)
    return best;
  // LoRA: the least loaded replica that holds the request's adapter, within the balance
  // (adapter-aware routing; S-LoRA and Punica place requests where their adapter is)
  std::size_t with = n;
  for (std::size_t k = 0; k < n; ++k)
    if (fleet[k].has_adapter(reqs[i].adapter) &&
        (with == n || fleet[k].load() < fleet[with].load()))
      with = k;
  return with < n && fleet[with].load() - fewest <= kBalanceAbs ? with : least;
}

bool ServeSimulation::Impl::advance_routed(i64 passes) {
  for (i64 p = 0; p < passes && !finished; ++p) {
    std::size_t e = fleet.size();
    double first = INFINITY, second = INFINITY;
    for (std::size_t k = 0; k < fleet.size(); ++k) {
      const double x = fleet[k].next_event();
      if (x < first) {
        second = first;
        first = x;
        e = k;
      } else if (x < second) {
        second = x;
      }
    }
    const double arrival = inbox.empty() ? INFINITY : inbox.top().first;
    if (std::isfinite(arrival) && arrival <= first) { // placed as the engines stand now
      const i64 id = inbox.top().second;
      inbox.pop();
      fleet[choose(id)].add(id);
      continue;
    }
    if (!std::isfinite(first)) { // nothing left anywhere
      end();
      break;
    }
    fleet[e].horizon = std::min(arrival, second);
    fleet[e].step(*model, tr, st, left);
    if (st.truncated) {
      end();
      break;
    }
    if (stop_when_missed && unreachable()) {
      end();
      out.stopped_at_miss = true;
      break;
    }
  }
  return finished;
}

void ServeSimulation::Impl::make_streams() {
  const ServeSpec &s = c.workload.serve;
  const std::size_t n = reqs.size();
  streams.name.assign(n, BlockName{});
  streams.follow.assign(n, -1);
  streams.think.assign(n, 0);
  streams.chained = false;
  i64 last_stream = -1;
  for (const Request &q : reqs)
    last_stream = std::max(last_stream, q.stream);
  for (std::size_t i = 0; i < n; ++i) {
    const Request &q = reqs[i];
    const i64 line = q.stream >= 0 ? q.stream : last_stream + 1 + static_cast<i64>(i);
    streams.name[i] = {static_cast<std::uint64_t>(line) + 1, q.shared / s.block_size};
    if (q.hash_ids) { // Mooncake's 512-token hash blocks, in engine blocks
      streams.name[i].chunks = q.hash_ids;
      streams.name[i].chunk_blocks = std::max<i64>(1, kTraceHashTokens / s.block_size);
    }
    streams.think[i] = q.think;
    if (q.after >= 0) {
      if (mode != ServeRun::aggregated)
        throw ConfigError(s.sessions ? "workload.sessions" : "workload.trace",
                          "a turn sent after its previous one completes needs an aggregated "
                          "deployment (no prefill_instances, no pool of its own)");
      streams.follow[static_cast<std::size_t>(q.after)] = static_cast<i64>(i);
      streams.chained = true;
    }
  }
  // the tiers below HBM, per chip: a block's bytes from the KV cache's own accounting
  links = TierLinks{};
  streams.adapter.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    streams.adapter[i] = reqs[i].adapter;
  if (const auto &lo = s.lora) { // an adapter comes from host memory over the host link
    links.adapter_bytes = res.memory.lora / static_cast<double>(lo->resident);
    links.adapter_bw =
        s.kv_offload && s.kv_offload->host_bw > 0 ? s.kv_offload->host_bw : c.cluster.host_bw;
    if (links.adapter_bw <= 0)
      throw ConfigError("workload.lora", "adapters load from host memory over the cluster's "
                                         "host link: give cluster.host_bw");
  }
  if (s.kv_offload && res.memory.kv_tokens > 0) {
    const KvOffloadSpec &o = *s.kv_offload;
    links.block_bytes =
        res.memory.kv_cache / res.memory.kv_tokens * static_cast<double>(s.block_size);
    links.host_bw = o.host_bw > 0 ? o.host_bw : c.cluster.host_bw;
    links.disk_bw = o.disk_bw;
    if (links.block_bytes > 0) {
      links.host_blocks =
          links.host_bw > 0 ? static_cast<i64>(std::floor(o.host_bytes / links.block_bytes)) : 0;
      links.disk_blocks =
          links.disk_bw > 0 ? static_cast<i64>(std::floor(o.disk_bytes / links.block_bytes)) : 0;
    }
  }
}

// Disaggregated: the prefill pool is done; the KV of each prompt crosses the network (every
// chip sending its shard in parallel) and the decode pool takes over.
void ServeSimulation::Impl::next_phase() {
  phase = 1;
  for (Track &r : tr)
    r.resume = 0; // the decode pool's engines start afresh
  const Link &net = c.cluster.inter_node.bw > 0 ? c.cluster.inter_node : c.cluster.dcn;
  double transfer_sum = 0;
  std::vector<i64> ready;
  at.assign(reqs.size(), 0);
  for (std::size_t i = 0; i < tr.size(); ++i) {
    if (tr[i].first < 0)
      continue;
    const double bytes = static_cast<double>(tr[i].prompt) * model->kv_bytes_per_token_model();
    const double x =
        net.bw > 0
            ? net.latency + bytes / (net.rate() * static_cast<double>(res.devices_per_instance))
            : 0;
    transfer_sum += x;
    at[i] = tr[i].first + x;
    if (tr[i].gen > 1)
      ready.push_back(static_cast<i64>(i));
    else
      tr[i].finish = tr[i].first;
  }
  std::sort(ready.begin(), ready.end(), [&](i64 a, i64 b) {
    return at[static_cast<std::size_t>(a)] < at[static_cast<std::size_t>(b)];
  });
  const double served = static_cast<double>(
      std::count_if(tr.begin(), tr.end(), [](const Track &r) { return r.first >= 0; }));
  res.kv_transfer = served > 0 ? transfer_sum / served : 0;
  add_engines(instances - prefill_instances, ready, Role::decode, &at);
}

ServeResult ServeSimulation::Impl::finish() const {
  ServeResult res = this->res;
  const ServeSpec &s = c.workload.serve;
  res.iterations = st.iterations;
  res.preemptions = st.preemptions;
  res.peak_kv_blocks = st.peak_blocks;
  res.dropped = st.dropped;
  res.truncated = st.truncated;
  res.memory.kv_fragmentation = st.block_slots > 0 ? 1 - st.kv_slots / st.block_slots : 0;
  res.mean_batch = st.iterations > 0 ? st.decode_sum / static_cast<double>(st.iterations) : 0;
  // what the cache found: shown for a workload that shares prefixes, or when it found any
  // (a preempted request's own blocks)
  if (st.prompt_tokens > 0 && (shares_prefixes(s) || st.hit_hbm + st.hit_host + st.hit_disk > 0)) {
    ServeCache &k = res.cache;
    k.on = true;
    k.prompt_tokens = st.prompt_tokens;
    k.hit_tokens = st.hit_hbm + st.hit_host + st.hit_disk;
    k.hit_rate = k.hit_tokens / st.prompt_tokens;
    k.tiers.push_back({"hbm", st.hit_hbm / st.prompt_tokens});
    if (links.host_blocks > 0)
      k.tiers.push_back({"host", st.hit_host / st.prompt_tokens});
    if (links.disk_blocks > 0)
      k.tiers.push_back({"disk", st.hit_disk / st.prompt_tokens});
  }

  std::vector<double> ttft, tpot, e2e;
  double first_arrival = reqs.empty() ? 0 : reqs.front().arrival, last = first_arrival;
  double out_tokens = 0;
  i64 met = 0, met_ttft = 0, met_tpot = 0;
  // Closed loop: the steady state leaves out the first and the last `C` requests to arrive
  // (every client's first request starts together; the last ones run as the load drains), at
  // most a quarter of them at each end.
  std::vector<char> steady(tr.size(), 1);
  if (const auto k = static_cast<std::size_t>(steady_trim()); k > 0) {
    std::vector<std::size_t> by_arrival(tr.size());
    for (std::size_t i = 0; i < by_arrival.size(); ++i)
      by_arrival[i] = i;
    std::stable_sort(by_arrival.begin(), by_arrival.end(),
                     [&](std::size_t a, std::size_t b) { return tr[a].arrival < tr[b].arrival; });
    for (std::size_t i = 0; i < k; ++i) {
      steady[by_arrival[i]] = 0;
      steady[by_arrival[tr.size() - 1 - i]] = 0;
    }
    res.warmup_excluded = static_cast<i64>(k);
  }
  for (std::size_t i = 0; i < tr.size(); ++i) {
    const Track &r = tr[i];
    first_arrival = std::min(first_arrival, r.arrival);
    if (r.finish < 0 || r.first < 0 || r.generated < r.gen)
      continue;
    ++res.completed;
    last = std::max(last, r.finish);
    out_tokens += static_cast<double>(r.gen);
    if (!steady[i])
      continue;
    const Latency x = latency_of(s, r);
    ttft.push_back(x.ttft);
    if (r.gen > 1)
      tpot.push_back(x.tpot);
    e2e.push_back(r.finish - r.arrival + s.engine.request_overhead); // the front end's too
    met += x.ttft_ok && x.tpot_ok ? 1 : 0;
    met_ttft += x.ttft_ok ? 1 : 0;
    met_tpot += x.tpot_ok ? 1 : 0;
  }
  if (s.count_warmup && s.concurrency > 0 && mode == ServeRun::aggregated && !burst &&
      !ttft.empty()) {
    // Every request counted: the burst's own, and the steady state's standing for the rest.
    std::vector<double> bt, be;
    burst_latencies(bt, be);
    const double rest =
        std::max(0.0, static_cast<double>(res.requests) - static_cast<double>(bt.size()));
    res.ttft = weighted_percentiles(ttft, rest, bt);
    res.e2e = weighted_percentiles(e2e, rest, be);
    res.warmup_counted = static_cast<i64>(bt.size());
    res.warmup_excluded = 0;
  } else {
    res.ttft = percentiles(ttft);
    res.e2e = percentiles(e2e);
  }
  res.tpot = percentiles(tpot);
  res.simulated_s = last - first_arrival;
  const double span = res.simulated_s > 0 ? res.simulated_s : 1;
  // the tiers' stores: each chip's share of the blocks evicted to them, over the span
  for (ServeCache::Tier &k : res.cache.tiers) {
    const int t = k.tier == "host" ? 0 : k.tier == "disk" ? 1 : -1;
    if (t < 0)
      continue;
    const double bw = t == 0 ? links.host_bw : links.disk_bw;
    k.write_bw = static_cast<double>(st.written[t]) * links.block_bytes /
                 (static_cast<double>(std::max<i64>(1, engines_total)) * span);
    k.write_share = bw > 0 ? k.write_bw / bw : 0;
  }
  res.output_tokens_per_s = out_tokens / span;
  res.requests_per_s = static_cast<double>(res.completed) / span;
  // Throughput over the steady state: tokens and completions inside the window the arrivals
  // keep the deployment loaded, without the ramp-up and the drain that a short simulation
  // would average in (the same figure at 1,000 or 20,000 requests).
  if (const SteadyWindow w = steady_window(tr, steady); w.t1 > w.t0) {
    double tokens = 0, done = 0;
    for (const Track &r : tr) {
      if (r.finish < 0 || r.first < 0 || r.generated < r.gen)
        continue;
      tokens += tokens_within(r, w.t0, w.t1);
      done += r.finish > w.t0 && r.finish <= w.t1 ? 1 : 0;
    }
    res.steady_s = w.t1 - w.t0;
    res.output_tokens_per_s = tokens / res.steady_s;
    res.requests_per_s = done / res.steady_s;
  }
  // Shares of the requests the statistics count (a closed loop's steady state).
  const double counted = static_cast<double>(res.requests - 2 * res.warmup_excluded);
  res.goodput =
      static_cast<double>(met) / span * static_cast<double>(res.requests) / std::max(counted, 1.0);
  res.attainment = counted > 0 ? static_cast<double>(met) / counted : 0;
  if (counted > 0) {
    res.attainment_ttft = static_cast<double>(met_ttft) / counted;
    res.attainment_tpot = static_cast<double>(met_tpot) / counted;
  }
  res.mean_in_system = st.area / span;
  res.cost_per_hour = c.hardware.price_per_hour * static_cast<double>(res.devices);
  if (res.cost_per_hour > 0 && res.output_tokens_per_s > 0)
    res.cost_per_million_tokens = res.cost_per_hour / (res.output_tokens_per_s * 3600) * 1e6;
  if (c.workload.serve.speculative)
    res.committed_tokens = committed_tokens(*c.workload.serve.speculative);
  const PowerState ps = power_state(c.hardware, c.cluster, c.workload.power_cap_w);
  if (ps.device_w > 0 && res.output_tokens_per_s > 0) {
    const EnergyUse e = energy_use(ps, c.cluster, static_cast<double>(res.devices), 1.0,
                                   res.output_tokens_per_s); // one second of the steady state
    res.facility_w = e.facility_w;
    res.joules_per_output_token = e.joules_per_token;
    res.energy_cost_per_million_tokens = e.cost * 1e6 / res.output_tokens_per_s;
  }
  return res;
}

void ServeSimulation::Impl::burst_latencies(std::vector<double> &ttft,
                                            std::vector<double> &e2e) const {
  Impl b;
  b.c = c;
  b.l = l;
  const std::size_t n =
      std::min(reqs.size(), static_cast<std::size_t>(c.workload.serve.concurrency));
  b.reqs.assign(reqs.begin(), reqs.begin() + static_cast<std::ptrdiff_t>(n));
  b.c.workload.serve.requests = static_cast<i64>(n);
  b.instances = instances;
  b.mode = ServeRun::aggregated;
  b.left = left;
  b.burst = true;
  b.start();
  while (!b.advance(1 << 20)) {
  }
  const double front = c.workload.serve.engine.request_overhead;
  for (const Track &r : b.tr)
    if (r.first >= 0 && r.finish >= 0) {
      ttft.push_back(r.first - r.arrival + front);
      e2e.push_back(r.finish - r.arrival + front);
    }
}

ServeSimulation::ServeSimulation(const Config &c, const Layout &l, std::vector<Request> reqs,
                                 i64 instances, i64 prefill_instances, ServeRun mode, i64 budget,
                                 bool stop_when_missed)
    : impl_(std::make_unique<Impl>()) {
  Impl &m = *impl_;
  m.stop_when_missed = stop_when_missed;
  m.c = at_power_cap(c); // under workload.power_cap_w the chip computes at the capped clock
  m.l = l;
  m.reqs = std::move(reqs);
  m.instances = instances;
  m.prefill_instances = prefill_instances;
  m.mode = mode;
  m.left = budget;
  m.start();
}

namespace {
const Config &serve_config(const Config &c) {
  if (c.workload.mode != Mode::serve)
    throw ConfigError("workload.mode", "serving simulation needs mode \"serve\"");
  check_precision_peak(c.hardware, c.workload.precision);
  return c;
}
} // namespace

ServeSimulation::ServeSimulation(const Config &c)
    : ServeSimulation(serve_config(c), resolve_layout(c)) {}

ServeSimulation::ServeSimulation(const Config &c, const Layout &l)
    : ServeSimulation(
          c, l,
          make_requests(c.workload,
                        c.workload.serve.concurrency > 0 ? 1.0 : c.workload.serve.request_rate,
                        simulated_requests(c.workload.serve)),
          l.instances(), c.workload.serve.prefill_instances,
          c.workload.serve.prefill_instances > 0 ? ServeRun::disaggregated : ServeRun::aggregated,
          kServeIterationBudget) {}

ServeSimulation::~ServeSimulation() = default;
ServeSimulation::ServeSimulation(ServeSimulation &&) noexcept = default;
ServeSimulation &ServeSimulation::operator=(ServeSimulation &&) noexcept = default;

bool ServeSimulation::Impl::advance(i64 passes) {
  if (routed)
    return advance_routed(passes);
  Impl &m = *this;
  for (i64 k = 0; k < passes && !m.finished; ++k) {
    if (m.current >= m.parts.size()) {
      if (m.mode == ServeRun::disaggregated && m.phase == 0) {
        m.next_phase();
        continue;
      }
      m.end();
      break;
    }
    if (!m.engine)
      m.open_engine();
    if (!m.engine->step(*m.model, m.tr, m.st, m.left)) {
      m.engine.reset();
      ++m.current;
      ++m.engines_done;
    }
    if (m.stop_when_missed && m.unreachable()) {
      m.end();
      m.out.stopped_at_miss = true;
      break;
    }
  }
  return m.finished;
}

bool ServeSimulation::step(i64 passes) {
  return impl_->advance(passes);
}

bool ServeSimulation::done() const {
  return impl_->finished;
}

double ServeSimulation::progress() const {
  const Impl &m = *impl_;
  if (m.finished)
    return 1;
  if (m.routed) // requests completed
    return std::min(
        0.999, static_cast<double>(std::count_if(m.tr.begin(), m.tr.end(),
                                                 [](const Track &r) { return r.finish >= 0; })) /
                   static_cast<double>(std::max<std::size_t>(1, m.tr.size())));
  return std::min(0.999, static_cast<double>(m.engines_done) /
                             static_cast<double>(std::max<i64>(1, m.engines_total)));
}

const ServeResult &ServeSimulation::result() const {
  return impl_->out;
}

namespace {
ServeResult run(const Config &c, const Layout &l, const std::vector<Request> &reqs, i64 instances,
                i64 prefill_instances, ServeRun mode, i64 budget, bool stop_when_missed) {
  ServeSimulation sim(c, l, reqs, instances, prefill_instances, mode, budget, stop_when_missed);
  while (!sim.step(1 << 20)) {
  }
  return sim.result();
}
} // namespace

ServeResult simulate_serving(const Config &c, const Layout &l, const std::vector<Request> &reqs,
                             i64 instances, i64 prefill_instances, i64 budget,
                             bool stop_when_missed) {
  return run(c, l, reqs, instances, prefill_instances,
             prefill_instances > 0 ? ServeRun::disaggregated : ServeRun::aggregated, budget,
             stop_when_missed && prefill_instances == 0);
}

ServeResult simulate_pool(const Config &c, const Layout &l, const std::vector<Request> &reqs,
                          i64 instances, Pool pool, i64 budget, bool stop_when_missed) {
  return run(c, l, reqs, instances, 0,
             pool == Pool::prefill ? ServeRun::prefill_pool : ServeRun::decode_pool, budget,
             stop_when_missed);
}

ServeResult simulate_serving(const Config &c) {
  ServeSimulation sim(c);
  while (!sim.step(1 << 20)) {
  }
  return sim.result();
}

} // namespace rl
