// The one fitting path (core/calibrate/fit, io::calibrate_files): round trips on rows the model
// itself generates, the shipped fits reproduced from presets/validation/components.json, the
// closed loop of the serving simulator, and calibrate -> apply -> validate.
#include "core/calibrate/fit.hpp"
#include "core/estimate/estimate.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/readers.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/io/validation_json.hpp"
#include "core/parallel/layout.hpp"
#include "core/report/calibration_report.hpp"
#include "core/report/serve_report.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/layer_budget.hpp"
#include "tests/helpers.hpp"
#include "tests/sample_layer_profile.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

using namespace rl;
using nlohmann::json;

namespace {

// presets/validation/components.json, the shipped component points, as a measurement file.
io::MeasurementFile components_file() {
  for (const auto &e : io::preset_entries())
    if (e.kind == "validation" && e.name == "components")
      return {"components.json", e.text};
  FAIL("no components preset");
  return {};
}

const FittedParameter &param(const CalibrationResult &r, const std::string &path) {
  for (const FittedParameter &p : r.params)
    if (p.path == path)
      return p;
  FAIL("no fitted parameter " << path);
  return r.params.front();
}

// A GEMM point whose "measurement" is the model's own prediction on `truth`.
ComponentPoint synthetic_gemm(const HardwareSpec &truth, Dtype d, double m, double n, double k) {
  ComponentPoint p;
  p.kind = ComponentKind::gemm;
  p.name = "gemm";
  p.precision = d;
  p.m = m;
  p.n = n;
  p.k = k;
  p.hardware = truth;
  p.measured = predict_component(p).predicted;
  p.hardware = HardwareSpec{};
  p.fitted = true;
  return p;
}

} // namespace

using test::serve_config;

TEST_CASE("calibrate: the shipped A100 GEMM fit is reproduced from components.json",
          "[calibrate]") {
  // docs/calibration.md "GEMM": A100 gemm_efficiency 0.853, gemm_k_half 184 from 8 cuBLASLt
  // FP16 shapes + MAMF (rms 6%, max 13%); NVLink3 step latency 7.8 us with the efficiency
  // held at the NCCL team's 0.767.
  CalibrateOptions hold;
  hold.fixed = {"cluster.intra_node.efficiency"};
  const CalibrationResult r =
      io::calibrate_files(json("a100-80gb@dgx-a100"), {components_file()}, hold);
  CHECK(param(r, "hardware.gemm_efficiency").value == Approx(0.853).epsilon(0.002));
  CHECK(param(r, "hardware.gemm_k_half").value == 184);
  CHECK(param(r, "hardware.gemm_efficiency").count == 8);
  CHECK(param(r, "hardware.gemm_efficiency").max_abs_error == Approx(0.130).margin(0.002));
  // docs/calibration.md "Memory bandwidth": A100 80GB STREAM triad 1.70 of 2.039 TB/s
  CHECK(param(r, "hardware.hbm_efficiency").value == Approx(1.70 / 2.039).epsilon(1e-3));
  // the 1024^3 GEMM is marked not fitted: checked at the fitted values (+12%)
  CHECK(param(r, "cluster.intra_node.latency").value == Approx(7.8e-6).epsilon(0.01));
  REQUIRE(r.unfitted.size() == 1);
  CHECK(r.unfitted[0].error == Approx(0.12).margin(0.005));
}

TEST_CASE("calibrate: the shipped H100 FP8 GEMM and NVLink4 fits are reproduced", "[calibrate]") {
  // docs/calibration.md: H100 gemm_efficiency_fp8 0.731 and gemm_k_half 268 from 7 cuBLASLt
  // FP8 shapes + MAMF; bf16 0.845 from MAMF's 794.5 TFLOP/s; NVLink4 step latency 6.0 us
  // (Azure ND H100 v5, 1 MB and 16 MB, efficiency held at 0.822).
  CalibrateOptions hold;
  hold.fixed = {"cluster.intra_node.efficiency"};
  const CalibrationResult r =
      io::calibrate_files(json("h100-sxm@dgx-h100"), {components_file()}, hold);
  CHECK(param(r, "hardware.gemm_efficiency_fp8").value == Approx(0.731).epsilon(0.005));
  CHECK(param(r, "hardware.gemm_k_half").value == Approx(268).epsilon(0.02));
  CHECK(param(r, "hardware.gemm_efficiency").value == Approx(0.845).epsilon(0.001));
  CHECK(param(r, "cluster.intra_node.latency").value == Approx(6.0e-6).epsilon(0.01));
}

TEST_CASE("calibrate: GEMM parameters round trip on the model's own predictions", "[calibrate]") {
  Config base = io::parse_config(json("llama3-70b-h100-1024"));
  HardwareSpec truth = base.hardware;
  truth.gemm_efficiency = 0.71;
  truth.gemm_efficiency_fp8 = 0.62;
  truth.gemm_k_half = 312;
  Measurements m;
  for (const double s : {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0}) {
    m.components.push_back(synthetic_gemm(truth, Dtype::bf16, s, s, s));
    m.components.push_back(synthetic_gemm(truth, Dtype::fp8, s, 2 * s, s / 2));
  }
  const CalibrationResult r = calibrate(base, m);
  CHECK(r.hardware.gemm_efficiency == Approx(0.71).epsilon(0.01));
  CHECK(r.hardware.gemm_efficiency_fp8 == Approx(0.62).epsilon(0.01));
  CHECK(r.hardware.gemm_k_half == Approx(312).epsilon(0.01));
  CHECK(param(r, "hardware.gemm_efficiency").max_abs_error < 0.005);
}

