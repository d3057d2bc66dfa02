// Configuration parsing: presets, field paths in every error, Hugging Face config.json.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/presets.hpp"
#include "core/io/validation_json.hpp"
#include "core/model/params.hpp"

using namespace rl;
using nlohmann::json;

namespace {
std::string parse_error(const char *text) {
  return test::error_of([&] { io::parse_config(io::parse_json_text(text)); });
}
const char *kTail =
    R"(, "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8, "seq_len": 1024}})";
std::string model_error(const std::string &model) {
  const std::string t = "{\"model\": " + model + kTail;
  return parse_error(t.c_str());
}
} // namespace

TEST_CASE("Every preset parses and names itself after its file", "[config][presets]") {
  REQUIRE(io::preset_entries().size() >= 40);
  for (const auto &e : io::preset_entries()) {
    INFO(e.kind << " " << e.name);
    const json j = json::parse(e.text);
    REQUIRE(j.at("name") == e.name);
    REQUIRE(j.at("source").is_string());
    if (e.kind == "model")
      REQUIRE_NOTHROW(io::parse_model(json(e.name), "model"));
    else if (e.kind == "hardware")
      REQUIRE_NOTHROW(io::parse_hardware(json(e.name), "hardware"));
    else if (e.kind == "cluster")
      REQUIRE_NOTHROW(io::parse_cluster(json(e.name), "cluster"));
    else if (e.kind == "engine")
      REQUIRE_NOTHROW(io::parse_engine(json(e.name), "workload.engine"));
    else if (e.kind == "validation" && e.name == "components")
      REQUIRE_NOTHROW(io::parse_components(json(e.name)));
    else if (e.kind == "validation")
      REQUIRE_NOTHROW(io::parse_validation(json(e.name)));
    else
      REQUIRE_NOTHROW(io::parse_config(json(e.name)));
  }
}

TEST_CASE("Every LLM scenario preset estimates and fits its devices", "[config][presets]") {
  for (const auto &n : io::preset_names("scenario")) {
    INFO(n);
    const Config c = io::parse_config(json(n));
    if (c.workload.mode == Mode::video || c.workload.mode == Mode::tx8_op ||
        c.workload.mode == Mode::serve) // serve presets: tests/test_serve.cpp
      continue;
    const Estimate e = estimate(c);
    CHECK(e.memory.total > 0);
    CHECK(e.memory.fits);
  }
}

TEST_CASE("Bad input names the field and the reason", "[config][errors]") {
  CHECK(parse_error("{\"model\": ").rfind(": malformed JSON", 0) == 0);
  CHECK(parse_error("[1, 2]") == ": expected a configuration object, got an array");
  CHECK(model_error("\"llama3-70b\", \"parallel\": {\"tq\": 8}") ==
        "parallel.tq: unknown field (did you mean \"tp\"?)");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"layers\": \"80\"}") ==
        "model.layers: expected an integer, got a string");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"layers\": 0}") ==
        "model.layers: 0 is out of range [1, 100000]");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"hidden\": -5}") ==
        "model.hidden: -5 is out of range [1, 16777216]");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"hidden\": 1e12}") ==
        "model.hidden: 1000000000000 is out of range [1, 16777216]");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"layers\": 2.5}") ==
        "model.layers: expected an integer, got 2.5");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"gated_mlp\": 1}") ==
        "model.gated_mlp: expected true or false, got an integer");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"kv_heads\": 7}") ==
        "model.kv_heads: 7 does not divide heads 64");
  CHECK(model_error("{\"base\": \"llama3-70b\", \"moe\": {\"experts\": 8, \"top_k\": 9, "
                    "\"expert_ffn\": 10}}") == "model.moe.top_k: 9 is out of range [1, 8]");
  CHECK(model_error("\"llama9\"").rfind("model: unknown model preset \"llama9\" (known: ", 0) == 0);
  CHECK(model_error("{\"layers\": 2, \"hidden\": 100, \"heads\": 3, \"ffn\": 10, \"vocab\": 5}") ==
        "model.head_dim: is required: heads 3 does not divide hidden 100");
  CHECK(
      parse_error(
          R"({"model": "llama3-70b", "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 8}})") ==
      "workload.seq_len: is required");
  CHECK(
      parse_error(
          R"({"model": "llama3-70b", "hardware": "h100-sxm", "workload": {"mode": "fly", "global_batch": 8}})") ==
      "workload.mode: \"fly\" is not one of train, infer, tx8-op, video, serve");
  CHECK(
      parse_error(
          R"({"model": "llama3-70b", "hardware": {"base": "h100-sxm", "hbm_bw": "fast"}, "workload": {"mode": "infer", "batch": 1, "prompt_len": 5}})") ==
      "hardware.hbm_bw: expected a number, got a string");
  CHECK(
      parse_error(
          R"({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 12}, "workload": {"mode": "infer", "batch": 1, "prompt_len": 5}})") ==
      "cluster.devices_per_node: 8 does not divide devices 12");
  CHECK(
      parse_error(
          R"({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": {"torus": [4, 4], "devices": 8, "ici": {"bw": 1e10}}, "workload": {"mode": "infer", "batch": 1, "prompt_len": 5}})") ==
      "cluster.devices: 8 != product of the axes 16");
}

