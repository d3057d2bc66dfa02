#include "core/jobs/export.hpp"

#include "core/error.hpp"
#include "core/io/launch_export.hpp"
#include "core/io/units.hpp"
#include "core/parallel/frameworks.hpp"
#include "core/parallel/knobs.hpp"
#include "core/planner/planner.hpp"

namespace rl::jobs {

ExportText export_launch(Config c, const std::string &format, const std::string &free) {
  if (!free.empty()) {
    if (c.workload.mode != Mode::train)
      throw ConfigError("--free", "serving launches take the layout as set; `ridgeline plan "
                                  "--free` searches deployments");
    free_knobs(c, free);
  }
  const Framework framework = io::check_export_format(c, format); // refuse before planning
  if (trains(framework)) {
    c.workload.framework = framework; // plan only layouts the framework launches
    // what no layout changes (an NF4 base on Megatron, adapters on TorchTitan), said at once
    if (const LayoutCheck k = check_finetune(c, Layout{}, framework); !k.ok())
      throw ConfigError(k.path, k.message + " (--format " + format + ")");
  }
  const ParallelSpec &p = c.parallel;
  const bool all_set = p.tp && p.pp && p.cp && p.zero && p.microbatch && p.recompute &&
                       (p.ep || !c.model.moe) && (p.vpp || p.pp == 1);
  // Serving launches take the layout as the configuration sets it (tp, pp default 1): the
  // serving planner (`ridgeline plan`) is the place to search deployments.
  ExportText out;
  Layout l;
  if (free.empty() && (all_set || c.workload.mode != Mode::train)) {
    l = resolve_layout(c);
  } else {
    PlanOptions o;
    o.top = 1;
    const PlanResult r = plan(c, o);
    if (r.plans.empty())
      throw ConfigError("parallel", "no layout fits: run `ridgeline plan` for the reasons");
    l = r.plans.front().estimate.layout;
    out.header =
        "# layout chosen by the planner (step " + units::seconds(r.plans.front().objective) + ")\n";
  }
  out.text = io::launch_export(c, l, format); // all or nothing
  return out;
}

} // namespace rl::jobs
