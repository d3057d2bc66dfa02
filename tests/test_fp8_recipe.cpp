// FP8 and FP4 training recipes: the quantisation kernels Transformer Engine runs around the
// linear layers' GEMMs, their measured cost, and the recipe knob in the config and the export.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/launch_export.hpp"
#include "core/memory/activations.hpp"
#include "core/time/quantize.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace rl;
using nlohmann::json;

namespace {
// MLPerf Training v4.0 GPT-3 175B on 512 H100 (NVIDIA's config_DGXH100_64x8x128x4x8_mbs2.sh:
// TP 4, PP 8, VPP 4, micro-batch 2, FP8 with FP8 parameters; presets/validation/heldout.json).
json gpt3_fp8(const char *recipe) {
  json j = json::parse(R"({"model": "gpt3-175b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100-1024", "devices": 512},
    "workload": {"mode": "train", "global_batch": 2304, "seq_len": 2048, "precision": "fp8",
      "fp8_params": true, "fp32_grads": false},
    "parallel": {"tp": 4, "pp": 8, "vpp": 4, "microbatch": 2, "zero": 1, "sp": true,
      "recompute": "none", "overlap_tp": true}})");
  j["workload"]["fp8_recipe"] = recipe;
  return j;
}

OpCost quantize_op(const Config &c) {
  const Layout l = resolve_layout(c);
  const std::vector<OpCost> ops =
      layer_ops(c.model, false, l, static_cast<double>(c.workload.seq_len), c.hardware,
                c.workload.precision, c.workload.causal_skip, 1, c.workload.fp8_recipe);
  const auto it =
      std::find_if(ops.begin(), ops.end(), [](const OpCost &o) { return o.name == "quantize"; });
  REQUIRE(it != ops.end());
  return *it;
}

// H100 SXM's fitted cast kernel (presets/hardware/h100-sxm.json): 1.36 us + bytes at 0.922 of
// 3.35 TB/s.
constexpr double kCastLatency = 1.36e-6, kCastBw = 0.922 * 3.35e12;
constexpr double kAmaxLatency = 7.25e-6, kAmaxBw = 0.393 * 3.35e12;
} // namespace

TEST_CASE("fp8 recipes: bytes written per quantised element", "[precision][fp8]") {
  // Transformer Engine writes a row-wise and a column-wise copy of every FP8 operand (Hopper's
  // FP8 GEMMs take K-major operands only; MX and block scales run along K)
  const QuantizeFormat delayed = quantize_format(Dtype::fp8, Fp8Recipe::delayed);
  CHECK(delayed.out_bytes == 1);
  CHECK(delayed.copies == 2);
  CHECK_FALSE(delayed.amax_pass); // the amax comes from the history, taken inside the cast
  CHECK(quantize_format(Dtype::fp8, Fp8Recipe::tensorwise).amax_pass); // current scaling
  // DeepSeek-V3 sec. 3.3.2: an fp32 scale per 1 x 128 tile
  CHECK(quantize_format(Dtype::fp8, Fp8Recipe::blockwise).out_bytes == 1 + 4.0 / 128);
  // OCP MX v1.0: an E8M0 scale per 32 (MXFP8 1 + 1/32, MXFP4 0.5 + 1/32)
  CHECK(quantize_format(Dtype::mxfp8, Fp8Recipe::delayed).out_bytes == 1.03125);
  CHECK(quantize_format(Dtype::mxfp4, Fp8Recipe::delayed).out_bytes == 0.53125);
  // NVFP4: an E4M3 scale per 16 values, after a per-tensor amax for its fp32 scale
  const QuantizeFormat nv = quantize_format(Dtype::nvfp4, Fp8Recipe::delayed);
  CHECK(nv.out_bytes == 0.5625);
  CHECK(nv.amax_pass);
  CHECK(quantize_format(Dtype::bf16, Fp8Recipe::delayed).copies == 0);
}

