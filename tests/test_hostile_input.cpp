// Hostile input on the measurement surfaces (issue 35): text shown safely, readers as strict as
// the configuration parser, fits bounded before they start, finite numbers, presets the parser
// takes back.
#include "helpers.hpp"

#include "core/calibrate/components.hpp"
#include "core/calibrate/fit.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/readers.hpp"
#include "core/schema/fields.hpp"
#include "core/schema/printable.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace rl;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using nlohmann::json;

namespace {

Measurements read(const std::string &text, const std::string &name) {
  return io::read_measurements(text, name);
}

// A GEMM sweep of n rows (tools/measure/gemm_sweep.py's columns) at 600 TFLOP/s, K spread
// over 256..8192 so that gemm_k_half is fitted too.
std::string gemm_rows(int n, double tflops = 600) {
  std::string t = "m,n,k,dtype,seconds\n";
  char row[128];
  for (int i = 0; i < n; ++i) {
    const double m = 1024 + 8 * i, k = 256 << (i % 6), nn = 4096;
    std::snprintf(row, sizeof row, "%.0f,4096,%.0f,bf16,%.6g\n", m, k,
                  2 * m * nn * k / (tflops * 1e12));
    t += row;
  }
  return t;
}

} // namespace

TEST_CASE("Printable: control characters from input are shown as escapes", "[hostile]") {
  using schema::printable;
  // ESC ] 0 ; title BEL (xterm's set-window-title) and ESC [ 2 J (clear screen, ECMA-48)
  CHECK(printable("\x1b]0;pwned\x07\x1b[2Jx") == "\\x1b]0;pwned\\x07\\x1b[2Jx");
  CHECK(printable("a\nb\tc") == "a\\x0ab\\x09c");
  CHECK(printable("a\nb\tc", true) == "a\nb\tc");
  CHECK(printable("\r\x7f") == "\\x0d\\x7f");
  // U+009B, the C1 CSI (UTF-8 C2 9B); U+2028 LINE SEPARATOR; U+202E RIGHT-TO-LEFT OVERRIDE
  CHECK(printable("\xc2\x9b"
                  "2J") == "\\u009b2J");
  CHECK(printable("a\xe2\x80\xa8"
                  "b") == "a\\u2028b");
  CHECK(printable("\xe2\x80\xae") == "\\u202e");
  // bytes that are not UTF-8: a lone continuation, an overlong '/', a truncated sequence
  CHECK(printable("\x80") == "\\x80");
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");
  CHECK(printable("\xe2\x80") == "\\xe2\\x80");
  // text that is fine passes unchanged: UTF-8 letters, the units the tables print
  CHECK(printable("Llama 3 \xc2\xb1 5% \xe2\x86\x92 caf\xc3\xa9") ==
        "Llama 3 \xc2\xb1 5% \xe2\x86\x92 caf\xc3\xa9");
  CHECK_FALSE(schema::has_control("plain text, 1.5 GB/s"));
  CHECK(schema::has_control("x\x1b"));
}

TEST_CASE("Readers: a kernel name's escape sequences are shown, not sent", "[hostile]") {
  const std::string bad = "kernel,bytes,seconds\n\x1b[2Jcopy,abc,0.1\n";
  const std::string e = test::error_of([&] { read(bad, "e.csv"); });
  CHECK_THAT(e, StartsWith("e.csv:2:"));
  CHECK(e.find('\x1b') == std::string::npos);
}

TEST_CASE("Readers: encodings and line ends no reader takes, named", "[hostile]") {
  // UTF-16 with its byte-order mark (as Windows tools save "Unicode" text)
  const std::string utf16("\xff\xfek\0e\0r\0", 8);
  CHECK_THAT(test::error_of([&] { read(utf16, "u.csv"); }),
             StartsWith("u.csv: is UTF-16 or UTF-32 text (a byte-order mark FF FE)"));
  const std::string nul = std::string("kernel,bytes,seconds\ncopy,1", 27) + '\0' + "0,1\n";
  CHECK_THAT(test::error_of([&] { read(nul, "n.csv"); }), StartsWith("n.csv:2: a NUL byte"));
  CHECK_THAT(test::error_of([&] { read("kernel,bytes,seconds\rcopy,1000000000,1\r", "m.csv"); }),
             StartsWith("m.csv: its lines end in CR alone"));
  // a CSV header of more columns than any format has: refused before its names are compared
  std::string wide;
  for (int i = 0; i < 300; ++i)
    wide += (i ? ",c" : "m,n,k,dtype,seconds,c") + std::to_string(i);
  CHECK_THAT(test::error_of([&] { read(wide + "\n", "w.csv"); }),
             Contains("the header has 305 columns; the limit is 256"));
}

