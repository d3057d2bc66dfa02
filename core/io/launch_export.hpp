// ridgeline io: launch arguments for a decided layout (`ridgeline export`): Megatron-LM
// command-line flags, a DeepSpeed config, or TorchTitan overrides for training; a `vllm
// serve`, SGLang or `trtllm-serve` command line for inference and serving. Where a framework has no
// twin of a ridgeline knob the output says so in a comment line instead of guessing.
#pragma once

#include "core/config.hpp"
#include "core/parallel/frameworks.hpp"
#include "core/parallel/layout.hpp"

#include <string>

namespace rl::io {

// format: megatron | deepspeed | torchtitan | torchtune (workload.mode train) or vllm | sglang |
// trtllm (infer, serve). Throws ConfigError("--format", ...) for an unknown format or one that does
// not apply to the mode, and ConfigError naming the field for a layout the framework refuses
// to launch (core/parallel/frameworks), before writing anything.
std::string launch_export(const Config &c, const Layout &l, const std::string &format);
// The checks of launch_export alone, so a caller can refuse before planning or printing.
// Returns the framework the format names.
Framework check_export_format(const Config &c, const std::string &format);

} // namespace rl::io