TEST_CASE("fp8 recipes: one GPT-3 175B layer's casts by hand (TP 4, SP, 4096 tokens)",
          "[precision][fp8][time]") {
  const Config c = io::parse_config(gpt3_fp8("delayed"));
  const OpCost q = quantize_op(c);
  // tokens 2 x 2048 = 4096; h 12288 / SP 4 = 3072; 24 heads of 128 per rank; ffn 49152 / 4.
  // Forward: the QKV and MLP inputs leave the norm already cast (2 copies x 1 B written), the
  // second MLP GEMM's input leaves the GeLU so, the output projection's input (attention's
  // output) is cast by its own kernel (read 2 B, write 2 x 1 B).
  const double sp_h = 4096.0 * 3072, attn_out = 4096.0 * 24 * 128, ffn = 4096.0 * 12288;
  const double fused = 2 * (sp_h + sp_h + ffn), standalone = 4 * attn_out;
  CHECK(q.bytes == fused + standalone); // 201,326,592 B
  CHECK(q.time == Approx(fused / kCastBw + kCastLatency + standalone / kCastBw));
  // Backward: the output gradients of QKV (4096 x 3 x 24 x 128, from attention's backward),
  // of the output projection and of the second MLP GEMM (the SP shard of the residual
  // stream) standalone; the first MLP GEMM's from GeLU's backward, fused.
  const double qkv_grad = 4096.0 * 3 * 24 * 128;
  CHECK(q.bwd ==
        Approx(3 * kCastLatency + 4 * (qkv_grad + sp_h + sp_h) / kCastBw + 2 * ffn / kCastBw));

  // tensorwise (current scaling): every tensor gets an amax pass and a cast kernel of its own
  const OpCost t = quantize_op(io::parse_config(gpt3_fp8("tensorwise")));
  const double fwd_elems = sp_h + sp_h + ffn + attn_out;
  CHECK(t.time == Approx(4 * (kCastLatency + kAmaxLatency) + 4 * fwd_elems / kCastBw +
                         2 * fwd_elems / kAmaxBw));
  CHECK(t.time > 4 * q.time);
  // blockwise: the delayed casts with an fp32 scale per 128 values written too
  const OpCost b = quantize_op(io::parse_config(gpt3_fp8("blockwise")));
  CHECK(b.bytes ==
        Approx(2 * (1 + 4.0 / 128) * (sp_h + sp_h + ffn) + (2 + 2 * (1 + 4.0 / 128)) * attn_out));
}

TEST_CASE("fp8 recipes: the casts lengthen the step, bf16 has none", "[precision][fp8][time]") {
  const Estimate d = estimate(io::parse_config(gpt3_fp8("delayed")));
  const Estimate t = estimate(io::parse_config(gpt3_fp8("tensorwise")));
  CHECK(t.time.step > d.time.step);
  json j = gpt3_fp8("delayed");
  j["workload"]["precision"] = "bf16";
  j["workload"].erase("fp8_params");
  j["workload"].erase("fp8_recipe");
  const Config bf = io::parse_config(j);
  const Layout l = resolve_layout(bf);
  for (const OpCost &o :
       layer_ops(bf.model, false, l, 2048, bf.hardware, Dtype::bf16, true, 1, Fp8Recipe::delayed))
    CHECK(o.name != "quantize");
  // inference (no recipe passed): the engines' measured GEMMs carry their own quantisation
  const Config fp8 = io::parse_config(gpt3_fp8("delayed"));
  for (const OpCost &o :
       layer_ops(fp8.model, false, resolve_layout(fp8), 2048, fp8.hardware, Dtype::fp8, true))
    CHECK(o.name != "quantize");
}

TEST_CASE("fp8 recipes: the weights are cast once a step", "[precision][fp8][time]") {
  const HardwareSpec h100 = io::parse_hardware(json("h100-sxm"), "hardware");
  const QuantizeFormat f = quantize_format(Dtype::fp8, Fp8Recipe::delayed);
  // 1e9 bf16 weights in 100 matrices: read 2 B, write 2 copies of 1 B; under fp8_params the
  // FP8 weight is read and its column-wise copy written (1 + 1 B)
  CHECK(weight_quantize_time(h100, f, 1e9, 100, false) ==
        Approx(100 * kCastLatency + 4e9 / kCastBw));
  CHECK(weight_quantize_time(h100, f, 1e9, 100, true) ==
        Approx(100 * kCastLatency + 2e9 / kCastBw));
  // GPT-3's dense layer: QKV, output projection, two MLP matrices
  const Config c = io::parse_config(gpt3_fp8("delayed"));
  CHECK(linear_weights_per_layer(c.model, false, 1) == 4);
}