TEST_CASE("Readers: measurement JSON is as strict as a configuration", "[hostile]") {
  // a duplicate key (the last one would win in nlohmann::json::parse)
  const std::string dup = R"({"model_id": "m", "backend": "vllm", "completed": 10,
  "total_input_tokens": 1000, "total_output_tokens": 1000, "max_concurrency": 2,
  "mean_ttft_ms": 50, "mean_ttft_ms": 5, "mean_tpot_ms": 10})";
  CHECK_THAT(test::error_of([&] { read(dup, "v.json"); }),
             Contains("\"mean_ttft_ms\": duplicate key"));
  // no input token in a run: not a run to fit
  const std::string none = R"({"model_id": "m", "backend": "vllm", "completed": 10,
  "total_input_tokens": 0, "total_output_tokens": 1000, "max_concurrency": 2,
  "mean_ttft_ms": 50, "mean_tpot_ms": 10})";
  CHECK_THAT(test::error_of([&] { read(none, "v.json"); }), Contains("total_input_tokens"));
  // genai-perf's concurrency is a count of clients
  const std::string half = R"({"time_to_first_token": {"unit": "ms", "avg": 40},
  "inter_token_latency": {"unit": "ms", "avg": 8},
  "input_sequence_length": {"unit": "tokens", "avg": 512},
  "output_sequence_length": {"unit": "tokens", "avg": 128},
  "input_config": {"concurrency": 0.5}})";
  CHECK_THAT(test::error_of([&] { read(half, "g.json"); }),
             Contains("concurrency: expected a positive whole number, got 0.5"));
}

TEST_CASE("Readers: rates outside any device's range are refused by line and column", "[hostile]") {
  // 1 byte in 1e6 s: 1e-6 B/s, whose log-ratio would make every fit's cost infinite
  CHECK_THAT(test::error_of([&] { read("kernel,bytes,seconds\ncopy,1,1000000\n", "e.csv"); }),
             Contains("e.csv:2: column 'seconds': gives 1e-06 B/s, outside [1e6, 1e30]"));
  const std::string comp = R"({"points": [{"kind": "hbm", "measured": 1e-300,
    "hardware": "h100-sxm"}]})";
  CHECK_THAT(test::error_of([&] { read(comp, "c.json"); }), Contains("measured"));
}

TEST_CASE("Components: an MoE point's counts stay exact (no signed overflow)", "[hostile]") {
  // 3 x 4096 x 2^20 x 2^20 = 1.35e16 weights: over the 1e15-parameter model limit
  const std::string big = R"({"points": [{"kind": "moe", "measured": 1e14, "hardware": "h100-sxm",
    "hidden": 1048576, "expert_ffn": 1048576, "experts": 4096, "top_k": 4096, "tokens": 1}]})";
  CHECK_THAT(test::error_of([&] { read(big, "c.json"); }),
             Contains("points[0].expert_ffn: the layer's experts hold"));
  // the FLOPs in double: 6 tokens top_k hidden expert_ffn (Mixtral 8x7B: top 2 of 8, h 4096,
  // f 14336), 4096 tokens: 6 x 4096 x 2 x 4096 x 14336 = 2.886e15 by hand
  ComponentPoint p;
  p.kind = ComponentKind::moe;
  p.tokens = 4096;
  p.top_k = 2;
  p.hidden = 4096;
  p.expert_ffn = 14336;
  CHECK(moe_experts_flops(p) == Approx(6.0 * 4096 * 2 * 4096 * 14336));
  // with counts whose i64 product wraps (2^12 x 2^26 x 2^26 = 2^64), still positive
  p.top_k = 1 << 12;
  p.hidden = i64{1} << 26;
  p.expert_ffn = i64{1} << 26;
  CHECK(moe_experts_flops(p) == Approx(6.0 * 4096 * 4096.0 * 67108864.0 * 67108864.0));
}

