// ridgeline jobs: the JSON-text API of the jobs (the page's embind calls and the tests). Each call
// takes and returns JSON text; bad input returns {"error": {"path": ..., "message": ...}}.
#pragma once

#include <string>

namespace rl::api {

std::string estimate(const std::string &config_json);
// Every free parallel knob searched (and those `free` frees, as `ridgeline plan --free`);
// {"plans": [...best first], "infeasible", "rejected"}; with hardware or device options each
// choice's ({"choices", "fastest", ...}, as `ridgeline plan --json`); on a serve
// configuration: {"deployments": [...cheapest first], "stats"} (core/jobs/plan).
std::string plan(const std::string &config_json, int top = 10, const std::string &free = "");
// The launch for a framework (`ridgeline export --format`): {"format", "text"}.
std::string export_launch(const std::string &config_json, const std::string &format);
// tx8 mapping of one operator (mode tx8-op) or a whole video request (mode video);
// presets = also map with the reference preset tilings.
std::string tx8(const std::string &config_json, bool presets = false);
// Decode step, memory and tokens/s over batch sizes (inference configurations): the
// powers of two up to twice the largest batch that fits, the critical and largest batch.
std::string sweep(const std::string &config_json);
// Serving (workload.mode "serve"): the request-level simulation of the configuration's
// deployment (latency percentiles, throughput, goodput, memory, stats).
std::string serve(const std::string &config_json);
// The same deployment simulated over the load: request rates (1/8 to 2x the configured
// rate) or, closed loop, clients (powers of two up to twice workload.concurrency).
std::string serve_sweep(const std::string &config_json);
// The configuration as the core sees it: presets expanded, defaults filled.
std::string resolve(const std::string &config_json);
// Calibration from measurement files: {"base": <configuration or preset name>, "files":
// [{"name", "text"}]} -> the fitted parameters with residuals, the runs, "overrides" (dotted
// paths) and "config": the base with them applied (what the page's Apply sets).
std::string calibrate(const std::string &request_json);
std::string encode_url(const std::string &config_json);
// Accepts a full URL, "?query", "#fragment" or the bare query; returns the config JSON.
std::string decode_url(const std::string &url);
// {"model": [...names], "hardware": [...], "cluster": [...], "scenario": [...]}
std::string presets();
// One preset's JSON (kind: model | hardware | cluster | scenario).
std::string preset(const std::string &kind, const std::string &name);

} // namespace rl::api
