// Launch arguments written from a layout: each knob lands on its framework's flag.
#include "helpers.hpp"

#include "core/io/launch_export.hpp"

#include <set>
#include <sstream>
#include <vector>

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
        "--format: \"jax\" is not one of megatron, deepspeed, torchtitan, torchtune, vllm, sglang, "
        "trtllm");
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

namespace {
// The argument lines of an export (the lines that start with two spaces), without the
// trailing " \" continuation.
std::vector<std::string> argument_lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  ", 0) == 0) {
      line = line.substr(2);
      if (line.size() >= 2 && line.compare(line.size() - 2, 2, " \\") == 0)
        line.resize(line.size() - 2);
      out.push_back(line);
    }
  return out;
}
} // namespace

// Every flag below exists in Megatron-LM's megatron/training/arguments.py (checked against
// the NVIDIA/Megatron-LM source: _add_network_size_args, _add_distributed_args, ...).
TEST_CASE("Megatron export of LLaMA-3 70B, tp 8 x pp 4 x vpp 4: every flag", "[export]") {
  Config c = io::parse_config(json("llama3-70b-h100-1024"));
  c.parallel.pp = 4;
  c.parallel.vpp = 4;
  const Layout l = resolve_layout(c);
  const std::vector<std::string> want = {
      "--num-layers 80",          // Meta-Llama-3-70B config.json num_hidden_layers
      "--hidden-size 8192",       // config.json hidden_size
      "--ffn-hidden-size 28672",  // config.json intermediate_size
      "--num-attention-heads 64", // config.json num_attention_heads
      "--group-query-attention --num-query-groups 8", // config.json num_key_value_heads
      "--seq-length 8192",                            // the scenario's workload.seq_len
      "--max-position-embeddings 8192",               // config.json max_position_embeddings
      "--swiglu",                                     // config.json hidden_act silu, gated MLP
      "--normalization RMSNorm",                      // LLaMA uses RMSNorm
      "--disable-bias-linear",                        // config.json attention_bias/mlp_bias false
      "--untie-embeddings-and-output-weights",        // config.json tie_word_embeddings false
      "--position-embedding-type rope",               // LLaMA: rotary embeddings
      "--rotary-base 500000",                         // config.json rope_theta 500000.0
      "--attention-dropout 0.0 --hidden-dropout 0.0", // LLaMA trains without dropout
      "--tensor-model-parallel-size 8",               // the scenario's tp
      "--sequence-parallel", // Megatron-SP on with tp > 1 (Korthikanti et al. 2022)
      "--pipeline-model-parallel-size 4",
      "--num-layers-per-virtual-pipeline-stage 5", // 80 layers / (pp 4 x vpp 4) = 5
      "--use-distributed-optimizer",               // the scenario's ZeRO-1
      "--micro-batch-size 1",                      // the scenario's microbatch
      "--global-batch-size 1024",                  // the scenario's global_batch
      "--recompute-granularity selective",
      "--bf16",
      "--accumulate-allreduce-grads-in-fp32", // fp32_grads, on for bf16 (Megatron forces it)
      "--attention-backend flash",            // FlashAttention on (Dao 2022)
      "--overlap-grad-reduce --overlap-param-gather"}; // overlap_dp with the distributed optimizer
  CHECK(argument_lines(io::launch_export(c, l, "megatron")) == want);
  // TorchTitan's looped schedule takes the same 5 layers per virtual stage
  const std::string tt = io::launch_export(c, l, "torchtitan");
  CHECK(has(tt, "--parallelism.pipeline_parallel_schedule Interleaved1F1B"));
  CHECK(has(tt, "--parallelism.pipeline_parallel_layers_per_stage 5")); // 80 / (4 x 4)
  CHECK(has(tt, "--training.local_batch_size 32")); // 1024 / dp 32 (1024 / (8 x 4) devices)
}

TEST_CASE("FP8 parameters export as Megatron's --fp8-param-gather", "[export][precision]") {
  // Megatron-LM arguments.py --fp8-param-gather (Transformer Engine keeps the module weights in
  // FP8 and the distributed optimizer all-gathers them so); bf16 gradient sync leaves out
  // --accumulate-allreduce-grads-in-fp32.
  json j = json::parse(R"({"scenario": "llama3-70b-h100-1024", "workload": {"precision": "fp8",
    "fp8_params": true, "fp32_grads": false}})");
  const Config c = io::parse_config(j);
  const std::string mg = io::launch_export(c, resolve_layout(c), "megatron");
  CHECK(has(mg, "--bf16 --fp8-format hybrid"));
  CHECK(has(mg, "--fp8-param-gather"));
  CHECK_FALSE(has(mg, "--accumulate-allreduce-grads-in-fp32"));
  j["workload"]["fp8_params"] = false;
  const Config d = io::parse_config(j);
  CHECK_FALSE(has(io::launch_export(d, resolve_layout(d), "megatron"), "--fp8-param-gather"));
}

