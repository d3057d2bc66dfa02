// MoE serving layouts (issue 22 item 5): attention tp x attention_dp with the experts moe_tp x ep
// over the same GPUs of one instance (SGLang --enable-dp-attention, TensorRT-LLM attention DP,
// Megatron --expert-tensor-parallel-size).
#include "helpers.hpp"

#include "core/inference/serving.hpp"
#include "core/memory/model_states.hpp"
#include "core/parallel/layout.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/simulate.hpp"

#include <cmath>

using namespace rl;

namespace {
// Qwen3-235B-A22B with FP8 weights on one DGX H100 (8 GPUs).
Config qwen3(const std::string &parallel, const std::string &mode = "serve") {
  const std::string w =
      mode == "serve" ? R"({"mode": "serve", "request_rate": 2, "requests": 24, "prompt_len": 1000,
               "gen_len": 20, "weight_dtype": "fp8", "precision": "fp8"})"
                      : R"({"mode": "infer", "batch": 64, "prompt_len": 1000, "gen_len": 100,
               "weight_dtype": "fp8", "precision": "fp8"})";
  return io::parse_config(nlohmann::json::parse(
      R"({"model": "qwen3-235b-a22b", "hardware": "h100-sxm",
          "cluster": {"base": "dgx-h100", "devices": 8}, "workload": )" +
      w + R"(, "parallel": )" + parallel + "}"));
}
} // namespace

TEST_CASE("MoE serving: TP 8 attention with EP 8 experts in one instance runs (moe_tp 1)",
          "[serve][moe]") {
  // issue 22: 28-29 measured runs (SGLang/vLLM --tp 8 --ep 8) were refused with
  // "parallel.ep: 8 does not divide dp x cp 1"; now moe_tp = tp x attention_dp / ep = 1.
  const Config c = qwen3(R"({"tp": 8, "ep": 8})");
  const Layout l = resolve_layout(c);
  CHECK(l.ep_in_instance);
  CHECK(l.moe_tp == 1);
  CHECK(l.instance_devices() == 8);
  CHECK(l.instances() == 1);
  const ServeResult r = simulate_serving(c);
  CHECK(r.completed == 24);
  CHECK(r.devices_per_instance == 8);
  // EP across data-parallel replicas (Megatron's placement) resolves as before: moe_tp = tp.
  const Layout old = resolve_layout(qwen3(R"({"tp": 1, "ep": 8})"));
  CHECK_FALSE(old.ep_in_instance);
  CHECK(old.moe_tp == 1);
  CHECK(old.instance_devices() == 8);
}

TEST_CASE("MoE serving: weights per GPU split attention by tp, experts by ep x moe_tp",
          "[serve][moe][memory]") {
  // Qwen3-235B-A22B config.json: h 4096, 64 heads, 4 KV heads of 128, 128 experts of width 1536
  // (SwiGLU: 3 x 4096 x 1536 = 18,874,368 each), top-8, vocab 151,936, 94 layers, untied head.
  // TP 8 x EP 8 (moe_tp 1): attention 4096 x 128 x (2 x 8 + 2 x 1 replicated KV head)
  // = 9,437,184; RMSNorms 8,192; router 4096 x 128 = 524,288; 16 whole experts = 301,989,888;
  // per layer 311,959,552, x 94 = 29,324,197,888; embedding + head / 8 = 155,582,464; final norm
  // 4,096: 29,479,784,448 bytes in FP8.
  {
    const Config c = qwen3(R"({"tp": 8, "ep": 8})");
    const Layout l = resolve_layout(c);
    CHECK(stage_params(c.model, l, 0).experts == 94.0 * 16 * 18874368);
    CHECK(IterationModel(c, l).weight_bytes() == 29479784448.0);
  }
  // TP 8 with EP 4: moe_tp 2, 32 experts each split in halves: the same 1/8 of the experts.
  {
    const Config c = qwen3(R"({"tp": 8, "ep": 4})");
    const Layout l = resolve_layout(c);
    CHECK(l.moe_tp == 2);
    CHECK(stage_params(c.model, l, 0).experts == 94.0 * 32 * 18874368 / 2);
  }
  // SGLang's DP attention (TP 1 x DP 8, EP 8): whole attention on every GPU, 4096 x 128 x
  // (2 x 64 + 2 x 4) = 71,303,168 per layer; 94 x 373,825,536 + 2 x 622,329,856 + 4,096.
  {
    const Config c = qwen3(R"({"tp": 1, "attention_dp": 8, "ep": 8})");
    const Layout l = resolve_layout(c);
    CHECK(l.moe_tp == 1);
    CHECK(l.instance_devices() == 8);
    CHECK(IterationModel(c, l).weight_bytes() == 36384264192.0);
  }
}