TEST_CASE("Calibrate: files given twice, too many or too large are refused before reading",
          "[hostile]") {
  const std::string g = gemm_rows(8);
  CHECK_THAT(test::error_of([&] {
               io::calibrate_files(json("h100-sxm"), {{"a.csv", g}, {"b.csv", g}});
             }),
             Contains("files: \"b.csv\" holds the same text as \"a.csv\""));
  CHECK_THROWS_WITH(io::check_measurement_files(io::kMaxMeasurementFiles + 1, 0),
                    "files: 65 files; the limit is 64");
  CHECK_THROWS_WITH(io::check_measurement_files(2, io::kMaxMeasurementTotalBytes + 1),
                    "files: 268435457 bytes in all; the limit is 256 MiB");
}

TEST_CASE("Calibrate: the fits' work is counted before they start", "[hostile]") {
  // 5,000 GEMM rows x gemm_k_half's grid of efficiency searches: 41 million model evaluations,
  // over the 40 million limit (it took 22-38 s before the bound)
  const std::string many = gemm_rows(5000);
  CHECK_THAT(test::error_of([&] {
               io::calibrate_files(json("h100-sxm"), {{"g.csv", many}});
             }),
             Contains("files: the fits would make 41 million model evaluations for 5000 rows"));
  // a sweep the kit writes (768 rows) is well inside
  Measurements m = read(gemm_rows(768), "g.csv");
  CHECK_NOTHROW(check_fit_work(m));
}

TEST_CASE("Calibrate: --fix names a parameter it fits", "[hostile]") {
  CalibrateOptions o;
  o.fixed = {"hardware.gemm_eficiency"};
  CHECK_THAT(test::error_of([&] {
               io::calibrate_files(json("h100-sxm"), {{"g.csv", gemm_rows(8)}}, o);
             }),
             Contains("--fix: \"hardware.gemm_eficiency\" is not a parameter calibrate fits (did "
                      "you mean \"hardware.gemm_efficiency\"?)"));
  CHECK(is_fittable("workload.engine.gemm.on.h100-sxm.fp8.latency"));
  CHECK_FALSE(is_fittable("workload.engine.gemm.on.h100-sxm.fp8"));
  CHECK(is_fittable("cluster.inter_node.latency"));
}

TEST_CASE("Calibrate: a fit at its bound says so; presets it writes parse back", "[hostile]") {
  // GEMMs measured at 5,000 TFLOP/s on an H100 (989 peak): the efficiency stops at 1.0
  const CalibrationResult r =
      io::calibrate_files(json("h100-sxm"), {{"fast.csv", gemm_rows(12, 5000)}});
  bool noted = false;
  for (const std::string &n : r.notes)
    noted = noted || n.rfind("hardware.gemm_efficiency: the fit stopped at the end of its range "
                             "(1 in [0.02, 1])",
                             0) == 0;
  CHECK(noted);
  const json eff = io::to_json(r.params.back()); // what --json and the page's API say
  CHECK(eff.at("path") == "hardware.gemm_efficiency");
  CHECK(eff.at("at_bound") == true);
  CHECK(eff.at("range") == json::array({0.02, 1.0}));
  const json presets = io::calibrated_presets(json("h100-sxm"), r, "fast", "test");
  json cfg = io::expand_scenario(json("llama3-70b-h100-1024"));
  cfg["hardware"] = presets["hardware"];
  CHECK_NOTHROW(io::parse_config(cfg));
}

TEST_CASE("Calibrate: a training log needs the run it logged as its base", "[hostile]") {
  const std::string log = "[2024-05-01 10:00:00] iteration       10/    100 | consumed samples: "
                          "        10240 | elapsed time per iteration (ms): 1000.0 |\n";
  CHECK_THAT(test::error_of([&] {
               io::calibrate_files(json("h100-sxm"), {{"m.log", log}});
             }),
             StartsWith("base: a training log is compared with the run it logged"));
}

