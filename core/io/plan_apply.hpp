// ridgeline io: a plan applied to a configuration, as the parallel object the page writes
// (and its URL carries).
#pragma once

#include "core/planner/planner.hpp"

#include <nlohmann/json.hpp>

namespace rl::io {

// The knobs the plan decides that matter for this configuration (tp, pp, cp; vpp when
// pipelined; the cp kind and Ulysses degree with context parallelism; ep for MoE; ZeRO,
// micro-batch and recompute when training) and every key `current` (the configuration's
// parallel object) already sets, at the plan's values; then each other knob of the plan's
// (a rank order, a stage split, the recomputed modules) that changes what that short form
// resolves to. When it still resolves to another layout than the plan's, the plan's whole
// parallel object.
nlohmann::json applied_parallel(const Config &c, const Plan &plan, const nlohmann::json &current);

} // namespace rl::io
