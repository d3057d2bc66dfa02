// The memory-bound kernels around the output layer and an MoE layer's experts: the
// cross-entropy over the logits and the token routing, by hand.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/launch_export.hpp"
#include "core/time/loss_and_routing.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>

using namespace rl;
using nlohmann::json;

TEST_CASE("cross-entropy: bytes a logit, unfused and fused", "[time][loss]") {
  // megatron/core/tensor_parallel/cross_entropy.py: forward .float() 2+4, max 4, subtract 4+4,
  // exp 4+4, sum 4, divide 4+4 = 38 B; backward scale 4+4, back to bf16 4+2 = 14 B
  const LossBytes u = cross_entropy_bytes(1000, false);
  CHECK(u.forward == 38000);
  CHECK(u.backward == 14000);
  // fused: read the bf16 logits and write their gradient (2 + 2), then scale it in place
  const LossBytes f = cross_entropy_bytes(1000, true);
  CHECK(f.forward == 4000);
  CHECK(f.backward == 4000);
}

TEST_CASE("cross-entropy: the fused loss saves 44 B a logit on the last stage", "[time][loss]") {
  // the Megatron-Core 7.1B H100 calibration run: TP 2, micro-batch 1 x 4096 tokens, vocab
  // 131,072 (65,536 a rank), 4 micro-batches a step on one stage
  json j = json::parse(R"({"model": {"name": "gpt-7.1b", "layers": 30, "hidden": 4096,
    "ffn": 16384, "heads": 32, "vocab": 131072, "gated_mlp": false, "bias": true,
    "norm": "layernorm", "tied_embeddings": true}, "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 96},
    "workload": {"mode": "train", "global_batch": 192, "seq_len": 4096},
    "parallel": {"dp": 48, "tp": 2, "pp": 1, "sp": true, "zero": 1, "microbatch": 1,
      "recompute": "selective", "flash_attention": true, "overlap_tp": true}})");
  const Estimate plain = estimate(io::parse_config(j));
  j["workload"]["ce_fusion"] = true;
  const Config fused_c = io::parse_config(j);
  const Estimate fused = estimate(fused_c);
  const HardwareSpec &hw = fused_c.hardware;
  const double logits = 4096.0 * 65536;
  CHECK(plain.time.compute - fused.time.compute ==
        Approx(4 * 44 * logits / (hw.hbm_bw * hw.hbm_efficiency) * (1 + hw.compute_overhead)));
  const std::string mg = io::launch_export(fused_c, resolve_layout(fused_c), "megatron");
  CHECK(mg.find("--cross-entropy-loss-fusion") != std::string::npos);
}

TEST_CASE("MoE routing: router scores, permutation and chunk sort by hand", "[time][moe]") {
  // Qwen3-30B-A3B-like layer: 4096 tokens of h 2048, top-8 of 128 experts; ep 8 (16 local
  // experts: the received chunks are sorted by expert, each way)
  const double tok = 4096, h = 2048, routed = 4096.0 * 8;
  const double router = 16 * tok * 128;
  const double permute = 4 * routed * h, unpermute = 2 * routed * h + 4 * tok * h;
  CHECK(moe_routing_bytes(tok, h, routed, 128, false) == router + permute + unpermute);
  CHECK(moe_routing_bytes(tok, h, routed, 128, true) ==
        router + permute + unpermute + 8 * routed * h);
  // in a layer: a memory operator whose backward moves the same bytes
  const Config c = io::parse_config(json::parse(R"({"model": "qwen3-30b-a3b",
    "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 16},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"dp": 16, "tp": 1, "pp": 1, "ep": 8, "microbatch": 1, "zero": 1,
      "recompute": "none"}})"));
  const Layout l = resolve_layout(c);
  const std::vector<OpCost> ops =
      layer_ops(c.model, true, l, 4096, c.hardware, Dtype::bf16, true, 1, Fp8Recipe::delayed);
  const auto it =
      std::find_if(ops.begin(), ops.end(), [](const OpCost &o) { return o.name == "routing"; });
  REQUIRE(it != ops.end());
  const double e = static_cast<double>(c.model.moe->experts);
  const double hh = static_cast<double>(c.model.hidden);
  const double r = 4096.0 * static_cast<double>(c.model.moe->top_k);
  CHECK(it->bytes == 16 * 4096 * e + 4 * r * hh + 2 * r * hh + 4 * 4096 * hh + 8 * r * hh);
  CHECK(it->bwd == it->time);
  CHECK(it->time == Approx(it->bytes / (c.hardware.hbm_bw * c.hardware.hbm_efficiency)));
}
