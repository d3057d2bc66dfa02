// ridgeline calibrate: measured runs against predictions, and the fit of each chip's compute
// overhead (the step-time model's one parameter fitted end to end; GEMM, attention, memory
// and collective efficiencies come from microbenchmarks) to docs/calibration.md.
#pragma once

#include "core/config.hpp"
#include "core/estimate/estimate.hpp"

#include <string>
#include <vector>

namespace rl {

enum class Metric {
  step_time,
  mfu,
  hfu,
  tflops_per_device,
  hardware_tflops_per_device,
  tokens_per_s,
  ttft, // serving (workload.mode "serve"): mean time to first token, s
  tpot  // and mean time per output token, s
};
const char *name_of_metric(Metric m);

struct ValidationRun {
  std::string name;
  Config config;
  Metric metric = Metric::mfu;
  double measured = 0;
  // The compute-overhead fit: runs of one group share one overhead (empty: the chip's name;
  // "blackwell" pools B200 and GB200, one die); a run with fit false is predicted, not fitted
  // to (an MoE run whose layer machinery the model lacks would sink into the overhead).
  std::string fit_group;
  bool fit = true;
};

struct ValidationRow {
  std::string name, hardware;
  Metric metric = Metric::mfu;
  double measured = 0, predicted = 0;
  double error = 0; // predicted / measured - 1
  double band = 0;  // the chip's relative uncertainty
  // The predicted step by component (s), and the measured step the metric implies (every
  // metric but step_time is a rate: measured step = predicted step x predicted / measured).
  double step = 0, compute = 0, comm_exposed = 0, host = 0, bubble = 0, optimizer = 0;
  double measured_step = 0;
  // compute by component (s): GEMMs, attention, memory-bound kernels, recompute, the SMs
  // overlapped collectives hold and the hardware.compute_overhead share (compute = their sum)
  double gemm = 0, attention = 0, memory_bound = 0, recompute = 0, comm_sms = 0, overhead = 0;
  bool within_band() const;
};

// Bounded work, checked before any estimate: units of one per model layer per estimate
// (the planner's unit). validate() costs one estimate per run, the fit 1501 per run; a
// serving run its simulation's serve_work (5 per request, 1 per 5 sequence steps).
constexpr i64 kCalibrationBudget = 4'000'000;

double predicted_metric(const Estimate &e, Metric m);
// ConfigError at "runs" when the runs need more than kCalibrationBudget.
std::vector<ValidationRow> validate(const std::vector<ValidationRun> &runs);

// The median of a list (the mean of the middle two of an even count; 0 when empty).
double median(std::vector<double> v);

// How far a set of predictions is off: the median and the largest |predicted/measured - 1|,
// and how many rows lie within their band.
struct ErrorSummary {
  i64 rows = 0, within_band = 0;
  double median_abs_error = 0, max_abs_error = 0;
};
ErrorSummary summarize(const std::vector<ValidationRow> &rows);

struct FitResult {
  std::string hardware;           // the fit group: a chip, or a group of chips
  std::vector<std::string> chips; // the chips its runs are on, sorted
  double overhead = 0;            // hardware.compute_overhead
  double max_abs_error = 0;       // max |predicted/measured - 1| at the fitted overhead
  double rms_error = 0;
  double loo_max_error = 0; // leave-one-out: max error predicting a run not fitted to
  i64 rows = 0;
};

// The largest compute overhead a fit tries: a fit that reaches it stopped at its bound.
constexpr double kMaxFittedOverhead = 1.5;

// Per hardware name: the compute overhead in [0, kMaxFittedOverhead] (step 0.001) minimising the
// summed squared log-ratio of predicted to measured. ConfigError at "runs" past kCalibrationBudget
// or when no value gives positive predictions.
std::vector<FitResult> fit_compute_overhead(const std::vector<ValidationRun> &runs);

} // namespace rl