TEST_CASE("fp8 recipes: the knob is refused outside precision fp8, naming it", "[precision]") {
  json j = gpt3_fp8("tensorwise");
  j["workload"]["precision"] = "bf16";
  j["workload"].erase("fp8_params");
  CHECK(test::error_of([&] { io::parse_config(j); }) ==
        "workload.fp8_recipe: is the scaling of precision fp8 (mxfp8 and the FP4 formats carry "
        "their own), not of bf16");
  j["workload"]["precision"] = "fp8";
  j["workload"]["fp8_recipe"] = "rowwise";
  CHECK(test::error_of([&] { io::parse_config(j); }).rfind("workload.fp8_recipe:", 0) == 0);
}

TEST_CASE("fp8 recipes export as Megatron-LM's --fp8-recipe", "[export][precision]") {
  // Megatron-LM arguments.py: --fp8-format {e4m3,hybrid}, --fp8-recipe {tensorwise, delayed,
  // mxfp8, blockwise} (default delayed)
  auto megatron = [](const char *recipe) {
    const Config c = io::parse_config(gpt3_fp8(recipe));
    return io::launch_export(c, resolve_layout(c), "megatron");
  };
  const std::string d = megatron("delayed"), t = megatron("tensorwise"), b = megatron("blockwise");
  CHECK(d.find("--fp8-format hybrid") != std::string::npos);
  CHECK(d.find("--fp8-recipe") == std::string::npos);
  CHECK(t.find("--fp8-format hybrid --fp8-recipe tensorwise") != std::string::npos);
  CHECK(b.find("--fp8-format e4m3 --fp8-recipe blockwise") != std::string::npos);
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("fp8 recipes: the presets' cast and amax fits are what the measured points give",
          "[precision][calibrate]") {
  // docs/data/aic/quantize.csv (AIConfigurator's measured FP8 casts and amax kernels, TensorRT-LLM
  // 1.3.0rc20) against t = latency + bytes / (bw_efficiency x hbm_bw) with each preset's fit,
  // over the fitted tensors (up to 1 MB and from 256 MB): the median |error| docs/calibration.md
  // states (`ridgeline calibrate docs/data/aic/quantize.csv --base h100-sxm`).
  std::map<std::string, std::vector<double>> errors;
  // gpu,engine,version,op,m,k,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/quantize.csv")) {
    REQUIRE(row.size() == 7);
    const std::string &gpu = row[0], &op = row[3], &m = row[4], &k = row[5], &t = row[6];
    const HardwareSpec hw = io::parse_hardware(json(gpu), "hardware");
    const double elems = std::stod(m) * std::stod(k);
    const bool cast = op == "cast";
    const double bytes = (cast ? 3 : 2) * elems; // read bf16 (+ write FP8)
    if (bytes > 1e6 && bytes < 256e6)
      continue; // partly in L2: printed by the script, not fitted
    const double model = cast
                             ? hw.quantize_latency + bytes / (hw.quantize_bw_efficiency * hw.hbm_bw)
                             : hw.amax_latency + bytes / (hw.amax_bw_efficiency * hw.hbm_bw);
    errors[gpu + " " + op].push_back(std::fabs(model / std::stod(t) - 1));
  }
  const std::map<std::string, double> stated = {{"h100-sxm cast", 0.014}, {"h100-sxm amax", 0.011},
                                                {"b200 cast", 0.061},     {"b200 amax", 0.048},
                                                {"b300 cast", 0.024},     {"b300 amax", 0.036}};
  REQUIRE(errors.size() == stated.size());
  for (auto &[key, e] : errors) {
    std::sort(e.begin(), e.end());
    INFO(key);
    CHECK(e[e.size() / 2] == Approx(stated.at(key)).margin(0.0015));
  }
}
#endif

