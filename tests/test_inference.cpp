// Serving: How to Scale Your Model ch. 7 (LLaMA-2 13B on 8 TPU v5e) and ch.8 (LLaMA-3 70B int8)
// tables, critical batch sizes, KV sharding, disaggregated serving.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/inference/serving.hpp"
#include "core/memory/model_states.hpp"
#include "core/time/step_time.hpp"

#include <cmath>

#include <algorithm>

using namespace rl;
using nlohmann::json;

namespace {
// How to Scale Your Model's hardware: TPU v5e at 8.2e11 B/s (8 chips = "6.5 TiB/s" = 6.56e12 B/s).
Config v5e_config(const std::string &model, const std::string &cluster, i64 tp, i64 batch,
                  const char *wdt = "bf16", const char *kvdt = "bf16", const char *prec = "bf16") {
  const std::string text =
      "{\"model\": " + model +
      ", \"hardware\": {\"base\": \"tpu-v5e\", \"hbm_bw\": 8.2e11}, "
      "\"cluster\": \"" +
      cluster +
      "\", \"workload\": {\"mode\": \"infer\", "
      "\"batch\": " +
      std::to_string(batch) + ", \"prompt_len\": 8192, \"gen_len\": 0, \"weight_dtype\": \"" + wdt +
      "\", \"kv_dtype\": \"" + kvdt + "\", \"precision\": \"" + prec +
      "\", \"bound\": \"roofline\", \"kv_sharding\": \"batch\"}, \"parallel\": {\"tp\": " +
      std::to_string(tp) + "}}";
  return io::parse_config(json::parse(text));
}
} // namespace

TEST_CASE("How to Scale Your Model ch. 7: LLaMA-2 13B on 8 TPU v5e, context 8192, bf16",
          "[inference]") {
  // seed rows: batch, KV "GiB" (really 1e9 B), total, step ms, tokens/s
  struct Row {
    i64 b;
    double kv, total, step_ms, tps;
  };
  const Row rows[] = {{1, 6.7, 32.7, 4.98, 200.61},      {8, 53.6, 79.6, 12.13, 659.30},
                      {16, 107.2, 133.2, 20.30, 787.99}, {32, 214.4, 240.4, 36.65, 873.21},
                      {64, 428.8, 454.8, 69.33, 923.13}, {240, 1608, 1634, 249.09, 963.53}};
  for (const Row &r : rows) {
    INFO("batch " << r.b);
    const Config c = v5e_config("\"llama2-13b\"", "tpu-v5e-2x4", 8, r.b);
    const Estimate e = estimate(c);
    const DecodeStep &d = e.serving.decode;
    // memory: How to Scale Your Model's "GiB" are 1e9 bytes (13e9 x 2 B of weights + B x 6.7e9 of
    // KV)
    CHECK(e.memory.kv_cache * 8 / 1e9 == Approx(r.kv).epsilon(2e-3));
    CHECK((e.memory.weights + e.memory.kv_cache) * 8 / 1e9 == Approx(r.total).epsilon(2e-3));
    // step: How to Scale Your Model's lower bound has no collective term; ours adds it separately
    const double bound = d.step - d.comm_time;
    CHECK(bound * 1e3 == Approx(r.step_ms).epsilon(3e-3));
    CHECK(static_cast<double>(r.b) / bound == Approx(r.tps).epsilon(3e-3));
    CHECK_FALSE(d.compute_bound); // up to the critical batch of 240, bandwidth-bound
  }
}

TEST_CASE("How to Scale Your Model ch. 7: the same with a KV cache 5x smaller", "[inference]") {
  // How to Scale Your Model's variant keeps the 13e9 parameters and divides only the KV bytes by 5,
  // so the step is kv_time / 5 + weight_time of the MHA model.
  const double steps[] = {4.17, 5.60, 7.23, 10.50, 17.04, 52.99};
  const i64 batches[] = {1, 8, 16, 32, 64, 240};
  for (int i = 0; i < 6; ++i) {
    INFO("batch " << batches[i]);
    const DecodeStep d =
        estimate(v5e_config("\"llama2-13b\"", "tpu-v5e-2x4", 8, batches[i])).serving.decode;
    CHECK((d.kv_time / 5 + std::max(d.weight_time, d.compute_time)) * 1e3 ==
          Approx(steps[i]).epsilon(3e-3));
  }
}

