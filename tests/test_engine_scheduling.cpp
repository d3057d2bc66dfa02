// Engine behaviours the serving simulation models apart: prefill without mixing (SGLang),
// SGLang's receive interval and TensorRT-LLM's batch waiting, the engines' own all-reduce
// and the per-request front-end time (docs/serving.md).
#include "core/calibrate/fit.hpp"
#include "core/io/config_json.hpp"
#include "core/io/launch_export.hpp"
#include "core/io/readers.hpp"
#include "core/parallel/layout.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/requests.hpp"
#include "core/serve/simulate.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "tests/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace rl;
using test::serve_config;

TEST_CASE("scheduler: without mixed prefill, clients that start together prefill together",
          "[serve]") {
  // Four clients, 1024 in / 64 out, an 8192-token budget: all four prompts fit one prefill
  // iteration, which runs without decodes (SGLang's scheduler.py: a prefill batch whenever one
  // forms); the group then decodes together and completes together, so every request's TTFT is
  // that one iteration: 4096 prompt tokens, 4 x 1024 x 512 causal pairs, 4 first tokens.
  const Config c =
      serve_config(R"({"mode": "serve", "concurrency": 4, "requests": 40, "prompt_len": 1024,
    "gen_len": 64, "scheduler": {"max_tokens": 8192, "chunk": 8192, "mixed_prefill": false}})");
  const ServeResult r = simulate_serving(c);
  IterationModel model(c, resolve_layout(c));
  IterationLoad x;
  x.prefill = 4 * 1024;
  x.prefill_pairs = 4 * 1024.0 * 512;
  x.prefill_kv = 4 * 1024;
  x.outputs = 4;
  const double prefill = model.time(x).total;
  CHECK(r.ttft.p50 == Approx(prefill).epsilon(1e-9));
  CHECK(r.ttft.p99 == Approx(prefill).epsilon(1e-9)); // lockstep: every request alike
  // Mixed (vLLM, TensorRT-LLM): clients out of phase, each prompt beside decodes only
  Config mixed = c;
  mixed.workload.serve.mixed_prefill = true;
  CHECK(simulate_serving(mixed).ttft.p50 < prefill / 2);
}

namespace {

// Request A (512 in, 200 out) at 0 and request B (`b_prompt` in, 20 out) half a decode
// iteration after A's first token, both on one instance; `sched` the scheduler object. Returns
// B's TTFT and the time of one decode iteration of A alone at the context it has then.
std::pair<double, double> second_request_ttft(const std::string &sched, int b_prompt) {
  const std::string w =
      R"({"mode": "serve", "scheduler": )" + sched + R"(, "trace": [[0, 512, 200]]})";
  const Config alone = serve_config(w);
  const double a_first = simulate_serving(alone).ttft.mean; // A's prefill iteration
  IterationModel model(alone, resolve_layout(alone));
  IterationLoad x;
  x.decode = 1;
  x.outputs = 1;
  x.decode_context = 520; // A's context a few iterations on (a 1.6% spread over 8 tokens)
  const double dt = model.time(x).total;
  Config both = serve_config(w);
  both.workload.serve.trace.push_back({a_first + dt / 2, b_prompt, 20, "", -1});
  const ServeResult r = simulate_serving(both);
  return {2 * r.ttft.mean - a_first, dt}; // the mean of A's and B's
}

} // namespace

TEST_CASE("scheduler: SGLang's receive interval holds new requests for its decode iterations",
          "[serve]") {
  // python/sglang/srt/managers/scheduler_recv_skipper.py: each pass adds the last iteration's
  // weight (decode 1, prefill 1000) and receives at the interval. B arrives during A's first
  // decode: with interval 1 it is taken at the next pass; with interval 10 the counter,
  // restarted after A's prefill, reaches 10 nine decode iterations later.
  const auto [every, dt] = second_request_ttft(R"({"max_tokens": 8192, "chunk": 8192})", 512);
  const auto [ten, dt10] =
      second_request_ttft(R"({"max_tokens": 8192, "chunk": 8192, "recv_interval": 10})", 512);
  CHECK(ten - every == Approx(9 * dt).epsilon(0.01));
  CHECK(dt10 == dt);
}

