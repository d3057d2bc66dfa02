// ridgeline parallel: the launch rules of the frameworks a layout is exported to. A layout the
// core accepts may still be one a framework refuses at start-up (DeepSpeed's pipeline engine
// with ZeRO-2); these are those refusals, read from each framework's own source, as values.
// complete_layout applies workload.framework's; `ridgeline export --format F` applies F's.
#pragma once

#include "core/config.hpp"
#include "core/parallel/layout.hpp"

namespace rl {

// Training frameworks (Megatron-LM, DeepSpeed, TorchTitan) against serving engines.
bool trains(Framework f);

// Whether f launches l as it is; the field to change and why when it does not (fault
// LayoutFault::framework). Framework::any launches everything the core accepts. explain =
// false leaves the message empty (the planner counts faults by kind only).
LayoutCheck check_framework(const Config &c, const Layout &l, Framework f, bool explain = true);

} // namespace rl