TEST_CASE("A preset can be overridden with base", "[config]") {
  const ModelSpec m = test::model_json(R"({"base": "llama3-70b", "layers": 40, "name": "half"})");
  CHECK(m.layers == 40);
  CHECK(m.hidden == 8192);
  CHECK(m.kv_heads == 8);
  CHECK(m.name == "half");
}

TEST_CASE("Hugging Face config.json maps onto the model", "[config][hf]") {
  SECTION("LLaMA-3 70B config.json gives the preset's parameter count") {
    const ModelSpec m = test::model_json(R"({"hf_config": {
      "architectures": ["LlamaForCausalLM"], "attention_bias": false, "hidden_act": "silu",
      "hidden_size": 8192, "intermediate_size": 28672, "max_position_embeddings": 8192,
      "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80,
      "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 128256}})");
    CHECK(model_params(m).total() == 70'553'706'496);
    CHECK(m.max_seq == 8192);
  }
  SECTION("Qwen2: Q, K, V biases") {
    // Qwen2-7B: 28 layers, h 3584, f 18944, 28 heads, 4 KV heads, vocab 152064, untied
    const ModelSpec m = test::model_json(R"({"hf_config": {"model_type": "qwen2",
      "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
      "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
      "tie_word_embeddings": false}})");
    CHECK(m.qkv_bias);
    CHECK(!m.o_bias);
    // Qwen2-7B model card: 7.62B parameters; independent sum = 7,615,616,512
    CHECK(model_params(m).total() == 7'615'616'512);
  }
  SECTION("Mixtral: num_local_experts") {
    const ModelSpec m = test::model_json(R"({"hf_config": {"model_type": "mixtral",
      "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
      "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
      "num_local_experts": 8, "num_experts_per_tok": 2}})");
    CHECK(model_params(m).total() == 46'702'792'704);
  }
  SECTION("DeepSeek-V3: MLA and routed + shared experts") {
    const ModelSpec m = test::model_json(R"({"hf_config": {"model_type": "deepseek_v3",
      "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
      "num_attention_heads": 128, "num_hidden_layers": 61, "num_key_value_heads": 128,
      "vocab_size": 129280, "n_routed_experts": 256, "n_shared_experts": 1,
      "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1,
      "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "num_nextn_predict_layers": 1}})");
    CHECK(model_params(m).total() == model_params(test::model("deepseek-v3")).total());
  }
  SECTION("errors name the Hugging Face field") {
    CHECK(model_error(R"({"hf_config": {"hidden_size": 64}})") ==
          "model.hf_config.num_hidden_layers: is required");
    CHECK(model_error(R"({"hf_config": {"hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": "x", "intermediate_size": 5}})") ==
          "model.hf_config.vocab_size: expected an integer, got a string");
    CHECK(model_error(R"({"hf_config": {}, "layers": 3})") ==
          "model: hf_config must be the only field of the model");
  }
}

