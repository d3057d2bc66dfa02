// The training model's MoE experts (grouped GEMMs, the token permutation, SwiGLU) against
// measured MoE layers: AIConfigurator's TensorRT-LLM CUTLASS MoE on H100 (docs/data/aic/moe.csv,
// docs/calibration.md "MoE experts"). Nothing is fitted to these points.
#include "helpers.hpp"

#include "core/calibrate/components.hpp"
#include "core/io/config_json.hpp"
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
  // One MoE layer of each measured shape, tp 1, ep 1: the operators the training model times
  // for the experts (moe_experts_time, as `ridgeline validate` predicts a moe point; no
  // compute_overhead: components alone).
  std::map<std::string, std::vector<double>> errors; // by dtype, training's tokens per expert
  // gpu,engine,version,dtype,hidden,inter,experts,topk,tokens,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/moe.csv")) {
    REQUIRE(row.size() == 10);
    ComponentPoint p;
    p.kind = ComponentKind::moe;
    p.hardware = io::parse_hardware(json(row[0]), "hardware");
    p.precision = row[3] == "fp8" ? Dtype::fp8 : Dtype::bf16;
    p.hidden = std::stoll(row[4]);
    p.expert_ffn = std::stoll(row[5]);
    p.experts = std::stoll(row[6]);
    p.top_k = std::stoll(row[7]);
    p.tokens = std::stod(row[8]);
    // training runs its experts at hundreds to thousands of tokens each
    if (p.tokens * static_cast<double>(p.top_k) / static_cast<double>(p.experts) < 256)
      continue;
    p.measured = moe_experts_flops(p) / std::stod(row[9]);
    errors[row[3]].push_back(predict_component(p).error);
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
  // error = predicted rate / measured - 1 (negative: the model is slower)
  CHECK(median(errors["bf16"], true) == Approx(0.107).margin(0.002));
  CHECK(median(errors["bf16"], false) == Approx(0.053).margin(0.002));
  CHECK(median(errors["fp8"], true) == Approx(0.152).margin(0.002));
}
#endif

TEST_CASE("MoE experts: the component's FLOPs and time by hand", "[moe][time]") {
  // Qwen3-30B-A3B's experts (hidden 2048, 128 of 768, top 8), 16,384 tokens: 6 x 16384 x 8 x
  // 2048 x 768 = 1.237e15 FLOP
  ComponentPoint p;
  p.kind = ComponentKind::moe;
  p.hardware = io::parse_hardware(json("h100-sxm"), "hardware");
  p.hidden = 2048;
  p.expert_ffn = 768;
  p.experts = 128;
  p.top_k = 8;
  p.tokens = 16384;
  CHECK(moe_experts_flops(p) == Approx(6.0 * 16384 * 8 * 2048 * 768));
  // the activation function's bytes are part of it: SwiGLU reads 2 x 768 and writes 768 bf16
  // values a routed token, 2 x 3 x 768 x 131072 B
  ModelSpec m;
  m.hidden = 2048;
  m.gated_mlp = true;
  m.moe = MoeSpec{128, 8, 768};
  CHECK(activation_function_bytes(m, true, 16384, 1) == Approx(2.0 * 3 * 768 * 16384 * 8));
  CHECK(moe_experts_time(p.hardware, Dtype::bf16, 2048, 768, 128, 8, 16384) >
        activation_function_bytes(m, true, 16384, 1) / p.hardware.hbm_bw);
}
