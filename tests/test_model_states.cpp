// Model states per device: 16 bytes/parameter mixed-precision Adam, ZeRO stages, EP, stages.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/config_json.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/parallel/layout.hpp"
#include "core/time/step_time.hpp"

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
  const ModelStateBytes s = training_states(p, dp_layout(1, 0), StateWidths{});
  REQUIRE(s.weights == 2 * 70'553'706'496.0);
  REQUIRE(s.gradients == 2 * 70'553'706'496.0);
  REQUIRE(s.optimizer == 12 * 70'553'706'496.0);
  REQUIRE(s.total() == 16 * 70'553'706'496.0);
  REQUIRE(training_states(p, dp_layout(1, 0), StateWidths{2, 4}).gradients == 4 * 70'553'706'496.0);
}

TEST_CASE("ZeRO-1/2/3 shard optimizer, gradients, weights over dp", "[memory][zero]") {
  const ModelSpec m = test::model("llama2-7b");
  const double P = stage_params(m, dp_layout(8, 0), 0).total();
  const StageParams p = stage_params(m, dp_layout(8, 0), 0);
  const ModelStateBytes z1 = training_states(p, dp_layout(8, 1), StateWidths{});
  REQUIRE(z1.optimizer == Approx(12 * P / 8));
  REQUIRE(z1.gradients == Approx(2 * P));
  const ModelStateBytes z2 = training_states(p, dp_layout(8, 2), StateWidths{});
  REQUIRE(z2.gradients == Approx(2 * P / 8));
  REQUIRE(z2.weights == Approx(2 * P));
  const ModelStateBytes z3 = training_states(p, dp_layout(8, 3), StateWidths{}, 2);
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
  const ModelStateBytes s = training_states(p, l, StateWidths{});
  // expert optimizer states shard over dp/ep = 1 rank, dense ones over 8
  REQUIRE(s.optimizer == Approx(12 * p.dense / 8 + 12 * p.experts));
}

TEST_CASE("FP8 parameters: 1 byte a weight in memory and in the data-parallel all-gather",
          "[memory][precision]") {
  // MLPerf Training v4.0 GPT-3 175B on 512 H100 (mlcommons/training_results_v4.0 NVIDIA
  // gpt3 config_DGXH100_64x8x128x4x8_mbs2.sh: TP 4, PP 8, interleaved 4, micro-batch 2,
  // FP8_PARAMS=True, USE_DIST_OPTIMIZER=True; conf/optim/distributed_fused_adam.yaml
  // grad_sync_dtype bf16): weights 1 + grads 2 + Adam 12 / dp 16 = 3.75 B/param on stage 0,
  // against 2 + 4 + 0.75 = 6.75 with bf16 weights and fp32 gradients.
  nlohmann::json j = nlohmann::json::parse(R"({"model": "gpt3-175b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100-1024", "devices": 512},
    "workload": {"mode": "train", "global_batch": 2304, "seq_len": 2048, "precision": "fp8"},
    "parallel": {"tp": 4, "pp": 8, "vpp": 4, "microbatch": 2, "zero": 1, "sp": true,
                 "recompute": "none"}})");
  const Estimate before = estimate(io::parse_config(j), false);
  j["workload"]["fp8_params"] = true;
  j["workload"]["fp32_grads"] = false;
  const Config c = io::parse_config(j);
  const Estimate e = estimate(c, false);
  const StageMemory &s = e.stages.front();
  CHECK(s.states.weights == Approx(1 * s.params).epsilon(1e-12));
  CHECK(s.states.gradients == Approx(2 * s.params).epsilon(1e-12));
  CHECK(s.states.optimizer == Approx(12 * s.params / 16).epsilon(1e-12));
  const StageMemory &b = before.stages.front();
  CHECK(b.states.total() == Approx(6.75 * b.params).epsilon(1e-12));
  // the run fits in 80 GB this way and not the other way
  CHECK_FALSE(before.memory.fits);
  CHECK(e.memory.fits);
  // the all-gather moves the FP8 weights: half the bf16 bytes
  j["workload"]["fp8_params"] = false;
  const StepTime t16 = training_step_time(io::parse_config(j), resolve_layout(c));
  const StepTime t8 = training_step_time(c, resolve_layout(c));
  auto gathered = [](const StepTime &t) {
    for (const CommCost &k : t.comm)
      if (k.kind == "dp")
        return k.bytes_per_device;
    return 0.0;
  };
  // dp 16: reduce-scatter of the bf16 gradients (2 B) plus all-gather of the weights, per
  // rank (n-1)/n of each: (2 + 2) / (2 + 1) of the FP8 recipe's bytes
  CHECK(gathered(t16) == Approx(gathered(t8) * 4.0 / 3.0).epsilon(1e-9));
  // and parse refuses it without FP8 GEMMs
  j["workload"]["fp8_params"] = true;
  j["workload"]["precision"] = "bf16";
  CHECK(test::error_of([&] {
          io::parse_config(j);
        }).rfind("workload.fp8_params: keeps the weights in the GEMMs' FP8", 0) == 0);
}
