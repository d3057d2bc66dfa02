// Sessions in the serving planner (a closed loop sized by each instance's share of the clients,
// the KV tiers searched off and on) and in the engine launches (prefix caching and the host
// tier, by each engine's own argument).
#include "helpers.hpp"

#include "core/inference/serving.hpp"
#include "core/io/config_json.hpp"
#include "core/io/launch_export.hpp"
#include "core/io/serve_json.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/lora.hpp"
#include "core/serve/requests.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/step_time.hpp"

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

TEST_CASE("Serving planner: routing compared, the host tier sized", "[serve][planner][routing]") {
  // 256 clients of the conversations above on tp-1 Llama-3 8B instances whose KV cache (30% of
  // HBM, ~8 GB past the 16 GB of weights) holds a few dozen: two or more replicas, routed.
  json c = sessions(true);
  c["cluster"]["devices"] = 16;
  c["parallel"]["pp"] = 1;
  c["workload"]["concurrency"] = 256;
  c["workload"]["slo"] = {{"ttft", 0.2}, {"tpot", 0.02}, {"attainment", 0.9}};
  c["workload"]["scheduler"]["memory_fraction"] = 0.3;
  ServePlanOptions o;
  o.top = 4;
  const ServePlanResult r = plan_serving(io::planner_choices(c), o);
  REQUIRE_FALSE(r.deployments.empty());
  CHECK(r.routing);
  // the first pick of several replicas under each policy, the default (sessions kept on their
  // replica) first, on the same instance and replica count as far as the default needed
  REQUIRE(r.routing_trials.size() == 4);
  const Routing order[] = {Routing::none, Routing::prefix_aware, Routing::least_loaded,
                           Routing::round_robin};
  const Deployment &sticky = r.routing_trials[0];
  CHECK(sticky.instances >= 2);
  CHECK(meets_slo(sticky.config.workload.serve, sticky.result));
  for (std::size_t i = 0; i < 4; ++i) {
    const Deployment &t = r.routing_trials[i];
    INFO(i);
    CHECK(t.config.workload.serve.routing == order[i]);
    CHECK(t.max_batch == sticky.max_batch);
    CHECK(t.chunk == sticky.chunk);
    CHECK(t.instances <= sticky.instances); // never grown past the default's replicas
  }
  // round-robin sends a conversation's turns to replicas that hold none of it: fewer hits
  // than keeping the session on its replica
  CHECK(r.routing_trials[3].result.cache.hit_rate < sticky.result.cache.hit_rate);
  const json j = io::to_json(r);
  CHECK(j["routing_compared"].size() == 4);
  CHECK(j["routing_compared"][3]["routing"] == "round_robin");
  bool sized = false;
  for (const Deployment &d : r.deployments) {
    const ServeSpec &s = d.config.workload.serve;
    INFO(d.instances << " replicas, " << (s.kv_offload ? s.kv_offload->host_bytes : 0) << " B");
    CHECK(meets_slo(s, d.result));
    // the configuration is the deployment: simulated again, the same result
    CHECK(simulate_serving(d.config).attainment == Approx(d.result.attainment).epsilon(1e-12));
    if (!s.kv_offload)
      continue;
    // the host tier: the configuration's 100 GB halved while the SLO holds, an eighth at least
    const double host = s.kv_offload->host_bytes;
    CHECK((host == 100e9 || host == 50e9 || host == 25e9 || host == 12.5e9));
    if (host == 12.5e9)
      continue;
    sized = sized || host < 100e9;
    Config half = d.config; // the next halving misses the SLO on the same replicas
    half.workload.serve.kv_offload->host_bytes = host / 2;
    CHECK_FALSE(meets_slo(s, simulate_serving(half)));
  }
  CHECK(sized);
  // the launch names the router for the planned policy
  const Deployment &d = r.deployments.front();
  CHECK_THAT(io::launch_export(d.config, resolve_layout(d.config), "vllm"),
             Catch::Contains("SGLang's model gateway --policy"));
  // a policy set in the configuration is the one verified: nothing compared
  c["workload"]["routing"] = "prefix_aware";
  const ServePlanResult set = plan_serving(io::planner_choices(c), o);
  CHECK_FALSE(set.routing);
  CHECK(set.routing_trials.empty());
  for (const Deployment &x : set.deployments)
    CHECK(x.config.workload.serve.routing == Routing::prefix_aware);
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
  CHECK_THAT(launch(on, "sglang"),
             Catch::Contains("--enable-hierarchical-cache --hicache-size 100"));
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

TEST_CASE("LoRA serving: adapter memory, SGMV cost, slots and loads by hand", "[serve][lora]") {
  // Llama-3 8B (h 4096, 32 heads, 8 KV heads of 128, f 14336, 32 layers): r x (in + out) per
  // matrix: q 4096 + 4096, k and v 4096 + 1024 each, o 4096 + 4096, gate and up 4096 + 14336
  // each, down 14336 + 4096: 81,920 a layer; rank 16 in bf16 over 32 layers: 83,886,080 B.
  const Config base = test::serve_config(R"({"mode": "serve", "trace": [[0, 1000, 10]],
    "lora": {"adapters": 4, "rank": 16, "resident": 2}})");
  CHECK(lora_layer_width(base.model, false) == 81920);
  CHECK(lora_adapter_bytes(base.model, 16) == 83886080.0);
  const Layout l = resolve_layout(base); // tp 2
  const ServeMemory mem = serve_memory(base, l);
  CHECK(mem.lora == Approx(2 * 83886080.0 / 2));
  Config plain = base;
  plain.workload.serve.lora.reset();
  CHECK(serve_memory(plain, l).kv_cache - mem.kv_cache == Approx(mem.lora).epsilon(1e-9));

  // An iteration of 8 decoding sequences using 3 adapters: per layer the larger of 2 x 8 x
  // 16 x 81,920 / tp FLOPs at bf16's serving rate and 3 x 16 x 81,920 / tp x 2 B at HBM's.
  IterationModel with(base, l), without(plain, l);
  IterationLoad x;
  x.decode = 8;
  x.decode_context = 8 * 1000;
  x.outputs = 8;
  x.lora_adapters = 3;
  const HardwareSpec &hw = base.hardware;
  const double width = 16 * 81920.0 / 2;
  const double rate = peak_flops(hw, Dtype::bf16) * serving_gemm_efficiency(hw, Dtype::bf16);
  const double per_layer =
      std::max(2 * 8 * width / rate, 3 * width * 2 / (hw.hbm_bw * hw.hbm_efficiency));
  CHECK(with.time(x).lora == Approx(32 * per_layer).epsilon(1e-12));
  CHECK(with.time(x).total - without.time(x).total == Approx(32 * per_layer).epsilon(1e-9));

  // One GPU slot, two requests at once with different adapters: the second waits for the first
  // to finish (vLLM's max_loras); each adapter comes over the host link first (83.9 MB / 2 chips
  // at 63 GB/s: 0.67 ms), then the prompt.
  const Config one = test::serve_config(R"({"mode": "serve", "lora": {"adapters": 2, "resident": 1},
    "trace": [{"t": 0, "prompt": 1000, "gen": 10, "adapter": 0},
              {"t": 0, "prompt": 1000, "gen": 10, "adapter": 1}]})");
  IterationModel m(one, l);
  IterationLoad p;
  p.prefill = 512;
  p.prefill_pairs = 512 * 256.0;
  p.prefill_kv = 512;
  p.lora_adapters = 1;
  IterationLoad p2;
  p2.prefill = 488;
  p2.prefill_pairs = 488 * (512 + 244.0);
  p2.prefill_kv = 1000;
  p2.outputs = 1;
  p2.lora_adapters = 1;
  const double load = 83886080.0 / 2 / one.cluster.host_bw;
  const double first = load + m.time(p).total + m.time(p2).total;
  const ServeResult r = simulate_serving(one);
  REQUIRE(r.completed == 2);
  CHECK(r.ttft.p50 == Approx(first).epsilon(1e-12));
  CHECK(r.ttft.p99 > r.e2e.p50); // the second began after the first ended
  // two slots: both run at once
  Config two = one;
  two.workload.serve.lora->resident = 2;
  CHECK(simulate_serving(two).ttft.p99 < r.e2e.p50);

  // exports: each engine's own arguments
  const std::string v = io::launch_export(two, l, "vllm");
  CHECK_THAT(v,
             Catch::Contains("--enable-lora --max-loras 2 --max-lora-rank 16 --max-cpu-loras 2"));
  CHECK_THAT(io::launch_export(two, l, "sglang"),
             Catch::Contains("--enable-lora --max-loras-per-batch 2 --max-lora-rank 16"));
  CHECK_THAT(io::launch_export(two, l, "trtllm"), Catch::Contains("max_loras: 2"));
  // errors name the field
  CHECK(test::error_of([] {
          test::serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 10,
            "gen_len": 2, "lora": {"adapters": 2, "resident": 3}})");
        }).rfind("workload.lora.resident: 3 is more than the adapters (2)", 0) == 0);
  CHECK(test::error_of([] {
          test::serve_config(R"({"mode": "serve", "lora": {"adapters": 2},
            "trace": [{"t": 0, "prompt": 10, "gen": 2, "adapter": 2}]})");
        }).rfind("workload.trace[0].adapter: is not one of the 2 adapters", 0) == 0);
  CHECK(test::error_of([] {
          test::serve_config(R"({"mode": "serve", "trace": [{"t": 0, "prompt": 10, "gen": 2,
            "adapter": 0}]})");
        }).rfind("workload.trace[0].adapter: names an adapter: give workload.lora", 0) == 0);
}

TEST_CASE("serving: the default routing pins a trace's sessions, in the report and the launch",
          "[serve][routing]") {
  // Two replicas, an open-loop trace whose rows name sessions: unset, workload.routing keeps a
  // session on its replica (core/serve/requests pins_streams); the report's routing and the
  // launch's router note say the same (SGLang's model gateway, consistent hashing on a
  // session header).
  const Config c = test::serve_config(
      R"({"mode": "serve", "trace": [{"t": 0, "prompt": 256, "gen": 8, "session": "a"},
                                     {"t": 0.5, "prompt": 256, "gen": 8, "session": "b"}]})",
      R"({"tp": 1})");
  CHECK(pins_streams(c.workload.serve));
  CHECK_THAT(io::launch_export(c, resolve_layout(c), "sglang"),
             Catch::Contains("keeping each session or client on one replica"));
  // without session names an open loop goes at random
  Config plain = c;
  for (TraceRow &r : plain.workload.serve.trace)
    r.session.clear();
  CHECK_FALSE(pins_streams(plain.workload.serve));
  CHECK_THAT(io::launch_export(plain, resolve_layout(plain), "sglang"),
             Catch::Contains("at random, as planned"));
}
