// ridgeline io: `ridgeline calibrate --groups MANIFEST`. The manifest names the serving
// calibration groups, each a file of measured runs (a subset of its rows where `where` says),
// and the base configuration they ran on:
//   {"groups": [{"name": "...", "runs": "b200.csv", "base": "b200-trtllm-base.json",
//                "where": {"model": "meta-llama/Llama-3.1-70B", "engine": "trtllm"}}]}
// Paths are relative to the manifest; the caller reads them (core does no I/O).
#pragma once

#include "core/calibrate/serving_groups.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace rl::io {

// The groups at most, and the fields a `where` may match.
constexpr std::size_t kMaxServingGroups = 32;

// `read(path, field)`: the text of the file a field names (ConfigError naming the field when
// it cannot be read). ConfigError naming the field (groups[2].where.engine) for a bad manifest,
// the file and line for a bad row, the group for a selection that keeps no row.
std::vector<ServingGroup>
serving_groups(const nlohmann::json &manifest,
               const std::function<std::string(const std::string &, const std::string &)> &read);

// The report as JSON: per group, in sample and held out, the host times, the groups fitted to
// and the median |error| and median signed error of TPOT and TTFT with every run's error.
nlohmann::json to_json(const ServingGroupsReport &r);

} // namespace rl::io
