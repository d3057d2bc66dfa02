// End-to-end estimates: the default scenario by hand, inference memory against How to Scale Your
// Model.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/jobs/api.hpp"
#include "core/io/estimate_json.hpp"

using namespace rl;
using nlohmann::json;

TEST_CASE("Default scenario: LLaMA-3 70B on 1024 H100, dp16 tp8 pp8, SP, ZeRO-1", "[estimate]") {
  const Estimate e = estimate(io::parse_config(json("llama3-70b-h100-1024")));
  CHECK(e.total_params == 70'553'706'496);
  CHECK(e.layout.num_micro == 64);
  // worst stage is the first: 10 layers x 106,971,136 + embedding / 8 (see test_model_states)
  REQUIRE(e.memory.worst_stage == 0);
  const double params = 1'201'045'504.0;
  CHECK(e.memory.weights == 2 * params);
  // bf16 training accumulates gradients in fp32 (Megatron-LM arguments.py forces
  // --accumulate-allreduce-grads-in-fp32 for --bf16): 4 bytes per parameter
  CHECK(e.memory.gradients == 4 * params);
  CHECK(e.memory.optimizer == Approx(12 * params / 16));
  // per layer (s 8192, b 1, tp 8 + SP, FlashAttention, GQA k=8 -> 1 KV head per rank):
  // 4sbh/8 + 2sbh/8 + 2s*128*(8+1) + 2s*128 + 2s*8*128 + 4*8*s + 2sbh/8 + 6s*28672/8
  const double layer = 33'554'432.0 + 16'777'216 + 18'874'368 + 2'097'152 + 16'777'216 + 262'144 +
                       16'777'216 + 176'160'768;
  CHECK(e.act_terms.total() == layer);
  // 1F1B: stage 0 holds p = 8 micro-batches of 10 layers = 80 layers' worth; selective
  // recompute has nothing to drop under FlashAttention
  CHECK(e.memory.activations_layers == Approx(80 * layer));
  CHECK(e.memory.activations == e.memory.activations_layers); // no dropout: no embedding mask
  CHECK(e.model_flops_per_token == Approx(481'434'796'032.0));
  CHECK(e.memory.fits);
}

TEST_CASE("KV cache per token (How to Scale Your Model ch. 4 and ch.7)", "[estimate][inference]") {
  // LLaMA-2 13B, bf16: 2 x 40 layers x 40 heads x 128 x 2 B = 819,200 B/token;
  // How to Scale Your Model ch. 7: batch 1 at context 8192 = 6.7 "GiB" (really 6.71e9 B = 6.25 GiB)
  const double l2 = kv_cache_bytes_per_token(test::model("llama2-13b"), Dtype::bf16);
  CHECK(l2 == 819'200.0);
  CHECK(8192 * l2 == 6'710'886'400.0);
  // LLaMA-3 70B int8: 2 x 80 x 8 x 128 x 1 B = 163,840 B = "160 kB" (How to Scale Your Model ch. 8)
  const double l3 = kv_cache_bytes_per_token(test::model("llama3-70b"), Dtype::int8);
  CHECK(l3 == 163'840.0);
  CHECK(l3 / 1024 == 160.0); // How to Scale Your Model's "160 kB" is 160 KiB
  // seed: 41.9e9 B of KV at batch 32, context 8192 = 32 x 8192 x 160e3 (it multiplies the
  // rounded 160 kB as 160e3); the exact figure is 42.9e9 B = 40 GiB
  CHECK(32 * 8192 * l3 == 42'949'672'960.0);
  // DeepSeek-V3 MLA: (512 + 64) x 61 layers x 2 B
  CHECK(kv_cache_bytes_per_token(test::model("deepseek-v3"), Dtype::bf16) == 576.0 * 61 * 2);
}

TEST_CASE(
    "LLaMA-3 70B int8 on TPU v5e 4x2: ~112 GB for batch 32 at 8192 (How to Scale Your Model ch. 8)",
    "[estimate][inference]") {
  const Config c = io::parse_config(json::parse(R"({"model": "llama3-70b",
    "hardware": "tpu-v5e", "cluster": "tpu-v5e-2x4", "workload": {"mode": "infer",
    "batch": 32, "prompt_len": 8192, "gen_len": 0, "weight_dtype": "int8",
    "kv_dtype": "int8"}, "parallel": {"tp": 8}})"));
  const Estimate e = estimate(c);
  const double weights = e.memory.weights * 8, kv = e.memory.kv_cache * 8;
  // weights split 8 ways except the replicated norms; 70.55e9 int8 bytes in all
  CHECK(weights == Approx(70.55e9).epsilon(2e-3));
  CHECK(kv == Approx(42'949'672'960.0));               // 8 KV heads, one per chip
  CHECK(weights + kv == Approx(112e9).epsilon(0.015)); // seed: ~112 GB
  CHECK(e.memory.fits);
  // largest batch: (16 GiB - reserve - weights - one prompt's prefill) / (8192 x 163,840 / 8),
  // the reserve 1.5 GB + 5% of HBM (docs/formulas.md "Memory reserve")
  const double per_seq = 8192.0 * 163'840 / 8;
  const double reserve = 1.5e9 + 0.05 * 17'179'869'184.0;
  CHECK(e.memory.reserve == Approx(reserve));
  const double room = 17'179'869'184.0 - reserve - e.memory.weights - e.memory.activations;
  CHECK(e.memory.max_batch == static_cast<i64>(room / per_seq));
}

TEST_CASE("JSON output carries the documented keys, errors are values", "[estimate][json]") {
  const json j = json::parse(api::estimate("\"llama3-70b-h100-1024\""));
  for (const char *k : {"total", "active"})
    CHECK(j["params"].contains(k));
  for (const char *k : {"model_per_step", "hardware_per_step"})
    CHECK(j["flops"].contains(k));
  for (const char *k : {"weights", "gradients", "optimizer", "activations", "activations_layers",
                        "kv_cache", "total", "capacity", "fits"})
    CHECK(j["memory"].contains(k));
  const json err = json::parse(api::estimate(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "train",
    "global_batch": 8, "seq_len": 128}, "parallel": {"tp": 3, "dp": 1}})"));
  // the divisibility rule is checked before the dp product, so the real cause is named
  CHECK(err["error"]["path"] == "parallel.tp");
  CHECK(err["error"]["message"] == "3 does not divide heads 64"); // LLaMA-3 70B: 64 heads
  // malformed bytes come back as an error value (the message is dumped safely)
  const json utf = json::parse(api::estimate("{\"model\": \"\xb2\"}"));
  CHECK(utf["error"]["message"].get<std::string>().rfind("malformed JSON", 0) == 0);
  const json bad = json::parse(api::estimate("{not json"));
  CHECK(bad["error"]["path"] == "");
  CHECK(json::parse(api::decode_url("?parallel.tp=1&parallel.tp=2"))["error"]["path"] ==
        "parallel.tp");
}
