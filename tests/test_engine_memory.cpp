// Engine memory as each engine computes it (docs/serving.md "Memory of one chip"): the KV cache
// from the engine's own memory argument, by the engine preset's `kv_memory` rule.
#include "helpers.hpp"

#include "core/io/config_json.hpp"
#include "core/parallel/layout.hpp"
#include "core/serve/simulate.hpp"

#include <cmath>
#include <string>

using namespace rl;
using nlohmann::json;

TEST_CASE("Engine memory: each engine's rule by hand", "[serve][memory]") {
  using K = EngineSpec::KvMemory;
  // 180 GB of HBM, 168 GB of weights, 2 GB of workspace, fraction 0.9
  // vLLM (gpu_worker.py determine_available_memory): 0.9 x 180 - 168 - 2 = -8 GB: nothing
  CHECK(kv_cache_room(K::hbm, 180e9, 0.9, 168e9, 2e9) == Approx(-8e9));
  // SGLang (model_runner_kv_cache_mixin.py): free after load 12 GB less 0.1 x 180 = -6 GB
  CHECK(kv_cache_room(K::static_pool, 180e9, 0.9, 168e9, 2e9) == Approx(-6e9));
  // TensorRT-LLM (_util.py _cal_max_tokens): 0.9 x (180 - 168 - 2) = 9 GB
  CHECK(kv_cache_room(K::free, 180e9, 0.9, 168e9, 2e9) == Approx(9e9));
  // SGLang's pool gives way to activations that do not fit in (1 - f) x HBM: 80 GB, f 0.95,
  // 40 GB weights, 6 GB workspace: min(76 - 40, 80 - 40 - 6) = 34 GB
  CHECK(kv_cache_room(K::static_pool, 80e9, 0.95, 40e9, 6e9) == Approx(34e9));
  CHECK(kv_cache_room(K::static_pool, 80e9, 0.874, 16e9, 1e9) == Approx(0.874 * 80e9 - 16e9));
}

TEST_CASE("Engine memory: DeepSeek-R1 FP8 at TP 4 on B200, as TensorRT-LLM ran it",
          "[serve][memory]") {
  // The weights take ~168 GB of each B200 at TP 4 (671B parameters, FP8), of the 183,359 MiB
  // the driver reports (hardware.device_memory, nvidia-smi's total). TensorRT-LLM's
  // free_gpu_memory_fraction 0.9 is of what the weights and the workspace leave; vLLM's
  // gpu_memory_utilization 0.9 of the whole device, so its KV cache is what 0.9 of it leaves.
  auto config = [](const char *engine, const char *fraction) {
    return io::parse_config(json::parse(std::string(R"({
      "model": "deepseek-r1", "hardware": "b200", "cluster": {"base": "dgx-b200", "devices": 4},
      "workload": {"mode": "serve", "engine": ")") +
                                        engine + R"(", "weight_dtype": "fp8", "precision": "fp8",
        "kv_dtype": "fp8", "prompt_len": 1024, "gen_len": 1024, "concurrency": 4,
        "requests": 16, "scheduler": {"memory_fraction": )" +
                                        fraction + R"(}}, "parallel": {"tp": 4, "ep": 4}})"));
  };
  const Config trt = config("trtllm", "0.9");
  const ServeMemory m = serve_memory(trt, resolve_layout(trt));
  REQUIRE(m.fits);
  CHECK(m.capacity == 183359.0 * 1048576); // 183,359 MiB, not the datasheet's 180 GB
  CHECK(m.weights > 0.85 * m.capacity);
  CHECK(m.kv_cache == Approx(0.9 * (m.capacity - m.weights - m.workspace)));
  CHECK(m.total == Approx(m.weights + m.workspace + m.kv_cache));

  const Config vllm = config("vllm", "0.9");
  const ServeMemory v = serve_memory(vllm, resolve_layout(vllm));
  CHECK(v.kv_cache == Approx(0.9 * v.capacity - v.weights - v.workspace));
  CHECK(v.kv_cache < m.kv_cache / 3);
  // at 0.85 of the device vLLM has no room for the weights
  const std::string err = test::error_of([&] { simulate_serving(config("vllm", "0.85")); });
  CHECK(err.find("no room for the KV cache") != std::string::npos);
  CHECK(err.find("vLLM gpu_memory_utilization") != std::string::npos);
}

TEST_CASE("Engine memory: the rule is read, written and checked by name", "[serve][memory]") {
  const std::string bad = test::error_of([] {
    test::serve_config(
        R"({"mode": "serve", "request_rate": 1, "prompt_len": 512, "gen_len": 128, "engine": {"base": "vllm", "kv_memory": "most"}})");
  });
  CHECK(bad.find("kv_memory") != std::string::npos);
  CHECK(bad.find("\"free\"") != std::string::npos);
  const Config c = test::serve_config(
      R"({"mode": "serve", "request_rate": 1, "prompt_len": 512, "gen_len": 128, "engine": "trtllm"})");
  CHECK(c.workload.serve.engine.kv_memory == EngineSpec::KvMemory::free);
  CHECK(io::to_json(c)["workload"]["engine"]["kv_memory"] == "free");
  CHECK(io::parse_config(io::to_json(c)).workload.serve.engine.kv_memory ==
        EngineSpec::KvMemory::free);
  // SGLang's own rule, by name (the shipped sglang preset keeps hbm: docs/serving.md)
  CHECK(test::serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 512,
      "gen_len": 128, "engine": {"base": "sglang", "kv_memory": "static"}})")
            .workload.serve.engine.kv_memory == EngineSpec::KvMemory::static_pool);
  CHECK(test::serve_config(
            R"({"mode": "serve", "request_rate": 1, "prompt_len": 512, "gen_len": 128})")
            .workload.serve.engine.kv_memory == EngineSpec::KvMemory::hbm);
}
