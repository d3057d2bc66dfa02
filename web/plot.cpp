#include "web/plot.hpp"

#include "web/widgets.hpp"

#include <algorithm>
#include <cmath>

namespace rl::web::plot {

namespace {
float lerp_log(double v, double lo, double hi, float a, float b) {
  const double t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return a + static_cast<float>(t) * (b - a);
}
} // namespace

float LogLog::sx(double x) const {
  return lerp_log(std::max(x, 1e-300), x_min, x_max, p0.x, p1.x);
}

float LogLog::sy(double y) const {
  return lerp_log(std::max(y, 1e-300), y_min, y_max, p1.y, p0.y);
}

void log_range(double lo, double hi, double pad, double min_decades, double &out_lo,
               double &out_hi) {
  lo = lo > 0 && std::isfinite(lo) ? lo : 1;
  hi = hi > 0 && std::isfinite(hi) ? hi : lo * 10;
  if (hi < lo)
    std::swap(lo, hi);
  double a = std::log10(lo / pad), b = std::log10(hi * pad);
  if (b - a < min_decades) {
    const double mid = (a + b) / 2;
    a = mid - min_decades / 2;
    b = mid + min_decades / 2;
  }
  out_lo = std::pow(10.0, a);
  out_hi = std::pow(10.0, b);
}

namespace {
// The tick values of an axis: every 10^k in range, and m x 10^k (m = 2..9) for the grid;
// `labelled` says which carry a label.
struct Tick {
  double v;
  bool major, labelled;
};
std::vector<Tick> ticks(double lo, double hi) {
  std::vector<Tick> out;
  const bool short_axis = std::log10(hi / lo) < 2.2;
  const int k0 = static_cast<int>(std::floor(std::log10(lo)));
  const int k1 = static_cast<int>(std::ceil(std::log10(hi)));
  const int every = std::log10(hi / lo) > 10 ? 2 : 1; // thin a very wide axis
  for (int k = k0; k <= k1; ++k) {
    const double d = std::pow(10.0, k);
    for (int m = 1; m <= 9; ++m) {
      const double v = d * m;
      if (v < lo * 0.9999 || v > hi * 1.0001)
        continue;
      const bool major = m == 1;
      const bool lab = major ? (k % every == 0) : short_axis && (m == 2 || m == 5);
      out.push_back({v, major, lab});
    }
  }
  return out;
}
} // namespace

std::string tick(std::string s) {
  // "100.00 TFLOP/s" -> "100 TFLOP/s", "1.000 s" -> "1 s", "2.50 ms" -> "2.5 ms"
  const auto end = s.find(' ');
  const auto dot = s.find('.');
  if (dot == std::string::npos || (end != std::string::npos && dot > end))
    return s;
  std::size_t cut = end == std::string::npos ? s.size() : end;
  std::size_t keep = cut;
  while (keep > dot + 1 && s[keep - 1] == '0')
    --keep;
  if (keep == dot + 1)
    keep = dot;
  s.erase(keep, cut - keep);
  return s;
}

LogLog begin_loglog(ImVec2 size, double x_min, double x_max, double y_min, double y_max,
                    std::string (*x_fmt)(double), std::string (*y_fmt)(double),
                    const std::string &x_title, const std::string &y_title, float right_margin) {
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeight();
  const std::vector<Tick> xt = ticks(x_min, x_max), yt = ticks(y_min, y_max);
  // Left margin: the widest y tick label.
  float label_w = 0;
  for (const Tick &t : yt)
    if (t.labelled)
      label_w = std::max(label_w, ImGui::CalcTextSize(tick(y_fmt(t.v)).c_str()).x);
  LogLog g;
  g.x_min = x_min;
  g.x_max = x_max;
  g.y_min = y_min;
  g.y_max = y_max;
  g.p0 = ImVec2(origin.x + label_w + 8, origin.y + line + 6);
  g.p1 = ImVec2(origin.x + size.x - right_margin, origin.y + size.y - line * 2 - 6);
  ImGui::Dummy(size);
  if (g.p1.x - g.p0.x < 40 || g.p1.y - g.p0.y < 40)
    return g;

  dl->AddRectFilled(g.p0, g.p1, ui::u32(ui::ink(0.025f)));
  const ImU32 major = ui::u32(ui::ink(0.13f));
  const ImU32 minor = ui::u32(ui::ink(0.045f));
  const ImU32 text = ui::u32(ui::color::dim);
  float last_right = -1e9f; // x labels never overlap: a label too close to the last is skipped
  for (const Tick &t : xt) {
    const float x = g.sx(t.v);
    dl->AddLine(ImVec2(x, g.p0.y), ImVec2(x, g.p1.y), t.major ? major : minor);
    if (!t.labelled)
      continue;
    const std::string lab = tick(x_fmt(t.v));
    const float w = ImGui::CalcTextSize(lab.c_str()).x;
    const float lx = std::clamp(x - w * 0.5f, g.p0.x - 4, g.p1.x - w + 4);
    if (lx < last_right + 8)
      continue;
    dl->AddText(ImVec2(lx, g.p1.y + 3), text, lab.c_str());
    last_right = lx + w;
  }
  float last_top = 1e9f;
  for (const Tick &t : yt) {
    const float y = g.sy(t.v);
    dl->AddLine(ImVec2(g.p0.x, y), ImVec2(g.p1.x, y), t.major ? major : minor);
    if (!t.labelled)
      continue;
    const std::string lab = tick(y_fmt(t.v));
    const float w = ImGui::CalcTextSize(lab.c_str()).x;
    const float ly = std::clamp(y - line * 0.5f, g.p0.y - line * 0.5f, g.p1.y - line * 0.5f);
    if (ly + line > last_top - 2)
      continue;
    dl->AddText(ImVec2(g.p0.x - 6 - w, ly), text, lab.c_str());
    last_top = ly;
  }
  dl->AddRect(g.p0, g.p1, ui::u32(ui::ink(0.22f)));
  // Titles: x centred under the tick labels, y above the axis.
  const ImU32 title = ui::u32(ui::ink(1));
  const float tw = ImGui::CalcTextSize(x_title.c_str()).x;
  dl->AddText(ImVec2((g.p0.x + g.p1.x - tw) * 0.5f, g.p1.y + line + 5), title, x_title.c_str());
  dl->AddText(ImVec2(origin.x, origin.y), title, y_title.c_str());
  return g;
}

void dashed_line(ImDrawList *dl, ImVec2 a, ImVec2 b, ImU32 col, float thickness, float dash,
                 float gap) {
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float len = std::sqrt(dx * dx + dy * dy);
  if (len < 1e-3f)
    return;
  const float ux = dx / len, uy = dy / len;
  for (float t = 0; t < len; t += dash + gap) {
    const float e = std::min(t + dash, len);
    dl->AddLine(ImVec2(a.x + ux * t, a.y + uy * t), ImVec2(a.x + ux * e, a.y + uy * e), col,
                thickness);
  }
}

bool Labels::free(const Box &x) const {
  if (x.a.x < lo_.x || x.a.y < lo_.y || x.b.x > hi_.x || x.b.y > hi_.y)
    return false;
  for (const Box &t : taken_)
    if (x.a.x < t.b.x && x.b.x > t.a.x && x.a.y < t.b.y && x.b.y > t.a.y)
      return false;
  return true;
}

bool Labels::add(ImDrawList *dl, ImVec2 anchor, float r, const std::string &text, ImU32 col) {
  const ImVec2 sz = ImGui::CalcTextSize(text.c_str());
  const float pad = r + 3;
  // above, below, right, left, then the diagonals and further out.
  const ImVec2 tries[] = {
      {anchor.x - sz.x * 0.5f, anchor.y - pad - sz.y},
      {anchor.x - sz.x * 0.5f, anchor.y + pad},
      {anchor.x + pad, anchor.y - sz.y * 0.5f},
      {anchor.x - pad - sz.x, anchor.y - sz.y * 0.5f},
      {anchor.x + pad * 0.5f, anchor.y - pad - sz.y},
      {anchor.x + pad * 0.5f, anchor.y + pad},
      {anchor.x - pad * 0.5f - sz.x, anchor.y - pad - sz.y},
      {anchor.x - pad * 0.5f - sz.x, anchor.y + pad},
      {anchor.x - sz.x * 0.5f, anchor.y - pad - sz.y * 2},
      {anchor.x - sz.x * 0.5f, anchor.y + pad + sz.y},
      {anchor.x + pad, anchor.y - pad - sz.y * 2},
      {anchor.x + pad, anchor.y + pad + sz.y},
  };
  for (const ImVec2 &p : tries) {
    const Box b{p, ImVec2(p.x + sz.x, p.y + sz.y)};
    if (!free(b))
      continue;
    taken_.push_back(b);
    dl->AddText(p, col, text.c_str());
    return true;
  }
  return false;
}

} // namespace rl::web::plot
