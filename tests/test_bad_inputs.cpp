// Bad input, one table row each (issue 13): configurations, Hugging Face config.json,
// URLs, tx8 operators and serve workloads through the API the page and the CLI call. Every
// row must come back as {"error": {"path", "message"}} naming the field in plain words:
// no foreign exception, no library text, no crash. (CLI arguments: tests/cli/bad_args_test.sh.)
#include "core/jobs/api.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace {

enum class Entry { estimate, url, tx8, serve };

struct Row {
  Entry entry;
  std::string input;
  const char *path;
  const char *message; // the whole message, or its start (exact = false)
  bool exact;
};

std::string call(Entry e, const std::string &in) {
  switch (e) {
  case Entry::estimate:
    return rl::api::estimate(in);
  case Entry::url:
    return rl::api::decode_url(in);
  case Entry::tx8:
    return rl::api::tx8(in);
  case Entry::serve:
    return rl::api::serve(in);
  }
  return "";
}

// clang-format off
const Row kRows[] = {
    {Entry::estimate, R"__({)__", "", R"__(malformed JSON at line 1, column 2: syntax error while parsing object )__", false},
    {Entry::estimate, R"__({"model": tru})__", "", R"__(malformed JSON at line 1, column 14: syntax error while parsing value )__", false},
    {Entry::estimate, R"__({"model": 1e999})__", "model", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::estimate, R"__({"model": -1e999})__", "model", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "notes": [1], "x": 1e400})__", "x", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::estimate, R"__({"x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})__", "", R"__(arrays and objects nested deeper than 64 levels (at byte 69))__", true},
    {Entry::estimate, R"__({"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}})__", "", R"__(arrays and objects nested deeper than 64 levels (at byte 320))__", true},
    {Entry::estimate, R"__({"model": "llama3-70b", "model": "llama3-8b"})__", "model", R"__(duplicate key (given twice in one object))__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"tp": 8, "tp": 4}})__", "parallel.tp", R"__(duplicate key (given twice in one object))__", true},
    {Entry::estimate, R"__({"scenario": "nope"})__", "scenario", R"__(unknown scenario preset "nope" (known: deepseek-r1-b200-serve, gpt3-175b-a100, llama2-13b-v5e-)__", false},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "model": {"base": 7}})__", "model.base", R"__(expected a preset name)__", true},
    {Entry::estimate, R"__({"scenario": 3})__", "scenario", R"__(expected a preset name)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "extra": 1})__", "extra", R"__(unknown field)__", true},
    {Entry::estimate, R"__({"hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 1, "seq_len": 1}})__", "model", R"__(is required)__", true},
    {Entry::estimate, R"__({"model": "llama3-70b", "workload": {"mode": "train", "global_batch": 1, "seq_len": 1}})__", "hardware", R"__(is required)__", true},
    {Entry::estimate, R"__({"model": "gpt-9", "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 1, "seq_len": 1}})__", "model", R"__(unknown model preset "gpt-9" (known: deepseek-r1, deepseek-v3, gpt-oss-120b)__", false},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 0, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.layers", R"__(0 is out of range [1, 100000])__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 1.5, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.layers", R"__(expected an integer, got 1.5)__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": "2", "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.layers", R"__(expected an integer, got a string)__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 33554432, "heads": 4, "ffn": 128, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hidden", R"__(33554432 is out of range [1, 16777216])__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 100000, "hidden": 16777216, "heads": 1, "ffn": 16777216, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model", R"__(has at least 1125899906842624 parameters; the limit is 10^15)__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "kv_heads": 3}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.kv_heads", R"__(3 does not divide heads 4)__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 64, "heads": 5, "ffn": 128, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.head_dim", R"__(is required: heads 5 does not divide hidden 64)__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "norm": "batchnorm"}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.norm", R"__("batchnorm" is not one of rmsnorm, layernorm)__", true},
    {Entry::estimate, R"__({"model": {"name": "a	b", "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "", R"__(malformed JSON at line 1, column 22: syntax error while parsing value )__", false},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "moe": {"experts": 4, "top_k": 5, "expert_ffn": 32}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.moe.top_k", R"__(5 is out of range [1, 4])__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "moe": {"experts": 4, "top_k": 1}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.moe.expert_ffn", R"__(is required)__", true},
    {Entry::estimate, R"__({"model": {"name": "m", "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100, "learned_pos_emb": true}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.max_seq", R"__(is required with learned_pos_emb)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "hbm_bw": 1e-300}})__", "hardware.hbm_bw", R"__(1e-300 is out of range [1000000, 1e+15])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "hbm_bw": 0}})__", "hardware.hbm_bw", R"__(0 is out of range [1000000, 1e+15])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "peak_flops": {"bf16": 1e-300}}})__", "hardware.peak_flops.bf16", R"__(1e-300 is out of range [1000000, 1e+18])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "peak_flops": {"bf16": 1000000000000000.0, "fp8": 0.001}}})__", "hardware.peak_flops.fp8", R"__(must be 0 (not supported) or at least 1e+06 FLOP/s)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "time_uncertainty": 2}})__", "hardware.time_uncertainty", R"__(2 is out of range [0, 0.5])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "time_uncertainty": -0.1}})__", "hardware.time_uncertainty", R"__(-0.1 is out of range [0, 0.5])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "gemm_efficiency": 1.5}})__", "hardware.gemm_efficiency", R"__(1.5 is out of range [0.01, 1])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "hbm_bytes": 10}})__", "hardware.hbm_bytes", R"__(10 is out of range [1000000, 1e+15])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "hardware": {"base": "h100-sxm", "kind": "fpga"}})__", "hardware.kind", R"__("fpga" is not one of gpu, tpu, tx8)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "cluster": {"base": "dgx-h100-1024", "intra_node": {"bw": 0.001}}})__", "cluster.intra_node.bw", R"__(0.001 is out of range [1000000, 1e+15])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "cluster": {"base": "dgx-h100-1024", "devices": 1000}})__", "parallel", R"__(tp 8 x pp 8 x cp 1 = 64 does not divide devices 1000)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "cluster": {"base": "dgx-h100-1024", "inter_node": {"bw": 50000000000.0, "latency": 5}}})__", "cluster.inter_node.latency", R"__(5 is out of range [0, 1])__", true},
    {Entry::estimate, R"__({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": {"devices": 16, "devices_per_node": 8, "intra_node": {"bw": 450000000000.0}}, "workload": {"mode": "train", "global_batch": 16, "seq_len": 4096}})__", "cluster.inter_node", R"__(is required when devices span several nodes)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "workload": {"mode": "train", "global_batch": 0, "seq_len": 8192}})__", "workload.global_batch", R"__(0 is out of range [1, 1073741824])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "workload": {"mode": "fly"}})__", "workload.mode", R"__("fly" is not one of train, infer, tx8-op, video, serve)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "workload": {"mode": "train", "global_batch": 1024, "seq_len": 8192, "precision": "fp64"}})__", "workload.precision", R"__("fp64" is not one of fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, mxfp8)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"tp": 7}})__", "parallel.tp", R"__(7 does not divide heads 64)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"tp": 0}})__", "parallel.tp", R"__(0 is out of range [1, 65536])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"zero": 4}})__", "parallel.zero", R"__(4 is out of range [0, 3])__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"recompute": "some"}})__", "parallel.recompute", R"__("some" is not one of none, selective, full)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"order": "tp-dp"}})__", "parallel.order", R"__("tp-dp" is not an order of tp, cp, dp, pp (e.g. tp-cp-dp-pp))__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"stage_ids": [0, 1, 2]}})__", "parallel.stage_ids", R"__(expected (first, last) pairs, got 3 numbers)__", true},
    {Entry::estimate, R"__({"scenario": "llama3-70b-h100-1024", "parallel": {"tp": 8, "pp": 4, "dp": 3}})__", "parallel.dp", R"__(dp 3 x tp 8 x pp 4 x cp 1 = 96 != devices 1024)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.num_hidden_layers", R"__(is required)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 1e999, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.num_hidden_layers", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 2, "hidden_size": -64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.hidden_size", R"__(-64 is out of range [1, 16777216])__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "num_key_value_heads": 3}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.num_key_value_heads", R"__(3 does not divide num_attention_heads 4)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "tie_word_embeddings": "yes"}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.tie_word_embeddings", R"__(expected true or false)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 100000, "hidden_size": 16777216, "num_attention_heads": 1, "intermediate_size": 16777216, "vocab_size": 16777216}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model", R"__(has at least 1125899906842624 parameters; the limit is 10^15)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "num_local_experts": 8}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.num_experts_per_tok", R"__(is required)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "kv_lora_rank": 64}}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config.qk_nope_head_dim", R"__(is required)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": [1, 2]}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model.hf_config", R"__(expected the object of a config.json, got an array)__", true},
    {Entry::estimate, R"__({"model": {"hf_config": {}, "layers": 2}, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 16}})__", "model", R"__(hf_config must be the only field of the model)__", true},
    {Entry::url, R"__(model.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a=1)__", "url", R"__(a key nested deeper than 64 levels)__", true},
    {Entry::url, R"__(model.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a=1)__", "url", R"__(a key nested deeper than 64 levels)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&parallel.tp)__", "parallel.tp", R"__(URL parameter without a value)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&parallel..tp=4)__", "parallel..tp", R"__(empty key in the URL)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&parallel.tp=4&parallel.tp=8)__", "parallel.tp", R"__(given twice in the URL)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&parallel.tp=%zz)__", "parallel.tp", R"__(broken percent-escape in the URL)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&model.name=%ff)__", "model.name", R"__(is not valid UTF-8 text in the URL)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&workload.seq_len=1e999)__", "workload.seq_len", R"__(number out of range in the URL)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&parallel.tp=true)__", "parallel.tp", R"__(expected an integer, got a boolean)__", true},
    {Entry::url, R"__(scenario=nope)__", "scenario", R"__(unknown scenario preset "nope" (known: deepseek-r1-b200-serve, gpt3-175b-a100, llama2-13b-v5e-)__", false},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&parallel=4&parallel.tp=4)__", "parallel.tp", R"__(conflicts with an earlier value in the URL)__", true},
    {Entry::url, R"__(scenario=llama3-70b-h100-1024&bogus=1)__", "bogus", R"__(unknown field)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "conv", "m": 1}}})__", "workload.op.type", R"__("conv" is not one of gemm, vector, flash_attention)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"m": 1, "k": 1, "n": 1}}})__", "workload.op.type", R"__(is required)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 0, "k": 1, "n": 1}}})__", "workload.op.m", R"__(0 is out of range [1, 1073741824])__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 64, "k": 64}}})__", "workload.op.n", R"__(is required)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 64, "k": 64, "n": 64, "fuse": "gelu"}}})__", "workload.op.fuse", R"__("gelu" is not one of silu)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 64, "k": 64, "n": 64, "tiling": [1]}}})__", "workload.op.tiling", R"__(expected 2 to 3 entries, got 1)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "vector", "rows": 8}}})__", "workload.op.width", R"__(is required)__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "vector", "rows": 8, "width": 1e999}}})__", "workload.op.width", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::tx8, R"__({"hardware": "tx8", "workload": {"mode": "tx8-op", "op": {"type": "flash_attention", "heads": 8, "seq_q": 128, "head_dim": 64, "loop_order": "c"}}})__", "workload.op.loop_order", R"__("c" is not one of a, b, broadcast, packed)__", true},
    {Entry::tx8, R"__({"hardware": {"base": "tx8", "tx8": {"mesh": [4, 4], "tiles": 15}}, "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 64, "k": 64, "n": 64}}})__", "hardware.tx8.tiles", R"__(15 != mesh 4 x 4)__", true},
    {Entry::tx8, R"__({"hardware": {"base": "tx8", "tx8": {"dram_bw": 1e-300}}, "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 64, "k": 64, "n": 64}}})__", "hardware.tx8.dram_bw", R"__(1e-300 is out of range [1000000, 1e+15])__", true},
    {Entry::tx8, R"__({"hardware": {"base": "tx8", "tx8": {"sram_bytes": 2048, "sram_usable_bytes": 2048}}, "workload": {"mode": "tx8-op", "op": {"type": "gemm", "m": 4096, "k": 4096, "n": 4096}}})__", "workload.op", R"__(does not fit in SRAM: the smallest GEMM tiling (input-stationary Tm 64)__", false},
    {Entry::tx8, R"__("llama3-70b-h100-1024")__", "hardware", R"__("h100-sxm" has no tx8 figures (kind tx8 needed))__", true},
    {Entry::tx8, R"__({"model": "stdit3-720m", "hardware": "tx8", "cluster": "tx8-2x2", "workload": {"mode": "video", "resolution": [720, 1280]}})__", "workload.seconds", R"__(is required (or frames))__", true},
    {Entry::tx8, R"__({"model": "stdit3-720m", "hardware": "tx8", "cluster": "tx8-2x2", "workload": {"mode": "video", "seconds": 4, "frames": 10, "resolution": [720, 1280]}})__", "workload.frames", R"__(give seconds or frames, not both)__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 1e999, "requests": 100, "prompt_len": 512, "gen_len": 64}})__", "workload.request_rate", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": -1, "requests": 100, "prompt_len": 512, "gen_len": 64}})__", "workload.request_rate", R"__(-1 is out of range [1e-06, 1000000])__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 0, "prompt_len": 512, "gen_len": 64}})__", "workload.requests", R"__(0 is out of range [1, 1000000])__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 100, "prompt_len": 512, "gen_len": 64, "length_dist": "zipf"}})__", "workload.length_dist", R"__("zipf" is not one of fixed, exponential, uniform)__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 100, "prompt_len": 512, "gen_len": 64, "trace": [[0, 10]]}})__", "workload.trace[0]", R"__(must be [arrival_s, prompt_len, gen_len] (three numbers) or an object {"t", "prompt", "gen", "session", "think"})__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 100, "prompt_len": 512, "gen_len": 64, "trace": [[0, 10, 1e999]]}})__", "workload.trace[0][2]", R"__(number out of range (beyond a double's 1.8e308))__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 100, "prompt_len": 512, "gen_len": 64, "trace": [["a", 10, 5]]}})__", "workload.trace[0]", R"__(must be [arrival_s, prompt_len, gen_len] (three numbers) or an object {"t", "prompt", "gen", "session", "think"})__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 100, "prompt_len": 512, "gen_len": 64, "slo": {"ttft": -1, "tpot": 0.05}}})__", "workload.slo.ttft", R"__(-1 is out of range [0, 3600])__", true},
    {Entry::serve, R"__({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "serve", "request_rate": 4.0, "requests": 100, "prompt_len": 512, "gen_len": 64, "scheduler": {"policy": "fifo"}}})__", "workload.scheduler.policy", R"__("fifo" is not one of continuous, static)__", true},
    {Entry::serve, R"__({"scenario": "llama3-70b-h100-1024", "workload": {"mode": "serve"}})__", "workload.request_rate", R"__(is required)__", true},
};
// clang-format on

} // namespace

