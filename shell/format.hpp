// ridgeline shell: human-readable tables for the CLI.
#pragma once

#include "core/calibrate/calibration.hpp"
#include "core/calibrate/components.hpp"
#include "core/calibrate/fit.hpp"
#include "core/comm/collective.hpp"
#include "core/config.hpp"
#include "core/estimate/estimate.hpp"
#include "core/parallel/sp_compare.hpp"
#include "core/planner/planner.hpp"
#include "core/report/table.hpp"
#include "shell/table.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace rl::shell {

// A report table (core/report) as a text table: words left-aligned, numbers right.
Table table_of(const ReportTable &t);
// A blank line, the title, the table and its note; nothing when it has neither rows nor note.
void print_section(std::ostream &os, const ReportTable &t);

void print_estimate(std::ostream &os, const Config &c, const Estimate &e);
void print_collective(std::ostream &os, const ClusterSpec &c, double bytes, const Group &g,
                      const CollectiveTime &t);
void print_validation(std::ostream &os, const std::vector<ValidationRow> &rows,
                      const std::string &title = "");
void print_fit(std::ostream &os, const std::vector<FitResult> &fits);
// `ridgeline validate --runs`: measured against predicted with the band, a summary, and each
// training run's predicted step by component beside the step its measurement implies.
void print_runs(std::ostream &os, const std::vector<ValidationRow> &rows);
// `ridgeline calibrate`: the fitted parameters, each one's residuals, the rows not fitted and
// the training runs at the fitted values.
void print_calibration(std::ostream &os, const CalibrationResult &r);
// The component microbenchmark checks (`ridgeline validate`).
void print_components(std::ostream &os, const std::vector<ComponentRow> &rows);
void print_sweep(std::ostream &os, const DecodeCurve &curve, double workload_batch);
void print_plan(std::ostream &os, const Config &c, const PlanResult &r);
// "What should I run on": one row per (hardware, devices) choice with its best plan.
void print_joint_plan(std::ostream &os, const Config &c, const JointPlanResult &r);
void print_presets(std::ostream &os, const nlohmann::json &names);
// The schema's tunable fields (`ridgeline fields`): path, type, range, unit, default, modes,
// meaning.
void print_fields(std::ostream &os, const nlohmann::json &fields);
void print_sp_comparison(std::ostream &os, const Config &c, const SpComparison &cmp);

} // namespace rl::shell
