// ridgeline io: serving simulation and serving plans as the documented JSON ("Planner
// statistics and serving"): latency percentiles, throughput, goodput, memory, deployments.
#pragma once

#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace rl::io {

nlohmann::json to_json(const Percentiles &p);
nlohmann::json to_json(const ServeResult &r);
nlohmann::json to_json(const ServePlanResult &r);

// The configurations a planner searches: `config` once per entry of
// workload.hardware_options ("name" or "name@cluster": the cluster preset too) and, for
// training, per workload.device_options count (training keeps its device count on another
// cluster preset) and, for serving, per workload.engine_options x workload.precision_options
// entry (a precision only on hardware with its peak: FP4 where peak_flops.fp4 is given);
// `config` alone without options.
std::vector<Config> planner_choices(const nlohmann::json &config);

// Latency percentiles and throughput over the load (the page's and CLI's curve): the
// configuration's deployment simulated at each load of `loads`, request rates (open loop,
// rows keyed "request_rate", at most kSweepRequests requests) or clients (a closed-loop
// configuration, workload.concurrency: rows keyed "concurrency", 4 requests per client,
// 64 to kSweepRequests).
constexpr i64 kSweepRequests = 2000;
nlohmann::json serve_load_sweep(const Config &c, const std::vector<double> &loads);
// A request trace from a file's text: a JSON array of [arrival_s, prompt_len, gen_len], or
// CSV lines "arrival_s,prompt_len,gen_len" (a header line and '#' comments allowed). Errors
// name "trace line N". The result goes into workload.trace (checked there).
nlohmann::json trace_from_text(const std::string &text);
// `config` (a scenario name or object) with its workload's request stream replaced by the
// trace: request_rate, requests, prompt_len, gen_len, length_dist and seed are dropped.
nlohmann::json with_trace(const nlohmann::json &config, const nlohmann::json &trace);

// The loads of that curve: 8 rates from 1/8 to 2x the configured rate, or (closed loop)
// the powers of two from 1 client to twice the configured concurrency (at least 8).
std::vector<double> serve_sweep_loads(const Config &c);

} // namespace rl::io
