// Launch arguments written from a layout: each knob lands on its framework's flag.
#include "helpers.hpp"

#include "core/io/launch_export.hpp"

using namespace rl;
using nlohmann::json;

namespace {
bool has(const std::string &text, const std::string &needle) {
  return text.find(needle) != std::string::npos;
}
} // namespace

TEST_CASE("Megatron, DeepSpeed and TorchTitan launches carry the layout", "[export]") {
  const Config c = io::parse_config(json("llama3-70b-h100-1024"));
  const Layout l = resolve_layout(c);
  const std::string mg = io::launch_export(c, l, "megatron");
  for (const char *f : {"--tensor-model-parallel-size 8", "--pipeline-model-parallel-size 8",
                        "--sequence-parallel", "--use-distributed-optimizer",
                        "--group-query-attention --num-query-groups 8", "--global-batch-size 1024",
                        "--recompute-granularity selective", "--swiglu", "--nnodes 128"})
    CHECK(has(mg, f));
  const std::string ds = io::launch_export(c, l, "deepspeed");
  const json cfg = json::parse(ds.substr(ds.find('{'), ds.rfind('}') - ds.find('{') + 1));
  // DeepSpeed's identity: train_batch_size = micro-batch x accumulation x dp = 1 x 64 x 16
  CHECK(cfg["train_batch_size"] == 1024);
  CHECK(cfg["gradient_accumulation_steps"] == 64);
  CHECK(cfg["zero_optimization"]["stage"] == 1);
  const std::string tt = io::launch_export(c, l, "torchtitan");
  CHECK(has(tt, "--parallelism.tensor_parallel_degree 8"));
  CHECK(has(tt, "--training.local_batch_size 64")); // 1024 / dp 16
  CHECK(has(tt, "--parallelism.pipeline_parallel_schedule 1F1B"));
  CHECK(test::error_of([&] { io::launch_export(c, l, "jax"); }) ==
        "--format: \"jax\" is not one of megatron, deepspeed, torchtitan");
}

TEST_CASE("Export says where a framework has no twin", "[export]") {
  Config c = io::parse_config(json("llama3-70b-h100-1024"));
  c.parallel.cp = 2;
  c.parallel.cp_kind = CpKind::ulysses;
  c.parallel.dp = 8;
  const Layout l = resolve_layout(c);
  CHECK(has(io::launch_export(c, l, "megatron"), "--context-parallel-size 2"));
  CHECK(has(io::launch_export(c, l, "megatron"), "--cp-comm-type a2a"));
  CHECK(has(io::launch_export(c, l, "torchtitan"),
            "# note: TorchTitan's context parallelism is ring attention"));
}
