#include "core/jobs/plan.hpp"

#include "core/io/config_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/parallel/knobs.hpp"

namespace rl::jobs {

PlanKind plan_kind(const Config &c) {
  const WorkloadSpec &w = c.workload;
  if (w.mode == Mode::serve)
    return PlanKind::deployments;
  if (w.mode == Mode::train && (!w.hardware_options.empty() || !w.device_options.empty()))
    return PlanKind::joint;
  return PlanKind::layouts;
}

std::vector<Config> choices_of(const nlohmann::json &config, const std::string &free,
                               const std::string &path) {
  std::vector<Config> choices = io::planner_choices(config);
  if (!free.empty())
    for (Config &c : choices)
      free_knobs(c, free, path);
  return choices;
}

PlanOutcome run_plan(const nlohmann::json &config, const std::string &free, const PlanOptions &o,
                     const ServePlanOptions &so) {
  Config c = io::parse_config(config);
  if (!free.empty())
    free_knobs(c, free); // the names are checked before anything runs
  switch (plan_kind(c)) {
  case PlanKind::deployments: {
    ServePlanOptions s = so;
    s.top = o.top;
    return plan_serving(choices_of(config, free), s);
  }
  case PlanKind::joint:
    return rl::plan_choices(choices_of(config, free), o);
  case PlanKind::layouts:
    break;
  }
  return plan(c, o);
}

} // namespace rl::jobs
