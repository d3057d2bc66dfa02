#include "core/calibrate/calibration.hpp"

#include <cmath>
#include <map>

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
  }
  return 0;
}

std::vector<ValidationRow> validate(const std::vector<ValidationRun> &runs) {
  std::vector<ValidationRow> out;
  for (const auto &r : runs) {
    const Estimate e = estimate(r.config);
    ValidationRow row;
    row.name = r.name;
    row.hardware = r.config.hardware.name;
    row.metric = r.metric;
    row.measured = r.measured;
    row.predicted = predicted_metric(e, r.metric);
    row.error = row.predicted / row.measured - 1;
    row.band = e.uncertainty;
    out.push_back(row);
  }
  return out;
}

namespace {
double predict_at(ValidationRun r, double eff) {
  r.config.hardware.gemm_efficiency = eff;
  return predicted_metric(estimate(r.config), r.metric);
}

// The grid point minimising the summed squared log-ratio over `rows`.
double best_efficiency(const std::vector<ValidationRun> &rows) {
  double best = 0, best_cost = INFINITY;
  for (int k = 300; k <= 1000; ++k) {
    const double eff = k / 1000.0;
    double cost = 0;
    for (const auto &r : rows) {
      const double lr = std::log(predict_at(r, eff) / r.measured);
      cost += lr * lr;
    }
    if (cost < best_cost) {
      best_cost = cost;
      best = eff;
    }
  }
  return best;
}
} // namespace

std::vector<FitResult> fit_gemm_efficiency(const std::vector<ValidationRun> &runs) {
  std::map<std::string, std::vector<ValidationRun>> by_chip;
  for (const auto &r : runs)
    by_chip[r.config.hardware.name].push_back(r);
  std::vector<FitResult> out;
  for (const auto &[chip, rows] : by_chip) {
    FitResult f;
    f.hardware = chip;
    f.rows = static_cast<i64>(rows.size());
    f.efficiency = best_efficiency(rows);
    double sq = 0;
    for (const auto &r : rows) {
      const double err = predict_at(r, f.efficiency) / r.measured - 1;
      f.max_abs_error = std::max(f.max_abs_error, std::fabs(err));
      sq += err * err;
    }
    f.rms_error = std::sqrt(sq / static_cast<double>(rows.size()));
    // Leave one out: fit on the others, predict the one left out.
    for (std::size_t i = 0; rows.size() > 1 && i < rows.size(); ++i) {
      std::vector<ValidationRun> rest;
      for (std::size_t k = 0; k < rows.size(); ++k)
        if (k != i)
          rest.push_back(rows[k]);
      const double err = predict_at(rows[i], best_efficiency(rest)) / rows[i].measured - 1;
      f.loo_max_error = std::max(f.loo_max_error, std::fabs(err));
    }
    out.push_back(f);
  }
  return out;
}

} // namespace rl