TEST_CASE("Uneven interleaved stages export the virtual stages per rank", "[export]") {
  Config c = io::parse_config(json("gpt3-175b-a100"));
  c.parallel.vpp = 4;
  c.parallel.uneven_pp = true;
  const Layout l = resolve_layout(c);
  // 96 layers / (pp 16 x vpp 4) = 1.5: no whole layer count per virtual stage, which
  // Megatron-Core cannot launch (megatron/training/arguments.py splits evenly or by the
  // first/last stage counts): refused, naming the field
  CHECK(test::error_of([&] { io::launch_export(c, l, "megatron"); }) ==
        "parallel.uneven_pp: Megatron-Core splits 96 layers evenly over pp 16 x vpp 4 or by "
        "--decoder-first/last-pipeline-num-layers: set parallel.first_stage_layers / "
        "last_stage_layers instead (--format megatron)");
  // even: pp 16 x vpp 2 = 32 virtual stages of 3 layers
  c.parallel.vpp = 2;
  const std::string mg = io::launch_export(c, resolve_layout(c), "megatron");
  CHECK(has(mg, "--num-layers-per-virtual-pipeline-stage 3"));
  // GPT-3 has learned positions (Brown et al. 2020): no rotary base
  CHECK(!has(mg, "--rotary-base"));
}

// vLLM's flags from vllm/engine/arg_utils.py (EngineArgs: tensor_parallel_size,
// pipeline_parallel_size, max_num_seqs, max_num_batched_tokens, gpu_memory_utilization,
// block_size, max_model_len, enable_chunked_prefill, dtype, kv_cache_dtype, quantization).
TEST_CASE("Serving configurations export a vllm serve line", "[export]") {
  const Config c = io::parse_config(json("llama3-70b-h100-serve"));
  const Layout l = resolve_layout(c);
  const std::string v = io::launch_export(c, l, "vllm");
  CHECK(v.find("vllm serve meta-llama/Meta-Llama-3-70B \\\n") != std::string::npos); // hf_id
  const std::vector<std::string> want = {
      "--tensor-parallel-size 4",      // the scenario's parallel.tp
      "--pipeline-parallel-size 1",    // pp left at its default 1
      "--max-num-seqs 256",            // scheduler.max_batch (vLLM's default)
      "--max-num-batched-tokens 8192", // scheduler.max_tokens
      "--gpu-memory-utilization 0.9",  // scheduler.memory_fraction
      "--block-size 16",               // scheduler.block_size
      "--max-model-len 8192",          // 8 x (2048 + 256) = 18432 clamped to the context 8192
      "--enable-chunked-prefill",      // policy continuous, chunked prefill
      "--dtype bfloat16",              // activations in bf16 under fp8 weights
      "--kv-cache-dtype fp8",          // workload.kv_dtype fp8
      "--quantization fp8"};           // workload.weight_dtype fp8
  CHECK(argument_lines(v) == want);
  CHECK(has(v, "run 2 of them")); // 8 GPUs of a DGX H100 / (tp 4 x pp 1) = 2 engines
  CHECK(has(v, "# note: the maximum length is the model's context 8192 "
               "(max_position_embeddings), which the engine will not exceed; the workload's "
               "longest request, 18432 tokens, is longer: the engine rejects such requests"));
  // an inference batch: the batch is the engine's sequence limit
  const Config inf = io::parse_config(json("llama2-13b-v5e-infer"));
  const std::string vi = io::launch_export(inf, resolve_layout(inf), "vllm");
  CHECK(has(vi, "--tensor-parallel-size 8")); // the scenario's tp 8 on 8 v5e chips
  CHECK(has(vi, "--max-num-seqs 8"));         // workload.batch 8
  CHECK(has(vi, "--max-model-len 4096"));     // prompt 8192 + gen 512 past Llama 2's context 4096
}

