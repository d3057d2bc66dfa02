// Hostile input on serving (issue 35): closed loops at their accepted extremes run in
// O(n log n) with the old results, and every bound on serving work (validate --runs, the
// serving planner's --top and candidates x simulations, Module.serve's JSON API) is checked
// before the work and refused by the field's name. Speed is measured in bench/, never here.
#include "core/calibrate/calibration.hpp"
#include "core/io/config_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/validation_json.hpp"
#include "core/jobs/api.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"
#include "tests/helpers.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace rl;
using nlohmann::json;
using test::error_of;

namespace {

// The issue's repro: LLaMA-3 70B FP8 on 8 H100 (2 instances of TP 4), `clients` clients of
// 16 + 4 tokens sending one request each.
json closed_loop(i64 clients) {
  json c = json::parse(R"({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": "dgx-h100",
    "workload": {"mode": "serve", "prompt_len": 16, "gen_len": 4, "weight_dtype": "fp8",
    "kv_dtype": "fp8", "precision": "fp8", "engine": "vllm"}, "parallel": {"tp": 4}})");
  c["workload"]["concurrency"] = clients;
  c["workload"]["requests"] = clients;
  return c;
}

// A JSON API answer's error path ("" when it has none).
std::string error_path(const std::string &answer) {
  const json j = json::parse(answer);
  return j.contains("error") ? j["error"]["path"].get<std::string>() : "";
}

// A file of one measured serving run of this configuration (validate --runs).
std::vector<ValidationRun> one_run(const json &config) {
  return io::parse_validation(
      json{{"runs",
            json::array({{{"name", "run"}, {"config", config}, {"measured", {{"ttft", 0.1}}}}})}});
}

// The README's serving plan, its outputs `gen_len` tokens of 4,096-token prompts (1,500
// requests, under the 1e8 output tokens of a simulation at 8,192).
std::vector<Config> long_outputs(i64 gen_len) {
  json c = io::expand_scenario(json("llama3-70b-h100-serve"));
  c["workload"]["requests"] = 1500;
  c["workload"]["prompt_len"] = 4096;
  c["workload"]["gen_len"] = gen_len;
  return io::planner_choices(c);
}

} // namespace

TEST_CASE("hostile serve: closed loops with ties serve every request once", "[serve]") {
  // Ties everywhere: two instances of 32 clients each that start together (no mixed
  // prefill: no stagger), uniform lengths, a think time; every request completes once.
  const Config a = test::config(
      R"({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
      "devices": 2}, "parallel": {"tp": 1}, "workload": {"mode": "serve", "concurrency": 64,
      "requests": 2000, "prompt_len": 512, "gen_len": 128, "length_dist": "uniform",
      "think_time": 0.05, "scheduler": {"mixed_prefill": false, "max_batch": 32,
      "max_tokens": 2048}}})");
  const ServeResult ra = simulate_serving(a);
  CHECK(ra.completed == 2000);
  CHECK(ra.dropped == 0);
  CHECK(std::isfinite(ra.simulated_s));
  // Little's law over the steady state: at most 64 requests in the system (the clients)
  CHECK(ra.mean_in_system <= 64.0 + 1e-9);
  // 300 clients on a KV cache that preempts, the opening burst counted (a second,
  // burst-only simulation)
  const Config b = test::config(
      R"({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
      "devices": 2}, "parallel": {"tp": 1}, "workload": {"mode": "serve", "concurrency": 300,
      "requests": 3000, "prompt_len": 512, "gen_len": 128, "length_dist": "uniform",
      "count_warmup": true, "scheduler": {"memory_fraction": 0.215, "max_tokens": 2048}}})");
  const ServeResult rb = simulate_serving(b);
  CHECK(rb.preemptions > 0);
  CHECK(rb.completed == 3000);
  CHECK(std::isfinite(rb.ttft.mean));
  // One client, some requests longer than the whole KV cache (17 blocks): a drop releases
  // the client's next request with no completion to follow (the old scan sent the clock to
  // infinity: inf s of serving).
  const Config c = test::config(
      R"({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
      "devices": 1}, "parallel": {"tp": 1}, "workload": {"mode": "serve", "concurrency": 1,
      "requests": 40, "length_dist": "exponential", "prompt_len": 100, "gen_len": 60,
      "scheduler": {"memory_fraction": 0.2016}}})");
  const ServeResult r = simulate_serving(c);
  CHECK(r.dropped > 0);
  CHECK(r.completed + r.dropped == 40);
  CHECK(std::isfinite(r.simulated_s));
  CHECK(std::isfinite(r.ttft.mean));
  CHECK(std::isfinite(r.output_tokens_per_s));
}

