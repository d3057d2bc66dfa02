// The serving calibration groups (docs/data/serving/groups.json): the engine presets are each
// engine fitted to all its groups, and each group predicted by its engine fitted to the others
// is what docs/serving.md "Serving calibration groups" states (leave one group out).
#include "core/calibrate/fit.hpp"
#include "core/calibrate/serving_groups.hpp"
#include "core/io/config_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/readers.hpp"
#include "core/io/serving_groups_json.hpp"
#include "tests/helpers.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace rl;
using nlohmann::json;
using test::error_of;

namespace {

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
const ServingGroupsReport &shipped_groups() {
  static const ServingGroupsReport r = [] {
    const std::string dir = "docs/data/serving/";
    return serving_groups_report(
        io::serving_groups(io::parse_json_text(test::source_text(dir + "groups.json")),
                           [&](const std::string &path, const std::string &) {
                             return test::source_text(dir + path);
                           }));
  }();
  return r;
}
#endif

// One serving CSV row of the B200 file's columns.
const char *kB200Header = "model,engine,engine_image,measured,hardware,precision,kv_dtype,tp,"
                          "attention_dp,moe_tp,ep,pp,isl,osl,lengths,concurrency,"
                          "requests_per_client,max_num_tokens,speculative,ttft_ms,tpot_ms\n";

} // namespace

TEST_CASE("serving groups: the B200 file's columns set the run", "[calibrate][serve]") {
  const std::string csv = std::string(kB200Header) +
                          "deepseek-ai/DeepSeek-R1,trtllm,1.2.0,2026-02-05,b200_sxm,fp8,fp8,8,1,1,"
                          "8,1,8192,1024,uniform 0.8-1.0 of isl/osl,16,10,,mtp3,497.0,11.23\n";
  const Measurements m = io::read_measurements(csv, "b200.csv");
  REQUIRE(m.serving.size() == 1);
  const ServingSample &s = m.serving[0];
  // lengths uniform on [0.8, 1.0] x isl: their mean 0.9 x 8192 = 7372.8, rounded
  CHECK(s.input_len == 7373);
  CHECK(s.output_len == 922);
  CHECK(s.draft_tokens == 3);
  CHECK(s.ep == 8);
  CHECK(s.moe_tp == 1);
  CHECK(s.requests_per_client == 10);
  CHECK(s.kv_dtype == Dtype::fp8);
  CHECK(s.hardware == "b200_sxm");
  // on a DeepSeek-R1 base: one instance of tp 8 with the experts over it (moe_tp x ep = 8),
  // 160 requests with the opening burst counted, MTP with 3 draft tokens at the default rate
  const Config base = io::parse_config(json::parse(
      R"({"model": "deepseek-r1", "hardware": "b200", "cluster": "dgx-b200", "workload": {"mode":
      "serve", "concurrency": 4, "prompt_len": 1024, "gen_len": 128, "precision": "fp8",
      "weight_dtype": "fp8", "engine": "trtllm"},
      "parallel": {"tp": 8}})"));
  const Config c = serving_run_config(base, s);
  CHECK(c.cluster.devices == 8);
  CHECK(c.parallel.dp.value_or(1) == 1);
  CHECK(c.workload.serve.requests == 160);
  CHECK(c.workload.serve.count_warmup);
  REQUIRE(c.workload.serve.speculative);
  CHECK(c.workload.serve.speculative->draft_tokens == 3);
  CHECK(c.workload.serve.speculative->acceptance == std::vector<double>{0.64});
  // eagle3: InferenceX's SGLang launch runs EAGLE over the MTP layer, 2 steps
  std::string e = csv;
  e.replace(e.find("mtp3"), 4, "eagle3");
  CHECK(io::read_measurements(e, "b200.csv").serving[0].draft_tokens == 2);
}

