// ridgeline calibrate: one fitting path from measurement rows to the parameters they inform.
// The shipped presets (presets/validation/components.json, the calibration runs) and a user's
// `ridgeline calibrate FILES` both call calibrate(): each component is predicted by the same
// functions the step time and the serving model use (core/calibrate/components.cpp), and each
// parameter is the value minimising the summed squared log-ratio of predicted to measured.
// Order: GEMM, attention, memory bandwidth, collectives (per link tier), then the end-to-end
// compute overhead from training logs only, with every component already fitted.
#pragma once

#include "core/calibrate/calibration.hpp"
#include "core/calibrate/components.hpp"
#include "core/calibrate/measurements.hpp"
#include "core/config.hpp"
#include "core/time/layer_budget.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rl {

class Replay;

// One fitted parameter: where it lives in a configuration, its value before and after, and
// how well the rows it was fitted to agree at the fitted value.
struct FittedParameter {
  std::string path;  // "hardware.gemm_efficiency", "cluster.intra_node.latency", ...
  std::string label; // "GEMM efficiency (bf16)"
  std::string unit;  // "" for a fraction, "s", "tokens"
  double before = 0, value = 0;
  i64 count = 0;            // rows it was fitted to
  double rms_error = 0;     // of predicted / measured - 1 over those rows
  double max_abs_error = 0; // the largest |predicted / measured - 1|
  double band = 0;          // relative band of predictions resting on it (max error, >= 2%)
  std::vector<ComponentRow> residuals; // every row it was fitted to, at the fitted value
  // The interval searched ({0, 0}: none). A value at either end is a fit that stopped at its
  // bound: the rows ask for more than the model's parameter can give (calibrate notes it).
  std::pair<double, double> range{0, 0};
  bool at_bound() const;
};

// A training log's steady state, as one run against the base configuration.
struct TrainingRun {
  std::string name;
  Metric metric = Metric::step_time;
  double measured = 0;
  i64 iterations = 0; // lines averaged (after the warm-up)
};

// Iterations logged first that a steady-state summary leaves out (compilation, allocator
// warm-up, the first data loads): the first kTrainingWarmup lines or a tenth, whichever is more.
constexpr i64 kTrainingWarmup = 3;
// The median of the steady-state lines of one file (rows of one file, in order). Step time
// when the log gives it, else tokens/s (torchtitan tps x the devices), else TFLOP/s per GPU.
TrainingRun training_run(const std::vector<TrainingSample> &rows, const Config &base);

// One layer profile against the same layer built from the components (no overhead): what the
// measurement adds to each, and the time between kernels, which the components do not have.
struct LayerCheck {
  std::string file;
  LayerBudget measured;  // GEMMs, attention, every other kernel as element-wise (no quantize)
  LayerBudget predicted; // the components
  double gap = 0;        // the wall time no kernel covered
  i64 kernels = 0;
  double wall() const { return measured.total() + gap; }
};

struct CalibrationResult {
  HardwareSpec hardware; // the base with every fitted hardware parameter
  ClusterSpec cluster;   // the base with every fitted link parameter
  EngineSpec engine;     // the base's serving engine with its fitted iteration overhead
  std::vector<FittedParameter> params;
  std::vector<ComponentRow> unfitted; // rows read but not fitted to (their reason in `name`)
  std::vector<ValidationRow> runs;    // training runs at the calibrated parameters
  std::vector<LayerCheck> layers;     // layer profiles, by component
  std::vector<std::string> notes;     // what could not be fitted and why
};

// The serving configuration a benchmark run stands for: `base` (a serve configuration: its
// model, dtypes, engine and scheduler) with the run's load (concurrency or rate, its mean
// prompt and output lengths, fixed), its tensor parallelism when the file gives it, and one
// instance; the closed loop runs 4 requests per client (64 to 4096).
Config serving_run_config(const Config &base, const ServingSample &s);

// The benchmark runs of `samples` as serving configurations on `base`
// (serving_run_config), with the samples they stand for; runs that cannot be simulated (no
// TPOT, too long, no room for the KV cache) are left out with a note. ConfigError naming the
// file and row when a run's layout does not fit the base's model.
struct ServingRuns {
  std::vector<Config> runs;
  std::vector<const ServingSample *> used; // runs[i] stands for *used[i]
  std::vector<std::string> notes;
};
ServingRuns serving_runs(const Config &base, const std::vector<ServingSample> &samples);
// The TPOT a sample reports (its ITL when it gives no TPOT), s.
double measured_tpot(const ServingSample &s);

// Mean TPOT and TTFT of every run simulated at an engine's iteration and request overheads.
struct ServingPrediction {
  std::vector<double> tpot, ttft;
};
ServingPrediction predict_serving(const std::vector<Config> &runs, Replay *replay,
                                  double iteration_overhead, double request_overhead = 0);

