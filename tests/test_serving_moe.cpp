// The serving engines' measured kernels per chip: the MoE experts' compute efficiency per chip
// and dtype (AIConfigurator's measured MoE layers, docs/data/aic/moe_serving.csv, docs/serving.md
// "MoE experts") with the iteration model running the routed experts at it, and the decode
// attention fits (docs/data/aic/decode_attention.csv, "Decode attention").
#include "core/io/config_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/parallel/layout.hpp"
#include "core/report/serve_report.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/simulate.hpp"
#include "core/time/step_time.hpp"
#include "tests/helpers.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace rl;
using nlohmann::json;

namespace {
// The minimum of a unimodal f on [lo, hi] (ternary search, 60 steps): the fits of
// docs/serving.md "MoE experts" and "Decode attention" recomputed.
template <class F> double ternary_min(F &&f, double lo, double hi) {
  for (int i = 0; i < 60; ++i) {
    const double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (f(a) < f(b))
      hi = b;
    else
      lo = a;
  }
  return (lo + hi) / 2;
}
// DeepSeek-R1 FP8 (block scales, FP8 KV cache) on 8 B200 under SGLang at TP 8, and one
// 8,192-token prompt prefilled alone: the two MoE and attention cases below.
Config deepseek_r1_sglang_b200() {
  return io::parse_config(json::parse(
      R"({"model": "deepseek-r1", "hardware": "b200", "cluster": "dgx-b200",
          "workload": {"mode": "serve", "concurrency": 4, "prompt_len": 8192, "gen_len": 16,
                       "precision": "fp8", "weight_dtype": "fp8", "kv_dtype": "fp8",
                       "fp8_recipe": "blockwise", "engine": "sglang"},
          "parallel": {"tp": 8}})"));
}
IterationLoad prompt_8k() {
  IterationLoad x;
  x.prefill = 8192;
  x.prefill_pairs = 8192.0 * 4096;
  x.prefill_kv = 8192;
  x.outputs = 1;
  return x;
}
} // namespace