TEST_CASE("Calibrate: a training log beyond the model's reach stops at the bound and writes a "
          "preset the parser takes",
          "[hostile]") {
  // The 18.4B A100 run's log (test_calibrate.cpp) with a step of 1e9 ms (11.6 days) instead of
  // 16.5 s: no overhead in [0, 1.5] reaches it; the fit says so, and its band (over 99%) is
  // written at the 50% a hardware preset holds.
  std::string log;
  for (int i = 1; i <= 12; ++i)
    log += " [2024-05-01 10:00:00] iteration " + std::to_string(i) +
           "/ 1000 | consumed samples: 1024 | elapsed time per iteration (ms): 1000000000.0 | "
           "learning rate: 1.0E-04 | global batch size:  1024 |\n";
  const json base = json("megatron-18b-a100");
  const CalibrationResult r = io::calibrate_files(base, {{"slow.log", log}});
  CHECK(r.hardware.compute_overhead == kMaxFittedOverhead);
  CHECK(r.hardware.time_uncertainty == schema::kMaxUncertainty);
  int noted = 0;
  for (const std::string &n : r.notes)
    noted +=
        n.rfind("hardware.compute_overhead: the fit stopped at the end of its range", 0) == 0 ||
        n.rfind("hardware.time_uncertainty: the fit's band", 0) == 0;
  CHECK(noted == 2);
  json cfg = io::expand_scenario(base);
  cfg["hardware"] = io::calibrated_presets(base, r, "slow", "test")["hardware"];
  CHECK_NOTHROW(io::parse_config(cfg));
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
using test::source_text;

TEST_CASE("Calibrate in pieces: the page's stepped fit equals calibrate to the last digit",
          "[hostile][calibrate]") {
  struct Case {
    json base;
    std::vector<io::MeasurementFile> files;
  };
  const std::string samples = "tests/data/samples/";
  const Case cases[] = {
      // GEMMs with gemm_k_half, attention, element-wise, all-reduce links, a layer profile
      {json("h100-sxm"),
       {{"gemm.csv", gemm_rows(300)},
        {"attention.csv", source_text(samples + "attention_h100_bf16.csv")},
        {"elementwise.csv", source_text(samples + "elementwise_h100.csv")},
        {"nccl.txt", source_text(samples + "nccl_all_reduce_h100x8.txt")},
        {"layer.csv", source_text(samples + "layer_profile_llama3_8b_h100.csv")}}},
      // an engine's serving runs (simulations) and its kernel tables (2-D grids)
      {io::parse_json_text(source_text("docs/data/serving/vllm-base.json")),
       {{"vllm.csv", source_text("docs/data/serving/vllm.csv")},
        {"ar.csv", source_text("docs/data/aic/custom_allreduce_h100.csv")}}},
      {json("h100-sxm"), {{"quantize.csv", source_text("docs/data/aic/quantize.csv")}}}};
  for (const Case &c : cases) {
    INFO(c.files.front().name);
    const json whole = io::to_json(io::calibrate_files(c.base, c.files));
    // pieces of 20,000 units (~2 ms): hundreds of replays of each fit
    io::CalibrationJob job(c.base, c.files, {}, 2e4);
    int steps = 0;
    double last = 0;
    while (job.step()) {
      ++steps;
      CHECK(job.progress() >= last); // the bar never goes back
      CHECK(job.progress() <= 1);
      last = job.progress();
    }
    CHECK(steps > static_cast<int>(c.files.size())); // the fit itself took several pieces
    CHECK(io::to_json(job.result()) == whole);
  }
  // an error is kept until result(), as calibrate_files throws it
  io::CalibrationJob bad(json("h100-sxm"), {{"g.csv", gemm_rows(5000)}});
  while (bad.step()) {
  }
  CHECK_THAT(test::error_of([&] { bad.result(); }),
             Contains("files: the fits would make 41 million model evaluations"));
}
#endif