TEST_CASE("How to Scale Your Model ch. 8: LLaMA-3 70B int8 on v5e 4x2 and 4x4", "[inference]") {
  const Config c = v5e_config("\"llama3-70b\"", "tpu-v5e-2x4", 8, 32, "int8", "int8");
  const Estimate e = estimate(c);
  const DecodeStep &d = e.serving.decode;
  // ~112 GB in all (70.55 GB of int8 weights + 42.9 GB of KV; How to Scale Your Model says 41.9)
  CHECK((e.memory.weights + e.memory.kv_cache) * 8 == Approx(113.5e9).epsilon(2e-3));
  // ~17 ms per step, ~1882 tokens/s, ~235 per chip (without the collective term)
  const double bound = d.step - d.comm_time;
  CHECK(bound * 1e3 == Approx(17.3).epsilon(5e-3));
  CHECK(32 / bound == Approx(1882).epsilon(0.02));
  CHECK(32 / bound / 8 == Approx(235).epsilon(0.02));
  // 4x4: 16 chips, TP 16 > 8 KV heads: KV sharded over heads then batch: the step halves
  // (How to Scale Your Model's "halves"; the K/V projections, replicated on 2 chips, add 1.2%)
  const Config c16 = v5e_config("\"llama3-70b\"", "tpu-v5e-4x4", 16, 32, "int8", "int8");
  const Estimate e16 = estimate(c16);
  const DecodeStep d16 = e16.serving.decode;
  CHECK((d16.step - d16.comm_time) == Approx(bound / 2).epsilon(0.015));
  CHECK(d16.kv_time == Approx(d.kv_time / 2));
  CHECK(e16.memory.kv_cache == Approx(e.memory.kv_cache / 2));
}

TEST_CASE("Critical batch: 240 bf16, 120 int8 weights, 240 int8 x int8, MoE x E/k", "[inference]") {
  // How to Scale Your Model ch. 7: B > F * bytes / (2 BW)
  CHECK(estimate(v5e_config("\"llama2-13b\"", "tpu-v5e-2x4", 8, 1)).serving.critical_batch ==
        Approx(240.2).epsilon(1e-3));
  CHECK(
      estimate(v5e_config("\"llama2-13b\"", "tpu-v5e-2x4", 8, 1, "int8")).serving.critical_batch ==
      Approx(120.1).epsilon(1e-3));
  CHECK(estimate(v5e_config("\"llama2-13b\"", "tpu-v5e-2x4", 8, 1, "int8", "bf16", "int8"))
            .serving.critical_batch == Approx(240.2).epsilon(1e-3));
  // How to Scale Your Model ch. 4: DeepSeek needs B > 120 * 256 / 8 = 3840
  const Config ds = io::parse_config(json::parse(R"({"model": "deepseek-v3",
    "hardware": {"base": "tpu-v5e", "hbm_bw": 8.2e11}, "cluster": "tpu-v5e-16x16",
    "workload": {"mode": "infer", "batch": 256, "prompt_len": 1024, "gen_len": 0,
    "weight_dtype": "int8"}, "parallel": {"tp": 1, "ep": 256, "dp": 256}})"));
  CHECK(estimate(ds).serving.moe_critical_batch == Approx(3843).epsilon(1e-3));
}