TEST_CASE("model.hf_id: a Hugging Face repository id, checked, the importer names the model",
          "[config][hf]") {
  CHECK(test::model("llama3.1-70b").hf_id == "meta-llama/Llama-3.1-70B");
  CHECK(test::model("gpt3-175b").hf_id.empty()); // GPT-3 has no public checkpoint
  CHECK(
      test::error_of([] { test::model_json(R"({"base": "llama3-8b", "hf_id": "x; rm -rf"})"); }) ==
      "model.hf_id: \"x; rm -rf\" is not a Hugging Face repository id (owner/name of letters, "
      "digits, '-', '_' and '.')");
  CHECK(test::error_of([] { test::model_json(R"({"base": "llama3-8b", "hf_id": "noslash"})"); }) !=
        "");
  // Qwen2.5-32B's config.json from the Hub carries no _name_or_path: the name says the shape
  const char *qwen25 = R"({"hf_config": {"model_type": "qwen2", "hidden_size": 5120,
      "intermediate_size": 27648, "num_attention_heads": 40, "num_hidden_layers": 64,
      "num_key_value_heads": 8, "vocab_size": 152064, "max_position_embeddings": 32768}})";
  const ModelSpec q = test::model_json(qwen25);
  CHECK(q.name == "qwen2 (64 layers, 5120 hidden)");
  CHECK(q.hf_id.empty());
  // Qwen2.5-32B model card: 32.5B parameters (independent sum 32,763,876,352)
  CHECK(model_params(q).total() == 32'763'876'352);
  // one saved by transformers names itself, and that name is the Hugging Face id
  const ModelSpec n = test::model_json(R"({"hf_config": {"_name_or_path": "Qwen/Qwen2.5-32B",
      "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648,
      "num_attention_heads": 40, "num_hidden_layers": 64, "num_key_value_heads": 8,
      "vocab_size": 152064}})");
  CHECK(n.name == "Qwen/Qwen2.5-32B");
  CHECK(n.hf_id == "Qwen/Qwen2.5-32B");
  // gpt-oss: experts with biases though config.json has no mlp_bias key
  CHECK(test::model_json(R"({"hf_config": {"model_type": "gpt_oss", "hidden_size": 2880,
      "intermediate_size": 2880, "num_attention_heads": 64, "num_hidden_layers": 24,
      "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 201088, "attention_bias": true,
      "num_local_experts": 32, "num_experts_per_tok": 4}})")
            .mlp_bias);
}

TEST_CASE("config: the load given replaces a scenario's other load", "[config][serve]") {
  // presets/scenarios/llama3-70b-h100-serve.json drives the engine at request_rate 8; a
  // concurrency given over it makes a closed loop (and a rate given over a closed loop, an open
  // one), where both used to be refused as "not both".
  const Config c = io::parse_config(nlohmann::json::parse(R"({"scenario": "llama3-70b-h100-serve",
                                "workload": {"concurrency": 32}})"));
  CHECK(c.workload.serve.concurrency == 32);
  CHECK(c.workload.serve.request_rate == 0);
  // both in the same object stay an error naming the field
  CHECK(test::error_of([] {
          io::parse_config(nlohmann::json::parse(R"({"scenario": "llama3-70b-h100-serve",
            "workload": {"concurrency": 32, "request_rate": 2}})"));
        }) == "workload.request_rate: give request_rate (open loop) or concurrency (closed "
              "loop), not both");
  nlohmann::json w = {{"request_rate", 8}, {"concurrency", 4}};
  io::keep_one_load(w, "request_rate");
  CHECK(w == nlohmann::json{{"request_rate", 8}});
}
