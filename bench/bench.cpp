// ridgeline bench: prints how fast the core answers (speed is measured here, never asserted
// in tests). Usage: ridgeline_bench [iterations]
#include "core/estimate/estimate.hpp"
#include "core/io/config_json.hpp"
#include "core/io/url_codec.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace {
double time_per_call_us(int n, const std::function<void()> &f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    f();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
}
} // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const nlohmann::json cfg = nlohmann::json("llama3-70b-h100-1024");
  const rl::Config c = rl::io::parse_config(cfg);
  volatile double sink = 0;
  const double parse_us = time_per_call_us(n, [&] { sink = sink + rl::io::parse_config(cfg).model.layers; });
  const double est_us = time_per_call_us(n, [&] { sink = sink + rl::estimate(c).memory.total; });
  const nlohmann::json full = rl::io::to_json(c);
  const double url_us = time_per_call_us(n, [&] {
    sink = sink + static_cast<double>(rl::io::decode_url_query(rl::io::encode_url_query(full)).size());
  });
  std::printf("ridgeline bench (%d iterations)\n", n);
  std::printf("  parse_config (scenario preset)   %9.2f us/call\n", parse_us);
  std::printf("  estimate (llama3-70b, 1024 GPUs) %9.2f us/call\n", est_us);
  std::printf("  url encode+decode (resolved)     %9.2f us/call\n", url_us);
  return 0;
}
