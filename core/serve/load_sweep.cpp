#include "core/serve/load_sweep.hpp"

#include "core/serve/requests.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

std::vector<double> sweep_loads(const Config &c) {
  std::vector<double> out;
  const ServeSpec &s = c.workload.serve;
  if (s.concurrency > 0) {
    for (i64 k = 1; k <= std::max<i64>(2 * s.concurrency, 8); k *= 2)
      out.push_back(static_cast<double>(k));
    return out;
  }
  for (const double f : {0.125, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0})
    out.push_back(s.request_rate * f);
  return out;
}

LoadPoint simulate_load(const Config &c, const Layout &l, double load) {
  const ServeSpec &s = c.workload.serve;
  ServeResult x;
  if (s.concurrency > 0) {
    Config k = c;
    k.workload.serve.concurrency = std::max<i64>(1, std::llround(load));
    if (k.workload.serve.concurrency != s.concurrency) // the configured load: serve's own run
      k.workload.serve.requests =
          std::clamp<i64>(4 * k.workload.serve.concurrency, 64, kSweepRequests);
    x = simulate_serving(k, l, make_requests(k.workload, 1.0, k.workload.serve.requests),
                         l.instances(), s.prefill_instances);
  } else {
    const i64 n = load == s.request_rate ? s.requests : std::min<i64>(s.requests, kSweepRequests);
    x = simulate_serving(c, l, make_requests(c.workload, load, n), l.instances(),
                         s.prefill_instances);
  }
  LoadPoint p;
  p.load = load;
  p.ttft = x.ttft;
  p.tpot = x.tpot;
  p.e2e = x.e2e;
  p.output_tokens_per_s = x.output_tokens_per_s;
  p.goodput = x.goodput;
  p.attainment = x.attainment;
  return p;
}

LoadSweep load_sweep(const Config &c, const std::vector<double> &loads) {
  const Layout l = resolve_layout(c);
  LoadSweep out;
  out.closed = c.workload.serve.concurrency > 0;
  for (const double r : loads.empty() ? sweep_loads(c) : loads)
    out.points.push_back(simulate_load(c, l, r));
  return out;
}

} // namespace rl