TEST_CASE("scheduler: TensorRT-LLM's batch waiting holds prompts for its iterations or tokens",
          "[serve]") {
  // tensorrt_llm/_torch/pyexecutor/py_executor.py _waiting_requests: while A decodes, B's
  // prompt is held until the iteration's tokens (B's 512 + A's 1) reach 0.9 x 8192 or it has
  // waited 5 iterations: 5 decode iterations of A alone later than without waiting.
  const std::string plain = R"({"max_tokens": 8192, "chunk": 8192})";
  const std::string wait = R"({"max_tokens": 8192, "chunk": 8192, "batch_wait_iters": 5,
    "batch_wait_tokens_ratio": 0.9})";
  const auto [none, dt] = second_request_ttft(plain, 512);
  const auto [held, dt2] = second_request_ttft(wait, 512);
  CHECK(held - none == Approx(5 * dt).epsilon(0.01));
  // a prompt of 8000 tokens with A's 1 passes 0.9 x 8192 = 7372.8: scheduled at once
  const auto [big, dt3] = second_request_ttft(plain, 8000);
  const auto [big_wait, dt4] = second_request_ttft(wait, 8000);
  CHECK(big_wait == Approx(big).epsilon(1e-12));
  CHECK(dt2 == dt);
}

TEST_CASE("scheduler: TensorRT-LLM's attention-DP balance holds prompts until every rank has one",
          "[serve]") {
  // tensorrt_llm/_torch/pyexecutor/py_executor.py _balance_adp_requests (attention_dp_config
  // enable_balance, timeout_iters): Mixtral on two attention-DP ranks; A and B (512 in, 200
  // out) arrive at 0 and decode, one on each rank; C (512 in, 20 out) arrives at 0.5 s, the
  // only context request: not every rank has one, so it is held, at timeout 10^6 until no
  // rank decodes (A and B done), at timeout 5 at most 5 iterations.
  const auto run = [](const char *trace, i64 balance) {
    return simulate_serving(serve_config(std::string(R"({"mode": "serve", "trace": )") + trace +
                                             R"(, "scheduler": {"adp_balance_iters": )" +
                                             std::to_string(balance) + "}}",
                                         R"({"tp": 1, "attention_dp": 2, "ep": 2})",
                                         R"({"base": "dgx-h100", "devices": 2})", "mixtral-8x7b"));
  };
  const ServeResult ab = run("[[0, 512, 200], [0, 512, 200]]", 0);
  const ServeResult c_alone = run("[[0, 512, 20]]", 0); // C's prefill iteration
  const char *abc = "[[0, 512, 200], [0, 512, 200], [0.5, 512, 20]]";
  const auto c_ttft = [&](i64 balance) { // C's TTFT: A's and B's are the same in every run
    return 3 * run(abc, balance).ttft.mean - 2 * ab.ttft.mean;
  };
  const double dt = ab.tpot.mean; // one decode iteration of A and B
  CHECK(c_ttft(0) < c_alone.ttft.mean + 2 * dt);
  CHECK(c_ttft(1000000) ==
        Approx(ab.e2e.mean - 0.5 + c_alone.ttft.mean).margin(2 * dt)); // released at A's end
  CHECK(c_ttft(5) <= c_alone.ttft.mean + 7 * dt);
  // the runs' column: the calibration reader sets it (InferenceX's TensorRT-LLM launches with
  // attention DP: "attention_dp_config: {enable_balance: true, timeout_iters: 60}")
  const Measurements m = io::read_measurements(
      "engine,tp,attention_dp,ep,isl,osl,concurrency,ttft_ms,tpot_ms,adp_balance_iters\n"
      "trtllm,1,8,8,1024,1024,64,1800,19,60\n",
      "runs.csv");
  REQUIRE(m.serving.size() == 1);
  CHECK(m.serving[0].adp_balance_iters == 60);
  const Config base = io::parse_config(nlohmann::json::parse(
      R"({"model": "deepseek-r1", "hardware": "b200", "cluster": "dgx-b200", "workload":
      {"mode": "serve", "concurrency": 4, "prompt_len": 1024, "gen_len": 1024, "precision":
      "fp8", "engine": "trtllm"}, "parallel": {"tp": 8}})"));
  CHECK(serving_run_config(base, m.serving[0]).workload.serve.adp_balance_iters == 60);
}