TEST_CASE("MoE serving: attention DP 8 holds each GPU's KV for 1/8 of the sequences",
          "[serve][moe][memory]") {
  // KV per token per layer: 2 x 4 heads x 128 x 2 B (bf16) = 2,048 B, whole on each GPU (tp 1).
  const Config c = qwen3(R"({"tp": 1, "attention_dp": 8, "ep": 8})", "infer");
  const Layout l = resolve_layout(c);
  CHECK(l.attention_replicas() == 8);
  // batch 64 at context 1000: 8 sequences per GPU x 1000 x 94 layers x 2,048 B
  CHECK(inference_stage_bytes(c, l, 0, 64, 1000).kv == Approx(8.0 * 1000 * 94 * 2048));
  const IterationModel m(qwen3(R"({"tp": 1, "attention_dp": 8, "ep": 8})"), l);
  CHECK(m.kv_bytes_per_token() == 94.0 * 2048);
  CHECK(m.kv_tokens(1e9) == std::floor(1e9 / (94.0 * 2048)) * 8);
  CHECK(decode_step(c, l, 64, 1000).tokens_per_s > 0);
}

TEST_CASE("MoE serving: DP attention halves decode attention against TP 8 on 4 KV heads",
          "[serve][moe]") {
  // SGLang DP attention blog (LMSYS 2024-12, v0.4): TP beyond the KV heads replicates them.
  // TP 8 on 4 KV heads keeps 1 head per GPU (1/4 of a token's KV) for every sequence; DP 8 keeps
  // all 4 heads for 1/8 of the sequences: 1/8 < 1/4 of the bytes read (decode is HBM-bound).
  const Config a = qwen3(R"({"tp": 8, "ep": 8})"), b = qwen3(R"({"tp": 1, "attention_dp": 8,
    "ep": 8})");
  IterationModel ma(a, resolve_layout(a)), mb(b, resolve_layout(b));
  IterationLoad x;
  x.decode = 64;
  x.decode_context = 64 * 2000.0;
  x.outputs = 64;
  CHECK(mb.time(x).attention == Approx(ma.time(x).attention / 2));
}

TEST_CASE("MoE serving: layout errors name the field", "[serve][moe]") {
  CHECK(test::error_of([] { resolve_layout(qwen3(R"({"tp": 8, "ep": 4, "moe_tp": 4})")); }) ==
        "parallel.moe_tp: moe_tp 4 x ep 4 = 16 != tp 8 = 8");
  CHECK(test::error_of([] {
          resolve_layout(qwen3(R"({"tp": 2, "attention_dp": 4, "ep": 4, "moe_tp": 1})"));
        }) == "parallel.moe_tp: moe_tp 1 x ep 4 = 4 != tp 2 x attention_dp 4 = 8");
  CHECK(test::error_of([] { resolve_layout(qwen3(R"({"tp": 4, "ep": 16})")); }) ==
        "parallel.ep: 16 divides neither tp 4 (an instance's GPUs) nor dp x cp 2");
  CHECK(test::error_of([] {
          resolve_layout(test::serve_config(R"({"mode": "serve", "request_rate": 1,
            "prompt_len": 10, "gen_len": 5})",
                                            R"({"tp": 1, "attention_dp": 2})"));
        }) == "parallel.attention_dp: is 2 but the model has no experts");
  // a dense model ignores attention_dp 1
  CHECK(resolve_layout(test::serve_config(R"({"mode": "serve", "request_rate": 1,
            "prompt_len": 10, "gen_len": 5})",
                                          R"({"tp": 2, "attention_dp": 1})"))
            .devices() == 2);
}
