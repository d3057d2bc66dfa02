// ridgeline io: an Estimate as the documented JSON (seconds, bytes, FLOPs).
#pragma once

#include "core/estimate/estimate.hpp"

#include <nlohmann/json.hpp>

namespace rl::io {

nlohmann::json to_json(const Estimate &e);
nlohmann::json to_json(const Layout &l);
nlohmann::json to_json(const DecodeStep &d);
// {"context", "memory_context", "critical_batch", "sweep": [DecodeStep...]}
nlohmann::json to_json(const DecodeCurve &c);
nlohmann::json to_json(const LayerActivations &a);
nlohmann::json to_json(const LayerFlops &f);
nlohmann::json error_json(const std::string &path, const std::string &message);

} // namespace rl::io

#include "core/parallel/sp_compare.hpp"
#include "core/planner/planner.hpp"

namespace rl::io {
nlohmann::json to_json(const SpComparison &c);
// `seconds`: the search's wall time, measured by the caller (the core keeps no clock).
nlohmann::json to_json(const PlanResult &r, double seconds = 0);
// "What should I run on": "plans" (every choice's best plan, fastest first, with its
// "hardware", "devices" and "choice"), "choices" (each with its best plan and search
// statistics), "fastest" and "cheapest" (indices into "choices", null when none meets the
// deadline), "pareto_cost" (the time/cost front, indices) and "stats" summed over choices.
nlohmann::json to_json(const JointPlanResult &r, double seconds = 0);
const char *name_of(Objective o);
} // namespace rl::io
