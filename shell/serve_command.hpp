// ridgeline shell: `ridgeline serve` (request-level serving simulation) and `ridgeline plan`
// on a serve configuration (cheapest deployment meeting the SLO).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

namespace rl::shell {

extern const char *kServeHelp;

// Both return the exit code (0 ok, 2 nothing meets the SLO); errors throw ConfigError.
int run_serve(const nlohmann::json &cfg, bool json_out, bool sweep, std::ostream &os);
int run_serve_plan(const nlohmann::json &cfg, int top, bool json_out, std::ostream &os);

} // namespace rl::shell
