// ridgeline jobs: the plan of a configuration. One rule says which search runs (a serve
// workload plans deployments; a training workload with hardware or device options plans each
// choice with its layouts; otherwise the layouts), one place expands the choices and frees the
// knobs `--free` names; the CLI, the JSON API and the page (which runs the same searches a
// frame at a time) all take them from here.
#pragma once

#include "core/config.hpp"
#include "core/planner/planner.hpp"
#include "core/serve/serve_planner.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <variant>
#include <vector>

namespace rl::jobs {

enum class PlanKind { layouts, joint, deployments };
PlanKind plan_kind(const Config &c);

// The configurations the search runs on: the configuration once per hardware / device /
// engine / precision option (core/io/serve_json planner_choices), each with the knobs `free`
// names freed ("" frees none; "all" every one that applies; errors name `path`).
std::vector<Config> choices_of(const nlohmann::json &config, const std::string &free,
                               const std::string &path = "--free");

using PlanOutcome = std::variant<PlanResult, JointPlanResult, ServePlanResult>;
PlanOutcome run_plan(const nlohmann::json &config, const std::string &free, const PlanOptions &o,
                     const ServePlanOptions &so = {});

} // namespace rl::jobs
