// Megatron's MoE parallel folding in training (--expert-tensor-parallel-size; Liu et al. 2025,
// arXiv:2504.14960): the experts' own grid moe_tp x ep x expert-dp over the attention's
// tp x cp x dp ranks. Legality, groups, memory and compute by hand.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/launch_export.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/planner/planner.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>

using namespace rl;
using nlohmann::json;

namespace {
// Qwen3-30B-A3B (128 experts of 768, top 8, h 2048) on 16 H100: TP 2 attention, dp 8
json qwen3(i64 ep, i64 moe_tp) {
  json j = json::parse(R"({"model": "qwen3-30b-a3b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 16},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 2, "pp": 1, "microbatch": 1, "zero": 1, "recompute": "none",
      "sp": true}})");
  j["parallel"]["ep"] = ep;
  j["parallel"]["moe_tp"] = moe_tp;
  return j;
}
} // namespace

TEST_CASE("MoE folding: legal layouts and their expert groups", "[moe][layout]") {
  // EP 16 does not divide dp 8: illegal with the experts split like the attention (moe_tp =
  // tp), legal folded (moe_tp 1 x ep 16 = tp 2 x dp 8)
  CHECK(test::error_of([] { resolve_layout(io::parse_config(qwen3(16, 2))); }) ==
        "parallel.ep: 16 does not divide dp x cp 8");
  const Layout l = resolve_layout(io::parse_config(qwen3(16, 1)));
  CHECK(l.expert_folding);
  const LayoutGroups g = layout_groups(l);
  CHECK(g.ep.n == 16);
  CHECK(g.ep.stride == 1); // moe_tp 1: the EP group is the stage's 16 neighbouring ranks
  CHECK(g.edp.n == 1);     // 2 x 1 x 8 / (16 x 1)
  CHECK(expert_dp(l) == 1);
  // EP 4 folded: the expert-dp group is 2 x 8 / 4 = 4 ranks, 4 apart
  const Layout l4 = resolve_layout(io::parse_config(qwen3(4, 1)));
  CHECK(layout_groups(l4).edp.n == 4);
  CHECK(layout_groups(l4).edp.stride == 4);
  // Megatron-LM asserts sequence parallelism for MoE with TP
  json nosp = qwen3(16, 1);
  nosp["parallel"]["sp"] = false;
  CHECK(test::error_of([&] { resolve_layout(io::parse_config(nosp)); }) ==
        "parallel.sp: MoE with tp 2 needs sequence parallelism (sp) for moe_tp 1 (Megatron-LM)");
  CHECK(test::error_of([] { resolve_layout(io::parse_config(qwen3(32, 1))); }) ==
        "parallel.moe_tp: moe_tp 1 x ep 32 = 32 does not divide tp x cp x dp = 16");
}

TEST_CASE("MoE folding: expert weights, tokens and GEMMs per rank by hand", "[moe][time]") {
  const Config c = io::parse_config(qwen3(16, 1));
  const Layout l = resolve_layout(c);
  // each rank holds 128 / 16 = 8 whole experts (moe_tp 1): 8 x 3 x 2048 x 768 weights
  const StageParams p = layer_params_per_device(c.model, true, l.tp, l.ep, l.moe_tp);
  CHECK(p.experts == Approx(8.0 * 3 * 2048 * 768));
  // tokens: the rank's SP shard (4096 / 2) x top 8 dispatched; with moe_tp 1 nothing is
  // gathered, so its experts compute 16,384 tokens at the whole FFN width 768
  const ExpertShare x = expert_share(c.model, l, 4096, 1);
  CHECK(x.dispatched == 4096.0 / 2 * 8);
  CHECK(x.routed == 4096.0 / 2 * 8);
  CHECK(x.ffn == 768);
  // unfolded (moe_tp = tp 2, ep 8): the TP pair gathers its tokens, each holds half the FFN
  const Config u = io::parse_config(qwen3(8, 2));
  const ExpertShare y = expert_share(u.model, resolve_layout(u), 4096, 1);
  CHECK(y.routed == 4096.0 * 8);
  CHECK(y.ffn == 384);
  // the expert GEMMs: 16,384 / 8 local experts = 2,048 tokens each, 2048 -> 2 x 768 (SwiGLU)
  const std::vector<OpCost> ops =
      layer_ops(c.model, true, l, 4096, c.hardware, Dtype::bf16, true, 1, Fp8Recipe::delayed);
  const auto up =
      std::find_if(ops.begin(), ops.end(), [](const OpCost &o) { return o.name == "experts up"; });
  REQUIRE(up != ops.end());
  CHECK(up->flops == 2.0 * 2048 * 2048 * (2 * 768) * 8);
  // ZeRO-1 shards the experts' optimizer states over their expert-dp group (1 rank here)
  const Estimate est = estimate(c);
  CHECK(est.memory.fits);
}

