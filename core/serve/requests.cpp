#include "core/serve/requests.hpp"

#include <algorithm>
#include <cmath>

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

i64 draw_length(LengthDist d, i64 mean, SplitMix64 &rng) {
  const double m = static_cast<double>(mean);
  switch (d) {
  case LengthDist::exponential:
    return std::clamp<i64>(static_cast<i64>(std::llround(-m * std::log(rng.uniform()))), 1,
                           std::max<i64>(1, 8 * mean));
  case LengthDist::uniform:
    return 1 +
           static_cast<i64>(rng.uniform() * static_cast<double>(std::max<i64>(1, 2 * mean - 1)));
  default:
    return mean;
  }
}

std::vector<Request> make_requests(const WorkloadSpec &w, double rate, i64 requests) {
  const ServeSpec &s = w.serve;
  std::vector<Request> out;
  if (!s.trace.empty()) {
    for (const auto &e : s.trace)
      out.push_back({e[0], static_cast<i64>(e[1]), static_cast<i64>(e[2])});
    return out;
  }
  SplitMix64 rng(s.seed);
  double t = 0;
  out.reserve(static_cast<std::size_t>(requests));
  for (i64 i = 0; i < requests; ++i) {
    t += -std::log(rng.uniform()) / rate; // exponential inter-arrival times
    const i64 p = draw_length(s.length_dist, w.prompt_len, rng);
    const i64 g = draw_length(s.length_dist, w.gen_len, rng);
    out.push_back({t, p, g});
  }
  return out;
}

} // namespace rl