// The `vllm serve` line read back as vLLM's parser reads it: the model positional, then only
// flags of EngineArgs (vllm/engine/arg_utils.py add_cli_args: --tensor-parallel-size,
// --pipeline-parallel-size, --enable-expert-parallel, --max-num-seqs,
// --max-num-batched-tokens, --gpu-memory-utilization, --block-size, --max-model-len,
// --enable-chunked-prefill, --dtype, --kv-cache-dtype, --quantization), each at most once.
TEST_CASE("export: the vllm serve line parses against vLLM's arguments, within the context",
          "[export]") {
  const std::set<std::string> engine_args = {"--tensor-parallel-size",
                                             "--pipeline-parallel-size",
                                             "--enable-expert-parallel",
                                             "--max-num-seqs",
                                             "--max-num-batched-tokens",
                                             "--gpu-memory-utilization",
                                             "--block-size",
                                             "--max-model-len",
                                             "--enable-chunked-prefill",
                                             "--dtype",
                                             "--kv-cache-dtype",
                                             "--quantization"};
  struct Case {
    const char *model, *hf_id;
    i64 context, prompt, gen;
  };
  const Case cases[] = {
      {"llama3.3-70b", "meta-llama/Llama-3.3-70B-Instruct", 131072, 4096, 512},
      {"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B", 40960, 40000, 2048}, // 42048 > 40960: clamped
      {"gpt-oss-120b", "openai/gpt-oss-120b", 131072, 2048, 2048},
      {"deepseek-r1", "deepseek-ai/DeepSeek-R1", 163840, 1024, 8192}};
  for (const Case &k : cases) {
    INFO(k.model);
    const Config c = test::config((std::string(R"({"model": ")") + k.model +
                                   R"(", "hardware": "h200", "cluster": "dgx-h100",
          "workload": {"mode": "serve", "request_rate": 2, "requests": 100, "prompt_len": )" +
                                   std::to_string(k.prompt) + R"(, "gen_len": )" +
                                   std::to_string(k.gen) + R"(}, "parallel": {"tp": 8}})")
                                      .c_str());
    std::istringstream in(io::launch_export(c, resolve_layout(c), "vllm"));
    std::vector<std::string> words; // the command's words, comments and line breaks left out
    for (std::string line; std::getline(in, line);) {
      if (line.rfind('#', 0) == 0)
        continue;
      std::istringstream ws(line);
      for (std::string w; ws >> w;)
        if (w != "\\")
          words.push_back(w);
    }
    REQUIRE(words.size() > 3);
    CHECK(words[0] == "vllm");
    CHECK(words[1] == "serve");
    CHECK(words[2] == k.hf_id); // the model positional is the Hugging Face id
    std::set<std::string> seen;
    i64 max_model_len = 0;
    for (std::size_t i = 3; i < words.size(); ++i) {
      if (words[i].rfind("--", 0) != 0)
        continue; // a flag's value
      CHECK(engine_args.count(words[i]) == 1);
      CHECK(seen.insert(words[i]).second);
      if (words[i] == "--max-model-len" && i + 1 < words.size())
        max_model_len = std::stol(words[i + 1]);
    }
    // vLLM refuses a max-model-len above max_position_embeddings
    CHECK(max_model_len > 0);
    CHECK(max_model_len <= k.context);
    // fixed lengths (the default): prompt + gen, or the context where that is less
    CHECK(max_model_len == std::min(k.prompt + k.gen, k.context));
  }
  // a model without hf_id keeps its name, quoted for the shell, and says so
  const Config named = test::config(R"({"model": {"base": "llama3-8b", "name": "my llama",
      "hf_id": null}, "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 1},
      "workload": {"mode": "infer", "batch": 4, "prompt_len": 512, "gen_len": 64}})");
  const std::string v = io::launch_export(named, resolve_layout(named), "vllm");
  CHECK(has(v, "vllm serve 'my llama' \\\n"));
  CHECK(has(v, "# note: the model has no hf_id: 'my llama' stands for the checkpoint's path or "
               "Hugging Face id"));
  CHECK(has(v, "--max-model-len 576")); // infer: prompt 512 + gen 64, within the context 8192
}

TEST_CASE("A format that does not apply to the mode is refused before any output", "[export]") {
  const Config serve = io::parse_config(json("llama3-70b-h100-serve"));
  CHECK(test::error_of([&] { io::check_export_format(serve, "megatron"); }) ==
        "--format: \"megatron\" writes training launches; workload.mode is serve: use --format "
        "vllm, sglang or trtllm");
  const Config train = io::parse_config(json("llama3-70b-h100-1024"));
  CHECK(test::error_of([&] { io::check_export_format(train, "vllm"); }) ==
        "--format: \"vllm\" writes serving launches; workload.mode is train: use --format "
        "megatron, deepspeed, torchtitan or torchtune");
  const Config video = io::parse_config(json("sora-720m-tx8-2x2"));
  CHECK(test::error_of([&] { io::check_export_format(video, "vllm"); }) ==
        "workload.mode: export writes launches for train, infer and serve configurations, not "
        "video");
}

TEST_CASE("export: Megatron's uneven first/last stages become its flags", "[export]") {
  // Llama 3 405B as Meta split it: 7 layers on the first and last of 16 stages.
  Config c = test::config(R"({"model": "llama3-405b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 16384}, "workload": {"mode": "train",
    "global_batch": 2048, "seq_len": 8192}, "parallel": {"tp": 8, "pp": 16,
    "first_stage_layers": 7, "last_stage_layers": 7}})");
  const std::string mg = io::launch_export(c, resolve_layout(c), "megatron");
  CHECK(mg.find("--decoder-first-pipeline-num-layers 7") != std::string::npos);
  CHECK(mg.find("--decoder-last-pipeline-num-layers 7") != std::string::npos);
  CHECK(mg.find("--pipeline-model-parallel-size 16") != std::string::npos);
}
