// ridgeline report: the planner's ranked layouts as one table, the columns (head, unit, which
// direction is better) and every plan's cells (the text shown and the value sorted by), so
// `ridgeline plan` and the page's Planner tab show the same cells from one computation.
#pragma once

#include "core/planner/planner.hpp"
#include "core/report/table.hpp"

#include <string>
#include <vector>

namespace rl {

// Training: # dp tp pp vpp cp ep ZeRO mb recompute [order] step MFU [to train] [cost] memory
// why; inference: # dp tp pp cp ep [order] TPOT tokens/s memory why. The axis order shows when
// a plan leaves the default, time and cost to train when the workload has a token budget (and
// the hardware a price).
ReportTable plan_table(const Config &c, const PlanResult &r);

// A layout in one cell: "dp16 tp8 pp8 v2 ep4 z1" (vpp and ep only when above 1).
std::string layout_label(const Layout &l, i64 layers);

// "What should I run on": one row per (hardware, devices) choice with its best layout:
// # hardware cluster devices layout step MFU "to train" cost deadline. A choice where no
// layout fits says so in its layout cell; cost is the run's, else per hour, else "no price".
ReportTable choice_table(const Config &c, const JointPlanResult &r);

} // namespace rl