TEST_CASE("calibrate: a link's latency and efficiency round trip from an nccl-tests-like sweep",
          "[calibrate]") {
  Config base = io::parse_config(json("llama3-70b-h100-1024"));
  ClusterSpec truth = base.cluster;
  truth.intra_node.latency = 4.2e-6;
  truth.intra_node.efficiency = 0.74;
  Measurements m;
  for (double bytes = 8192; bytes <= 8e9; bytes *= 4) {
    ComponentPoint p;
    p.kind = ComponentKind::collective;
    p.op = Collective::allreduce;
    p.group = 8;
    p.nodes = 1;
    p.bytes = bytes;
    p.cluster = truth;
    p.cluster.devices = 8;
    p.cluster.devices_per_node = 8;
    p.measured = predict_component(p).predicted;
    p.cluster = ClusterSpec{};
    p.fitted = true;
    m.components.push_back(p);
  }
  const CalibrationResult r = calibrate(base, m);
  CHECK(r.cluster.intra_node.latency == Approx(4.2e-6).epsilon(0.01));
  CHECK(r.cluster.intra_node.efficiency == Approx(0.74).epsilon(0.01));
  CHECK(r.cluster.inter_node.efficiency == base.cluster.inter_node.efficiency); // no such rows
}

TEST_CASE("calibrate: the compute overhead round trips from training-log step times",
          "[calibrate]") {
  Config base = io::parse_config(json("megatron-18b-a100"));
  Config truth = base;
  truth.hardware.compute_overhead = 0.2;
  const double step = estimate(truth).time.step;
  Measurements m;
  for (int i = 1; i <= 20; ++i) {
    TrainingSample t;
    t.file = "train.log";
    t.iteration = i;
    t.step_s = i <= 3 ? 3 * step : step; // warm-up iterations are slow and left out
    m.training.push_back(t);
  }
  const CalibrationResult r = calibrate(base, m);
  CHECK(r.hardware.compute_overhead == Approx(0.2).margin(0.001));
  REQUIRE(r.runs.size() == 1);
  CHECK(std::fabs(r.runs[0].error) < 0.002);
  CHECK(r.runs[0].measured == Approx(step));
  CHECK(std::none_of(r.notes.begin(), r.notes.end(), [](const std::string &n) {
    return n.find("cannot have used this layout") != std::string::npos;
  }));
  // A base whose layout does not fit the memory could not have run: said in a note
  Config big = base;
  big.parallel.recompute = Recompute::none;
  big.parallel.microbatch = 16;
  REQUIRE_FALSE(estimate(big).memory.fits);
  const CalibrationResult rb = calibrate(big, m);
  CHECK(std::any_of(rb.notes.begin(), rb.notes.end(), [](const std::string &n) {
    return n.find("the logged run cannot have used this layout") != std::string::npos;
  }));
}