TEST_CASE("engine: its own all-reduce is latency plus bus bytes over its bandwidth", "[serve]") {
  // presets/engines/vllm.json, fitted by `ridgeline calibrate` to AIConfigurator's
  // measured vLLM 0.14.0 custom all-reduce on H100 SXM (docs/data/aic/custom_allreduce_h100.csv):
  // 4.73 us + 2 x 7/8 x 65536 B / 203.6 GB/s = 5.293 us for 64 KiB over 8 GPUs, where the
  // measurement says 6.29 us (docs/serving.md "Custom all-reduce": median |error| 8.2%).
  const Config c =
      serve_config(R"({"mode": "serve", "concurrency": 8, "prompt_len": 64, "gen_len": 8,
    "engine": "vllm"})",
                   R"({"tp": 8})", R"({"base": "dgx-h100", "devices": 8})");
  const EngineSpec &e = c.workload.serve.engine;
  const double t = engine_allreduce_time(e, 65536, 8);
  CHECK(t == Approx(4.73e-6 + 2 * 7.0 / 8 * 65536 / 203.6e9).epsilon(1e-9));
  CHECK(t == Approx(6.29e-6).epsilon(0.2));
  // A decode iteration of 8 sequences at tp 8: two all-reduces of 8 x 4096 x 2 B per layer
  // (Megatron's attention and MLP row-parallel outputs), 32 layers
  IterationModel model(c, resolve_layout(c));
  IterationLoad x;
  x.decode = 8;
  x.decode_context = 8 * 64;
  x.outputs = 8;
  CHECK(model.time(x).comm == Approx(64 * engine_allreduce_time(e, 8 * 4096 * 2, 8)));
  // Above its 8 MiB limit, NCCL's ring or tree (the cluster's links) as before
  Config none = c;
  none.workload.serve.engine.allreduce_bw = 0;
  IterationModel nccl(none, resolve_layout(none));
  CHECK(nccl.time(x).comm > 4 * model.time(x).comm); // tree: 2 log2(8) steps of 6 us each
}

TEST_CASE("engine: the front end's per-request time shifts TTFT and end to end, not TPOT",
          "[serve]") {
  // One client: every request alone, so TTFT and e2e move by exactly the request overhead.
  const Config c = serve_config(R"({"mode": "serve", "concurrency": 1, "requests": 8,
    "prompt_len": 256, "gen_len": 16})");
  Config d = c;
  d.workload.serve.engine.name = "custom";
  d.workload.serve.engine.request_overhead = 0.04;
  const ServeResult a = simulate_serving(c), b = simulate_serving(d);
  CHECK(b.ttft.mean - a.ttft.mean == Approx(0.04).epsilon(1e-9));
  CHECK(b.e2e.mean - a.e2e.mean == Approx(0.04).epsilon(1e-9));
  CHECK(b.tpot.mean == Approx(a.tpot.mean).epsilon(1e-12));
}

TEST_CASE("closed loop: count_warmup counts the opening burst with the steady state", "[serve]") {
  // Four clients of ten requests each (vLLM's bench serve counts every request; InferenceMAX
  // runs 10 x the concurrency): the mean TTFT is the four burst requests' (all at 0 on an empty
  // engine) and the steady state's standing for the other 36, (4 B + 36 S) / 40.
  const std::string w = R"("mode": "serve", "prompt_len": 2048, "gen_len": 64,
    "scheduler": {"max_tokens": 8192, "chunk": 8192})";
  const Config counted = serve_config(
      R"({"concurrency": 4, "requests_per_client": 10, "count_warmup": true, )" + w + "}");
  const Config steady = serve_config(R"({"concurrency": 4, "requests_per_client": 10, )" + w + "}");
  const Config burst = serve_config(R"({"mode": "serve", "trace": [[0, 2048, 64],
    [0, 2048, 64], [0, 2048, 64], [0, 2048, 64]], "scheduler": {"max_tokens": 8192,
    "chunk": 8192}})");
  CHECK(simulated_requests(counted.workload.serve) == 40);
  const ServeResult r = simulate_serving(counted), s = simulate_serving(steady),
                    b = simulate_serving(burst);
  CHECK(r.warmup_counted == 4);
  CHECK(r.ttft.mean == Approx((4 * b.ttft.mean + 36 * s.ttft.mean) / 40).epsilon(1e-9));
  // the burst prefills 8192 tokens in one iteration: its TTFT is about four lone prefills
  CHECK(b.ttft.mean > 3 * s.ttft.mean);
  // requests_per_client x concurrency is held to the simulation's limits, naming the field
  CHECK(test::error_of([] {
          serve_config(R"({"mode": "serve", "concurrency": 1000, "requests_per_client": 5000,
            "prompt_len": 16, "gen_len": 2})");
        }).rfind("workload.requests_per_client:", 0) == 0);
}

