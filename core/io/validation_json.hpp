// ridgeline io: a file of measured runs (`ridgeline validate`): {"runs": [{"name",
// "config": <configuration>, "measured": {"<metric>": value}}]} or a bare array of runs.
#pragma once

#include "core/calibrate/calibration.hpp"
#include "core/calibrate/components.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace rl::io {

std::vector<ValidationRun> parse_validation(const nlohmann::json &j);
nlohmann::json to_json(const std::vector<ValidationRow> &rows);
nlohmann::json to_json(const std::vector<FitResult> &fits);
// {"points": [{"name", "kind": gemm | attention | collective | hbm, "source", "measured",
// "fitted", and the kind's fields}]} or a preset name ("components").
std::vector<ComponentPoint> parse_components(const nlohmann::json &j);
nlohmann::json to_json(const std::vector<ComponentRow> &rows);

} // namespace rl::io