TEST_CASE("Largest batch, smallest slice, int4 bytes", "[inference]") {
  const Config c = v5e_config("\"llama2-13b\"", "tpu-v5e-2x4", 8, 8);
  const Estimate e = estimate(c);
  // 16 GiB per chip less the 2.36 GB reserve (1.5 GB + 5%): weights 3.25 GB + n x 838.9 MB
  // of KV per chip (+ prefill working set)
  const double per_seq = 8192.0 * 819'200 / 8;
  const double room = 17'179'869'184.0 - (1.5e9 + 0.05 * 17'179'869'184.0) - e.memory.weights -
                      e.memory.activations;
  CHECK(e.memory.max_batch == static_cast<i64>(room / per_seq));
  // How to Scale Your Model's table stops fitting 128 GiB between 8 and 32 (16 without the
  // reserve, 13 with it)
  CHECK(e.memory.max_batch == 13);
  // 26 GB of weights + 8 x 6.7 GB of KV = 79.7 GB -> 8 chips of 16 GiB
  CHECK(e.serving.min_devices == 8);
  CHECK(weight_bytes(Dtype::int4) == Approx(0.515625)); // 4 bits + a bf16 scale per 128
}

TEST_CASE("Disaggregated serving: prefill and decode instances for a request rate", "[inference]") {
  const Config c = io::parse_config(json::parse(R"({"model": "llama3-70b",
    "hardware": "h100-sxm", "cluster": "dgx-h100", "workload": {"mode": "infer", "batch": 32,
    "prompt_len": 8192, "gen_len": 512, "request_rate": 4, "ttft_target": 2.0,
    "tpot_target": 0.05}, "parallel": {"tp": 8}})"));
  const ServingEstimate s = estimate(c).serving;
  REQUIRE(s.disaggregated);
  // How to Scale Your Model ch. 7: P / t_prefill = B G / (t_decode * gen): instances carry the
  // request rate
  const DecodeStep d =
      decode_step(c, resolve_layout(c), static_cast<double>(s.decode_batch), 8192 + 256);
  CHECK(d.step <= 0.05);
  CHECK(s.prefill_instances == Approx(4 * s.prefill.time));
  CHECK(s.decode_instances == Approx(4 * 512 * d.step / static_cast<double>(s.decode_batch)));
  CHECK(test::error_of([] {
          estimate(io::parse_config(json::parse(R"({"model": "llama3-70b",
            "hardware": "h100-sxm", "cluster": "dgx-h100", "workload": {"mode": "infer",
            "batch": 8, "prompt_len": 8192, "request_rate": 1, "ttft_target": 0.001,
            "tpot_target": 0.05}, "parallel": {"tp": 8}})")));
        }).rfind("workload.ttft_target: prefill alone takes", 0) == 0);
}

TEST_CASE("MoE decode over an EP group: experts loaded when any token of the group picks them",
          "[inference][moe]") {
  auto cfg = [](i64 batch) {
    return io::parse_config(json::parse(std::string(R"({"model": "deepseek-v3",
      "hardware": "h200", "cluster": {"base": "dgx-h100", "devices": 16},
      "workload": {"mode": "infer", "batch": )") +
                                        std::to_string(batch) + R"(,
      "prompt_len": 1024, "gen_len": 0, "weight_dtype": "fp8", "bound": "roofline"},
      "parallel": {"tp": 1, "ep": 16, "dp": 16}})"));
  };
  const Config c = cfg(16);
  const Layout l = resolve_layout(c);
  const StageParams p = stage_params(c.model, l, 0);
  // 16 tokens over the group, top-8 of 256: a local expert is idle with (1 - 8/256)^16
  const double touched = 1 - std::pow(1 - 8.0 / 256, 16);
  const DecodeStep d = decode_step(c, l, 16, 1024);
  CHECK(d.weight_time == Approx((p.dense + p.experts * touched) * 1.0 / c.hardware.hbm_bw));
  // one token per chip: 8 expert assignments, each one local expert's worth of FLOPs
  CHECK(d.compute_time * peak_flops(c.hardware, Dtype::bf16) ==
        Approx(2 * 1 * p.dense + 2 * 8 * p.experts / 16));
  // a large batch loads every local expert
  const DecodeStep big = decode_step(cfg(4096), l, 4096, 1024);
  CHECK(big.weight_time == Approx(p.total() / c.hardware.hbm_bw).epsilon(1e-6));
}