TEST_CASE("engine: a GEMM call costs its measured latency, weights stream at its measured share",
          "[serve]") {
  // Llama-3-8B, one decode token, vLLM FP8 on one H100: per layer 4 GEMM calls (fused QKV,
  // o_proj, fused gate_up, down_proj) of 12.75 us and 4096 x (4096 + 2 x 1024 + 4096) + 3 x
  // 4096 x 14336 = 218,103,808 FP8 weights, with the two RMSNorm vectors 218,112,000 bytes
  // streamed at 0.771 x 3.35 TB/s (presets/engines/vllm.json "gemm", fitted by
  // ridgeline calibrate docs/data/aic/gemm.csv).
  Config c = serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 64,
    "gen_len": 8, "engine": "vllm", "weight_dtype": "fp8", "precision": "fp8"})",
                          R"({"tp": 1})", R"({"base": "dgx-h100", "devices": 1})");
  IterationLoad x;
  x.decode = 1;
  x.decode_context = 64;
  const double per_layer = 4 * 12.75e-6 + 218112000.0 / (3.35e12 * 0.771);
  CHECK(IterationModel(c, resolve_layout(c)).time(x).linear ==
        Approx(32 * per_layer).epsilon(1e-9));
  // bf16 weights take the bf16 fit: 3.63 us per call, 2 bytes a weight at 0.884 x 3.35 TB/s
  c.workload.weight_dtype = c.workload.precision = Dtype::bf16;
  CHECK(IterationModel(c, resolve_layout(c)).time(x).linear ==
        Approx(32 * (4 * 3.63e-6 + 2 * 218112000.0 / (3.35e12 * 0.884))).epsilon(1e-9));
  // the roofline bound leaves the kernels out: datasheet bandwidth, no per-call time
  c.workload.bound = ServingBound::roofline;
  CHECK(IterationModel(c, resolve_layout(c)).time(x).linear ==
        Approx(32 * 2 * 218112000.0 / 3.35e12).epsilon(1e-9));
}

