// ridgeline serve: the deployment over the load (the page's Latency vs load tab and `ridgeline
// serve --sweep`): the configuration's deployment simulated at each of several request rates
// (an open loop) or client counts (a closed loop), as typed points; JSON only at the edge
// (core/io/serve_json).
#pragma once

#include "core/config.hpp"
#include "core/serve/simulate.hpp"

#include <vector>

namespace rl {

// Requests of one sweep point: at most this many (an open loop), or 4 per client between 64
// and this many (a closed loop). At the configured load the workload's own count is used, so
// that point is the `serve` run itself.
constexpr i64 kSweepRequests = 2000;

struct LoadPoint {
  double load = 0; // requests/s (open loop) or clients (closed loop)
  Percentiles ttft, tpot, e2e;
  double output_tokens_per_s = 0, goodput = 0, attainment = 0;
};

struct LoadSweep {
  bool closed = false; // loads are client counts
  std::vector<LoadPoint> points;
};

// The loads of the curve: 8 rates from 1/8 to 2x the configured rate, or (closed loop) the
// powers of two from 1 client to twice the configured concurrency (at least 8).
std::vector<double> sweep_loads(const Config &c);
// One point: the deployment (layout l) simulated at `load`.
LoadPoint simulate_load(const Config &c, const Layout &l, double load);
// Every load of sweep_loads (or of `loads` when given).
LoadSweep load_sweep(const Config &c, const std::vector<double> &loads = {});

} // namespace rl