TEST_CASE("Bad input table: every row is a field-named error in plain words") {
  std::set<std::string> inputs;
  for (const Row &row : kRows) {
    INFO(row.input.substr(0, 200));
    inputs.insert(row.input);
    const nlohmann::json out = nlohmann::json::parse(call(row.entry, row.input));
    REQUIRE(out.contains("error"));
    const std::string path = out["error"]["path"].get<std::string>();
    const std::string message = out["error"]["message"].get<std::string>();
    CHECK(path == row.path);
    if (row.exact)
      CHECK(message == row.message);
    else
      CHECK(message.rfind(row.message, 0) == 0);
    CHECK(message.substr(0, message.find("last read:")).find("json.exception") ==
          std::string::npos);
    CHECK(message.rfind("internal error", 0) != 0);
  }
  CHECK(inputs.size() == sizeof kRows / sizeof kRows[0]); // distinct
  CHECK(inputs.size() >= 60);
}

TEST_CASE("Deep URLs are refused before work (a 2.7 KB link crashed the page in WASM)") {
  std::string url = "model";
  for (int i = 0; i < 1300; ++i)
    url += ".a";
  const auto deep = nlohmann::json::parse(rl::api::decode_url(url + "=1"));
  CHECK(deep["error"]["path"] == "url");
  CHECK(deep["error"]["message"] == "a key nested deeper than 64 levels");
  // Within the limit the codec decodes it, and the config reader names what is missing.
  std::string ok = "hardware=h100-sxm&model";
  for (int i = 0; i < 62; ++i)
    ok += ".a";
  const auto at_limit = nlohmann::json::parse(rl::api::decode_url(ok + "=1"));
  CHECK(at_limit["error"]["path"] == "model.layers");
  // Deep JSON text is refused by the same limit before it is parsed.
  const auto json_deep =
      nlohmann::json::parse(rl::api::estimate(std::string(100000, '[') + std::string(100000, ']')));
  CHECK(json_deep["error"]["message"] ==
        "arrays and objects nested deeper than 64 levels (at byte 64)");
}
