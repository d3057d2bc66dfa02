// ridgeline report: the small builders of table cells the report files share (a number in its
// unit, words, printf text, an integer as text or a double).
#pragma once

#include "core/report/table.hpp"

#include <cstdio>
#include <string>
#include <utility>

namespace rl::cells {

inline std::string str(i64 v) {
  return std::to_string(v);
}
inline double d(i64 v) {
  return static_cast<double>(v);
}
// printf-style text of a few numbers (the callers keep within 256 characters).
template <class... A> std::string fmt(const char *f, A... a) {
  char b[256];
  std::snprintf(b, sizeof b, f, a...);
  return b;
}
// A value in its unit ("12.03 s", "28.21 GB").
inline ReportCell cell(double v, Unit u) {
  return {format_value(v, u), v};
}
// Text only (sorts as 0).
inline ReportCell words(std::string s) {
  return {std::move(s), 0};
}
// A number in a printf format ("%.1f").
inline ReportCell num(double v, const char *f) {
  return {fmt(f, v), v};
}

} // namespace rl::cells
