// Selective recompute's modules (Megatron-LM --recompute-modules): what each drops from the
// kept activations and what it reruns, by hand on a DeepSeek-V3 layer.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/launch_export.hpp"
#include "core/memory/activations.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>

using namespace rl;
using nlohmann::json;

namespace {
// DeepSeek-V3's production layout on 2,048 H800 (DeepSeek-AI 2024, arXiv:2412.19437 sec.
// 3.2: PP 16, EP 64, no TP, ZeRO-1 data parallelism, DualPipe's EP overlap), FP8 blockwise.
json dsv3(bool norm, bool mla_up, bool moe_act) {
  json j = json::parse(R"({"model": "deepseek-v3", "hardware": "h800",
    "cluster": {"base": "dgx-h100", "devices": 2048, "intra_node": {"bw": 200e9}},
    "workload": {"mode": "train", "global_batch": 15360, "seq_len": 4096, "precision": "fp8",
      "fp8_recipe": "blockwise"},
    "parallel": {"tp": 1, "pp": 16, "ep": 64, "dp": 128, "microbatch": 1, "zero": 1,
      "recompute": "selective", "overlap_ep": true, "sp": false, "uneven_pp": true}})");
  j["parallel"]["recompute_norm"] = norm;
  j["parallel"]["recompute_mla_up"] = mla_up;
  j["parallel"]["recompute_moe_act"] = moe_act;
  return j;
}
} // namespace

TEST_CASE("recompute modules: the activations each one drops, by hand", "[memory][recompute]") {
  const Config c = io::parse_config(dsv3(false, false, false));
  const Layout l = resolve_layout(c);
  const LayerActivationBytes base = layer_activation_bytes(c.model, l, 4096, Dtype::fp8);
  // DeepSeek-V3 MoE layer, b 1, s 4096, h 7168, 128 heads, qk 192 and v 128 per head, 256
  // experts of 2048 (top 8), FP8 linear inputs (1 B):
  const double s = 4096, h = 7168;
  const double norm_outputs = 2 * 1 * s * h;                // QKV (q/kv down) and MLP inputs
  const double qkv = 2 * s * 192 * 256 + 2 * s * 128 * 128; // Q, K for QK^T and V in bf16
  const double act_out = 1 * s * 2048 * 8;                  // the experts' SwiGLU outputs
  const auto kept = [&](bool n, bool u, bool a) {
    const Config x = io::parse_config(dsv3(n, u, a));
    return layer_activation_bytes(x.model, resolve_layout(x), 4096, Dtype::fp8).kept_moe;
  };
  CHECK(base.kept_moe - kept(true, false, false) == Approx(norm_outputs));
  CHECK(base.kept_moe - kept(false, true, false) == Approx(qkv));
  CHECK(base.kept_moe - kept(false, false, true) == Approx(act_out));
  CHECK(base.kept_moe - kept(true, true, true) == Approx(norm_outputs + qkv + act_out));
  // and the production layout fits with DeepSeek's recompute of the norms and the MLA
  // up-projections (sec. 3.2.3), where it does not without them
  CHECK_FALSE(estimate(c).memory.fits);
  CHECK(estimate(io::parse_config(dsv3(true, true, false))).memory.fits);
}

TEST_CASE("recompute modules: what each reruns", "[time][recompute]") {
  const Config c = io::parse_config(dsv3(false, false, false));
  const Config u = io::parse_config(dsv3(false, true, false));
  const Layout l = resolve_layout(u);
  const LayerTimes t0 = layer_times(c, resolve_layout(c), true);
  const LayerTimes t1 = layer_times(u, l, true);
  // the MLA up-projections' forward GEMMs (q_up, kv_up), with the compute overhead
  const std::vector<OpCost> ops =
      layer_ops(u.model, true, l, 4096, u.hardware, Dtype::fp8, true, 1, Fp8Recipe::blockwise);
  double up = 0;
  for (const OpCost &o : ops)
    if (o.name == "q_up" || o.name == "kv_up")
      up += o.time;
  CHECK(up > 0);
  CHECK(t1.r - t0.r == Approx(up * (1 + u.hardware.compute_overhead)));
  // the norms: two of them read the bf16 input and write the FP8 output, 4096 x 7168 each
  const Config n = io::parse_config(dsv3(true, false, false));
  const LayerTimes t2 = layer_times(n, resolve_layout(n), true);
  const double bw = n.hardware.hbm_bw * n.hardware.hbm_efficiency;
  CHECK(t2.r - t0.r == Approx(2 * 3 * 4096.0 * 7168 / bw * (1 + n.hardware.compute_overhead)));
}

TEST_CASE("recompute modules export as Megatron-LM's --recompute-modules", "[export]") {
  // Megatron-Core splits 61 layers on 16 stages by first/last counts: 3 + 14 x 4 + 2
  json j = dsv3(true, true, true);
  j["parallel"].erase("uneven_pp");
  j["parallel"]["first_stage_layers"] = 3;
  j["parallel"]["last_stage_layers"] = 2;
  const Config c = io::parse_config(j);
  const std::string mg = io::launch_export(c, resolve_layout(c), "megatron");
  CHECK(mg.find("--recompute-granularity selective") != std::string::npos);
  CHECK(mg.find("--recompute-modules core_attn layernorm mla_up_proj moe_act") !=
        std::string::npos);
  j = dsv3(false, false, false);
  j["parallel"].erase("uneven_pp");
  j["parallel"]["first_stage_layers"] = 3;
  j["parallel"]["last_stage_layers"] = 2;
  const Config d = io::parse_config(j);
  CHECK(io::launch_export(d, resolve_layout(d), "megatron").find("--recompute-modules") ==
        std::string::npos);
}

TEST_CASE("recompute modules: refused where the model lacks the module", "[recompute]") {
  json j = json::parse(R"({"scenario": "llama3-70b-h100-1024",
    "parallel": {"recompute_mla_up": true}})");
  CHECK(test::error_of([&] { resolve_layout(io::parse_config(j)); }) ==
        "parallel.recompute_mla_up: reruns MLA's up-projections, but the model has no MLA "
        "(model.mla)");
  j["parallel"] = {{"recompute_moe_act", true}};
  CHECK(test::error_of([&] { resolve_layout(io::parse_config(j)); }) ==
        "parallel.recompute_moe_act: reruns the experts' activation, but the model has no "
        "experts");
}
