#include "core/serve/requests.hpp"

#include "core/serve/lora.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace rl {

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() {
  return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
}

LengthBounds length_bounds(const ServeSpec &s, i64 mean) {
  switch (s.length_dist) {
  case LengthDist::exponential:
    return {1, std::max<i64>(1, 8 * mean)};
  case LengthDist::uniform: {
    // [r L, L] with mean m: L = 2 m / (1 + r) (sglang bench_serving --random-range-ratio)
    const double m = static_cast<double>(mean);
    const i64 lo = std::clamp<i64>(std::llround(s.range_ratio * 2 * m / (1 + s.range_ratio)), 1,
                                   std::max<i64>(1, mean));
    return {lo, std::max(lo, 2 * mean - lo)};
  }
  default:
    return {mean, mean};
  }
}

i64 draw_length(const ServeSpec &s, i64 mean, SplitMix64 &rng) {
  const LengthBounds b = length_bounds(s, mean);
  switch (s.length_dist) {
  case LengthDist::exponential:
    return std::clamp<i64>(
        static_cast<i64>(std::llround(-static_cast<double>(mean) * std::log(rng.uniform()))), b.lo,
        b.hi);
  case LengthDist::uniform:
    return std::min(b.hi,
                    b.lo + static_cast<i64>(rng.uniform() * static_cast<double>(b.hi - b.lo + 1)));
  default:
    return mean;
  }
}

namespace {
bool trace_has_sessions(const ServeSpec &s) {
  return std::any_of(s.trace.begin(), s.trace.end(),
                     [](const TraceRow &r) { return !r.session.empty(); });
}
} // namespace

bool shares_prefixes(const ServeSpec &s) {
  return s.shared_prefix > 0 || s.sessions || trace_has_sessions(s);
}

bool pins_streams(const ServeSpec &s) {
  return s.sessions || s.concurrency > 0 || trace_has_sessions(s);
}

i64 mean_session_prompt(const ServeSpec &s, i64 gen_len) {
  if (!s.sessions)
    return 0;
  const SessionsSpec &x = *s.sessions;
  return s.shared_prefix + x.new_tokens + (x.turns - 1) * (x.new_tokens + gen_len) / 2;
}

