// Sessions in the serving planner (a closed loop sized by each instance's share of the clients,
// the KV tiers searched off and on) and in the engine launches (prefix caching and the host
// tier, by each engine's own argument).
#include "helpers.hpp"

#include "core/io/config_json.hpp"
#include "core/io/launch_export.hpp"
#include "core/io/serve_json.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"

using namespace rl;
using nlohmann::json;

namespace {
// Llama-3 8B conversations on H100s whose KV cache holds a few of them: 3 turns behind a
// 1,024-token system prompt, 600 new tokens and a 40-token answer a turn.
json sessions(bool offload) {
  json c = json::parse(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 8},
    "workload": {"mode": "serve", "concurrency": 24, "requests_per_client": 6, "gen_len": 40,
      "prefix": {"shared_tokens": 1024}, "sessions": {"turns": 3, "new_tokens": 600, "think_time": 4},
      "slo": {"ttft": 0.5, "tpot": 0.05, "attainment": 0.9},
      "scheduler": {"memory_fraction": 0.13}},
    "parallel": {"tp": 1}})");
  if (offload)
    c["workload"]["scheduler"]["kv_offload"] = {{"host_bytes", 100e9}};
  return c;
}
} // namespace

TEST_CASE("Serving planner: sessions in a closed loop, the host tier searched",
          "[serve][planner][prefix]") {
  ServePlanOptions o;
  o.top = 4;
  const ServePlanResult r = plan_serving(io::planner_choices(sessions(true)), o);
  REQUIRE_FALSE(r.deployments.empty());
  CHECK(r.kv_tiers);
  CHECK(r.prefix_reuse);
  bool with = false, without = false;
  for (const Deployment &d : r.deployments) {
    INFO(d.instances << " instances, offload " << d.kv_offload);
    CHECK_FALSE(d.disaggregated); // a turn sent on completion: one instance serves both phases
    CHECK(d.result.attainment >= 0.9);
    CHECK(d.config.workload.serve.kv_offload.has_value() == d.kv_offload);
    CHECK(d.result.cache.on);
    // the deployment is a configuration that parses back and launches
    const Config back = io::parse_config(io::to_json(d.config));
    CHECK(back.workload.serve.sessions.has_value());
    CHECK_NOTHROW(io::launch_export(back, resolve_layout(back), "vllm"));
    (d.kv_offload ? with : without) = true;
  }
  CHECK(with);
  // the host tier serves the same clients on no more GPUs: it only adds hits
  const auto fewest = [&](bool offload) {
    i64 n = INT64_MAX;
    for (const Deployment &d : r.deployments)
      if (d.kv_offload == offload)
        n = std::min(n, d.devices);
    return n;
  };
  if (without)
    CHECK(fewest(true) <= fewest(false));
  // a closed loop of the same clients without sessions plans too (it used to be refused)
  json plain = sessions(false);
  plain["workload"].erase("sessions");
  plain["workload"]["prompt_len"] = 1600;
  CHECK_FALSE(plan_serving(io::planner_choices(plain), o).deployments.empty());
}

TEST_CASE("Exports carry prefix caching and the KV tiers", "[serve][export][prefix]") {
  const auto launch = [](const json &j, const char *format) {
    const Config c = io::parse_config(j);
    return io::launch_export(c, resolve_layout(c), format);
  };
  json on = sessions(true);
  // vllm/config/cache.py kv_offloading_size: GiB over the ranks (100 GB on one GPU: 93.13 GiB)
  const std::string v = launch(on, "vllm");
  CHECK_THAT(v, Catch::Contains("--enable-prefix-caching"));
  CHECK_THAT(v, Catch::Contains("--kv-offloading-backend native --kv-offloading-size 93.1323"));
  // SGLang HiCache: host memory per GPU in GB (python/sglang/srt/server_args.py)
  CHECK_THAT(launch(on, "sglang"), Catch::Contains("--enable-hierarchical-cache --hicache-size 100"));
  // TensorRT-LLM KvCacheConfig.host_cache_size, bytes (tensorrt_llm/llmapi/llm_args.py)
  CHECK_THAT(launch(on, "trtllm"), Catch::Contains("host_cache_size: 100000000000"));
  json off = sessions(false);
  off["workload"]["scheduler"]["prefix_cache"] = false;
  CHECK_THAT(launch(off, "vllm"), Catch::Contains("--no-enable-prefix-caching"));
  CHECK_THAT(launch(off, "sglang"), Catch::Contains("--disable-radix-cache"));
  CHECK_THAT(launch(off, "trtllm"), Catch::Contains("enable_block_reuse: false"));
}

TEST_CASE("Routing over replicas: by hand", "[serve][prefix][routing]") {
  // Two replicas of tp 1. Four equal prompts at once: least-loaded and round-robin routing put
  // two on each, so every request sees what two requests on one replica see alone.
  const auto run = [](const std::string &routing, const std::string &trace, int devices) {
    return simulate_serving(test::serve_config(
        R"({"mode": "serve", "routing": ")" + routing + R"(", "trace": )" + trace + "}",
        R"({"tp": 1})", R"({"base": "dgx-h100", "devices": )" + std::to_string(devices) + "}"));
  };
  const std::string four = "[[0, 1000, 10], [0, 1000, 10], [0, 1000, 10], [0, 1000, 10]]";
  const ServeResult alone = run("none", "[[0, 1000, 10], [0, 1000, 10]]", 1);
  for (const char *routing : {"least_loaded", "round_robin"}) {
    INFO(routing);
    const ServeResult r = run(routing, four, 2);
    REQUIRE(r.completed == 4);
    CHECK(r.ttft.p99 == Approx(alone.ttft.p99).epsilon(1e-12));
    CHECK(r.tpot.p99 == Approx(alone.tpot.p99).epsilon(1e-12));
  }
  // A conversation's second turn (1,510 = 1,000 + 10 + 500 new tokens, 100 s later): round-robin
  // sends it to the other replica, which has none of it; prefix-aware routing to the one that
  // holds its 1,008 cached tokens (63 full blocks of 16).
  const std::string turns = R"([{"t": 0, "prompt": 1000, "gen": 10, "session": 1},
                                {"t": 100, "prompt": 1510, "gen": 10, "session": 1}])";
  CHECK(run("round_robin", turns, 2).cache.hit_tokens == 0);
  CHECK(run("prefix_aware", turns, 2).cache.hit_tokens == 1008);
  // a closed loop's clients routed request by request complete every request
  const ServeResult closed = simulate_serving(test::serve_config(
      R"({"mode": "serve", "routing": "round_robin", "concurrency": 8, "requests_per_client": 5,
          "prompt_len": 300, "gen_len": 20})",
      R"({"tp": 1})", R"({"base": "dgx-h100", "devices": 2})"));
  CHECK(closed.completed == 40);
  // routing spreads over aggregated replicas only
  CHECK(test::error_of([] {
          simulate_serving(test::serve_config(
              R"({"mode": "serve", "routing": "least_loaded", "request_rate": 1, "prompt_len": 100,
                  "gen_len": 10, "scheduler": {"prefill_instances": 1}})",
              R"({"tp": 1})"));
        }).rfind("workload.routing: spreads requests over aggregated replicas", 0) == 0);
  CHECK(test::error_of([] {
          test::serve_config(R"({"mode": "serve", "routing": "sticky", "request_rate": 1,
                                 "prompt_len": 100, "gen_len": 10})");
        }).rfind("workload.routing: \"sticky\" is not one of", 0) == 0);
}