TEST_CASE("engine: fused FP8 quantisation, attention's dtype and each precision's efficiency",
          "[serve]") {
  // presets/engines/trtllm.json: fp8_quant_fused; its H100 fits bf16 3.42 us / 0.843, fp8
  // 14.92 us / 0.82. Llama-3-8B per-tensor FP8 on one H100: 4 calls a layer at the bf16
  // kernel's 3.42 us (TensorRT-LLM fuses the quantise kernel), 218,112,000 FP8 bytes at
  // 0.82 x 3.35 TB/s; block-scaled FP8 keeps the FP8 fit's 14.92 us
  Config c = serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 64,
    "gen_len": 8, "engine": "trtllm", "weight_dtype": "fp8", "precision": "fp8"})",
                          R"({"tp": 1})", R"({"base": "dgx-h100", "devices": 1})");
  IterationLoad x;
  x.decode = 1;
  x.decode_context = 64;
  const double stream = 218112000.0 / (3.35e12 * 0.82);
  CHECK(IterationModel(c, resolve_layout(c)).time(x).linear ==
        Approx(32 * (4 * 3.42e-6 + stream)).epsilon(1e-9));
  c.workload.fp8_recipe = Fp8Recipe::blockwise;
  CHECK(IterationModel(c, resolve_layout(c)).time(x).linear ==
        Approx(32 * (4 * 14.92e-6 + stream)).epsilon(1e-9));
  // A prompt chunk's GEMMs at the precision's own large-GEMM efficiency less the compute
  // overhead (H100: FP8 0.731 / 1.335 of 1979 TFLOP/s, not bf16's 0.845), and its attention at
  // TensorRT-LLM's measured context kernel over a bf16 KV cache, 0.479 of 989 TFLOP/s
  // (presets/engines/trtllm.json "context_attention"; docs/serving.md "Prefill attention")
  const HardwareSpec &hw = c.hardware;
  CHECK(serving_gemm_efficiency(hw, Dtype::fp8) ==
        Approx(hw.gemm_efficiency_fp8 / (1 + hw.compute_overhead)).epsilon(1e-12));
  CHECK(serving_gemm_efficiency(hw, Dtype::bf16) ==
        Approx(hw.gemm_efficiency / (1 + hw.compute_overhead)).epsilon(1e-12));
  CHECK(attention_dtype(c.workload) == Dtype::bf16);
  IterationLoad p;
  p.prefill = 1024;
  p.prefill_pairs = 1024.0 * 512;
  p.prefill_kv = 1024;
  // 32 heads x (128 + 128) x 2 FLOPs a pair (FlashAttention's two GEMMs)
  const double attn_flops = 32 * 2 * (32 * 256.0) * p.prefill_pairs;
  CHECK(IterationModel(c, resolve_layout(c)).time(p).attention ==
        Approx(attn_flops / (989e12 * 0.479)).epsilon(1e-9));
  // with an FP8 KV cache FP8 attention kernels (TensorRT-LLM's FP8 context FMHA); no kernel
  // computes in FP4, so NVFP4 GEMMs with an FP8 KV cache also attend in FP8
  c.workload.kv_dtype = Dtype::fp8;
  CHECK(attention_dtype(c.workload) == Dtype::fp8);
  c.workload.precision = c.workload.weight_dtype = Dtype::nvfp4;
  CHECK(attention_dtype(c.workload) == Dtype::fp8);
  c.workload.kv_dtype = Dtype::bf16;
  CHECK(attention_dtype(c.workload) == Dtype::bf16);
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("engine: the presets' GEMM fits are what the measured points give",
          "[serve][calibrate]") {
  // docs/data/aic/gemm.csv (AIConfigurator's measured GEMMs on H100 SXM, H200 and B200, NVFP4 on
  // B200 too; M 1-64,
  // N and K 1024-16384) against t = latency + (N K w + M K w + 2 M N) / (bw_efficiency x
  // hbm_bw) with each preset's fit for that chip: the median |error| docs/serving.md states
  // (ridgeline calibrate docs/data/aic/gemm.csv).
  std::map<std::string, std::vector<double>> errors;
  // gpu,engine,version,dtype,m,n,k,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/gemm.csv")) {
    REQUIRE(row.size() == 8);
    const std::string &gpu = row[0], &engine = row[1], &dtype = row[3], &m = row[4], &n = row[5],
                      &k = row[6], &t = row[7];
    const Config c = io::parse_config(nlohmann::json::parse(
        R"({"model": "llama3-8b", "hardware": ")" + gpu +
        R"(", "workload": {"mode": "serve", "request_rate": 1, "prompt_len": 8, "gen_len": 8,
        "weight_dtype": ")" +
        dtype + R"(", "precision": ")" + dtype + R"(", "engine": ")" + engine + "\"}}"));
    const EngineSpec::SmallGemm *g =
        small_gemm(c.workload.serve.engine, gpu, c.workload.weight_dtype, c.workload.precision);
    REQUIRE(g != nullptr);
    // bytes a weight: bf16 2, fp8 1, NVFP4 0.5625 (E2M1 with an E4M3 scale per 16)
    const double w = dtype == "fp8" ? 1 : dtype == "fp4" ? 0.5625 : 2;
    const double M = std::stod(m), N = std::stod(n), K = std::stod(k);
    const double model =
        g->latency + (N * K * w + M * K * w + 2 * M * N) / (g->bw_efficiency * c.hardware.hbm_bw);
    errors[gpu + " " + engine + " " + dtype].push_back(std::fabs(model / std::stod(t) - 1));
  }
  const std::map<std::string, double> stated = {
      {"h100-sxm sglang bf16", 0.085}, {"h100-sxm sglang fp8", 0.099},
      {"h100-sxm trtllm bf16", 0.059}, {"h100-sxm trtllm fp8", 0.028},
      {"h100-sxm vllm bf16", 0.068},   {"h100-sxm vllm fp8", 0.048},
      {"h200 sglang bf16", 0.106},     {"h200 sglang fp8", 0.127},
      {"h200 trtllm bf16", 0.066},     {"h200 trtllm fp8", 0.040},
      {"h200 vllm bf16", 0.100},       {"h200 vllm fp8", 0.060},
      {"b200 sglang bf16", 0.126},     {"b200 sglang fp8", 0.129},
      {"b200 trtllm bf16", 0.109},     {"b200 trtllm fp8", 0.080},
      {"b200 vllm bf16", 0.117},       {"b200 vllm fp8", 0.106},
      {"b200 sglang fp4", 0.163},      {"b200 trtllm fp4", 0.338},
      {"b200 vllm fp4", 0.126}};
  REQUIRE(errors.size() == stated.size());
  for (auto &[key, v] : errors) {
    INFO(key);
    REQUIRE(v.size() == 100);
    std::sort(v.begin(), v.end());
    CHECK((v[49] + v[50]) / 2 == Approx(stated.at(key)).margin(0.0015));
  }
}
#endif