TEST_CASE("calibrate: a layer profile against the model's components of the same layer",
          "[calibrate]") {
  const HardwareSpec h100 = io::parse_hardware(json("h100-sxm"), "hardware");
  // A Llama-3 8B layer (h 4096, 32/8 heads of 128, FFN 14336), 4096 tokens, bf16, alone on
  // one H100, forward + backward (backward twice the forward):
  const LayerBudget b = llama_layer_budget(h100, 4096, 32, 8, 14336, 4096, 1, Dtype::bf16);
  // GEMMs: fused QKV 4096 -> 6144, output 4096 -> 4096, gate+up 4096 -> 28672, down
  // 14336 -> 4096, each 2 m k n FLOPs at the shape's efficiency (docs/calibration.md "GEMM")
  double gemm = 0;
  for (const auto &[k, n] :
       {std::pair{4096.0, 6144.0}, {4096.0, 4096.0}, {4096.0, 28672.0}, {14336.0, 4096.0}})
    gemm += 3 * 2 * 4096 * k * n / (989e12 * gemm_shape_efficiency(h100, Dtype::bf16, 4096, k, n));
  CHECK(b.gemm == Approx(gemm));
  // causal FlashAttention: 2 s^2 heads (d_qk + d_v) / 2 FLOPs at attention_efficiency 0.44
  CHECK(b.attention == Approx(3 * 4096.0 * 4096 * 32 * 256 / (989e12 * 0.44)));
  // two norms (4 sh bytes each), two residual adds (6 sh), SwiGLU (6 s f), rotary on Q and K
  // (4 s d (32 + 8)) at 0.89 of 3.35 TB/s
  const double bytes = 20 * 4096.0 * 4096 + 6 * 4096.0 * 14336 + 4 * 4096.0 * 128 * 40;
  CHECK(b.elementwise == Approx(3 * bytes / (0.89 * 3.35e12)));
  CHECK(b.quantize == 0);

  // tests/data/samples/layer_profile_llama3_8b_h100.csv (illustrative figures): 11.67 ms a
  // forward + backward; no training log, so it sets the compute overhead: measured over
  // components, less one
  const std::string text = test::kLayerProfileSample;
  const CalibrationResult r = io::calibrate_files(json("h100-sxm"), {{"lp.csv", text}});
  const FittedParameter &o = param(r, "hardware.compute_overhead");
  CHECK(o.before == 0.335); // presets/hardware/h100-sxm.json
  CHECK(o.value == Approx(0.01167 / b.total() - 1).margin(1e-6));
  CHECK(r.hardware.compute_overhead == o.value);
  REQUIRE(o.residuals.size() == 1);
  CHECK(o.residuals[0].measured == Approx(0.01167));
  // each component checked: GEMMs 7.60 ms measured, attention 1.52, the other kernels 2.20,
  // 0.35 ms between kernels, 100 kernels
  REQUIRE(r.layers.size() == 1);
  const LayerCheck &x = r.layers[0];
  CHECK(x.file == "lp.csv");
  CHECK(x.measured.gemm == Approx(0.0076));
  CHECK(x.measured.attention == Approx(0.00152));
  CHECK(x.measured.elementwise == Approx(0.0022));
  CHECK(x.gap == Approx(0.00035));
  CHECK(x.kernels == 100);
  CHECK(x.predicted.total() == Approx(b.total()));
  CHECK(x.wall() == Approx(0.01167));
  CHECK(r.unfitted.empty());
  // the report's table: GEMMs, attention, element-wise, between kernels, the layer; the
  // layer's row 11.67 ms against 8.62 ms of components
  const ReportTable lt = layer_table(r);
  REQUIRE(lt.rows.size() == 5);
  CHECK(lt.rows[3].cells[0].text == "lp.csv: between kernels");
  CHECK(lt.rows[4].cells[1].value == Approx(0.01167));
  CHECK(lt.rows[4].cells[2].value == Approx(b.total()));
  // the shares of the difference sum to one over the four parts
  double share = 0;
  for (std::size_t i = 0; i < 4; ++i)
    share += lt.rows[i].cells[4].value;
  CHECK(share == Approx(1));

  // With a training log the log's end-to-end fit sets the overhead; the profile is a check.
  Config base = io::parse_config(json("megatron-18b-a100"));
  Measurements m = io::read_measurements(text, "lp.csv");
  for (int i = 1; i <= 12; ++i) {
    TrainingSample s;
    s.file = "train.log";
    s.iteration = i;
    s.step_s = 16.5;
    m.training.push_back(s);
  }
  const CalibrationResult both = calibrate(base, m);
  CHECK(param(both, "hardware.compute_overhead").label ==
        "compute overhead (end to end, training logs)");
  REQUIRE(both.unfitted.size() == 1);
  CHECK(both.unfitted[0].name == "layer lp.csv: forward + backward");
  CHECK(both.layers.size() == 1);
}

TEST_CASE("calibrate: the engine's iteration overhead round trips from closed-loop TPOT",
          "[calibrate][serve]") {
  Config base = serve_config(R"({"mode": "serve", "concurrency": 4, "requests": 64,
    "prompt_len": 512, "gen_len": 64, "engine": {"name": "test"}})");
  Measurements m;
  for (const i64 c : {1, 4, 16}) {
    ServingSample s;
    s.name = "c" + std::to_string(c);
    s.concurrency = c;
    s.input_len = 512;
    s.output_len = 64;
    Config truth = serving_run_config(base, s);
    truth.workload.serve.engine.iteration_overhead = 0.003;
    const ServeResult x = simulate_serving(truth);
    s.tpot.mean = x.tpot.mean;
    s.ttft.mean = x.ttft.mean;
    m.serving.push_back(s);
  }
  const CalibrationResult r = calibrate(base, m);
  CHECK(r.engine.iteration_overhead == Approx(0.003).epsilon(0.01));
  CHECK(param(r, "workload.engine.iteration_overhead").max_abs_error < 0.01);
}

TEST_CASE("calibrate: a benchmark that counts its opening burst is simulated with it",
          "[calibrate][serve]") {
  // vLLM's `bench serve` (and SGLang's bench_serving) send num_prompts requests through
  // max_concurrency slots and report statistics over all of them: each client's first request
  // arrives at once on an empty engine. Runs made by the model with that burst counted, an
  // iteration overhead of 3 ms and a front-end time of 10 ms per request, fit back to them.
  Config base = serve_config(R"({"mode": "serve", "concurrency": 4, "requests": 64,
    "prompt_len": 512, "gen_len": 64, "engine": {"name": "test"}})");
  Measurements m;
  for (const i64 c : {1, 8, 32}) {
    ServingSample s;
    s.name = "c" + std::to_string(c);
    s.concurrency = c;
    s.requests = 10 * c; // num_prompts
    s.counts_warmup = true;
    s.input_len = 512;
    s.output_len = 64;
    Config truth = serving_run_config(base, s);
    CHECK(truth.workload.serve.count_warmup);
    CHECK(truth.workload.serve.requests == 10 * c);
    truth.workload.serve.engine.iteration_overhead = 0.003;
    truth.workload.serve.engine.request_overhead = 0.010;
    const ServeResult x = simulate_serving(truth);
    s.tpot.mean = x.tpot.mean;
    s.ttft.mean = x.ttft.mean;
    m.serving.push_back(s);
  }
  const CalibrationResult r = calibrate(base, m);
  CHECK(r.engine.iteration_overhead == Approx(0.003).epsilon(0.01));
  // (the TTFT fit: a median objective on a 0.1 ms grid, the iteration overhead fitted first)
  CHECK(r.engine.request_overhead == Approx(0.010).margin(0.0015));
  // one run: the fit matches it by construction, so the band stays the base engine's
  Measurements one;
  one.serving.push_back(m.serving[1]);
  base.workload.serve.engine.tpot_uncertainty = 0.15;
  const CalibrationResult r1 = calibrate(base, one);
  CHECK(param(r1, "workload.engine.iteration_overhead").count == 1);
  CHECK(r1.engine.tpot_uncertainty == 0.15);
}