TEST_CASE("MoE folding exports Megatron's --expert-tensor-parallel-size", "[moe][export]") {
  const Config c = io::parse_config(qwen3(16, 1));
  const std::string mg = io::launch_export(c, resolve_layout(c), "megatron");
  CHECK(mg.find("--expert-model-parallel-size 16") != std::string::npos);
  CHECK(mg.find("--expert-tensor-parallel-size 1") != std::string::npos);
  const Config u = io::parse_config(qwen3(8, 2));
  CHECK(io::launch_export(u, resolve_layout(u), "megatron").find("--expert-tensor-parallel") ==
        std::string::npos);
}

TEST_CASE("MoE folding: the planner's best with moe_tp free is the better of folded and not",
          "[moe][planner]") {
  // tp 2 pinned, ep and moe_tp free: the joint search's best equals the faster of the two
  // searches with moe_tp pinned to 1 (folded) and to tp (the experts split like attention)
  json j = qwen3(16, 1);
  j["parallel"].erase("ep");
  j["parallel"].erase("moe_tp");
  const PlanResult joint = plan(io::parse_config(j));
  REQUIRE_FALSE(joint.plans.empty());
  j["parallel"]["moe_tp"] = 1;
  const PlanResult folded = plan(io::parse_config(j));
  j["parallel"]["moe_tp"] = 2;
  const PlanResult plain = plan(io::parse_config(j));
  REQUIRE_FALSE(folded.plans.empty());
  REQUIRE_FALSE(plain.plans.empty());
  const double best =
      std::min(folded.plans[0].estimate.time.step, plain.plans[0].estimate.time.step);
  CHECK(joint.plans[0].estimate.time.step == best);
  // and the joint search ranks folded layouts, EP 16 on dp 8 among them, which only folding
  // makes legal
  bool ep16 = false;
  for (const Plan &p : joint.plans)
    ep16 = ep16 || (p.estimate.layout.expert_folding && p.estimate.layout.ep == 16);
  CHECK(ep16);
}

TEST_CASE("MoE folding: the planner tries every expert tp that divides tp", "[moe][planner]") {
  // tp 4 pinned, ep and moe_tp free: the joint best equals the fastest of the searches with
  // moe_tp pinned to 4 (split like the attention), 2 and 1 (folded)
  json j = qwen3(4, 4);
  j["parallel"]["tp"] = 4;
  j["parallel"].erase("ep");
  j["parallel"].erase("moe_tp");
  const PlanResult joint = plan(io::parse_config(j));
  REQUIRE_FALSE(joint.plans.empty());
  double best = 1e30;
  for (const i64 mt : {4, 2, 1}) {
    j["parallel"]["moe_tp"] = mt;
    const PlanResult r = plan(io::parse_config(j));
    REQUIRE_FALSE(r.plans.empty());
    best = std::min(best, r.plans[0].estimate.time.step);
  }
  CHECK(joint.plans[0].estimate.time.step == best);
  CHECK(std::any_of(joint.plans.begin(), joint.plans.end(), [](const Plan &p) {
    return p.estimate.layout.moe_tp == 2; // an intermediate expert tp is among the kept plans
  }));
}