TEST_CASE("hostile serve: validate --runs counts a serving run's requests and steps first",
          "[serve][calibrate]") {
  // The 1,000,000-client repro: 6,000,000 units (serve_work), over the 4,000,000 limit,
  // refused at the run's field before it is simulated.
  std::string e = error_of([&] { validate(one_run(closed_loop(1'000'000))); });
  CHECK(e.rfind("runs[0].config.workload.requests: ", 0) == 0);
  CHECK(e.find("6000001 units") != std::string::npos);
  // Clients x requests_per_client (the old count read `requests` alone: 1,000 of them).
  json per = closed_loop(1000);
  per["workload"].erase("requests");
  per["workload"]["requests_per_client"] = 1000;
  e = error_of([&] { validate(one_run(per)); });
  CHECK(e.rfind("runs[0].config.workload.requests_per_client: ", 0) == 0);
  // 200,000 clients: 1,200,000 units, simulated
  const auto rows = validate(one_run(closed_loop(200'000)));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].predicted > 0);
}

TEST_CASE("hostile serve: the serving planner refuses --top past 20, before any simulation",
          "[serve]") {
  const std::vector<Config> choices = io::planner_choices(json("llama3-70b-h100-serve"));
  for (const i64 top : {i64{0}, i64{21}, i64{9999}}) {
    ServePlanOptions o;
    o.top = top;
    const std::string e = error_of([&] { ServePlanSearch s(choices, o); });
    CHECK(e.rfind("--top: ", 0) == 0);
    CHECK(e.find("1 to 20") != std::string::npos);
  }
  // The JSON API (Module.plan, the page's planner call) shares the check.
  CHECK(error_path(api::plan(json("llama3-70b-h100-serve").dump(), 50)) == "--top");
  ServePlanOptions twenty;
  twenty.top = kMaxServePlanTop;
  CHECK(error_of([&] { ServePlanSearch s(choices, twenty); }).empty());
}

TEST_CASE("hostile serve: the serving planner bounds candidates x simulations before the work",
          "[serve]") {
  // 2,048 output tokens of 4,096-token prompts: 648 pools x 25 sizing runs of 500 requests
  // (5 + 2,056 / 5 units each) + 300 checks of 1,500: 3.6e9 units, under 4e9.
  ServePlanOptions top20;
  top20.top = 20;
  CHECK(error_of([&] { ServePlanSearch s(long_outputs(2048), top20); }).empty());
  // 8,192 output tokens: 1.4e10, refused at the field that makes each simulation long
  const std::string e = error_of([&] { ServePlanSearch s(long_outputs(8192), top20); });
  CHECK(e.rfind("workload.gen_len: ", 0) == 0);
  CHECK(e.find("over the limit of 4e+09") != std::string::npos);
  // More instances a pool multiply the sizing runs (81 a pool at 2^40): 1,024 tokens refused.
  CHECK(error_of([&] { ServePlanSearch s(long_outputs(1024), top20); }).empty());
  ServePlanOptions wide = top20;
  wide.max_instances = i64{1} << 40;
  CHECK(error_of([&] {
          ServePlanSearch s(long_outputs(1024), wide);
        }).rfind("workload.gen_len: ", 0) == 0);
}
