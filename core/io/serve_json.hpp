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
// cluster preset); `config` alone without options.
std::vector<Config> planner_choices(const nlohmann::json &config);

// Latency percentiles and throughput over request rates (the page's and CLI's curve):
// the configuration's deployment simulated at each rate of `rates`, with at most
// kSweepRequests requests per rate.
constexpr i64 kSweepRequests = 2000;
nlohmann::json serve_rate_sweep(const Config &c, const std::vector<double> &rates);
// A request trace from a file's text: a JSON array of [arrival_s, prompt_len, gen_len], or
// CSV lines "arrival_s,prompt_len,gen_len" (a header line and '#' comments allowed). Errors
// name "trace line N". The result goes into workload.trace (checked there).
nlohmann::json trace_from_text(const std::string &text);
// `config` (a scenario name or object) with its workload's request stream replaced by the
// trace: request_rate, requests, prompt_len, gen_len, length_dist and seed are dropped.
nlohmann::json with_trace(const nlohmann::json &config, const nlohmann::json &trace);

// The rates of that curve: 8 points from 1/8 to 2x the configured rate.
std::vector<double> serve_sweep_rates(double rate);

} // namespace rl::io
