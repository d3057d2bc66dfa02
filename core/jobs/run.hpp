// ridgeline jobs: what one configuration computes, by its workload mode. The only dispatch on
// the mode: train and infer are estimated, serve is simulated request by request, video and
// tx8-op are mapped on tx8 dies. The CLI (estimate, compare), the JSON API and the page read it.
#pragma once

#include "core/config.hpp"
#include "core/estimate/estimate.hpp"
#include "core/report/report.hpp"
#include "core/serve/simulate.hpp"
#include "core/tx8/request.hpp"

#include <optional>
#include <vector>

namespace rl::jobs {

enum class RunKind { estimate, serve, tx8 };
RunKind run_kind(Mode m);

// Exactly one of the three is set, the one run_kind names.
struct RunResult {
  std::optional<Estimate> estimate;
  std::optional<ServeResult> serve;
  std::optional<tx8::Tx8Result> tx8;
};
RunResult run(const Config &c);

// The headline rows of a result (the Compare tab and `ridgeline compare`): whichever of the
// three is set (the page keeps them apart).
std::vector<ReportRow> headline_rows(const std::optional<Estimate> &e,
                                     const std::optional<ServeResult> &serve,
                                     const std::optional<tx8::Tx8Result> &tx8);
std::vector<ReportRow> headline_rows(const RunResult &r);

} // namespace rl::jobs
