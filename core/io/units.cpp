#include "core/io/units.hpp"

#include <cmath>
#include <cstdio>

namespace rl::units {

namespace {
std::string scaled(double v, const char *unit, const char *const *prefixes, int n) {
  int i = 0;
  double x = v;
  while (std::fabs(x) >= 1000 && i < n - 1) {
    x /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s%s", x, prefixes[i], unit);
  return buf;
}
} // namespace

std::string bytes(double b) {
  static const char *p[] = {"", "k", "M", "G", "T", "P", "E"};
  return scaled(b, "B", p, 7);
}

std::string flops(double f) {
  static const char *p[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
  return scaled(f, "FLOP", p, 9);
}

std::string flop_rate(double f) {
  return flops(f).append("/s");
}

std::string bandwidth(double bps) {
  return bytes(bps).append("/s");
}

std::string count(double n) {
  static const char *p[] = {"", " K", " M", " B", " T"};
  int i = 0;
  double x = n;
  while (std::fabs(x) >= 1000 && i < 4) {
    x /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, i == 0 ? "%.0f%s" : "%.2f%s", x, p[i]);
  return buf;
}

std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string s = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
  return buf;
}

std::string seconds(double s) {
  static const char *names[] = {"s", "ms", "us", "ns"};
  int i = 0;
  double x = s;
  while (x != 0 && std::fabs(x) < 1 && i < 3) {
    x *= 1000;
    ++i;
  }
  char buf[48];
  // Beyond a million seconds the digits after the point say nothing: "3.174e+08 s".
  const char *f = i > 0 ? "%.2f %s" : std::fabs(x) >= 1e6 ? "%.4g %s" : "%.3f %s";
  std::snprintf(buf, sizeof buf, f, x, names[i]);
  return buf;
}

std::string format(const char *printf_format, double x) {
  char b[64];
  std::snprintf(b, sizeof b, printf_format, x);
  return b;
}

} // namespace rl::units
