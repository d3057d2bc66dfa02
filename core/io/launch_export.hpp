// ridgeline io: launch arguments for a decided layout (`ridgeline export`): Megatron-LM
// command-line flags, a DeepSpeed config, or TorchTitan overrides for training; a `vllm
// serve` command line for inference and serving. Where a framework has no twin of a
// ridgeline knob the output says so in a comment line instead of guessing.
#pragma once

#include "core/config.hpp"
#include "core/parallel/layout.hpp"

#include <string>

namespace rl::io {

// format: megatron | deepspeed | torchtitan (workload.mode train) or vllm (infer, serve).
// Throws ConfigError("--format", ...) for an unknown format or one that does not apply to
// the mode, before writing anything.
std::string launch_export(const Config &c, const Layout &l, const std::string &format);
// The checks of launch_export alone, so a caller can refuse before planning or printing.
void check_export_format(const Config &c, const std::string &format);

} // namespace rl::io