TEST_CASE("calibrate: errors name the field", "[calibrate]") {
  const Config base = io::parse_config(json("llama3-70b-h100-1024"));
  CHECK(test::error_of([&] { calibrate(base, Measurements{}); }) ==
        "files: no measurement rows were read: nothing to fit");
  CHECK(test::error_of([&] { io::calibrate_files(json("h100-sxm"), {}); }) ==
        "files: give at least one measurement file");
  CHECK(test::error_of([&] {
          io::calibrate_files(json("no-such-chip"), {{"a.csv", "m,n,k,dtype,seconds\n"}});
        }).rfind("base: \"no-such-chip\" is neither", 0) == 0);
}

TEST_CASE("calibrate: overrides apply over the presets and travel in the URL", "[calibrate][url]") {
  const json overrides = {{"hardware.gemm_efficiency", 0.77},
                          {"cluster.intra_node.latency", 3e-6},
                          {"workload.engine.iteration_overhead", 0.002}};
  const json cfg = io::apply_overrides(json("llama3-70b-h100-serve"), overrides);
  CHECK(cfg["hardware"]["base"] == "h100-sxm");
  CHECK(cfg["hardware"]["gemm_efficiency"] == 0.77);
  CHECK(cfg["cluster"]["intra_node"]["latency"] == 3e-6);
  const Config c = io::parse_config(cfg);
  CHECK(c.hardware.gemm_efficiency == 0.77);
  CHECK(c.cluster.intra_node.latency == 3e-6);
  CHECK(c.cluster.intra_node.bw == 450e9); // the preset's link, merged
  CHECK(c.workload.serve.engine.iteration_overhead == 0.002);
  // the URL keeps the preset and the calibrated fields: "hardware=h100-sxm&hardware.gemm_..."
  const std::string q = io::encode_url_query(cfg);
  CHECK(q.find("hardware=h100-sxm&hardware.gemm_efficiency=0.77") != std::string::npos);
  const Config back = io::parse_config(io::decode_url_query(q));
  CHECK(back.hardware.gemm_efficiency == 0.77);
  CHECK(back.cluster.intra_node.latency == 3e-6);
  CHECK(back.workload.serve.engine.iteration_overhead == 0.002);
  CHECK(test::error_of([&] {
          io::apply_overrides(cfg, json{{"model.layers", 3}});
        }) == "overrides.model.layers: only hardware, cluster and workload.engine fields are "
              "calibrated");
}

TEST_CASE("closed loop: Little's law holds with L = C, and one client is TTFT + (OSL-1) TPOT",
          "[serve]") {
  // Little's law: with no think time, C clients keep exactly C requests in the system.
  // (Clients start out of phase, over one cycle: the ramp-up is a small share of 1000.)
  const Config c = serve_config(R"({"mode": "serve", "concurrency": 8, "requests": 1000,
    "prompt_len": 1024, "gen_len": 128})");
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 1000);
  CHECK(r.mean_in_system == Approx(8).epsilon(0.01));
  CHECK(r.warmup_excluded == 8);
  // A single client: every request runs alone, so its end-to-end time is TTFT + (OSL - 1) x
  // TPOT and back-to-back requests make the throughput OSL / e2e.
  const Config one = serve_config(R"({"mode": "serve", "concurrency": 1, "requests": 20,
    "prompt_len": 1024, "gen_len": 128})");
  const ServeResult s = simulate_serving(one);
  CHECK(s.e2e.mean == Approx(s.ttft.mean + 127 * s.tpot.mean).epsilon(1e-9));
  CHECK(s.output_tokens_per_s == Approx(128 / s.e2e.mean).epsilon(1e-9));
  // think time: a client is idle for it, so fewer requests are in the system
  const Config think = serve_config(R"({"mode": "serve", "concurrency": 8, "think_time": 1.0,
    "requests": 400, "prompt_len": 1024, "gen_len": 128})");
  const ServeResult t = simulate_serving(think);
  CHECK(t.mean_in_system == Approx(8 * t.e2e.mean / (t.e2e.mean + 1.0)).epsilon(0.03));
  // Fewer clients than instances (1 client, 4 instances of tp 2 on 8 GPUs): the client's
  // requests all go to its instance, one at a time (was: every instance took a share and
  // served it at once, 3.4 requests in the system).
  const Config spread = serve_config(R"({"mode": "serve", "concurrency": 1, "requests": 20,
    "prompt_len": 1024, "gen_len": 128})",
                                     R"({"tp": 2})", R"({"base": "dgx-h100", "devices": 8})");
  const ServeResult u = simulate_serving(spread);
  REQUIRE(u.instances == 4);
  CHECK(u.mean_in_system == Approx(1).epsilon(1e-9));
  CHECK(u.e2e.mean == Approx(s.e2e.mean).epsilon(1e-9)); // the lone client of 2 GPUs above
}

