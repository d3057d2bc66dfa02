// ridgeline io: numbers as people read them, shared by the CLI and the page.
// SI prefixes throughout (1 GB = 1e9 B; docs/formulas.md).
#pragma once

#include <cstdint>
#include <string>

namespace rl::units {

std::string bytes(double b);                             // "28.21 GB"
std::string flops(double f);                             // "4.04 EFLOP"
std::string flop_rate(double f);                         // "989.00 TFLOP/s"
std::string bandwidth(double bps);                       // "450.00 GB/s"
std::string count(double n);                             // "70.55 B" (parameters, tokens)
std::string grouped(std::int64_t n);                     // "70,553,706,496"
std::string percent(double fraction);                    // "35.3%"
std::string seconds(double s);                           // "12.03 s", "2.00 ms", "3.10 us"
std::string format(const char *printf_format, double x); // format("%.2f", 3.14159) == "3.14"

} // namespace rl::units
