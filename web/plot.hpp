// ridgeline web: a small log-log chart on Dear ImGui's draw list, shared by the roofline and
// the serving curve: decade grid, tick labels in the units of core/io/units.hpp, axis
// titles, dashed lines and labels that do not overlap.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace rl::web::plot {

// A chart: value ranges (log10 axes) mapped onto a screen rectangle.
struct LogLog {
  ImVec2 p0, p1; // the plot area (screen pixels), inside the axes
  double x_min = 1, x_max = 10, y_min = 1, y_max = 10;
  float sx(double x) const;
  float sy(double y) const;
  ImVec2 at(double x, double y) const { return ImVec2(sx(x), sy(y)); }
  bool inside(ImVec2 p) const { return p.x >= p0.x && p.x <= p1.x && p.y >= p0.y && p.y <= p1.y; }
};

// [lo / pad, hi * pad] (lo, hi > 0), widened about its middle to at least `min_decades`
// decades.
void log_range(double lo, double hi, double pad, double min_decades, double &out_lo,
               double &out_hi);

// A tick label from a units:: string: "100.00 TFLOP/s" -> "100 TFLOP/s".
std::string tick(std::string s);

// Reserves `size` at the cursor, draws the frame, the grid (decades, faint 2..9 lines), tick
// labels at the decades (and at 2 and 5 on an axis shorter than two decades, formatted by
// x_fmt / y_fmt) and the axis titles; returns the plot area.
// `right_margin` leaves room right of the plot (tags of horizontal lines).
LogLog begin_loglog(ImVec2 size, double x_min, double x_max, double y_min, double y_max,
                    std::string (*x_fmt)(double), std::string (*y_fmt)(double),
                    const std::string &x_title, const std::string &y_title,
                    float right_margin = 8.0f);

void dashed_line(ImDrawList *dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness = 1.0f,
                 float dash = 6.0f, float gap = 4.0f);

// Text labels placed next to points without overlapping each other: each label tries a few
// positions around its anchor and takes the first free one inside the bounds.
class Labels {
public:
  Labels(ImVec2 bounds_min, ImVec2 bounds_max) : lo_(bounds_min), hi_(bounds_max) {}
  // Reserves a rectangle (e.g. a marker) so labels avoid it.
  void block(ImVec2 a, ImVec2 b) { taken_.push_back({a, b}); }
  // Draws `text` near `anchor` (a point of radius r); returns false when no place was free.
  bool add(ImDrawList *dl, ImVec2 anchor, float r, const std::string &text, ImU32 col);

private:
  struct Box {
    ImVec2 a, b;
  };
  bool free(const Box &x) const;
  ImVec2 lo_, hi_;
  std::vector<Box> taken_;
};

} // namespace rl::web::plot