TEST_CASE("closed loop: concurrency and request_rate are exclusive, both print and parse",
          "[serve][config]") {
  CHECK(test::error_of([] {
          serve_config(R"({"mode": "serve", "concurrency": 8, "request_rate": 2,
            "prompt_len": 64, "gen_len": 8})");
        }) == "workload.request_rate: give request_rate (open loop) or concurrency (closed "
              "loop), not both");
  const Config c = serve_config(R"({"mode": "serve", "concurrency": 8, "prompt_len": 64,
    "gen_len": 8, "engine": {"name": "x", "iteration_overhead": 0.001}})");
  const json j = io::to_json(c);
  CHECK(j["workload"]["concurrency"] == 8);
  CHECK_FALSE(j["workload"].contains("request_rate"));
  CHECK(j["workload"]["engine"]["iteration_overhead"] == 0.001);
  CHECK(io::parse_config(j).workload.serve.concurrency == 8);
}

TEST_CASE("engine: the iteration overhead adds to every iteration", "[serve]") {
  Config c = serve_config(R"({"mode": "serve", "concurrency": 1, "prompt_len": 64,
    "gen_len": 8, "engine": {"name": "x", "iteration_overhead": 0.004}})");
  const Layout l = resolve_layout(c);
  IterationLoad x;
  x.decode = 4;
  x.decode_context = 4000;
  x.outputs = 4;
  const double with = IterationModel(c, l).time(x).total;
  c.workload.serve.engine.iteration_overhead = 0;
  CHECK(with - IterationModel(c, l).time(x).total == Approx(0.004).epsilon(1e-9));
}

TEST_CASE("A scenario's model, hardware and cluster are bases that field overrides merge into",
          "[calibrate][config]") {
  // {"scenario": ..., "cluster": {"devices": 512}} keeps the preset's links (it used to fail on
  // cluster.intra_node, a field the user never touched); likewise a calibrated hardware field.
  const Config c = io::parse_config(
      json::parse(R"({"scenario": "llama3-70b-h100-1024", "cluster": {"devices": 512},
                      "hardware": {"gemm_efficiency": 0.8}, "model": {"layers": 40}})"));
  CHECK(c.cluster.devices == 512);
  CHECK(c.cluster.intra_node.bw == 450e9); // dgx-h100's NVLink4 (presets/clusters)
  CHECK(c.hardware.gemm_efficiency == 0.8);
  CHECK(c.hardware.peak.bf16 == 989e12); // h100-sxm's dense bf16 peak
  CHECK(c.model.layers == 40);
  CHECK(c.model.hidden == 8192); // llama3-70b's
  const Config u = io::parse_config(
      io::decode_url_query("scenario=llama3-70b-h100-1024&hardware.gemm_efficiency=0.8"));
  CHECK(u.hardware.gemm_efficiency == 0.8);
  CHECK(u.hardware.hbm_bytes == 80e9);
}

TEST_CASE("calibrate, then validate the same run with the calibrated presets: the same residual",
          "[calibrate]") {
  // A Megatron-LM log (megatron/training/training.py's iteration line) of the 18.4B A100 run
  // at 16.5 s a step: calibrate fits the compute overhead to it; validate, on the base with
  // the fitted fields applied, predicts that step with the residual calibrate reported.
  std::string log;
  for (int i = 1; i <= 12; ++i)
    log += " [2024-05-01 10:00:00] iteration " + std::to_string(i) +
           "/ 1000 | consumed samples: 1024 | elapsed time per iteration (ms): " +
           (i <= 3 ? std::string("40000.0") : std::string("16500.0")) +
           " | learning rate: 1.0E-04 | global batch size:  1024 |\n";
  const json base = json("megatron-18b-a100");
  const CalibrationResult r = io::calibrate_files(base, {{"train.log", log}});
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].measured == 16.5); // the median of the 9 steady iterations
  ValidationRun v;
  v.name = "train.log";
  v.config = io::parse_config(io::apply_overrides(base, io::calibrated_overrides(r)));
  v.metric = Metric::step_time;
  v.measured = 16.5;
  const auto rows = validate({v});
  CHECK(rows[0].error == Approx(r.runs[0].error).margin(1e-12));
  CHECK(rows[0].band == r.hardware.time_uncertainty);
  CHECK(std::fabs(rows[0].error) < 0.01); // one run: the overhead fits it (grid step 0.001)
}

TEST_CASE("closed loop: the load sweep runs over clients, and the planner asks for a rate",
          "[serve]") {
  const Config c = serve_config(R"({"mode": "serve", "concurrency": 4, "prompt_len": 512,
    "gen_len": 32})");
  // powers of two from 1 to max(2 x 4, 8)
  CHECK(sweep_loads(c) == std::vector<double>{1, 2, 4, 8});
  const LoadSweep sweep = load_sweep(c, {1, 4});
  REQUIRE(sweep.points.size() == 2);
  CHECK(sweep.closed);
  const json rows = io::to_json(sweep);
  CHECK(rows[0]["concurrency"] == 1);
  Config one = c;
  one.workload.serve.concurrency = 1;
  one.workload.serve.requests = 64; // 4 per client, at least 64 (core/serve/load_sweep)
  CHECK(rows[0]["ttft"]["mean"].get<double>() == Approx(simulate_serving(one).ttft.mean));
  // at the configured 4 clients the point is `serve`'s own run, the same figures
  const ServeResult own = simulate_serving(c);
  CHECK(sweep.points[1].output_tokens_per_s == own.output_tokens_per_s);
  CHECK(sweep.points[1].ttft.p99 == own.ttft.p99);
  CHECK(serve_sweep_table(sweep).columns[0].head == "clients");
  Config slo = c;
  slo.workload.serve.slo_ttft = 1;
  // a closed loop plans (each of n instances serving its share of the clients), aggregated
  const ServePlanResult plan = plan_serving({slo});
  REQUIRE_FALSE(plan.deployments.empty());
  for (const Deployment &d : plan.deployments) {
    CHECK_FALSE(d.disaggregated);
    CHECK(d.result.completed == simulated_requests(slo.workload.serve));
  }
}

