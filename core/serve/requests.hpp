// ridgeline serve: the request stream of a serving workload: Poisson arrivals at a rate
// with prompt and output lengths drawn from a distribution, or a trace. Deterministic: a
// seeded generator (splitmix64, Steele et al. 2014) owned by the caller, no globals.
#pragma once

#include "core/config.hpp"

#include <cstdint>
#include <vector>

namespace rl {

struct Request {
  double arrival = 0; // s
  i64 prompt = 0, gen = 0;
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

// A length with the given mean: fixed; exponential (rounded, at least 1, at most 8x the
// mean); uniform on [1, 2 mean - 1].
i64 draw_length(LengthDist d, i64 mean, SplitMix64 &rng);

// The requests of w.serve: the trace, or `requests` Poisson arrivals at `rate` (requests/s).
std::vector<Request> make_requests(const WorkloadSpec &w, double rate, i64 requests);

} // namespace rl
