// ridgeline report: a serving simulation as the tables `ridgeline serve` prints and the page's
// serve results draw: the deployment, latency percentiles (cells above the SLO marked), and
// throughput, goodput, memory and the simulation's statistics; the rate sweep; and the
// serving planner's deployments.
#pragma once

#include "core/config.hpp"
#include "core/report/table.hpp"
#include "core/serve/load_sweep.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"

#include <string>

namespace rl {

struct ServeReport {
  std::string title;   // "llama3-70b on 16 x h100-sxm: 2 instance(s) of tp 8 x pp 1 x ep 1"
  ReportTable latency; // latency mean p50 p90 p99
  ReportTable summary; // quantity value detail: throughput, goodput, memory, batch, cost, ...
};

ServeReport serve_report(const Config &c, const ServeResult &r);

// "vllm@0.10" (the name alone without a version).
std::string engine_label(const EngineSpec &e);
// The line under the latency table: how far measured TPOT and TTFT fall from the engine's
// predictions (its calibration residuals: EngineSpec's uncertainties).
std::string engine_band_text(const EngineSpec &e);

// The load sweep (core/serve/load_sweep): rate (or clients), TTFT p50/p90/p99, TPOT
// p50/p90/p99, e2e p99, tokens/s, SLO met.
ReportTable serve_sweep_table(const LoadSweep &sweep);

// The serving planner's deployments, cheapest first: # hardware instance batch chunk split
// devices $/h $/M tokens TTFT p90 TPOT p90 SLO met tokens/s.
ReportTable deployment_table(const ServePlanResult &r);

// The routing policies compared on the planner's first pick (ServePlanResult::routing_trials):
// "Routing on 13 replicas of tp8 pp1 (batch 64, chunk 512): sticky meets the SLO (92.8%), ..."
// ("" when none were compared).
std::string routing_note(const ServePlanResult &r);

} // namespace rl