TEST_CASE("iteration: a decode iteration's time is affine in its KV context", "[serve]") {
  // The simulator plays a run of decode iterations from two evaluations (simulate.cpp
  // decode_run): the context grows by the batch an iteration and attention, proportional to
  // it, is the only term that reads it. Checked on a dense model with an engine, on pp 2, and
  // on an MoE instance with EP inside it.
  const std::vector<Config> cs = {
      serve_config(R"({"mode": "serve", "concurrency": 8, "requests": 16, "prompt_len": 512,
        "gen_len": 64, "engine": "vllm"})"),
      serve_config(R"({"mode": "serve", "concurrency": 8, "requests": 16, "prompt_len": 512,
        "gen_len": 64})",
                   R"({"tp": 2, "pp": 2})", R"({"base": "dgx-h100", "devices": 4})"),
      io::parse_config(nlohmann::json::parse(
          R"({"model": "qwen3-235b-a22b", "hardware": "h100-sxm", "cluster": "dgx-h100",
            "workload": {"mode": "serve", "concurrency": 8, "requests": 16, "prompt_len": 512,
              "gen_len": 64, "weight_dtype": "fp8"}, "parallel": {"tp": 8, "ep": 8}})"))};
  for (const Config &c : cs) {
    IterationModel model(c, resolve_layout(c));
    for (const double b : {1.0, 7.0, 64.0}) {
      IterationLoad x;
      x.decode = b;
      x.outputs = b;
      x.decode_context = 300 * b;
      const double t0 = model.time(x).total;
      x.decode_context += b;
      const double t1 = model.time(x).total;
      x.decode_context += 1000 * b;
      const double t1001 = model.time(x).total;
      CHECK(t1 > t0);
      CHECK(t1001 == Approx(t0 + 1001 * (t1 - t0)).epsilon(1e-12));
    }
  }
}

TEST_CASE("scheduler: the admission options reach the engines' launch arguments", "[serve]") {
  const Config c = serve_config(R"({"mode": "serve", "concurrency": 8, "prompt_len": 1024,
    "gen_len": 128, "scheduler": {"recv_interval": 30, "batch_wait_iters": 20,
    "batch_wait_tokens_ratio": 0.9}})");
  const Layout l = resolve_layout(c);
  // python/sglang/srt/server_args.py --scheduler-recv-interval; batch waiting is not SGLang's
  const std::string sg = io::launch_export(c, l, "sglang");
  CHECK(sg.find("--scheduler-recv-interval 30") != std::string::npos);
  CHECK(sg.find("batch waiting (scheduler.batch_wait_iters) is TensorRT-LLM's") !=
        std::string::npos);
  // tensorrt_llm/llmapi/llm_args.py batch_wait_timeout_iters, batch_wait_max_tokens_ratio in
  // the extra options YAML
  const std::string trt = io::launch_export(c, l, "trtllm");
  CHECK(trt.find("--extra_llm_api_options extra.yaml") != std::string::npos);
  CHECK(trt.find("\"batch_wait_timeout_iters: 20\" and \"batch_wait_max_tokens_ratio: 0.9\"") !=
        std::string::npos);
  CHECK(io::launch_export(c, l, "vllm").find("have no vLLM option") != std::string::npos);
  // the attention-DP balance: tensorrt_llm/llmapi/llm_args.py AttentionDpConfig, TensorRT-LLM's
  // alone; under attention DP the executor skips batch waiting (py_executor.py _schedule)
  const Config d = serve_config(R"({"mode": "serve", "concurrency": 8, "prompt_len": 1024,
    "gen_len": 128, "scheduler": {"adp_balance_iters": 60, "batch_wait_iters": 20}})",
                                R"({"tp": 1, "attention_dp": 2, "ep": 2})",
                                R"({"base": "dgx-h100", "devices": 2})", "mixtral-8x7b");
  const Layout ld = resolve_layout(d);
  const std::string trt_dp = io::launch_export(d, ld, "trtllm");
  CHECK(trt_dp.find("\"attention_dp_config: {enable_balance: true, timeout_iters: 60, "
                    "batching_wait_iters: 0}\"") != std::string::npos);
  CHECK(trt_dp.find("TensorRT-LLM skips batch waiting under attention DP") != std::string::npos);
  CHECK(io::launch_export(d, ld, "sglang")
            .find("the attention-DP balance "
                  "(scheduler.adp_balance_iters) is "
                  "TensorRT-LLM's") != std::string::npos);
}