TEST_CASE("engine: the serve report names the engine and carries its band", "[serve]") {
  Config c = serve_config(R"({"mode": "serve", "concurrency": 2, "prompt_len": 64,
    "gen_len": 8, "engine": "vllm"})");
  const ServeReport rep = serve_report(c, simulate_serving(c));
  // presets/engines/vllm.json: iteration_overhead 0.605 ms, request_overhead 65.6 ms, TPOT
  // band 0.166165 and TTFT band 0.657675 (the 90th percentile of |error| over its 105
  // calibration runs), all from `ridgeline calibrate --groups docs/data/serving/groups.json`
  // (scripts/refit_engines.py); its own all-reduce up to 8 MiB (vLLM's custom all-reduce
  // max_size); bf16 GEMMs 3.63 us per call at 88.4% of HBM (ridgeline calibrate
  // docs/data/aic/gemm.csv).
  CHECK(rep.latency.note.rfind("Band (vllm): measured TPOT +/-17%, TTFT +/-66% of these on its "
                               "calibration runs (docs/serving.md).",
                               0) == 0);
  const auto engine = std::find_if(rep.summary.rows.begin(), rep.summary.rows.end(),
                                   [](const ReportLine &r) { return r.key == "engine"; });
  REQUIRE(engine != rep.summary.rows.end());
  CHECK(engine->cells[1].text == "vllm");
  CHECK(engine->cells[2].text ==
        "605.11 us host time per iteration, 65.60 ms per request; own all-reduce up to 8.39 MB; "
        "measured bf16 GEMMs 3.63 us per call, weights at 88% of HBM"); // 8 MiB = 8.39 MB
  // The JSON says the same: the engine, its host times, own all-reduce, the GEMM fit its bf16
  // GEMMs used on h100-sxm and the band (the preset's values above).
  const json j = io::to_json(simulate_serving(c));
  CHECK(j["engine"]["name"] == "vllm");
  CHECK(j["engine"]["iteration_overhead"] == Approx(0.000605112).epsilon(1e-9));
  CHECK(j["engine"]["request_overhead"] == Approx(0.0656).epsilon(1e-12));
  CHECK(j["engine"]["allreduce"]["max_bytes"] == Approx(8388608));
  CHECK(j["engine"]["gemm"]["latency"] == Approx(3.63e-6).epsilon(1e-12));
  CHECK(j["engine"]["gemm"]["bw_efficiency"] == Approx(0.884).epsilon(1e-12));
  CHECK(j["engine"]["band"]["tpot"] == Approx(0.166165).epsilon(1e-12));
  CHECK(j["engine"]["band"]["ttft"] == Approx(0.657675).epsilon(1e-12));
  // and the measured data each fit came from, as the preset names it
  CHECK(j["engine"]["gemm"]["source"].get<std::string>().rfind(
            "ridgeline calibrate docs/data/aic/gemm.csv --base", 0) == 0);
  CHECK(j["engine"]["allreduce"]["source"].get<std::string>().rfind(
            "ridgeline calibrate docs/data/aic/custom_allreduce_h100.csv --base "
            "docs/data/serving/vllm-base.json",
            0) == 0);
  // a configuration written back and read again keeps them
  const Config back = io::parse_config(io::to_json(c));
  CHECK(back.workload.serve.engine.gemm_source == c.workload.serve.engine.gemm_source);
  CHECK(back.workload.serve.engine.allreduce_source == c.workload.serve.engine.allreduce_source);
  // FP8 weights and GEMMs take the FP8 fit (12.75 us a call, 77.1% of HBM); no engine, none.
  Config f = c;
  f.workload.weight_dtype = f.workload.precision = Dtype::fp8;
  CHECK(io::to_json(simulate_serving(f))["engine"]["gemm"]["latency"] ==
        Approx(1.275e-5).epsilon(1e-12));
  // Under the roofline bound the GEMMs run at the datasheet figures: no fit was used, and
  // neither the JSON nor the report says one was.
  Config roof = c;
  roof.workload.bound = ServingBound::roofline;
  const ServeResult rr = simulate_serving(roof);
  CHECK(io::to_json(rr)["engine"]["gemm"].is_null());
  const ServeReport rrep = serve_report(roof, rr);
  for (const ReportLine &line : rrep.summary.rows)
    if (line.key == "engine")
      CHECK(line.cells[2].text.find("measured") == std::string::npos);
  const Config none = serve_config(R"({"mode": "serve", "concurrency": 2, "prompt_len": 64,
    "gen_len": 8})");
  const json n = io::to_json(simulate_serving(none));
  CHECK(n["engine"]["name"] == "none");
  CHECK(n["engine"]["gemm"].is_null());
  CHECK(n["engine"]["allreduce"].is_null());
}

