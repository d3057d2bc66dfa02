#include "core/calibrate/calibration.hpp"

#include "core/error.hpp"
#include "core/serve/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace rl {

const char *name_of_metric(Metric m) {
  switch (m) {
  case Metric::step_time:
    return "step_time";
  case Metric::mfu:
    return "mfu";
  case Metric::hfu:
    return "hfu";
  case Metric::tflops_per_device:
    return "tflops_per_device";
  case Metric::hardware_tflops_per_device:
    return "hardware_tflops_per_device";
  case Metric::tokens_per_s:
    return "tokens_per_s";
  case Metric::ttft:
    return "ttft";
  case Metric::tpot:
    return "tpot";
  }
  return "?";
}

double predicted_metric(const Estimate &e, Metric m) {
  switch (m) {
  case Metric::step_time:
    return e.time.step;
  case Metric::mfu:
    return e.throughput.mfu;
  case Metric::hfu:
    return e.throughput.hfu;
  case Metric::tflops_per_device:
    return e.throughput.tflops_per_device;
  case Metric::hardware_tflops_per_device:
    return e.throughput.hardware_tflops_per_device;
  case Metric::tokens_per_s:
    return e.throughput.tokens_per_s;
  case Metric::ttft:
  case Metric::tpot:
    return 0; // serving runs are simulated (validate)
  }
  return 0;
}

namespace {
// Work of one estimate of a run, in the planner's units (one per model layer, plus one); a
// serving run's simulation by what it costs: its requests (clients' too, and a counted
// opening burst) and every request's prefill chunks and decode steps (serve_work).
i64 estimate_work(const ValidationRun &r) {
  const Config &c = r.config;
  if (c.workload.mode == Mode::serve)
    return 1 + static_cast<i64>(std::ceil(serve_work(c).units()));
  return 1 + c.model.layers;
}

// The field that sets a run's work: a serving run's requests (or trace), else its model.
std::string work_field(const ValidationRun &r, std::size_t i) {
  const std::string run = "runs[" + std::to_string(i) + "].config.";
  const ServeSpec &s = r.config.workload.serve;
  if (r.config.workload.mode != Mode::serve)
    return run + "model";
  if (!s.trace.empty())
    return run + "workload.trace";
  return run + (s.requests_per_client > 0 && s.concurrency > 0 ? "workload.requests_per_client"
                                                               : "workload.requests");
}

// Before any estimate: `estimates` of every run (validate: 1, the fit: one per grid point)
// within kCalibrationBudget. Past it, the error names the costliest run, at its field when
// that run alone is past it.
void check_work(const std::vector<ValidationRun> &runs, i64 estimates, const char *what) {
  i64 work = 0, most = -1;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const i64 w = estimates * estimate_work(runs[i]);
    work += w;
    if (w > most) {
      most = w;
      worst = i;
    }
  }
  if (work <= kCalibrationBudget)
    return;
  throw ConfigError(most > kCalibrationBudget ? work_field(runs[worst], worst) : "runs",
                    std::string(what) + " needs " + std::to_string(work) +
                        " units of work (one per model layer and estimate; a serving run 5 per "
                        "request and 1 per 5 prefill chunks and decode steps), \"" +
                        runs[worst].name + "\" " + std::to_string(most) +
                        " of them; the limit is " + std::to_string(kCalibrationBudget) +
                        ": give fewer runs, smaller models or fewer requests");
}
} // namespace

namespace {
// A run measured against a prediction with its band.
ValidationRow row_of(const ValidationRun &r, double predicted, double band) {
  ValidationRow row;
  row.name = r.name;
  row.hardware = r.config.hardware.name;
  row.metric = r.metric;
  row.measured = r.measured;
  row.predicted = predicted;
  row.error = predicted / r.measured - 1;
  row.band = band;
  return row;
}
} // namespace

std::vector<ValidationRow> validate(const std::vector<ValidationRun> &runs) {
  check_work(runs, 1, "predicting these runs");
  std::vector<ValidationRow> out;
  for (const auto &r : runs) {
    if (r.config.workload.mode == Mode::serve) {
      // A serving run: its deployment simulated (closed loop or open, as configured).
      if (r.metric != Metric::ttft && r.metric != Metric::tpot)
        throw ConfigError("runs", r.name + ": a serving run is measured by ttft or tpot");
      const ServeResult s = simulate_serving(r.config);
      const EngineSpec &eng = r.config.workload.serve.engine;
      ValidationRow row =
          row_of(r, r.metric == Metric::ttft ? s.ttft.mean : s.tpot.mean,
                 std::max(r.config.hardware.time_uncertainty,
                          r.metric == Metric::ttft ? eng.ttft_uncertainty : eng.tpot_uncertainty));
      out.push_back(row);
      continue;
    }
    if (r.metric == Metric::ttft || r.metric == Metric::tpot)
      throw ConfigError("runs", r.name + ": ttft and tpot need a serving configuration");
    const Estimate e = estimate(r.config);
    ValidationRow row = row_of(r, predicted_metric(e, r.metric), e.uncertainty);
    row.step = e.time.step;
    row.compute = e.time.compute;
    row.gemm = e.time.parts.gemm;
    row.attention = e.time.parts.attention;
    row.memory_bound = e.time.parts.memory;
    row.comm_sms = e.time.parts.comm_sms;
    row.recompute = e.time.recompute;
    row.overhead = e.time.compute - e.time.recompute - e.time.parts.total();
    row.comm_exposed = e.time.comm_exposed;
    row.host = e.time.host;
    row.bubble = e.time.bubble;
    row.optimizer = e.time.optimizer;
    row.measured_step =
        r.metric == Metric::step_time ? r.measured : e.time.step * row.predicted / r.measured;
    out.push_back(row);
  }
  return out;
}

