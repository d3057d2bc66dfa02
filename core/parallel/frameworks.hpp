// ridgeline parallel: the launch rules of the frameworks a layout is exported to. A layout the
// core accepts may still be one a framework refuses at start-up (DeepSpeed's pipeline engine
// with ZeRO-2); these are those refusals, read from each framework's own source, as values.
// complete_layout applies workload.framework's; `ridgeline export --format F` applies F's.
#pragma once

#include "core/config.hpp"
#include "core/parallel/layout.hpp"

namespace rl {

// Training frameworks (Megatron-LM, DeepSpeed, TorchTitan, torchtune) against serving engines.
bool trains(Framework f);

// Whether f launches l as it is; the field to change and why when it does not (fault
// LayoutFault::framework). Framework::any launches everything the core accepts. explain =
// false leaves the message empty (the planner counts faults by kind only).
LayoutCheck check_framework(const Config &c, const Layout &l, Framework f, bool explain = true);
// Of those, a fine-tune's (workload.finetune, parallel.offload_optimizer): which frameworks run
// adapters, an NF4 base, the optimizer on the host, and over which parallelism.
LayoutCheck check_finetune(const Config &c, const Layout &l, Framework f, bool explain = true);

// Megatron-LM's --account-for-embedding-in-pipeline-split and --account-for-loss-in-pipeline-split
// (megatron/core/transformer/transformer_block.py, get_num_layers_to_build): the embedding and
// the loss count as one layer each in an even split of the layers over pp x vpp, so the first
// (last) stage builds one layer fewer. Which of the two express l's first and last stage counts
// (Megatron-Bridge's Qwen3-235B-A22B: 94 + 2 over pp 8 x vpp 3, 11 layers on the first and last
// stage); neither when they do not, or when l sets no stage count.
struct PipelineSplitFlags {
  bool embedding = false, loss = false;
  bool any() const { return embedding || loss; }
};
PipelineSplitFlags megatron_split_flags(i64 layers, const Layout &l);

} // namespace rl