TEST_CASE("engine: a preset's scheduler defaults apply where the configuration sets none",
          "[serve]") {
  // presets/engines/vllm.json: vllm/engine/arg_utils.py get_batch_defaults on an H100 under
  // `vllm serve` (max_num_batched_tokens 8192, max_num_seqs 1024), vllm/config/cache.py
  // (gpu_memory_utilization 0.9, block_size 16).
  const Config v = serve_config(R"({"mode": "serve", "concurrency": 2, "prompt_len": 64,
    "gen_len": 8, "engine": "vllm"})");
  CHECK(v.workload.serve.max_tokens == 8192);
  CHECK(v.workload.serve.chunk == 8192);
  CHECK(v.workload.serve.max_batch == 1024);
  CHECK(v.workload.serve.memory_fraction == 0.9);
  CHECK(v.workload.serve.block_size == 16);
  // presets/engines/sglang.json: server_args.py on an H100 (page_size 1, overlap scheduling on,
  // mem_fraction_static (80 GB - 10 GiB) / 80 GB = 0.874 at TP 1); trtllm.json: llm_args.py
  // (tokens_per_block 32, max_batch_size 2048, CUDA graphs up to batch 128).
  const Config s = serve_config(R"({"mode": "serve", "concurrency": 2, "prompt_len": 64,
    "gen_len": 8, "engine": "sglang"})");
  CHECK(s.workload.serve.block_size == 1);
  CHECK(s.workload.serve.overlap_schedule);
  CHECK(s.workload.serve.memory_fraction == 0.874);
  const Config t = serve_config(R"({"mode": "serve", "concurrency": 2, "prompt_len": 64,
    "gen_len": 8, "engine": "trtllm"})");
  CHECK(t.workload.serve.block_size == 32);
  CHECK(t.workload.serve.max_batch == 2048);
  CHECK(t.workload.serve.cuda_graph_max_batch == 128);
  // the configuration's own scheduler values win, field by field
  const Config own = serve_config(R"({"mode": "serve", "concurrency": 2, "prompt_len": 64,
    "gen_len": 8, "engine": "vllm", "scheduler": {"max_batch": 64, "block_size": 32}})");
  CHECK(own.workload.serve.max_batch == 64);
  CHECK(own.workload.serve.block_size == 32);
  CHECK(own.workload.serve.max_tokens == 8192); // still the engine's
}

TEST_CASE("closed loop: clients with fixed lengths are not in lockstep", "[serve]") {
  // Four clients, 1024 in / 128 out: all four prompts fit one 8192-token iteration, so clients
  // that started together would prefill together forever (TTFT = a 4096-token prefill).
  // Started out of phase over one cycle, each prompt prefills beside decodes only: TTFT stays
  // within one iteration of a lone client's.
  const Config four = serve_config(R"({"mode": "serve", "concurrency": 4, "requests": 200,
    "prompt_len": 1024, "gen_len": 128, "scheduler": {"max_tokens": 8192, "chunk": 8192}})");
  const Config one = serve_config(R"({"mode": "serve", "concurrency": 1, "requests": 20,
    "prompt_len": 1024, "gen_len": 128, "scheduler": {"max_tokens": 8192, "chunk": 8192}})");
  const ServeResult r = simulate_serving(four), s = simulate_serving(one);
  CHECK(r.ttft.p99 < s.ttft.mean + 2 * s.tpot.mean);
  CHECK(r.ttft.p99 < 2 * s.ttft.mean); // lockstep: about 4x
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
// A file of the source tree, whole.
const auto text = test::source_text;

TEST_CASE("calibrate: dgx-b200's NVLink efficiency is what calibrate fits to measured NCCL",
          "[calibrate][comm]") {
  const std::string nccl = text("docs/data/aic/nccl_b200_sxm.json");
  // presets/clusters/dgx-b200.json: ridgeline calibrate docs/data/aic/nccl_b200_sxm.json
  // --base b200@dgx-b200 --fix cluster.intra_node.latency (AIConfigurator's NCCL 2.29.2 on 8
  // B200, the 16 points from 64 MiB fitted; docs/calibration.md)
  CalibrateOptions opt;
  opt.fixed = {"cluster.intra_node.latency"};
  const CalibrationResult r =
      io::calibrate_files(json("b200@dgx-b200"), {{"nccl_b200_sxm.json", nccl}}, opt);
  const FittedParameter &e = param(r, "cluster.intra_node.efficiency");
  const ClusterSpec cl = io::parse_cluster(json("dgx-b200"), "cluster");
  CHECK(e.value == Approx(cl.intra_node.efficiency).margin(1e-4));
  CHECK(e.count == 16);
  CHECK(e.rms_error == Approx(0.078).margin(0.002));
  CHECK(e.max_abs_error == Approx(0.155).margin(0.002));
  // a chip no shipped scenario runs on is calibrated on the cluster named (these B200 points
  // ran on another cluster, so nothing is informed: said as such)
  CHECK(test::error_of([&] {
          io::calibrate_files(json("gb200@gb200-nvl72"), {{"nccl_b200_sxm.json", nccl}});
        })
            .rfind("files: the 192 rows read inform no parameter (components need a measured value "
                   "and, for collectives, more than one rank); 192 rows of other hardware or "
                   "clusters left out",
                   0) == 0);
}