bool ValidationRow::within_band() const {
  return std::fabs(error) <= band;
}

ErrorSummary summarize(const std::vector<ValidationRow> &rows) {
  ErrorSummary s;
  std::vector<double> errs;
  for (const auto &r : rows) {
    errs.push_back(std::fabs(r.error));
    s.within_band += r.within_band() ? 1 : 0;
  }
  s.rows = static_cast<i64>(errs.size());
  if (errs.empty())
    return s;
  s.max_abs_error = *std::max_element(errs.begin(), errs.end());
  s.median_abs_error = median(std::move(errs));
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {
constexpr int kGridLo = 0, kGridHi = static_cast<int>(kMaxFittedOverhead * 1000); // k / 1000

// Every run's prediction at every grid efficiency, computed once: the fit and each
// leave-one-out refit only sum these.
struct Predictions {
  std::vector<std::vector<double>> at; // at[k - kGridLo][row]
};

Predictions predict_grid(const std::vector<ValidationRun> &rows) {
  Predictions p;
  for (int k = kGridLo; k <= kGridHi; ++k) {
    std::vector<double> col;
    for (ValidationRun r : rows) {
      r.config.hardware.compute_overhead = k / 1000.0;
      col.push_back(predicted_metric(estimate(r.config), r.metric));
    }
    p.at.push_back(std::move(col));
  }
  return p;
}

// The grid point minimising the summed squared log-ratio over the rows (but `skip`).
int best_grid_point(const Predictions &p, const std::vector<ValidationRun> &rows,
                    const std::string &chip, std::size_t skip = SIZE_MAX) {
  int best = -1;
  double best_cost = INFINITY;
  for (int k = kGridLo; k <= kGridHi; ++k) {
    double cost = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i == skip)
        continue;
      const double lr = std::log(p.at[static_cast<std::size_t>(k - kGridLo)][i] / rows[i].measured);
      cost += lr * lr;
    }
    if (cost < best_cost) {
      best_cost = cost;
      best = k;
    }
  }
  if (best < 0)
    throw ConfigError("runs", "no compute_overhead in [0, 1.5] fits the runs on " + chip +
                                  " (a prediction is not a positive number)");
  return best;
}
} // namespace

std::vector<FitResult> fit_compute_overhead(const std::vector<ValidationRun> &runs) {
  for (const auto &r : runs)
    if (r.config.workload.mode == Mode::serve)
      throw ConfigError("runs", r.name + ": a serving run informs the engine (ridgeline "
                                         "calibrate), not the compute overhead");
  check_work(runs, kGridHi - kGridLo + 1, "the fit");
  std::map<std::string, std::vector<ValidationRun>> by_chip;
  for (const auto &r : runs)
    if (r.fit)
      by_chip[r.fit_group.empty() ? r.config.hardware.name : r.fit_group].push_back(r);
  std::vector<FitResult> out;
  for (const auto &[chip, rows] : by_chip) {
    const Predictions p = predict_grid(rows);
    FitResult f;
    f.hardware = chip;
    std::set<std::string> chips;
    for (const auto &r : rows)
      chips.insert(r.config.hardware.name);
    f.chips.assign(chips.begin(), chips.end());
    f.rows = static_cast<i64>(rows.size());
    const int k = best_grid_point(p, rows, chip);
    f.overhead = k / 1000.0;
    double sq = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double err = p.at[static_cast<std::size_t>(k - kGridLo)][i] / rows[i].measured - 1;
      f.max_abs_error = std::max(f.max_abs_error, std::fabs(err));
      sq += err * err;
    }
    f.rms_error = std::sqrt(sq / static_cast<double>(rows.size()));
    // Leave one out: fit on the others, predict the one left out.
    for (std::size_t i = 0; rows.size() > 1 && i < rows.size(); ++i) {
      const int ki = best_grid_point(p, rows, chip, i);
      const double err = p.at[static_cast<std::size_t>(ki - kGridLo)][i] / rows[i].measured - 1;
      f.loo_max_error = std::max(f.loo_max_error, std::fabs(err));
    }
    out.push_back(f);
  }
  return out;
}

} // namespace rl
