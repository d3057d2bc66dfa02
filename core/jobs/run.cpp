#include "core/jobs/run.hpp"

#include "core/tx8/arch.hpp"

namespace rl::jobs {

RunKind run_kind(Mode m) {
  switch (m) {
  case Mode::serve:
    return RunKind::serve;
  case Mode::video:
  case Mode::tx8_op:
    return RunKind::tx8;
  case Mode::train:
  case Mode::infer:
    break;
  }
  return RunKind::estimate;
}

RunResult run(const Config &c) {
  RunResult r;
  switch (run_kind(c.workload.mode)) {
  case RunKind::serve:
    r.serve = simulate_serving(c);
    break;
  case RunKind::tx8:
    tx8::arch_of(c.hardware, "hardware"); // a tx8 hardware, or the field named
    r.tx8 = tx8::solve(c, tx8::Tx8Options{});
    break;
  case RunKind::estimate:
    r.estimate = estimate(c);
    break;
  }
  return r;
}

std::vector<ReportRow> headline_rows(const std::optional<Estimate> &e,
                                     const std::optional<ServeResult> &serve,
                                     const std::optional<tx8::Tx8Result> &tx8) {
  if (e)
    return report_rows(*e);
  if (serve)
    return report_rows(*serve);
  if (tx8)
    return report_rows(*tx8);
  return {};
}

std::vector<ReportRow> headline_rows(const RunResult &r) {
  return headline_rows(r.estimate, r.serve, r.tx8);
}

} // namespace rl::jobs
