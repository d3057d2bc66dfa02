// Model states per device: 16 bytes/parameter mixed-precision Adam, ZeRO stages, EP, stages.
#include "helpers.hpp"

#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"

using namespace rl;

namespace {
Layout dp_layout(i64 dp, i64 zero) {
  Layout l;
  l.dp = dp;
  l.zero = zero;
  return l;
}
} // namespace

TEST_CASE("Mixed-precision Adam: 2 + 2 + 12 = 16 bytes per parameter (docs/formulas.md)",
          "[memory]") {
  const ModelSpec m = test::model("llama3-70b");
  const StageParams p = stage_params(m, dp_layout(1, 0), 0);
  REQUIRE(p.total() == 70'553'706'496.0);
  const ModelStateBytes s = training_states(p, dp_layout(1, 0), false);
  REQUIRE(s.weights == 2 * 70'553'706'496.0);
  REQUIRE(s.gradients == 2 * 70'553'706'496.0);
  REQUIRE(s.optimizer == 12 * 70'553'706'496.0);
  REQUIRE(s.total() == 16 * 70'553'706'496.0);
  REQUIRE(training_states(p, dp_layout(1, 0), true).gradients == 4 * 70'553'706'496.0);
}

TEST_CASE("ZeRO-1/2/3 shard optimizer, gradients, weights over dp", "[memory][zero]") {
  const ModelSpec m = test::model("llama2-7b");
  const double P = stage_params(m, dp_layout(8, 0), 0).total();
  const StageParams p = stage_params(m, dp_layout(8, 0), 0);
  const ModelStateBytes z1 = training_states(p, dp_layout(8, 1), false);
  REQUIRE(z1.optimizer == Approx(12 * P / 8));
  REQUIRE(z1.gradients == Approx(2 * P));
  const ModelStateBytes z2 = training_states(p, dp_layout(8, 2), false);
  REQUIRE(z2.gradients == Approx(2 * P / 8));
  REQUIRE(z2.weights == Approx(2 * P));
  const ModelStateBytes z3 = training_states(p, dp_layout(8, 3), false, 2);
  // sharded weights + the two gathered layers in use (current + prefetched), bf16
  REQUIRE(z3.weights == Approx(2 * P / 8 + 2 * 2 * p.largest_layer));
  REQUIRE(p.largest_layer == Approx(202'383'360.0)); // 4096*128*256 + 3*4096*11008 + 8192
}

TEST_CASE("Pipeline stages: embedding on the first, head and final norm on the last", "[memory]") {
  const ModelSpec m = test::model("llama3-70b");
  Layout l;
  l.tp = 8;
  l.pp = 8;
  // per device per layer: attention 8192*128*(2*8 + 2*1) + MLP 3*8192*28672/8 + norms 16384
  const double layer = 8192.0 * 128 * 18 + 3.0 * 8192 * 28672 / 8 + 16384;
  REQUIRE(layer == 106'971'136.0);
  REQUIRE(stage_params(m, l, 0).total() == 10 * layer + 128256.0 * 8192 / 8);
  REQUIRE(stage_params(m, l, 3).total() == 10 * layer);
  REQUIRE(stage_params(m, l, 7).total() == 10 * layer + 128256.0 * 8192 / 8 + 8192);
}

TEST_CASE("Experts are divided by EP and sharded over dp*cp/ep ranks", "[memory][moe]") {
  const ModelSpec m = test::model("mixtral-8x7b");
  Layout l;
  l.dp = 8;
  l.ep = 8;
  l.zero = 1;
  const StageParams p = stage_params(m, l, 0);
  // one expert per device per layer: 32 x 3*4096*14336
  REQUIRE(p.experts == 32.0 * 3 * 4096 * 14336);
  const ModelStateBytes s = training_states(p, l, false);
  // expert optimizer states shard over dp/ep = 1 rank, dense ones over 8
  REQUIRE(s.optimizer == Approx(12 * p.dense / 8 + 12 * p.experts));
}
