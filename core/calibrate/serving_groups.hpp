// ridgeline calibrate --groups: an engine's two fitted host times (iteration and request
// overhead, core/calibrate/fit) judged by what they predict of measured runs they were not
// fitted to. The runs come in groups (one benchmark campaign: a model, a chip, an engine and
// its harness); each group is predicted by its engine fitted to the engine's other groups
// (leave one group out), beside the in-sample fit to all of them (docs/serving.md).
#pragma once

#include "core/calibrate/measurements.hpp"
#include "core/config.hpp"

#include <string>
#include <vector>

namespace rl {

struct ServingGroup {
  std::string name; // "trtllm B200 Llama-3.1-70B FP8"
  Config base;      // the runs' model, chip, dtypes and engine preset (a serve configuration)
  std::vector<ServingSample> samples;
};

// One group's runs predicted at an engine's host times: predicted / measured - 1 per run.
struct GroupErrors {
  std::string name, engine;
  double iteration_overhead = 0, request_overhead = 0; // s, what the runs were predicted at
  std::vector<std::string> fitted_to;                  // the groups those were fitted to
  std::vector<double> tpot, ttft;
};

// The median |error| and the median signed error of a list of relative errors (0 when none).
double median_abs_error(const std::vector<double> &e);
double median_error(const std::vector<double> &e);

// The q-quantile (0-1, linear between ranks) of |e| over a list of relative errors.
double abs_error_quantile(const std::vector<double> &e, double q);

// An engine fitted to all its groups: what its preset holds (presets/engines/<name>.json). The
// bands are the 90th percentile of |error| over the runs (a tenth of the runs fall outside).
struct EngineGroupFit {
  std::string engine;
  double iteration_overhead = 0, request_overhead = 0;
  double tpot_band = 0, ttft_band = 0;
  i64 runs = 0;
};
constexpr double kEngineBandQuantile = 0.9;

struct ServingGroupsReport {
  std::vector<EngineGroupFit> engines; // in the order the groups first name them
  std::vector<GroupErrors> in_sample;  // each engine fitted to all its groups
  std::vector<GroupErrors> held_out;   // each group at its engine fitted to the others
  std::vector<std::string> notes;      // runs left out and why; groups alone on their engine
  // Every run of the groups together.
  std::vector<double> all_tpot(bool held_out) const;
  std::vector<double> all_ttft(bool held_out) const;
};

// The most simulated output tokens the report may run: every run's requests x output length,
// times the simulations the fits make of it (4 + the groups of its engine), counted before
// the first (about 30 s natively; the shipped groups need 3.1e9).
constexpr double kMaxGroupsSimulatedTokens = 1e10;

// The in-sample fits and leave-one-group-out predictions. ConfigError naming a group when its
// base is not a serve configuration or a run cannot be set on it, and at "groups" when the
// work would pass kMaxGroupsSimulatedTokens.
ServingGroupsReport serving_groups_report(const std::vector<ServingGroup> &groups);

} // namespace rl