TEST_CASE("BF16 first and last layers under FP8: which layers, their time, memory and flags",
          "[precision][time][memory]") {
  // Megatron-LM --first-last-layers-bf16 --num-layers-at-start-in-bf16 2
  // --num-layers-at-end-in-bf16 3 (fp8_utils.py get_fp8_context: layer_no < start or >= L - end
  // runs outside the FP8 autocast). Llama 3 70B (80 layers), TP 4, PP 4, VPP 2: chunks of 10.
  json j = json::parse(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 128, "seq_len": 8192, "precision": "fp8",
      "fp8_recipe": "tensorwise", "bf16_first_layers": 2, "bf16_last_layers": 3},
    "parallel": {"tp": 4, "pp": 4, "vpp": 2, "microbatch": 1, "zero": 1, "sp": true,
      "recompute": "none"}})");
  const Config c = io::parse_config(j);
  const Layout l = resolve_layout(c);
  // layers 0-1 sit in chunk 0 (stage 0), layers 77-79 in chunk 7 (stage 3)
  const std::vector<StageLayerCount> mix = stage_layer_mix(c.model, l, bf16_layers(c.workload));
  CHECK(mix[0].dense_bf16 == 2);
  CHECK(mix[1].dense_bf16 == 0);
  CHECK(mix[2].dense_bf16 == 0);
  CHECK(mix[3].dense_bf16 == 3);
  CHECK(mix[3].dense == 20);
  // a BF16 layer costs what the same layer costs in a bf16 run
  Config plain = c;
  plain.workload.precision = Dtype::bf16;
  const LayerTimes b16 = layer_times(c, l, false, true), ref = layer_times(plain, l, false);
  CHECK(b16.f == Approx(ref.f));
  CHECK(b16.b == Approx(ref.b));
  const LayerTimes f8 = layer_times(c, l, false);
  // a stage sums its layers of each kind
  const LayerSet ts = layer_set(c, l);
  CHECK(over_layers(mix[3], ts, [](const LayerTimes &x) { return x.f; }) ==
        Approx(17 * f8.f + 3 * b16.f));
  // memory: stage 0 keeps its 18 FP8 and 2 BF16 layers' inputs, each type at its own bytes
  const LayerActivationBytes per =
      layer_activation_bytes(c.model, l, static_cast<double>(c.workload.seq_len), Dtype::fp8, true);
  const LayerActivationBytes per16 =
      layer_activation_bytes(c.model, l, static_cast<double>(c.workload.seq_len), Dtype::bf16);
  CHECK(per.kept_dense_bf16 == Approx(per16.kept_dense));
  CHECK(per.kept_dense_bf16 > per.kept_dense); // FP8 keeps the linear layers' inputs at 1 B
  const Estimate e = estimate(c);
  CHECK(e.stages[0].activations.layers ==
        Approx(e.stages[0].activations.layers_in_flight *
               (18 * per.kept_dense + 2 * per.kept_dense_bf16) / 20));
  // Megatron-LM's defaults are 1 and 1: both counts are written
  CHECK(io::launch_export(c, l, "megatron")
            .find("--first-last-layers-bf16 --num-layers-at-start-in-bf16 2 "
                  "--num-layers-at-end-in-bf16 3") != std::string::npos);
  // refused: under bf16, with delayed scaling (Megatron raises), beyond layers / pp
  json bad = j;
  bad["workload"]["precision"] = "bf16";
  bad["workload"].erase("fp8_recipe");
  CHECK(test::error_of([&] { io::parse_config(bad); }) ==
        "workload.bf16_first_layers: keeps layers in BF16 under an FP8 or FP4 precision, not "
        "under bf16");
  bad = j;
  bad["workload"]["fp8_recipe"] = "delayed";
  CHECK(test::error_of([&] { io::parse_config(bad); }) ==
        "workload.bf16_first_layers: needs fp8_recipe tensorwise or blockwise: Megatron-LM "
        "refuses BF16 layers with delayed scaling");
  bad = j;
  bad["workload"]["bf16_last_layers"] = 21;
  CHECK(test::error_of([&] { resolve_layout(io::parse_config(bad)); }) ==
        "workload.bf16_last_layers: 21 exceeds layers / pp = 20 (Megatron-LM's bound)");
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
TEST_CASE("B200's FP8 and FP4 GEMM efficiencies are the measured rates relative to bf16",
          "[precision][calibrate]") {
  // docs/data/aic/gemm_large.csv (AIConfigurator's TensorRT-LLM 1.2.0rc5 GEMMs, M, N, K
  // 4096-16384): the median over shapes of (t_bf16 / t_dtype) x (peak_bf16 / peak_dtype), and
  // the table's bias on H100 (its fitted fp8/bf16 over the table's), as
  // `ridgeline calibrate docs/data/aic/gemm_large.csv --base b200` computes them
  // (docs/calibration.md)
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> t; // gpu shape dtype
  // gpu,engine,version,dtype,m,n,k,latency_s
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/gemm_large.csv")) {
    REQUIRE(row.size() == 8);
    t[row[0]][row[4] + "x" + row[5] + "x" + row[6]][row[3]] = std::stod(row[7]);
  }
  const auto median_ratio = [&](const std::string &gpu, const char *dtype, Dtype d) {
    const HardwareSpec hw = io::parse_hardware(json(gpu), "hardware");
    std::vector<double> r;
    for (const auto &[shape, v] : t[gpu])
      if (v.count("bf16") && v.count(dtype))
        r.push_back(v.at("bf16") / v.at(dtype) * hw.peak.bf16 / peak_flops(hw, d));
    std::sort(r.begin(), r.end());
    REQUIRE(r.size() == 27);
    return r[r.size() / 2];
  };
  const double h100 = median_ratio("h100-sxm", "fp8", Dtype::fp8);
  const double b8 = median_ratio("b200", "fp8", Dtype::fp8);
  const double b4 = median_ratio("b200", "fp4", Dtype::nvfp4);
  CHECK(h100 == Approx(0.738).margin(0.001));
  CHECK(b8 == Approx(0.691).margin(0.001));
  CHECK(b4 == Approx(0.566).margin(0.001));
  const HardwareSpec h = io::parse_hardware(json("h100-sxm"), "hardware");
  const HardwareSpec b = io::parse_hardware(json("b200"), "hardware");
  const double bias = h.gemm_efficiency_fp8 / h.gemm_efficiency / h100;
  CHECK(b.gemm_efficiency_fp8 == Approx(b.gemm_efficiency * b8 * bias).margin(0.001));
  CHECK(b.gemm_efficiency_fp4 == Approx(b.gemm_efficiency * b4 * bias).margin(0.001));
}