TEST_CASE("serving MoE: routed experts run at the engine's measured MoE efficiency",
          "[serve][moe]") {
  // DeepSeek-R1 FP8 (block scales) on 8 B200, SGLang, TP 8: an 8,192-token prefill. Each GPU
  // holds 1/8 of every routed expert (3 x 7168 x 2048 weights, 256 experts); the tokens make
  // 2 x 8192 x 8 x (256 x 3 x 7168 x 2048 / 8) / 256 FLOPs a layer on each GPU, compute-bound
  // at SGLang's measured 0.17 of B200's 4.5 PFLOP/s FP8 (presets/engines/sglang.json "moe").
  Config c = deepseek_r1_sglang_b200();
  REQUIRE(moe_efficiency(c.workload.serve.engine, "b200", c.workload) == 0.17);
  const IterationLoad x = prompt_8k();
  const double expert_flops = 2 * 8192.0 * 8 * (3.0 * 7168 * 2048 / 8); // per GPU, one layer
  const double moe_layers = 61 - 3;                                     // first_k_dense_replace 3
  const IterationTime t = IterationModel(c, resolve_layout(c)).time(x);
  CHECK(t.linear_experts == Approx(moe_layers * expert_flops / (4.5e15 * 0.17)).epsilon(1e-9));
  // the report says which the run used
  c.workload.serve.requests = 8;
  const ServeReport rep = serve_report(c, simulate_serving(c));
  const ReportLine *row = rep.summary.row("moe_efficiency");
  REQUIRE(row);
  CHECK(row->cells[1].text == "17.0% of peak");
  // without the measured efficiency (a chip the tables do not cover) the experts join the
  // layer's other GEMMs at the dense efficiency: the same FLOPs take a fraction of the time
  c.workload.serve.engine.moe_on.clear();
  const IterationTime dense = IterationModel(c, resolve_layout(c)).time(x);
  CHECK(dense.linear_experts == 0);
  CHECK(dense.linear < t.linear - 0.5 * t.linear_experts);
  const ServeReport dense_rep = serve_report(c, simulate_serving(c));
  const ReportLine *none = dense_rep.summary.row("moe_efficiency");
  REQUIRE(none);
  CHECK(none->cells[1].text == "as dense GEMMs");
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("serving MoE: the engines' MoE efficiencies are the fit to the measured layers",
          "[serve][moe][calibrate]") {
  // docs/data/aic/moe_serving.csv: per (chip, engine, dtype), the share of peak e minimising
  // sum log^2(max(FLOPs / (peak e), expert weights / (HBM x hbm_efficiency)) / measured), as
  // docs/serving.md "MoE experts" states; the presets hold it to three figures.
  struct Point {
    double flops_time, bytes_time, measured;
  };
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<Point>> groups;
  // gpu,engine,version,kernel,dtype,hidden,inter,experts,topk,moe_tp,ep,tokens,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/moe_serving.csv")) {
    REQUIRE(row.size() == 13);
    const HardwareSpec hw = io::parse_hardware(json(row[0]), "hardware");
    const std::string dtype = row[4];
    const Dtype d = dtype == "bf16" ? Dtype::bf16 : dtype == "fp4" ? Dtype::nvfp4 : Dtype::fp8;
    const double h = std::stod(row[5]), inter = std::stod(row[6]), E = std::stod(row[7]),
                 k = std::stod(row[8]), tp = std::stod(row[9]), ep = std::stod(row[10]),
                 T = std::stod(row[11]);
    const double wb = dtype == "bf16" ? 2 : dtype == "fp4" ? 0.5625 : 1; // NVFP4: 4 bits + scales
    const double flops = 2 * T * k * 3 * h * inter / (tp * ep);
    const double bytes = E / ep * 3 * h * inter / tp * wb * (1 - std::pow(1 - k / E, T));
    groups[{row[0], row[1], dtype}].push_back(
        {flops / peak_flops(hw, d), bytes / (hw.hbm_bw * hw.hbm_efficiency), std::stod(row[12])});
  }
  REQUIRE(groups.size() == 54);
  for (const auto &[key, points] : groups) {
    const auto &[gpu, engine, dtype] = key;
    const auto cost = [&](double e) {
      double s = 0;
      for (const Point &p : points) {
        const double l = std::log(std::max(p.flops_time / e, p.bytes_time) / p.measured);
        s += l * l;
      }
      return s;
    };
    const double e_fit = ternary_min(cost, 0.005, 1.0); // the cost is unimodal in e
    const EngineSpec es = io::parse_engine(json(engine), "engine");
    WorkloadSpec w;
    w.precision = w.weight_dtype = dtype == "bf16"  ? Dtype::bf16
                                   : dtype == "fp4" ? Dtype::nvfp4
                                                    : Dtype::fp8;
    w.fp8_recipe = dtype == "fp8_block" ? Fp8Recipe::blockwise : Fp8Recipe::tensorwise;
    INFO(gpu << " " << engine << " " << dtype);
    CHECK(moe_efficiency(es, gpu, w) == Approx(e_fit).margin(0.0006));
  }
}
#endif

