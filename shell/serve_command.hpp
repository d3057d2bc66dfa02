// ridgeline shell: `ridgeline serve` (request-level serving simulation) and `ridgeline plan`
// on a serve configuration (cheapest deployment meeting the SLO).
#pragma once

#include "core/config.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace rl::shell {

extern const char *kServeHelp;

// Both return the exit code (0 ok, 2 nothing meets the SLO); errors throw ConfigError.
// sweep_kind: "" (one simulation), "rate" or "concurrency" (the load sweep).
int run_serve(const nlohmann::json &cfg, bool json_out, const std::string &sweep_kind,
              std::ostream &os);
// choices: io::planner_choices of the configuration (one per hardware option).
int run_serve_plan(const std::vector<Config> &choices, int top, bool json_out, std::ostream &os);

} // namespace rl::shell