TEST_CASE("serving groups: bad rows and manifests are refused by name", "[calibrate][serve]") {
  const std::string row = "meta-llama/Llama-3.1-70B,vllm,,2025-10-29,b200_sxm,fp4,fp8,1,1,1,1,1,"
                          "1024,1024,uniform 0.8-1.0 of isl/osl,4,10,,,90.0,14.3\n";
  const auto bad = [&](const std::string &from, const std::string &to) {
    std::string r = row;
    r.replace(r.find(from), from.size(), to);
    return error_of([&] { io::read_measurements(std::string(kB200Header) + r, "b.csv"); });
  };
  CHECK(bad(",,90.0", ",mtp0,90.0") ==
        "b.csv:2: column 'speculative': 'mtp0' is not mtp<k> (k draft tokens, 1-16) or eagle3");
  CHECK(bad("uniform 0.8-1.0", "uniform 1.5-1.0") ==
        "b.csv:2: column 'lengths': 'uniform 1.5-1.0 of isl/osl' is not 'fixed' or 'uniform "
        "<lo>-1.0 of isl/osl' (0 < lo <= 1)");
  CHECK(bad(",fp4,", ",fp5,").find("b.csv:2: column 'precision': 'fp5' is not one of") == 0);
  CHECK(bad(",1,1,1,1,1,", ",1,0,1,1,1,") ==
        "b.csv:2: column 'attention_dp': expected a positive integer, got '0'");
  const auto manifest = [&](const std::string &j) {
    return error_of([&] {
      io::serving_groups(json::parse(j), [&](const std::string &, const std::string &f) {
        return f.size() > 5 && f.compare(f.size() - 5, 5, ".runs") == 0
                   ? std::string(kB200Header) + row
                   : std::string(R"({"model": "llama3.1-70b", "hardware": "b200", "cluster":
                     "dgx-b200", "workload": {"mode": "serve", "concurrency": 4, "prompt_len": 1024, "gen_len":
                     128, "precision":
                     "fp4", "weight_dtype": "fp4", "engine": "vllm"}, "parallel": {"tp": 1}})");
      });
    });
  };
  CHECK(manifest(R"({"groups": [{"name": "a", "runs": "r.csv", "base": "b.json", "x": 1}]})") ==
        "groups[0].x: unknown field (name, runs, base, where)");
  CHECK(manifest(R"({"groups": [{"name": "a", "runs": "r.csv", "base": "b.json",
    "where": {"engine": "sglang"}}]})") ==
        "groups[0].where: keeps none of the 1 runs of \"r.csv\"");
  CHECK(manifest(R"({"groups": [{"name": "a", "runs": "r.csv", "base": "b.json"},
    {"name": "a", "runs": "r.csv", "base": "b.json"}]})") ==
        "groups[1].name: \"a\" names two groups");
  CHECK(manifest(R"({"groups": []})") == "groups: expected a non-empty list of groups");
  CHECK(manifest(R"({"groups": [{"name": "a", "runs": "r.csv", "base": "b.json"}]})").empty());
}

#ifndef __EMSCRIPTEN__
TEST_CASE("serving groups: the engine presets are each engine fitted to all its groups",
          "[calibrate][serve]") {
  const ServingGroupsReport &r = shipped_groups();
  REQUIRE(r.engines.size() == 3);
  for (const EngineGroupFit &e : r.engines) {
    INFO(e.engine);
    // presets/engines/<e>.json "source": ridgeline calibrate --groups
    // docs/data/serving/groups.json (scripts/refit_engines.py writes them)
    const json preset = io::preset_json("engine", e.engine, "engine");
    CHECK(e.iteration_overhead ==
          Approx(preset.at("iteration_overhead").get<double>()).margin(1e-9));
    CHECK(e.request_overhead == Approx(preset.at("request_overhead").get<double>()).margin(1e-9));
    CHECK(e.tpot_band == Approx(preset.at("tpot_uncertainty").get<double>()).margin(1e-6));
    CHECK(e.ttft_band == Approx(preset.at("ttft_uncertainty").get<double>()).margin(1e-6));
  }
  // every one of the 568 calibration runs is expressible and simulated (no note leaves one
  // out); the one note: vLLM's H100 group alone asks for no host time at all (its fit stops at
  // 0), which is what vLLM's B200 group is predicted with
  CHECK(r.all_tpot(false).size() == 568);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].rfind("vllm B200 Llama-3.1-70B FP4: predicted at the iteration overhead's "
                         "bound (0)",
                         0) == 0);
}

