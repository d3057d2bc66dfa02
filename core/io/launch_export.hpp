// ridgeline io: launch arguments for a decided layout (`ridgeline export`): Megatron-LM
// command-line flags, a DeepSpeed config, or TorchTitan overrides. Where a framework has
// no twin of a ridgeline knob the output says so in a comment line instead of guessing.
#pragma once

#include "core/config.hpp"
#include "core/parallel/layout.hpp"

#include <string>

namespace rl::io {

// format: megatron | deepspeed | torchtitan. Throws ConfigError("--format", ...) otherwise.
std::string launch_export(const Config &c, const Layout &l, const std::string &format);

} // namespace rl::io
