// ridgeline report: a calibration (`ridgeline calibrate`, the page's Calibrate tab) and a
// validation of measured runs (`ridgeline validate --runs`) as tables both front ends draw.
#pragma once

#include "core/calibrate/fit.hpp"
#include "core/calibrate/serving_groups.hpp"
#include "core/report/table.hpp"

#include <vector>

namespace rl {

// One row per fitted parameter: path, what it is, before, fitted, rows, rms and max residual,
// band.
ReportTable calibration_table(const CalibrationResult &r);
// The rows one parameter was fitted to: measured, predicted, error (marked beyond its band).
ReportTable residual_table(const FittedParameter &p);
// The serving groups, in sample (`held_out` false) or each predicted by its engine fitted to
// the others (core/calibrate/serving_groups): host times, runs, TPOT and TTFT median |error|
// and median signed error, and a last line for every run together.
ReportTable serving_groups_table(const ServingGroupsReport &r, bool held_out);
// Each engine fitted to all its groups: its host times and bands (its preset's values).
ReportTable serving_engines_table(const ServingGroupsReport &r);
// Rows read but not fitted to (marked so in components.json), predicted at the fitted values.
ReportTable unfitted_table(const CalibrationResult &r);
// Each layer profile by component: measured, the components alone, what the measurement adds
// and its share of the difference; the gaps between kernels; the whole layer.
ReportTable layer_table(const CalibrationResult &r);
// Measured runs against the prediction: metric, measured, predicted, error, band, inside it.
ReportTable runs_table(const std::vector<ValidationRow> &rows);
// The predicted step of each run by component, the step its measurement implies, and the
// difference as a share of the predicted step.
ReportTable run_breakdown_table(const std::vector<ValidationRow> &rows);
// The same runs' compute by component: GEMMs, attention, memory-bound kernels, recompute and
// the compute overhead's share.
ReportTable run_compute_table(const std::vector<ValidationRow> &rows);

} // namespace rl