TEST_CASE("benchmark lengths: uniform on [range_ratio, 1] x the largest, as the runs drew them",
          "[serve]") {
  // sglang bench_serving / InferenceMAX --random-range-ratio 0.8 at isl 8192: lengths drawn on
  // [0.8 x 8192, 8192], mean 7373 (the calibration reader's mean); the bounds about that mean
  ServeSpec s;
  s.length_dist = LengthDist::uniform;
  s.range_ratio = 0.8;
  const LengthBounds b = length_bounds(s, 7373);
  CHECK(b.lo == 6554); // 0.8 x 2 x 7373 / 1.8 = 6553.8, rounded
  CHECK(b.hi == 8192); // 2 x 7373 - 6554
  // range_ratio 0: [1, 2 x mean - 1] (the distribution before the ratio existed)
  s.range_ratio = 0;
  CHECK(length_bounds(s, 100).lo == 1);
  CHECK(length_bounds(s, 100).hi == 199);
  // drawn: every length within its bounds, the mean the asked one (20,000 draws: the mean's
  // standard error is 473 / sqrt(20000) = 3.3 tokens)
  s.range_ratio = 0.8;
  SplitMix64 rng(7);
  double sum = 0;
  i64 lo = 1 << 30, hi = 0;
  for (int i = 0; i < 20000; ++i) {
    const i64 n = draw_length(s, 7373, rng);
    sum += static_cast<double>(n);
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  CHECK(lo == 6554);
  CHECK(hi == 8192);
  CHECK(sum / 20000 == Approx(7373).margin(15));
  // the calibration reader: "uniform 0.8-1.0 of isl/osl" becomes the same draws
  const Measurements m =
      io::read_measurements("engine,tp,isl,osl,lengths,concurrency,ttft_ms,tpot_ms,max_batch\n"
                            "sglang,4,8192,1024,uniform 0.8-1.0 of isl/osl,32,1480,34.1,32\n",
                            "runs.csv");
  REQUIRE(m.serving.size() == 1);
  CHECK(m.serving[0].max_batch == 32); // SGLang --max-running-requests
  const Config base = io::parse_config(nlohmann::json::parse(
      R"({"model": "deepseek-r1", "hardware": "b200", "cluster": "dgx-b200", "workload":
      {"mode": "serve", "concurrency": 4, "prompt_len": 1024, "gen_len": 1024, "precision":
      "fp8", "weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "sglang"},
      "parallel": {"tp": 8}})"));
  const Config run = serving_run_config(base, m.serving[0]);
  CHECK(run.workload.serve.length_dist == LengthDist::uniform);
  CHECK(run.workload.serve.range_ratio == 0.8);
  CHECK(run.workload.prompt_len == 7373); // (0.8 + 1) / 2 x 8192
  CHECK(run.workload.gen_len == 922);
  CHECK(run.workload.serve.max_batch == 32);
  // vLLM's --max-model-len holds the longest prompt and output drawn: 8192 + 1024
  Config vllm = run;
  vllm.workload.serve.engine.name = "vllm";
  CHECK(io::launch_export(vllm, resolve_layout(vllm), "vllm").find("--max-model-len 9216") !=
        std::string::npos);
  // the ratio belongs to uniform lengths: with others it is refused, by name
  const std::string err = test::error_of([] {
    test::serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 512, "gen_len": 128,
      "length_dist": "exponential", "range_ratio": 0.8})");
  });
  CHECK(err.rfind("workload.range_ratio: applies to length_dist uniform", 0) == 0);
}