TEST_CASE("GB200, GB300 and B300 GEMM efficiencies are B200's times their measured speed-ups",
          "[precision][calibrate]") {
  // docs/data/aic/gemm_large_rc10.csv (AIConfigurator's TensorRT-LLM 1.3.0rc10 GEMMs, one
  // version for every chip, M, N, K 4096-16384): the median over shapes of t_b200 / t_chip,
  // times B200's efficiency and B200's peak over the chip's (docs/calibration.md "Blackwell
  // GEMMs")
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> t; // gpu dtype shape
  for (const std::vector<std::string> &row : test::csv_rows("docs/data/aic/gemm_large_rc10.csv")) {
    REQUIRE(row.size() == 8);
    REQUIRE(row[2] == "1.3.0rc10");
    t[row[0]][row[3]][row[4] + "x" + row[5] + "x" + row[6]] = std::stod(row[7]);
  }
  const auto speedup = [&](const std::string &gpu, const std::string &ref, const char *dtype) {
    std::vector<double> r;
    for (const auto &[shape, s] : t[gpu][dtype])
      r.push_back(t[ref][dtype].at(shape) / s);
    std::sort(r.begin(), r.end());
    REQUIRE(r.size() == 27);
    return r[r.size() / 2];
  };
  const HardwareSpec b = io::parse_hardware(json("b200"), "hardware");
  struct Want {
    const char *gpu;
    double bf16, fp8, fp4; // measured median speed-ups over B200
  };
  for (const Want &w : {Want{"gb200", 1.089, 1.041, 1.081}, Want{"gb300", 1.215, 1.161, 1.248},
                        Want{"b300", 1.030, 1.045, 1.177}}) {
    CAPTURE(w.gpu);
    const HardwareSpec h = io::parse_hardware(json(w.gpu), "hardware");
    const double s16 = speedup(w.gpu, "b200", "bf16"), s8 = speedup(w.gpu, "b200", "fp8"),
                 s4 = speedup(w.gpu, "b200", "fp4");
    CHECK(s16 == Approx(w.bf16).margin(0.001));
    CHECK(s8 == Approx(w.fp8).margin(0.001));
    CHECK(s4 == Approx(w.fp4).margin(0.001));
    CHECK(h.gemm_efficiency ==
          Approx(b.gemm_efficiency * s16 * b.peak.bf16 / h.peak.bf16).margin(0.001));
    CHECK(h.gemm_efficiency_fp8 ==
          Approx(b.gemm_efficiency_fp8 * s8 * b.peak.fp8 / h.peak.fp8).margin(0.001));
    CHECK(h.gemm_efficiency_fp4 ==
          Approx(b.gemm_efficiency_fp4 * s4 * b.peak.fp4 / h.peak.fp4).margin(0.001));
  }
  // H200 is H100's compute: the same table reads it at H100's speed, so it keeps H100's fit
  CHECK(speedup("h200", "h100-sxm", "bf16") == Approx(1.0).margin(0.01));
  CHECK(io::parse_hardware(json("h200"), "hardware").gemm_efficiency ==
        io::parse_hardware(json("h100-sxm"), "hardware").gemm_efficiency);
}
#endif
