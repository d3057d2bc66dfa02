// Adam's moments in BF16 (workload.bf16_moments): DeepSeek-V3's low-precision optimizer states
// (arXiv:2412.19437 sec. 3.3.3), Megatron-LM's precision-aware optimizer.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/launch_export.hpp"

using namespace rl;
using nlohmann::json;

namespace {
// DeepSeek-V3's production layout on 2,048 H800 (sec. 3.2: PP 16 with DualPipe, EP 64, ZeRO-1
// data parallelism; the recomputes of sec. 3.2.3 and 3.3.3), FP8 blockwise
json dsv3(bool bf16_moments) {
  json j = json::parse(R"({"model": "deepseek-v3", "hardware": "h800",
    "cluster": {"base": "dgx-h100", "devices": 2048},
    "workload": {"mode": "train", "global_batch": 15360, "seq_len": 4096, "precision": "fp8",
      "fp8_recipe": "blockwise"},
    "parallel": {"tp": 1, "pp": 16, "ep": 64, "dp": 128, "microbatch": 1, "zero": 1,
      "recompute": "selective", "recompute_norm": true, "recompute_mla_up": true,
      "recompute_moe_act": true, "overlap_ep": true, "sp": false, "uneven_pp": true,
      "pp_schedule": "dualpipe"}})");
  j["workload"]["bf16_moments"] = bf16_moments;
  return j;
}
} // namespace

TEST_CASE("BF16 Adam moments: 8 B of optimizer state a parameter, its step's traffic",
          "[memory][optimizer]") {
  const Estimate fp32 = estimate(io::parse_config(dsv3(false)));
  const Estimate bf16 = estimate(io::parse_config(dsv3(true)));
  // fp32 master 4 + m 2 + v 2 = 8 against 4 + 4 + 4 = 12 (DeepSeek-V3 sec. 3.3.3), on every
  // stage
  REQUIRE(bf16.stages.size() == 16);
  for (std::size_t j = 0; j < 16; ++j) {
    CHECK(bf16.stages[j].states.optimizer == Approx(fp32.stages[j].states.optimizer * 8 / 12));
    CHECK(bf16.stages[j].states.weights == Approx(fp32.stages[j].states.weights));
    CHECK(bf16.stages[j].states.gradients == Approx(fp32.stages[j].states.gradients));
  }
  // the Adam step reads master, m, v and the fp32 gradient and writes master, m, v and the
  // bf16 weight: 2 x 8 + 4 + 2 = 22 B against 2 x 12 + 4 + 2 = 30 B a parameter
  CHECK(bf16.time.optimizer == Approx(fp32.time.optimizer * 22 / 30));
}

TEST_CASE("BF16 Adam moments export as Megatron-LM's precision-aware optimizer, refused "
          "elsewhere",
          "[export][optimizer]") {
  json j = dsv3(true);
  j["parallel"]["pp_schedule"] = "1f1b";
  j["parallel"]["uneven_pp"] = false; // 61 = 3 + 14 x 4 + 2, as Megatron splits it
  j["parallel"]["first_stage_layers"] = 3;
  j["parallel"]["last_stage_layers"] = 2;
  const Config c = io::parse_config(j);
  const Layout l = resolve_layout(c);
  // megatron/training/arguments.py: --use-precision-aware-optimizer, --exp-avg-dtype,
  // --exp-avg-sq-dtype
  CHECK(io::launch_export(c, l, "megatron")
            .find("--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16") !=
        std::string::npos);
  CHECK(test::error_of([&] { io::launch_export(c, l, "deepspeed"); }) ==
        "workload.bf16_moments: only Megatron-LM's precision-aware optimizer keeps Adam's "
        "moments in BF16 (--exp-avg-dtype bf16): export to Megatron-LM, or set it off (--format "
        "deepspeed)");
}
