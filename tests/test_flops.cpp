// FLOP counts against Narayanan et al. 2021's closed forms, Megatron's formula and How to Scale
// Your Model's examples.
#include "helpers.hpp"

#include "core/model/flops.hpp"

#include <random>

using namespace rl;
using rl::test::gpt;

TEST_CASE("GPT forward FLOPs = (24bsh^2 + 4bs^2h)L + 2bshv (Narayanan et al. 2021)", "[flops]") {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const i64 a = 1 + static_cast<i64>(rng() % 32);
    const double h = static_cast<double>(a * (1 + static_cast<i64>(rng() % 128)));
    const i64 L = 1 + static_cast<i64>(rng() % 96);
    const double v = static_cast<double>(1 + rng() % 60000);
    const double b = static_cast<double>(1 + rng() % 8), s = static_cast<double>(1 + rng() % 4096);
    const ModelSpec m = gpt(L, static_cast<i64>(h), a, static_cast<i64>(v));
    const ModelFlops f = model_forward_flops(m, b, s, false);
    const double expect =
        (24 * b * s * h * h + 4 * b * s * s * h) * static_cast<double>(L) + 2 * b * s * h * v;
    REQUIRE(f.forward() == Approx(expect).epsilon(1e-12));
    // Megatron: 72 B L s h^2 (1 + s/(6h) + v/(12 h L)) = 3 x forward
    const double megatron = 72 * b * static_cast<double>(L) * s * h * h *
                            (1 + s / (6 * h) + v / (12 * h * static_cast<double>(L)));
    REQUIRE(training_model_flops(f) == Approx(megatron).epsilon(1e-12));
  }
}

TEST_CASE(
    "LLaMA-3 70B training FLOPs per token (independent count: 4.814e11 at s=8192, ~6N = 4.2e11)",
    "[flops]") {
  const ModelSpec m = test::model("llama3-70b");
  const ModelFlops f = model_forward_flops(m, 1, 8192, false);
  const double per_token = training_model_flops(f) / 8192;
  // independent sum: 3 x (80 x 1,979,711,488 + 2,101,346,304) = 481,434,796,032
  REQUIRE(per_token == Approx(481'434'796'032.0).epsilon(1e-12));
  // How to Scale Your Model ch. 6: 6 x params is the no-attention approximation
  REQUIRE(per_token / (6 * 70.553706496e9) == Approx(1.137).epsilon(1e-3));
}

TEST_CASE("Attention vs matmul FLOPs ratio T/(8D) for F=4D, N=K (How to Scale Your Model ch. 4)",
          "[flops]") {
  for (const double T : {512.0, 2048.0, 8192.0, 32768.0}) {
    ModelSpec m = gpt(1, 4096, 32, 1);
    m.gated_mlp = true; // How to Scale Your Model's MLP has 3 matrices: 18BTDF training FLOPs
    // How to Scale Your Model: 12BT^2NH / (18BTDF + 24BTDNH) with F = 4D, NH = D  ->  T/(8D)
    const LayerFlops f = layer_forward_flops(m, false, 1, T, false);
    const double ratio = f.scores / (f.qkv + f.out + f.mlp);
    REQUIRE(ratio == Approx(T / (8 * 4096.0)).epsilon(1e-12));
  }
}

TEST_CASE("Causal skip halves the score GEMMs, recompute adds forward FLOPs", "[flops]") {
  const ModelSpec m = test::model("llama2-13b");
  const ModelFlops full = model_forward_flops(m, 2, 4096, false);
  const ModelFlops causal = model_forward_flops(m, 2, 4096, true);
  REQUIRE(causal.dense_layer.scores == Approx(full.dense_layer.scores / 2));
  REQUIRE(causal.dense_layer.mlp == full.dense_layer.mlp);
  // hardware FLOPs: full recompute = 4 x layers forward + 3 x head
  REQUIRE(training_hardware_flops(full, Recompute::full) ==
          Approx(4 * full.layers_forward() + 3 * full.head));
  REQUIRE(training_hardware_flops(full, Recompute::selective) ==
          Approx(3 * full.forward() + full.scores_forward()));
  REQUIRE(training_hardware_flops(full, Recompute::none) == Approx(3 * full.forward()));
}

TEST_CASE("MoE FLOPs: top_k + shared experts and the router", "[flops][moe]") {
  const ModelSpec m = test::model("mixtral-8x7b");
  const LayerFlops f = layer_forward_flops(m, true, 1, 1, false);
  // one token: 2 experts x 6*h*f_e + router 2*h*E
  REQUIRE(f.mlp == Approx(2.0 * 6 * 4096 * 14336));
  REQUIRE(f.router == Approx(2.0 * 4096 * 8));
  // forward FLOPs per token ~ 2 x active parameters (+ attention scores)
  const ModelFlops mf = model_forward_flops(m, 1, 1, false);
  REQUIRE(mf.forward() - mf.scores_forward() ==
          Approx(2.0 * (12'879'925'248 - 4096 * 32000 - 4096 - 32 * 8192)).epsilon(1e-12));
}
