// ridgeline web: numbers as people read them (SI prefixes: 1 GB = 1e9 B, FORMULAS.md).
#pragma once

#include <cstdint>
#include <string>

namespace rl::web::fmt {

std::string bytes(double b);          // "28.21 GB"
std::string flops(double f);          // "4.04 EFLOP"
std::string flop_rate(double f);      // "989.00 TFLOP/s"
std::string bandwidth(double bps);    // "450.00 GB/s"
std::string count(double n);          // "70.55 B" (parameters, tokens)
std::string grouped(std::int64_t n);  // "70,553,706,496"
std::string percent(double fraction); // "35.3%"
std::string seconds(double s);        // "2.00 us"

} // namespace rl::web::fmt