TEST_CASE("decode attention: a chip's own fit replaces the calibrated chip's", "[serve]") {
  // workload.engine.decode_attention.on: B200's measured vLLM FlashInfer fit (docs/serving.md
  // "Decode attention": 7.20 us, 0.895) used on B200, the H100 fit elsewhere
  const EngineSpec e = io::parse_engine(
      json::parse(R"({"name": "vllm", "decode_attention": {"latency": 12.5e-6, "bw_efficiency":
        0.793, "on": {"b200": {"latency": 7.2e-6, "bw_efficiency": 0.895}}}})"),
      "engine");
  CHECK(engine_decode_attention(e, "b200").latency == 7.2e-6);
  CHECK(engine_decode_attention(e, "b200").bw_efficiency == 0.895);
  CHECK(engine_decode_attention(e, "h200").latency == 12.5e-6);
  CHECK(test::error_of([] {
          io::parse_engine(json::parse(R"({"decode_attention": {"latency": 1e-5,
            "bw_efficiency": 0.8, "on": {"b200": {"latency": 1e-5}}}})"),
                           "engine");
        }) == "engine.decode_attention.on.b200.bw_efficiency: is required");
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("decode attention: the engines' per-chip fits are the fit to the measured kernels",
          "[serve][calibrate]") {
  // docs/data/aic/decode_attention.csv: per (chip, engine), latency L and bandwidth share b
  // minimising sum log^2((L + KV bytes / (b x hbm_bw)) / measured), KV bytes = batch x context
  // x kv_heads x head_dim x 2 (K and V) x 2 (bf16), as docs/serving.md "Decode attention"
  // states; nested ternary searches (ln b on [ln 0.05, ln 2], L on [0, 100 us]). The presets
  // hold L to four figures and b to three.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> groups;
  // gpu,engine,version,kernel,batch,context,heads,kv_heads,head_dim,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/decode_attention.csv")) {
    REQUIRE(row.size() == 10);
    const HardwareSpec hw = io::parse_hardware(json(row[0]), "hardware");
    const double bytes =
        std::stod(row[4]) * std::stod(row[5]) * std::stod(row[7]) * std::stod(row[8]) * 2 * 2;
    groups[{row[0], row[1]}].push_back({bytes / hw.hbm_bw, std::stod(row[9])});
  }
  REQUIRE(groups.size() == 12);
  for (const auto &[key, points] : groups) {
    const auto &[gpu, engine] = key;
    const auto cost = [&](double L, double b) {
      double s = 0;
      for (const auto &[t_bytes, measured] : points) {
        const double l = std::log((L + t_bytes / b) / measured);
        s += l * l;
      }
      return s;
    };
    const auto best_l = [&](double b) {
      return ternary_min([&](double L) { return cost(L, b); }, 0, 1e-4);
    };
    const double b =
        std::exp(ternary_min([&](double lb) { return cost(best_l(std::exp(lb)), std::exp(lb)); },
                             std::log(0.05), std::log(2.0)));
    const double L = best_l(b);
    INFO(gpu << " " << engine << ": " << L << " s, " << b);
    // docs/serving.md "Decode attention", the per-chip table
    const std::map<std::pair<std::string, std::string>, std::pair<double, double>> doc = {
        {{"h100-sxm", "vllm"}, {12.50e-6, 0.793}},   {{"h100-sxm", "sglang"}, {12.90e-6, 0.811}},
        {{"h100-sxm", "trtllm"}, {17.13e-6, 0.825}}, {{"h200", "vllm"}, {13.05e-6, 0.707}},
        {{"h200", "sglang"}, {13.36e-6, 0.730}},     {{"h200", "trtllm"}, {17.98e-6, 0.656}},
        {{"b200", "vllm"}, {7.20e-6, 0.895}},        {{"b200", "sglang"}, {8.89e-6, 0.967}},
        {{"b200", "trtllm"}, {16.19e-6, 1.368}},     {{"gb200", "vllm"}, {10.04e-6, 0.942}},
        {{"gb200", "sglang"}, {9.92e-6, 1.019}},     {{"gb200", "trtllm"}, {17.38e-6, 0.143}}};
    CHECK(L == Approx(doc.at(key).first).margin(0.006e-6));
    CHECK(b == Approx(doc.at(key).second).margin(0.0006));
    // the presets hold the H100 fit, used on every chip (the per-chip fits predict the
    // calibration groups they were not fitted to worse: docs/serving.md)
    const EngineSpec es = io::parse_engine(json(engine), "engine");
    CHECK(es.decode_attention_on.empty());
    if (gpu == "h100-sxm") {
      CHECK(es.decode_attention.latency == Approx(L).margin(0.006e-6));
      CHECK(es.decode_attention.bw_efficiency == Approx(b).margin(0.0006));
    }
  }
}
#endif

