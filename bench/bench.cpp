// ridgeline bench: prints how fast the core answers (speed is measured here, never asserted
// in tests). Usage: ridgeline_bench [iterations]
#include "core/estimate/estimate.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/parallel/knobs.hpp"
#include "core/planner/planner.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"
#include "core/tx8/request.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {
// At least n calls and at least kMinSeconds of them: a case of a microsecond timed over
// 1000 calls (1 ms) measured V8's baseline WebAssembly tier, before its optimizing tier
// took over (the memory-only estimate read 9x native over 1000 calls and 1.6x over 200,000).
constexpr double kMinSeconds = 0.25;
double time_per_call_us(int n, const std::function<void()> &f) {
  const auto t0 = std::chrono::steady_clock::now();
  long long calls = 0;
  double elapsed = 0;
  do {
    for (int i = 0; i < n; ++i)
      f();
    calls += n;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (elapsed < kMinSeconds);
  return elapsed * 1e6 / static_cast<double>(calls);
}
} // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
  const nlohmann::json cfg = nlohmann::json("llama3-70b-h100-1024");
  const rl::Config c = rl::io::parse_config(cfg);
  const rl::Config infer = rl::io::parse_config(nlohmann::json("llama3-70b-v5e-int8"));
  rl::Config free = c;
  free.parallel = rl::ParallelSpec{};
  volatile double sink = 0;
  // Warm-up: a WASM engine compiles hot functions again with its optimizing tier after their
  // first calls; time what a page that has run a while sees (each timed case runs first).
  const auto parse = [&] {
    sink = sink + static_cast<double>(rl::io::parse_config(cfg).model.layers);
  };
  time_per_call_us(n, parse);
  const double parse_us = time_per_call_us(n, parse);
  time_per_call_us(n, [&] { sink = sink + rl::estimate(c).time.step; });
  time_per_call_us(n / 10 + 1, [&] { sink = sink + rl::estimate(infer).serving.tpot; });
  const double mem_us =
      time_per_call_us(n, [&] { sink = sink + rl::estimate(c, false).memory.total; });
  const double est_us = time_per_call_us(n, [&] { sink = sink + rl::estimate(c).time.step; });
  const double inf_us =
      time_per_call_us(n / 10 + 1, [&] { sink = sink + rl::estimate(infer).serving.tpot; });
  const nlohmann::json full = rl::io::to_json(c);
  const auto url = [&] {
    sink =
        sink + static_cast<double>(rl::io::decode_url_query(rl::io::encode_url_query(full)).size());
  };
  time_per_call_us(n, url);
  const double url_us = time_per_call_us(n, url);
  rl::PlanResult pr;
  const double plan_us = time_per_call_us(5, [&] { pr = rl::plan(free); });
  // The planner's full space on the two largest production runs (Llama 3 405B on 16,384
  // H100; DeepSeek-V3 on 2,048 H800), every knob free.
  const rl::Config l405 = rl::io::parse_config(nlohmann::json::parse(
      R"({"model": "llama3-405b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
          "devices": 16384}, "workload": {"mode": "train", "global_batch": 2048, "seq_len": 8192}})"));
  const rl::Config dsv3 = rl::io::parse_config(nlohmann::json::parse(
      R"({"model": "deepseek-v3", "hardware": "h800", "cluster": {"base": "dgx-h100",
          "devices": 2048}, "workload": {"mode": "train", "global_batch": 15360, "seq_len": 4096}})"));
  rl::PlanResult p405, pds;
  const double p405_us = time_per_call_us(3, [&] { p405 = rl::plan(l405); });
  const double pds_us = time_per_call_us(1, [&] { pds = rl::plan(dsv3); });
  const rl::Config video = rl::io::parse_config(nlohmann::json("sora-720m-tx8-2x2"));
  rl::tx8::Tx8Result vr;
  const double video_us =
      time_per_call_us(2, [&] { vr = rl::tx8::solve(video, rl::tx8::Tx8Options{}); });
  const rl::Config op = rl::io::parse_config(nlohmann::json::parse(
      R"({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 4096, "k": 1152, "n": 4608, "fuse": "silu"}}})"));
  const double op_us = time_per_call_us(
      20, [&] { sink = sink + rl::tx8::solve(op, rl::tx8::Tx8Options{}).latency; });
  // Serving: 10,000 requests of LLaMA-3 70B FP8 on 8 H100 (2 instances of TP 4), and the
  // serving planner over three hardware choices.
  const rl::Config serve = rl::io::parse_config(nlohmann::json::parse(
      R"({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": "dgx-h100",
      "workload": {"mode": "serve", "request_rate": 8, "requests": 10000, "prompt_len": 2048,
      "gen_len": 256, "length_dist": "exponential", "weight_dtype": "fp8", "kv_dtype": "fp8",
      "precision": "fp8", "slo": {"ttft": 1.0, "tpot": 0.05}}, "parallel": {"tp": 4}})"));
  rl::ServeResult sr;
  const double serve_us = time_per_call_us(3, [&] { sr = rl::simulate_serving(serve); });
  // The README's serving planner examples: `plan llama3-70b-h100-serve` (3 hardware x 3
  // engines x 2 precisions) and `plan deepseek-r1-b200-serve --free all` (MoE: attention DP,
  // EP / MoE TP, 2 hardware x 3 engines x FP8/FP4), choices expanded as the CLI does.
  // (--top 5, as the README runs them: the cost bound keeps the 3 x top cheapest)
  rl::ServePlanResult sp, spm;
  rl::ServePlanOptions top5;
  top5.top = 5;
  const double splan_us = time_per_call_us(1, [&] {
    sp = rl::plan_serving(rl::io::planner_choices(nlohmann::json("llama3-70b-h100-serve")), top5);
  });
  const double splan_moe_us = time_per_call_us(1, [&] {
    std::vector<rl::Config> moe = rl::io::planner_choices(nlohmann::json("deepseek-r1-b200-serve"));
    for (rl::Config &k : moe)
      rl::free_knobs(k, "all");
    spm = rl::plan_serving(moe, top5);
  });
  // ridgeline calibrate on the shipped component points (A100: GEMM, attention, HBM, NVLink
  // latency), and a closed-loop simulation of 64 clients as a serving calibration runs it.
  rl::io::MeasurementFile components{"components.json", ""};
  for (const auto &e : rl::io::preset_entries())
    if (e.kind == "validation" && e.name == "components")
      components.text = e.text;
  rl::CalibrateOptions hold;
  hold.fixed = {"cluster.intra_node.efficiency"};
  const double cal_us = time_per_call_us(3, [&] {
    rl::io::calibrate_files(nlohmann::json("a100-80gb@dgx-a100"), {components}, hold);
  });
  const rl::Config closed = rl::io::parse_config(nlohmann::json::parse(
      R"({"model": "llama3.1-70b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
      "devices": 4}, "workload": {"mode": "serve", "concurrency": 64, "requests": 256,
      "prompt_len": 1024, "gen_len": 1024, "weight_dtype": "fp8", "precision": "fp8",
      "engine": "vllm"}, "parallel": {"tp": 4}})"));
  rl::ServeResult cr;
  const double closed_us = time_per_call_us(3, [&] { cr = rl::simulate_serving(closed); });
  // The accepted extreme of a closed loop (issue 35): 1,000,000 clients of 16 + 4 tokens on
  // 2 x TP4 H100, one request each (quadratic in clients before: past a minute).
  const rl::Config million = rl::io::parse_config(nlohmann::json::parse(
      R"({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": "dgx-h100",
      "workload": {"mode": "serve", "concurrency": 1000000, "requests": 1000000,
      "prompt_len": 16, "gen_len": 4, "weight_dtype": "fp8", "kv_dtype": "fp8",
      "precision": "fp8", "engine": "vllm"}, "parallel": {"tp": 4}})"));
  rl::ServeResult mr;
  const double million_us = time_per_call_us(1, [&] { mr = rl::simulate_serving(million); });
  std::printf("ridgeline bench (%d iterations)\n", n);
  std::printf("  parse_config (scenario preset)          %10.2f us/call\n", parse_us);
  std::printf("  estimate, memory only (llama3-70b)      %10.2f us/call\n", mem_us);
  std::printf("  estimate with step time (1024 GPUs)     %10.2f us/call\n", est_us);
  std::printf("  estimate inference (+ max-batch search) %10.2f us/call\n", inf_us);
  std::printf("  url encode+decode (resolved config)     %10.2f us/call\n", url_us);
  std::printf("  plan, every knob free (%lld layouts, %lld timed) %10.2f ms/call\n",
              static_cast<long long>(pr.candidates), static_cast<long long>(pr.timed),
              plan_us / 1e3);
  std::printf("  plan llama3-405b / 16,384 H100, full space (%lld layouts)  %10.2f ms/call\n",
              static_cast<long long>(p405.candidates), p405_us / 1e3);
  std::printf("  plan deepseek-v3 / 2,048 H800, full space (%lld layouts)  %10.2f ms/call\n",
              static_cast<long long>(pds.candidates), pds_us / 1e3);
  std::printf("  plan deepseek-v3: per layout enumerated                 %10.3f us/call\n",
              pds_us / static_cast<double>(pds.candidates));
  std::printf("  plan deepseek-v3: per layout evaluated (%lld, memory+time) %10.3f us/call\n",
              static_cast<long long>(pds.evaluated),
              pds_us / static_cast<double>(std::max<long long>(pds.evaluated, 1)));
  std::printf("  tx8 GEMM 4096x1152x4608+SiLU tiling search  %10.2f ms/call\n", op_us / 1e3);
  std::printf("  tx8 STDiT3-720M 720p 4 s on 2x2 (%lld op searches, all schemes) %10.2f ms/call\n",
              static_cast<long long>(vr.searches), video_us / 1e3);
  std::printf("  serve: 10,000 requests, 2 x TP4 H100 (%lld iterations) %10.2f ms/call\n",
              static_cast<long long>(sr.iterations), serve_us / 1e3);
  std::printf(
      "  serving plan llama3-70b-h100-serve --top 5 (README; %lld candidates, %lld simulations) "
      "%10.2f ms/call\n",
      static_cast<long long>(sp.candidates), static_cast<long long>(sp.simulations),
      splan_us / 1e3);
  std::printf(
      "  serving plan deepseek-r1-b200-serve --free all --top 5 (README; %lld candidates, %lld "
      "simulations) %10.2f ms/call\n",
      static_cast<long long>(spm.candidates), static_cast<long long>(spm.simulations),
      splan_moe_us / 1e3);
  std::printf("  calibrate: the shipped A100 component points  %10.2f ms/call\n", cal_us / 1e3);
  std::printf("  serve closed loop: 64 clients, 256 requests (%lld iterations) %10.2f ms/call\n",
              static_cast<long long>(cr.iterations), closed_us / 1e3);
  std::printf("  serve closed loop: 1,000,000 clients (%lld iterations) %10.2f ms/call\n",
              static_cast<long long>(mr.iterations), million_us / 1e3);
  return 0;
}
