// ridgeline serve: the request stream of a serving workload: Poisson arrivals at a rate
// with prompt and output lengths drawn from a distribution, or a trace. Deterministic: a
// seeded generator (splitmix64, Steele et al. 2014) owned by the caller, no globals.
#pragma once

#include "core/config.hpp"

#include <cstdint>
#include <vector>

namespace rl {

struct Request {
  double arrival = 0; // s (a turn sent after another: set when that one completes)
  i64 prompt = 0, gen = 0;
  // What the prompt shares: its first `shared` tokens are the workload's shared prefix, the
  // rest lies on `stream` (a session's conversation; -1: the request's own tokens).
  i64 shared = 0;
  i64 stream = -1;
  // A turn sent `think` s after request `after` completes (-1: at `arrival`).
  i64 after = -1;
  double think = 0;
  i64 adapter = -1; // workload.lora: the adapter it uses
  // a trace row's hash ids: its prompt's 512-token blocks by content (Mooncake's traces)
  std::shared_ptr<const std::vector<std::uint64_t>> hash_ids = nullptr;
};

// splitmix64: a small, fast, well-mixed 64-bit generator (public domain reference code).
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next();
  double uniform(); // in (0, 1)

private:
  std::uint64_t s_;
};

// The shortest and longest length s.length_dist draws about the given mean: fixed, the mean;
// exponential, 1 to 8x the mean; uniform, lo to 2 mean - lo with lo = range_ratio x the
// largest (at least 1): [1, 2 mean - 1] at range_ratio 0.
struct LengthBounds {
  i64 lo = 1, hi = 1;
};
LengthBounds length_bounds(const ServeSpec &s, i64 mean);

// A length with the given mean, drawn as s.length_dist says (exponential rounded and clamped
// to its bounds, uniform over the integers of its bounds).
i64 draw_length(const ServeSpec &s, i64 mean, SplitMix64 &rng);

// The requests of w.serve: the trace, or `requests` Poisson arrivals at `rate` (requests/s),
// or with sessions the turns of a closed loop's clients (request i is client i mod C's, each
// sent after the client's previous one).
std::vector<Request> make_requests(const WorkloadSpec &w, double rate, i64 requests);

// Whether the requests share prompt prefixes: a shared prefix, sessions, or trace rows that
// name a session.
bool shares_prefixes(const ServeSpec &s);

// Whether the default routing (workload.routing unset) pins request streams to replicas: a
// closed loop's clients, sessions, or trace rows that name a session each stay on one replica
// ("sticky"); other requests go at random.
bool pins_streams(const ServeSpec &s);

// The mean prompt of a session's turn: the shared prefix, then (turns - 1) / 2 earlier turns'
// new tokens and outputs on average, and the turn's own new tokens.
i64 mean_session_prompt(const ServeSpec &s, i64 gen_len);

} // namespace rl
