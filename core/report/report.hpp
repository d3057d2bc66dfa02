// ridgeline report: the headline numbers of a result as labelled rows (section, label, value,
// unit, which direction is better). The page's compare view and the exports read these rows,
// so a derived value shown beside another result is computed once, here.
#pragma once

#include "core/estimate/estimate.hpp"
#include "core/serve/simulate.hpp"
#include "core/tx8/request.hpp"

#include <string>
#include <vector>

namespace rl {

// duration: a long time in hours or days (time to train); seconds: s, ms, us.
enum class Unit {
  seconds,
  duration,
  bytes,
  flops,
  flop_rate,
  percent,
  count,
  per_second,
  dollars,
  plain
};
enum class Better { lower, higher, neither };

struct ReportRow {
  std::string section, label;
  double value = 0;
  Unit unit = Unit::plain;
  Better better = Better::neither;
};

// The throughput row of the peak MFU is a share of (the precision's peak FLOP/s).
inline constexpr const char *kPeakLabel = "peak FLOP/s per device (MFU's)";
std::vector<ReportRow> report_rows(const Estimate &e);

// A layout's pipeline in a cell: "16" (even), "16: 7|8|7" (Megatron's first|other|last
// stage layers), "5 uneven" (the first L % p stages one layer more).
std::string pp_label(const Layout &l, i64 layers);
// The axis order in words when it is not the default tp-cp-dp-pp ("" otherwise).
std::string order_label(const Layout &l);
std::vector<ReportRow> report_rows(const ServeResult &r);
std::vector<ReportRow> report_rows(const tx8::Tx8Result &r);

// The value in its unit ("12.03 s", "28.21 GB", "35.3%").
std::string format_value(double v, Unit u);

// One row of a comparison: the same label in both results (missing on one side: NaN there).
struct CompareRow {
  std::string section, label;
  double before = 0, after = 0; // pinned, current
  Unit unit = Unit::plain;
  Better better = Better::neither;
  bool has_before = false, has_after = false;
  // after / before - 1 (0 when either side is missing or zero).
  double relative() const;
  // +1: the change is an improvement, -1: a regression, 0: neither or no change.
  int verdict() const;
};
std::vector<CompareRow> compare_rows(const std::vector<ReportRow> &before,
                                     const std::vector<ReportRow> &after);
// A row's change as the Compare tab and `ridgeline compare` print it: "new" or "gone" (one
// side only), "=", a percentage's change in points ("+5.2 pts": MFU 30.0% -> 35.2%; a
// relative "+17%" of a percentage reads as points), a change from 0 as the new value ("+3"),
// else relative ("-12.5%").
std::string change_text(const CompareRow &r);

// Two training estimates' step times as a claim with its band (core/estimate/step_band):
// "B is 1.2 s (8.9%) faster per step than A: 0.9 s less exposed communication, beyond the
// band (+/-0.3 s)"; "" when either has no step time.
std::string step_verdict(const Config &ca, const Estimate &a, const Config &cb, const Estimate &b);

} // namespace rl