TEST_CASE("calibrate: the shipped quantise-kernel and engine all-reduce fits are what calibrate "
          "fits to AIConfigurator's tables",
          "[calibrate]") {
  // presets/hardware/<chip>.json notes: ridgeline calibrate docs/data/aic/quantize.csv --base
  // <chip> (the cast and amax kernels of TensorRT-LLM 1.3.0rc20 on each chip)
  const std::string q = text("docs/data/aic/quantize.csv");
  for (const std::string base : {"h100-sxm", "b200", "b300@dgx-b200"}) {
    INFO(base);
    const CalibrationResult r = io::calibrate_files(json(base), {{"quantize.csv", q}});
    const json hw = io::preset_json("hardware", base.substr(0, base.find('@')), "hardware");
    for (const char *f :
         {"quantize_latency", "quantize_bw_efficiency", "amax_latency", "amax_bw_efficiency"}) {
      INFO(f);
      CHECK(param(r, std::string("hardware.") + f).value ==
            Approx(hw.at(f).get<double>()).epsilon(0.005)); // the preset's three digits
    }
  }
  // presets/engines/<engine>.json allreduce_source: ridgeline calibrate
  // docs/data/aic/custom_allreduce_h100.csv --base docs/data/serving/<engine>-base.json
  const std::string ar = text("docs/data/aic/custom_allreduce_h100.csv");
  for (const char *e : {"vllm", "sglang", "trtllm"}) {
    INFO(e);
    const CalibrationResult r = io::calibrate_files(
        io::parse_json_text(text(std::string("docs/data/serving/") + e + "-base.json")),
        {{"custom_allreduce_h100.csv", ar}});
    const json preset = io::preset_json("engine", e, "engine");
    const FittedParameter &lat = param(r, "workload.engine.allreduce_latency");
    CHECK(lat.value == Approx(preset.at("allreduce_latency").get<double>()).epsilon(0.005));
    CHECK(lat.count == 48); // 2, 4 and 8 GPUs, messages up to 8 MiB
    CHECK(param(r, "workload.engine.allreduce_bw").value ==
          Approx(preset.at("allreduce_bw").get<double>()).epsilon(0.005));
  }
}

TEST_CASE("calibrate: the shipped small-M GEMM fits of each engine are what calibrate fits to "
          "AIConfigurator's GEMM table",
          "[calibrate][serve]") {
  // presets/engines/<engine>.json gemm.source: ridgeline calibrate docs/data/aic/gemm.csv with
  // a serving base naming the engine on each chip (H100 SXM's fit is the top-level default,
  // the others under "on")
  const std::string g = text("docs/data/aic/gemm.csv");
  for (const char *e : {"vllm", "sglang", "trtllm"}) {
    const json preset = io::preset_json("engine", e, "engine").at("gemm");
    for (const char *chip : {"h100-sxm", "h200", "b200"}) {
      INFO(e << " on " << chip);
      const json want = std::string(chip) == "h100-sxm" ? preset : preset.at("on").at(chip);
      const json base = {{"scenario", "llama3-70b-h100-serve"},
                         {"hardware", chip},
                         {"cluster", std::string(chip) == "b200" ? "dgx-b200" : "dgx-h100"},
                         {"workload", {{"engine", e}}}};
      const CalibrationResult r = io::calibrate_files(base, {{"gemm.csv", g}});
      for (const char *dtype : {"bf16", "fp8", "fp4"}) {
        if (!want.contains(dtype))
          continue;
        const std::string path = std::string("workload.engine.gemm.on.") + chip + "." + dtype;
        CHECK(param(r, path + ".latency").value ==
              Approx(want.at(dtype).at("latency").get<double>()).epsilon(0.005));
        CHECK(param(r, path + ".bw_efficiency").value ==
              Approx(want.at(dtype).at("bw_efficiency").get<double>()).epsilon(0.005));
        CHECK(param(r, path + ".latency").count == 100); // M 1-64 by N and K 1024-16384
      }
    }
  }
}

TEST_CASE("calibrate: B200's FP8 and FP4 GEMM efficiencies are what calibrate fits to the "
          "large-shape GEMM table",
          "[calibrate]") {
  // presets/hardware/b200.json: ridgeline calibrate docs/data/aic/gemm_large.csv --base b200
  // (TensorRT-LLM 1.2.0rc5's GEMMs at M, N, K 4096-16384: median fp8/bf16 and fp4/bf16 rate
  // ratios 0.691 and 0.566, times the table's bias on H100, 0.865 / 0.738 = 1.173)
  const CalibrationResult r =
      io::calibrate_files(json("b200"), {{"gemm_large.csv", text("docs/data/aic/gemm_large.csv")}});
  const json hw = io::preset_json("hardware", "b200", "hardware");
  CHECK(param(r, "hardware.gemm_efficiency_fp8").value ==
        Approx(hw.at("gemm_efficiency_fp8").get<double>()).epsilon(0.005));
  CHECK(param(r, "hardware.gemm_efficiency_fp4").value ==
        Approx(hw.at("gemm_efficiency_fp4").get<double>()).epsilon(0.005));
  CHECK(param(r, "hardware.gemm_efficiency_fp8").count == 27);
  // 0.776 x 0.691 x 1.173 = 0.629: the same product by hand, to the table's three digits
  CHECK(param(r, "hardware.gemm_efficiency_fp8").value ==
        Approx(0.776 * 0.691 * 1.173).epsilon(0.002));
}

#endif