TEST_CASE("prefill attention: a prompt's attention runs at the engine's measured context kernel",
          "[serve]") {
  // DeepSeek-R1 (MLA: 128 heads, q/k head dim 192, v 128) with an FP8 KV cache on 8 B200,
  // SGLang, TP 8: an 8,192-token prefill. 16 heads a GPU, 8192 x 4096 causal q-k pairs, 2 x 16 x
  // (192 + 128) FLOPs a pair, at SGLang's measured MLA context kernel, 0.562 of B200's 2.25
  // PFLOP/s bf16 (presets/engines/sglang.json "context_attention"), in each of 61 layers
  Config c = deepseek_r1_sglang_b200();
  REQUIRE(context_attention_efficiency(c.workload.serve.engine, "b200", c.model, Dtype::fp8) ==
          0.562);
  const IterationLoad x = prompt_8k();
  const double flops = 2 * 16 * (192.0 + 128) * 8192 * 4096; // per GPU, one layer
  const IterationTime t = IterationModel(c, resolve_layout(c)).time(x);
  CHECK(t.attention == Approx(61 * flops / (2.25e15 * 0.562)).epsilon(1e-9));
  // the report and the JSON say which the run used
  c.workload.serve.requests = 8;
  const ServeResult measured = simulate_serving(c);
  const ServeReport rep = serve_report(c, measured);
  const ReportLine *row = rep.summary.row("prefill_attention");
  REQUIRE(row);
  CHECK(row->cells[1].text == "56.2% of bf16 peak");
  CHECK(row->cells[2].text == "measured context kernel of sglang@0.5.1-0.5.9 on b200");
  const json j = io::to_json(measured);
  CHECK(j["engine"]["prefill_attention"]["efficiency"] == 0.562);
  CHECK(j["engine"]["prefill_attention"]["measured"] == true);
  // a chip without a measured kernel: the chip's FlashAttention share (attention_efficiency)
  c.workload.serve.engine.context_attention_on.clear();
  const IterationTime fa = IterationModel(c, resolve_layout(c)).time(x);
  CHECK(fa.attention ==
        Approx(61 * flops / (2.25e15 * c.hardware.attention_efficiency)).epsilon(1e-9));
  const ServeReport fallback_rep = serve_report(c, simulate_serving(c));
  const ReportLine *fallback = fallback_rep.summary.row("prefill_attention");
  REQUIRE(fallback);
  CHECK(fallback->cells[1].text == "44.0% of bf16 peak"); // b200's attention_efficiency 0.44
  // GQA: Llama-3.1-70B with a bf16 KV cache on H100 under vLLM takes the FlashAttention fit
  const EngineSpec vllm = io::parse_engine(json("vllm"), "engine");
  CHECK(context_attention_efficiency(vllm, "h100-sxm", test::model("llama3.1-70b"), Dtype::bf16) ==
        0.516);
  CHECK(context_attention_efficiency(vllm, "a100-80gb", test::model("llama3.1-70b"), Dtype::bf16) ==
        0); // not measured there
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("prefill attention: the engines' per-chip fits are the measured kernels' medians",
          "[serve][calibrate]") {
  // docs/data/aic/context_attention.csv: per (engine, chip, attention, KV dtype), the median over
  // the prompts of 4,096 tokens and more of FLOPs / (latency x the chip's bf16 peak), causal
  // FLOPs = batch x heads x (qk_dim + v_dim) x isl^2, as docs/serving.md "Prefill attention"
  // states; the presets hold them to three figures.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> groups;
  // gpu,engine,version,kernel,attention,kv,batch,isl,heads,kv_heads,qk_dim,v_dim,latency_s
  for (const std::vector<std::string> &row :
       test::csv_rows("docs/data/aic/context_attention.csv")) {
    REQUIRE(row.size() == 13);
    const double isl = std::stod(row[7]);
    if (isl < 4096)
      continue;
    const HardwareSpec hw = io::parse_hardware(json(row[0]), "hardware");
    const double flops = std::stod(row[6]) * std::stod(row[8]) *
                         (std::stod(row[10]) + std::stod(row[11])) * isl * isl;
    groups[{row[1], row[0], (row[4] == "mla" ? "mla_" : "") + row[5]}].push_back(
        flops / std::stod(row[12]) / peak_flops(hw, Dtype::bf16));
  }
  REQUIRE(groups.size() == 34); // 3 engines x 3 chips x 4 cases, less vLLM's MLA on B200
  for (auto &[key, shares] : groups) {
    const auto &[engine, gpu, kind] = key;
    std::sort(shares.begin(), shares.end());
    const std::size_t n = shares.size();
    const double median = n % 2 ? shares[n / 2] : (shares[n / 2 - 1] + shares[n / 2]) / 2;
    const EngineSpec es = io::parse_engine(json(engine), "engine");
    const EngineSpec::ContextAttention &f = es.context_attention_on.at(gpu);
    const double preset = kind == "bf16"       ? f.bf16
                          : kind == "fp8"      ? f.fp8
                          : kind == "mla_bf16" ? f.mla_bf16
                                               : f.mla_fp8;
    INFO(engine << " " << gpu << " " << kind);
    CHECK(preset == Approx(median).margin(0.0005));
  }
}
#endif
