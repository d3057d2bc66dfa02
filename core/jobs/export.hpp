// ridgeline jobs: the launch of a configuration for a framework (`ridgeline export`, the
// page's Export button): the layout as the configuration sets it, or, where training knobs
// are free, the planner's best layout among those the framework launches.
#pragma once

#include "core/config.hpp"

#include <string>

namespace rl::jobs {

struct ExportText {
  std::string header; // "# layout chosen by the planner (...)" when it was planned
  std::string text;   // the launch (core/io/launch_export)
  std::string all() const { return header + text; }
};

// format: megatron | deepspeed | torchtitan | torchtune | vllm | sglang | trtllm. free: knobs to
// free first (training; "" none). Throws ConfigError naming the field for a format that does not
// apply, a layout the framework refuses, or no layout that fits.
ExportText export_launch(Config c, const std::string &format, const std::string &free = "");

} // namespace rl::jobs