namespace {
// A trace's rows: a row naming a session lies on that session's stream (its prompt begins with
// the conversation so far); a `think` row is sent after the session's previous row completes.
std::vector<Request> trace_requests(const ServeSpec &s) {
  std::vector<Request> out;
  std::map<std::string, std::pair<i64, i64>> sessions; // name -> (stream, its last row)
  for (const TraceRow &e : s.trace) {
    Request q{e.t, e.prompt, e.gen};
    q.shared = std::min(s.shared_prefix, e.prompt);
    q.hash_ids = e.hash_ids;
    if (!e.session.empty()) {
      auto [it, fresh] =
          sessions.try_emplace(e.session, static_cast<i64>(sessions.size()), i64{-1});
      q.stream = it->second.first;
      if (e.think >= 0) {
        q.after = it->second.second; // the parser saw a row of that session before
        q.think = e.think;
        q.arrival = INFINITY;
      }
      it->second.second = static_cast<i64>(out.size());
    }
    out.push_back(q);
  }
  return out;
}

// Sessions. Closed loop: C clients, each running conversations of `turns` turns one after
// another; client k's j-th request is request k + j C, sent after its (j - 1)-th completes,
// think_time later within a conversation and the workload's think_time between two. Open
// loop: conversations start as Poisson arrivals at rate / turns (so `rate` requests/s in the
// long run), each its turns in a row, a turn sent after the previous one completes.
std::vector<Request> session_requests(const WorkloadSpec &w, double rate, i64 requests) {
  const ServeSpec &s = w.serve;
  const SessionsSpec &x = *s.sessions;
  const bool closed = s.concurrency > 0;
  // closed: a client per lane; open: one lane, the conversations one after another in ids
  const i64 clients = closed ? s.concurrency : 1;
  SplitMix64 rng(s.seed);
  std::vector<Request> out(static_cast<std::size_t>(requests));
  std::vector<i64> context(static_cast<std::size_t>(clients), 0); // conversation so far
  double start = 0; // open loop: the conversation's arrival
  for (i64 i = 0; i < requests; ++i) {
    const i64 k = i % clients, j = i / clients, turn = j % x.turns;
    if (!closed && turn == 0)
      start += -std::log(rng.uniform()) / (rate / static_cast<double>(x.turns));
    i64 &ctx = context[static_cast<std::size_t>(k)];
    if (turn == 0)
      ctx = s.shared_prefix;
    Request &q = out[static_cast<std::size_t>(i)];
    q.prompt = ctx + draw_length(s, x.new_tokens, rng);
    q.gen = draw_length(s, w.gen_len, rng);
    q.shared = s.shared_prefix;
    q.stream = k + clients * (j / x.turns); // one stream per conversation
    // a turn's think time: exponential about its mean, as closed-system benchmarks draw it
    // (TPC-C and TPC-W's negative exponential think times), so clients do not stay in step
    const double think = -x.think_time * std::log(rng.uniform());
    if (closed) {
      q.after = j > 0 ? i - clients : -1;
      q.think = turn > 0 ? think : s.think_time;
      q.arrival = j > 0 ? INFINITY : 0;
    } else {
      q.after = turn > 0 ? i - 1 : -1;
      q.think = think;
      q.arrival = turn > 0 ? INFINITY : start;
    }
    ctx = q.prompt + q.gen; // the next turn's prompt begins with this one and its answer
  }
  return out;
}

// workload.lora: each request's adapter, by the adapters' popularity from a stream of its
// own (the lengths and arrivals stay as without adapters); a session's turns share one, and a
// trace row naming its adapter keeps it.
void draw_adapters(const ServeSpec &s, std::vector<Request> &out) {
  if (!s.lora)
    return;
  const std::vector<double> cdf = lora_popularity(s.lora->adapters, s.lora->zipf);
  SplitMix64 rng(s.seed ^ 0x10ad0a5ULL);
  std::map<i64, i64> of_stream;
  for (std::size_t i = 0; i < out.size(); ++i) {
    Request &q = out[i];
    if (!s.trace.empty() && s.trace[i].adapter >= 0) {
      q.adapter = s.trace[i].adapter;
      continue;
    }
    if (q.stream >= 0)
      if (const auto it = of_stream.find(q.stream); it != of_stream.end()) {
        q.adapter = it->second;
        continue;
      }
    q.adapter =
        std::min<i64>(static_cast<i64>(cdf.size()) - 1,
                      std::lower_bound(cdf.begin(), cdf.end(), rng.uniform()) - cdf.begin());
    if (q.stream >= 0)
      of_stream[q.stream] = q.adapter;
  }
}

std::vector<Request> requests_of(const WorkloadSpec &w, double rate, i64 requests) {
  const ServeSpec &s = w.serve;
  if (!s.trace.empty())
    return trace_requests(s);
  if (s.sessions)
    return session_requests(w, rate, requests);
  std::vector<Request> out;
  SplitMix64 rng(s.seed);
  double t = 0;
  out.reserve(static_cast<std::size_t>(requests));
  for (i64 i = 0; i < requests; ++i) {
    t += -std::log(rng.uniform()) / rate; // exponential inter-arrival times
    const i64 p = draw_length(s, w.prompt_len, rng);
    const i64 g = draw_length(s, w.gen_len, rng);
    out.push_back({t, p, g, std::min(s.shared_prefix, p)});
  }
  return out;
}

} // namespace

std::vector<Request> make_requests(const WorkloadSpec &w, double rate, i64 requests) {
  std::vector<Request> out = requests_of(w, rate, requests);
  draw_adapters(w.serve, out);
  return out;
}

} // namespace rl