TEST_CASE("serving groups: leave one group out, as docs/serving.md states", "[calibrate][serve]") {
  const ServingGroupsReport &r = shipped_groups();
  // docs/serving.md "Serving calibration groups", the held-out table: TPOT and TTFT median
  // |error| of each group predicted by its engine fitted to the engine's other groups
  const std::map<std::string, std::pair<double, double>> held = {
      {"vllm H100 Llama-3.1-70B FP8", {0.1415, 0.4071}},
      {"trtllm H100 Llama-3.1-8B bf16", {0.0734, 0.5711}},
      {"sglang H100 Qwen3-32B bf16", {0.0585, 0.1542}},
      {"trtllm B200 Llama-3.1-70B FP8", {0.0442, 0.3066}},
      {"vllm B200 Llama-3.1-70B FP4", {0.0834, 0.3739}},
      {"sglang B200 DeepSeek-R1 FP8", {0.0702, 0.4676}},
      {"trtllm B200 DeepSeek-R1 FP8", {0.1250, 0.3986}}};
  REQUIRE(r.held_out.size() == held.size());
  for (const GroupErrors &g : r.held_out) {
    INFO(g.name);
    CHECK(median_abs_error(g.tpot) == Approx(held.at(g.name).first).margin(0.001));
    CHECK(median_abs_error(g.ttft) == Approx(held.at(g.name).second).margin(0.001));
    // the issue's bar: no group's TPOT median beyond 20%
    CHECK(median_abs_error(g.tpot) <= 0.20);
  }
  // every run together, held out: TPOT 7.3% (the issue's bar is 10%), TTFT 42%, not yet its
  // 25% (docs/serving.md: the per-request time the groups disagree on; the B200 runs' drawn
  // lengths spread the clients' arrivals, so fewer prompts queue behind each other)
  CHECK(median_abs_error(r.all_tpot(true)) == Approx(0.0728).margin(0.001));
  CHECK(median_abs_error(r.all_ttft(true)) == Approx(0.4224).margin(0.001));
  // and in sample
  CHECK(median_abs_error(r.all_tpot(false)) == Approx(0.0700).margin(0.001));
  CHECK(median_abs_error(r.all_ttft(false)) == Approx(0.3004).margin(0.001));
}
#endif

TEST_CASE("serving groups: the work is counted before the first simulation", "[calibrate][serve]") {
  // 300 runs of 4,900 clients x 10 requests x 1,000 output tokens (4.9e7 simulated tokens each,
  // just under the 5e7 a run may hold): 1.47e10 tokens, each simulated 4 + 1 times, over the
  // 1e10 limit: refused at "groups" before any simulation
  std::string csv = "engine,tp,isl,osl,concurrency,requests_per_client,ttft_ms,tpot_ms\n";
  for (int i = 0; i < 300; ++i)
    csv += "vllm,1,128,1000,4900,10,100,10\n";
  const json manifest =
      json::parse(R"({"groups": [{"name": "big", "runs": "big.csv", "base": "base.json"}]})");
  const auto groups =
      io::serving_groups(manifest, [&](const std::string &path, const std::string &) {
        return path == "big.csv" ? csv
                                 : std::string(R"({"model": "llama3-8b", "hardware": "h100-sxm",
          "cluster": {"base": "dgx-h100", "devices": 1}, "workload": {"mode": "serve",
          "concurrency": 4, "prompt_len": 128, "gen_len": 128, "engine": "vllm"},
          "parallel": {"tp": 1}})");
      });
  CHECK(error_of([&] { serving_groups_report(groups); }) ==
        "groups: the groups' runs hold 14700000000 simulated output tokens, each simulated 4 + "
        "(the groups of its engine) times: 73500 million in all, over the limit of 10000 "
        "million: give fewer or shorter runs");
}
