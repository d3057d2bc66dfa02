// ridgeline io: serving simulation and serving plans as the documented JSON ("Planner
// statistics and serving"): latency percentiles, throughput, goodput, memory, deployments.
#pragma once

#include "core/serve/load_sweep.hpp"
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

// The load sweep's rows (core/serve/load_sweep): {"request_rate" | "concurrency", "ttft",
// "tpot", "e2e", "output_tokens_per_s", "goodput", "slo_attainment"} per load.
nlohmann::json to_json(const LoadSweep &sweep);
// A request trace from a file's text: a JSON array of [arrival_s, prompt_len, gen_len], or
// CSV lines "arrival_s,prompt_len,gen_len" (a header line and '#' comments allowed). Errors
// name "trace line N". The result goes into workload.trace (checked there).
nlohmann::json trace_from_text(const std::string &text, const std::string &name = "trace");
// `config` (a scenario name or object) with its workload's request stream replaced by the
// trace: request_rate, requests, prompt_len, gen_len, length_dist, range_ratio and seed are
// dropped.
nlohmann::json with_trace(const nlohmann::json &config, const nlohmann::json &trace);

} // namespace rl::io