// The engine fit's ranges and probe: the per-iteration host time on [0, 50 ms], the
// per-request front-end time on [0, 0.5 s] by 0.1 ms.
constexpr double kMaxIterationOverhead = 0.05, kMaxRequestOverhead = 0.5;
constexpr int kRequestOverheadSteps = 5000;
constexpr double kOverheadProbe = 0.005;
// An engine's two host times fitted to measured runs: the iteration overhead by least
// squares on log TPOT (p0, p1: the runs simulated at 0 and kOverheadProbe), then the request
// overhead as the TTFT shift of least median |error| at that iteration overhead (`at`
// simulates the runs at an iteration overhead).
struct EngineOverheads {
  double iteration = 0, request = 0;
};
EngineOverheads fit_engine_overheads(const std::vector<const ServingSample *> &used,
                                     const ServingPrediction &p0, const ServingPrediction &p1,
                                     const std::function<ServingPrediction(double)> &at);

// The parameters calibrate fits, by path (what `--fix` may name); the engine's small-M GEMM
// fits, workload.engine.gemm.on.<chip>.<dtype>.{latency,bw_efficiency}, go by pattern.
std::vector<std::string> fittable_parameters();
bool is_fittable(const std::string &path);

// The most model evaluations the component fits may make (about 4 s natively), and the most
// output tokens the serving fit may simulate (its runs x the simulations it makes of each,
// about 2.5 s natively), counted before any fit starts; over them, ConfigError at "files".
constexpr double kMaxFitEvaluations = 4e7;
constexpr double kMaxFitSimulatedTokens = 1e9;
constexpr int kServingFitSimulations = 5;
// Refuses component and kernel rows whose fits would pass kMaxFitEvaluations (the serving
// runs are counted when the fit has set them on the base: simulated requests x tokens).
void check_fit_work(const Measurements &m);

// The fits' work in replay units (core/calibrate/replay.hpp): one component prediction is 1
// (about 100 ns natively); a kernel-model evaluation and a simulated output token in the
// same units.
constexpr double kUnitsPerKernelEvaluation = 0.1;
constexpr double kUnitsPerSimulatedToken = 0.025;

struct CalibrateOptions {
  // Parameters held at the base's value: their dotted paths ("cluster.intra_node.efficiency").
  // A link with its efficiency held fits its latency alone (and the other way round); a GEMM
  // with gemm_k_half held fits its efficiency alone.
  std::vector<std::string> fixed;
  bool is_fixed(const std::string &path) const;
  // The chip whose own FP8/bf16 GEMM fit (to cuBLAS sweeps) corrects a GEMM table's large-shape
  // ratios on other chips (the table's FP8 rows carry their activation quantisation and the
  // engine's kernel choice): the io layer sets its preset when a table has such rows.
  std::optional<HardwareSpec> ratio_reference;
  // Set by CalibrationSteps: the fits' costly evaluations go through it (nullptr: directly).
  Replay *replay = nullptr;
};

// Fits what the measurements inform, starting from base.hardware and base.cluster; the
// training rows are runs of `base` (its model, workload and layout), the serving rows runs of
// its serving deployment (serving_run_config). ConfigError at "files" when no row informs any
// parameter.
CalibrationResult calibrate(const Config &base, const Measurements &m,
                            const CalibrateOptions &opt = {});

// calibrate() in pieces of about `budget` replay units each (kUnitsPerStep: ~50 ms natively),
// for a page that keeps drawing (and can drop it: Cancel) while it runs. Its result is
// calibrate()'s, to the last digit: each piece reruns the fit from the start, taking the
// costly evaluations earlier pieces made from their record (core/calibrate/replay.hpp).
constexpr double kUnitsPerStep = 5e5;
class CalibrationSteps {
public:
  CalibrationSteps(Config base, Measurements m, CalibrateOptions opt,
                   double budget = kUnitsPerStep);
  ~CalibrationSteps();
  CalibrationSteps(CalibrationSteps &&) noexcept;
  CalibrationSteps &operator=(CalibrationSteps &&) noexcept;
  // One piece; false once the fit has finished (or failed).
  bool step();
  bool done() const { return done_; }
  // The work recorded over the work counted before the start, in [0, 1].
  double progress() const;
  // The fit's result once done; the ConfigError calibrate() would throw, rethrown.
  CalibrationResult result() const;

private:
  Config base_;
  Measurements m_;
  CalibrateOptions opt_;
  double budget_, total_;
  std::unique_ptr<Replay> replay_;
  bool done_ = false;
  std::optional<CalibrationResult> result_;
  std::optional<std::pair<std::string, std::string>> error_; // (path, message)
};

} // namespace rl