TEST_CASE("MoE dispatcher: the expert-TP gather and the MoE layer's SP pair by hand",
          "[moe][time][comm]") {
  // Megatron-LM token_dispatcher.py (alltoall): after the dispatch AllToAll the tokens are
  // all-gathered over the expert-TP group, and reduce-scattered back before the combine; the
  // MoE layer's input stays on its SP shard (the router and the dispatcher take it).
  const auto kind_bytes = [](const Estimate &e, const std::string &kind) {
    double b = 0;
    for (const CommCost &cc : e.time.comm)
      if (cc.kind == kind)
        b += cc.bytes_per_device;
    return b;
  };
  // Qwen3-30B-A3B: 48 MoE layers; TP 2 + SP, EP 4 unfolded (expert tp = tp 2), dp 8, so
  // 64 / 8 = 8 micro-batches of 1 x 4096 tokens.
  const Estimate e = estimate(io::parse_config(qwen3(4, 2)));
  const double mb = 8, layers = 48, h = 2048, tok = 4096, top_k = 8;
  // each rank dispatches 4096 / 2 x 8 tokens; gathered over 2 ranks: 32,768 tokens x h, bf16.
  // A ring AllGather / ReduceScatter moves (n - 1) / n of the gathered buffer per device;
  // forward AG + RS, backward RS + AG.
  const double gathered = 2 * (tok / 2 * top_k * 2) * h;
  CHECK(kind_bytes(e, "etp") == Approx(mb * layers * 4 * gathered / 2));
  // SP around the attention only: AG + RS forward, AG (+ the re-gather of the saved input)
  // and RS backward, each (n - 1) / n of 2 b s h
  CHECK(kind_bytes(e, "sp") == Approx(mb * layers * 5 * (2 * tok * h) / 2));
  // folded to expert tp 1 (EP 8 over tp x dp): nothing to gather
  CHECK(kind_bytes(estimate(io::parse_config(qwen3(8, 1))), "etp") == 0);
}

TEST_CASE("MoE FP8 dispatch: the forward dispatch and the combine's gradient in FP8",
          "[moe][comm][precision]") {
  // DeepSeek-V3 sec. 3.3.2: the dispatch in FP8 with 1x128 fp32 scales, the combine in bf16;
  // of the four AllToAlls a layer runs a micro-batch, two carry 1 + 4/128 B an element, two 2 B
  const auto ep_bytes = [](bool fp8) {
    json j = qwen3(8, 1);
    j["workload"]["precision"] = "fp8";
    j["workload"]["fp8_recipe"] = "blockwise";
    j["workload"]["moe_fp8_dispatch"] = fp8;
    double b = 0;
    for (const CommCost &cc : estimate(io::parse_config(j)).time.comm)
      if (cc.kind == "ep")
        b += cc.bytes_per_device;
    return b;
  };
  CHECK(ep_bytes(true) / ep_bytes(false) == Approx((2 + (1 + 4.0 / 128)) / (2 * 2)));
  // Megatron-LM ships it as MXFP8 on NCCL EP's flex dispatcher
  json j = qwen3(8, 1);
  j["workload"]["precision"] = "fp8";
  j["workload"]["fp8_recipe"] = "blockwise";
  j["workload"]["moe_fp8_dispatch"] = true;
  const Config c = io::parse_config(j);
  CHECK(io::launch_export(c, resolve_layout(c), "megatron")
            .find("--moe-dispatch-fwd-dtype mxfp8 --moe-combine-bwd-dtype mxfp8") !=
        std::string::npos);
  // a bf16 run has no FP8 to send
  json bad = qwen3(8, 1);
  bad["workload"]["moe_fp8_dispatch"] = true;
  CHECK(test::error_of([&] { io::parse_config(bad); }) ==
        "workload.moe_fp8_dispatch: sends the dispatch in FP8 under an FP8 or FP4 precision, not "
        "under bf16");
}
