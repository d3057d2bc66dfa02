// The training model's MoE experts (grouped GEMMs, the token permutation, SwiGLU) against
// measured MoE layers: AIConfigurator's TensorRT-LLM CUTLASS MoE on H100 (docs/data/aic/moe.csv,
// docs/calibration.md "MoE experts"). Nothing is fitted to these points.
#include "helpers.hpp"

#include "core/parallel/layout.hpp"
#include "core/time/rooflines.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace rl;
using nlohmann::json;

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("MoE experts: the layer's expert GEMMs, routing and SwiGLU against measured MoE layers",
          "[moe][time][calibrate]") {
  // One MoE layer of each measured shape, tp 1, ep 1, every token one sequence: the operators
  // the training model times for the experts (no compute_overhead: components alone).
  std::map<std::string, std::vector<double>> errors; // by dtype, training's tokens per expert
  // gpu,engine,version,dtype,hidden,inter,experts,topk,tokens,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/moe.csv")) {
    REQUIRE(row.size() == 10);
    const i64 h = std::stoll(row[4]), f = std::stoll(row[5]), e = std::stoll(row[6]),
              k = std::stoll(row[7]), tokens = std::stoll(row[8]);
    const double measured = std::stod(row[9]);
    // training runs its experts at hundreds to thousands of tokens each
    if (static_cast<double>(tokens * k) / static_cast<double>(e) < 256)
      continue;
    json j = {
        {"model",
         {{"name", "moe-layer"},
          {"layers", 1},
          {"hidden", h},
          {"heads", h / 128},
          {"vocab", 32000},
          {"moe", {{"experts", e}, {"top_k", k}, {"expert_ffn", f}}}}},
        {"hardware", "h100-sxm"},
        {"cluster", {{"base", "dgx-h100"}, {"devices", 1}}},
        {"workload",
         {{"mode", "train"}, {"global_batch", 1}, {"seq_len", tokens}, {"precision", row[3]}}},
        {"parallel", {{"tp", 1}, {"microbatch", 1}}}};
    const Config c = io::parse_config(j);
    const Layout l = resolve_layout(c);
    double t = 0;
    for (const OpCost &o : layer_ops(c.model, true, l, static_cast<double>(tokens), c.hardware,
                                     c.workload.precision, true, 1, std::nullopt))
      if (o.name == std::string("experts up") || o.name == std::string("experts down") ||
          o.name == std::string("routing"))
        t += o.time;
    // SwiGLU: read the gate and up outputs, write the down input, bf16, per routed token
    t += 2.0 * 3 * static_cast<double>(tokens * k * f) / achieved_hbm_bw(c.hardware);
    errors[row[3]].push_back(t / measured - 1);
  }
  // docs/calibration.md "MoE experts": median |error| and signed median, training's range
  const auto median = [](std::vector<double> v, bool absolute) {
    if (absolute)
      for (double &x : v)
        x = std::fabs(x);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  REQUIRE(errors["bf16"].size() == 58);
  REQUIRE(errors["fp8"].size() == 55);
  CHECK(median(errors["bf16"], true) == Approx(0.107).margin(0.002));
  CHECK(median(errors["bf16"], false) == Approx(-0.050).margin(0.002));
  CHECK(median(errors["fp8"], true) == Approx(0.141).margin(0.002));
}
#endif
