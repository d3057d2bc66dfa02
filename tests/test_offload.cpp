// Activation offload to the host (parallel.offload_layers: Megatron-LM
// --cpu-offloading-num-layers; docs/formulas.md "Activation offload to the host").
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/config_json.hpp"
#include "core/io/launch_export.hpp"
#include "core/memory/activations.hpp"
#include "core/parallel/layout.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <string>

using namespace rl;
using nlohmann::json;

namespace {
// The Megatron-Bridge 25.11 GB200 Llama 3 70B FSDP run (presets/validation/calibration.json),
// with `offload` layers offloaded and `parallel` overrides.
Config llama70b_gb200(i64 offload, const std::string &extra = "") {
  return io::parse_config(json::parse(
      R"({"model": "llama3-70b", "hardware": "gb200",
      "cluster": {"base": "gb200-nvl72", "devices": 64},
      "workload": {"mode": "train", "global_batch": 256, "seq_len": 8192, "precision": "fp8",
                   "fp8_recipe": "tensorwise", "fp8_params": true, "fp32_grads": false,
                   "ce_fusion": true},
      "parallel": {"tp": 1, "cp": 1, "microbatch": 2, "zero": 3, )" +
      extra + R"("offload_layers": )" + std::to_string(offload) + "}}"));
}
} // namespace

TEST_CASE("Offload: the stage keeps the other layers and the one in transit", "[memory][offload]") {
  const Config off = llama70b_gb200(0, R"("recompute": "none", )");
  const Config on = llama70b_gb200(40, R"("recompute": "none", )");
  const Layout l = resolve_layout(on);
  const double s = 8192;
  const double per_layer = layer_activation_bytes(on.model, l, s, Dtype::fp8).kept_dense;
  const double a0 = stage_activations(off.model, resolve_layout(off), 0, s, Dtype::fp8).layers;
  const double a1 = stage_activations(on.model, l, 0, s, Dtype::fp8).layers;
  // 80 layers in flight at pp 1 and one micro-batch: 41 stay (40 offloaded, one in transit)
  CHECK_THAT(a0, Catch::Matchers::WithinRel(80 * per_layer, 1e-12));
  CHECK_THAT(a1, Catch::Matchers::WithinRel(41 * per_layer, 1e-12));
  // the run's layout fits the 186 GB GB200 with it, and did not without it
  CHECK_FALSE(estimate(off).memory.fits);
  CHECK(estimate(on).memory.fits);
}

TEST_CASE("Offload: each copy hides under the neighbouring layer's pass, the rest is exposed",
          "[time][offload]") {
  const Config on = llama70b_gb200(40, R"("recompute": "none", )");
  const Config off = llama70b_gb200(0, R"("recompute": "none", )");
  const Layout l = resolve_layout(on);
  const double a = layer_activation_bytes(on.model, l, 8192, Dtype::fp8).kept_dense;
  const double copy = a / on.cluster.host_bw; // 225 GB/s each way per GPU
  const LayerTimes lt = layer_times(on, l, false);
  const double per_micro =
      40 * (std::max(0.0, copy - (lt.f + lt.fwd)) + std::max(0.0, copy - (lt.b + lt.r + lt.bwd)));
  const double micro = 256.0 / (64 * 2); // global batch over dp 64 x micro-batch 2
  const StepTime t1 = training_step_time(on, l), t0 = training_step_time(off, resolve_layout(off));
  CHECK_THAT(t1.comm_exposed - t0.comm_exposed,
             Catch::Matchers::WithinRel(micro * per_micro, 1e-9));
  CHECK(t1.compute == t0.compute);
  bool listed = false;
  for (const CommCost &cc : t1.comm)
    if (cc.kind == "offload") {
      listed = true;
      CHECK_THAT(cc.bytes_per_device, Catch::Matchers::WithinRel(2 * 40 * a * micro, 1e-12));
      CHECK_THAT(cc.exposed, Catch::Matchers::WithinRel(micro * per_micro, 1e-9));
    }
  CHECK(listed);
}

TEST_CASE("Offload: refused as Megatron-Core refuses it, each by its field", "[layout][offload]") {
  auto err = [](const Config &c) { return test::error_of([&] { resolve_layout(c); }); };
  // megatron/core/transformer/transformer_config.py: fewer layers than the model's
  CHECK(err(llama70b_gb200(80, R"("recompute": "none", )")).rfind("parallel.offload_layers", 0) ==
        0);
  // ... no pipeline parallelism
  const std::string pp = err(llama70b_gb200(40, R"("recompute": "none", "pp": 2, )"));
  CHECK(pp.rfind("parallel.offload_layers", 0) == 0);
  CHECK(pp.find("pp 2") != std::string::npos);
  // ... no recompute
  CHECK(err(llama70b_gb200(40, R"("recompute": "selective", )"))
            .rfind("parallel.offload_layers", 0) == 0);
  // a cluster whose host link is unknown
  Config c = llama70b_gb200(40, R"("recompute": "none", )");
  c.cluster.host_bw = 0;
  CHECK(err(c).rfind("cluster.host_bw", 0) == 0);
  // a host link below any bandwidth the parser takes (as every link's, 1e6 B/s)
  const std::string tiny = test::error_of([] {
    io::parse_config(json::parse(R"({"model": "llama3-8b", "hardware": "gb200",
      "cluster": {"base": "gb200-nvl72", "devices": 4, "host_bw": 1e-300},
      "workload": {"mode": "train", "global_batch": 8, "seq_len": 1024}})"));
  });
  CHECK(tiny.rfind("cluster.host_bw", 0) == 0);
}

TEST_CASE("Offload: Megatron-LM's launch carries it", "[export][offload]") {
  const Config c = llama70b_gb200(40, R"("recompute": "none", )");
  const Layout l = resolve_layout(c);
  CHECK(io::launch_export(c, l, "megatron").find("--cpu-offloading-num-layers 40") !=
        std::string::npos);
  // the other trainers' launches refuse it by its field rather than drop it
  for (const char *f : {"deepspeed", "torchtitan"})
    CHECK(test::error_of([&] { io::launch_export(c, l, f); }).rfind("parallel.offload_layers", 0) ==
          0);
}
