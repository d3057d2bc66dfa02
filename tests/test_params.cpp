// Parameter counts against the seeds' worked examples ridgeline's test cases and closed forms.
#include "helpers.hpp"

#include "core/model/params.hpp"

#include <algorithm>
#include <cmath>
#include <random>

using namespace rl;
using rl::test::gpt;

TEST_CASE("GPT block parameters equal Narayanan et al. 2021's (12h^2+13h)L + vh closed form",
          "[params]") {
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 200; ++i) {
    const i64 a = 1 + static_cast<i64>(rng() % 64);
    const i64 h = a * (1 + static_cast<i64>(rng() % 256));
    const i64 L = 1 + static_cast<i64>(rng() % 128);
    const i64 v = 1 + static_cast<i64>(rng() % 100000);
    ModelSpec m = gpt(L, h, a, v);
    m.tied_embeddings = true;
    const ModelParams p = model_params(m);
    // Narayanan et al. 2021: (12h^2 + 13h)L + vh, plus the final layernorm 2h
    REQUIRE(p.total() == (12 * h * h + 13 * h) * L + v * h + 2 * h);
    REQUIRE(p.active() == p.total());
  }
}

TEST_CASE("GPT-3 175B parameters (independent count: 175,219,826,688 untied, + final norm)",
          "[params]") {
  const ModelSpec m = test::model("gpt3-175b");
  const ModelParams p = model_params(m);
  // The independent count is (12h^2+13h)L + 2vh + 2h, without the learned position table.
  REQUIRE(p.total() - p.pos_embedding == 175'219'826'688);
  // The preset also carries GPT-3's learned positions: 2048 x 12288.
  REQUIRE(p.pos_embedding == 2048 * 12288);
}

TEST_CASE("LLaMA-3 70B parameters (independent count: 70,553,706,496, How to Scale Your Model ch. "
          "6 rounds to 70.4e9)",
          "[params]") {
  const ModelParams p = model_params(test::model("llama3-70b"));
  REQUIRE(p.total() == 70'553'706'496);
  // How to Scale Your Model ch. 6: FFN 3*h*f*L = 56.3e9, vocab 2*v*h = 2.1e9, attention 12e9
  CHECK(80 * p.dense_layer.mlp == 56'371'445'760);
  CHECK(p.embedding + p.head == 2'101'346'304);
  CHECK(80 * p.dense_layer.attention == 12'079'595'520);
}

TEST_CASE("LLaMA-2 13B parameters (independent count: 13,015,864,320, How to Scale Your Model ch. "
          "7: 13e9)",
          "[params]") {
  REQUIRE(model_params(test::model("llama2-13b")).total() == 13'015'864'320);
}

TEST_CASE("GQA attention: h*d*(2a + 2k) by hand", "[params]") {
  // LLaMA-3 8B: h 4096, a 32, k 8, d 128 -> 4096*128*(64 + 16) = 41,943,040 per layer
  const ModelSpec m = test::model("llama3-8b");
  REQUIRE(attention_weight_params(m) == 41'943'040);
  // whole model: 32 x (41,943,040 + 3*4096*14336 + 2*4096) + 2*128256*4096 + 4096
  REQUIRE(model_params(m).total() == 8'030'261'248);
}

TEST_CASE("MoE: Mixtral 8x7B total and active parameters by hand", "[params][moe]") {
  const ModelParams p = model_params(test::model("mixtral-8x7b"));
  // per layer: attention 4096*128*(64+16) = 41,943,040; experts 8*3*4096*14336 =
  // 1,409,286,144; router 4096*8 = 32,768; norms 8,192 -> 1,451,270,144; x32 layers
  // + embeddings 2*32000*4096 + final norm 4096 = 46,702,792,704 (Mistral AI: "46.7B")
  REQUIRE(p.total() == 46'702'792'704);
  // active: top-2 of 8 experts: 32 x (1,451,270,144 - 6*176,160,768) + 262,148,096
  REQUIRE(p.active() == 12'879'925'248); // Mistral AI: "12.9B active"
  REQUIRE(p.moe_layers == 32);
  REQUIRE(p.dense_layers == 0);
}

TEST_CASE("MoE every k layers, first dense layers and shared experts", "[params][moe]") {
  ModelSpec m = test::model_json(R"({"layers": 8, "hidden": 64, "ffn": 256, "heads": 4,
    "vocab": 100, "moe": {"experts": 4, "top_k": 2, "expert_ffn": 32, "shared_experts": 1,
    "every": 2, "first_dense": 2}})");
  // MoE layers: i >= 2 and i % 2 == 0 -> 2, 4, 6
  REQUIRE(count_moe_layers(m) == 3);
  REQUIRE(!is_moe_layer(m, 0));
  REQUIRE(is_moe_layer(m, 2));
  REQUIRE(!is_moe_layer(m, 3));
  const LayerParams moe = layer_params(m, true);
  // (4 routed + 1 shared) x 3*64*32 + router 64*4
  REQUIRE(moe.mlp == 5 * 3 * 64 * 32);
  REQUIRE(moe.router == 256);
  REQUIRE(moe.active() == moe.total() - 2 * 3 * 64 * 32);
}

TEST_CASE("DeepSeek-V3: MLA + 256-expert MoE (DeepSeek-V3 report: 671B total, 37B active)",
          "[params][moe][mla]") {
  const ModelParams p = model_params(test::model("deepseek-v3"));
  // Independent sum (q_a 7168x1536 + norm + q_b 1536x128x192, kv_a 7168x576 + norm +
  // kv_b 512x128x256, o 128x128x7168; 3 dense layers, 58 MoE layers; untied 129280 vocab)
  REQUIRE(p.total() == 671'026'404'352);
  REQUIRE(p.active() == 37'552'282'624);
  REQUIRE(p.dense_layer.attention == 187'107'328);
}

TEST_CASE("Biases: Qwen2-style Q,K,V bias only", "[params]") {
  const ModelSpec m = test::model_json(R"({"layers": 1, "hidden": 64, "ffn": 128, "heads": 4,
    "kv_heads": 2, "vocab": 10, "qkv_bias": true})");
  // d*(a + 2k) = 16 * (4 + 4)
  REQUIRE(attention_bias_params(m) == 128);
  REQUIRE(mlp_bias_params(m, 128) == 0);
}

TEST_CASE("Current open models: total and active parameters within 1% of their model cards",
          "[params][moe]") {
  struct Card {
    const char *preset;
    double total, active;
    bool active_has_embedding; // whether the card's active count includes the input embedding
  };
  const Card cards[] = {
      {"qwen3-30b-a3b", 30.5e9, 3.3e9, true},    // Qwen/Qwen3-30B-A3B card: 30.5B, 3.3B activated
      {"qwen3-235b-a22b", 235e9, 22e9, true},    // Qwen/Qwen3-235B-A22B card: 235B, 22B activated
      {"deepseek-v3", 671e9, 37e9, true},        // DeepSeek-V3 report: 671B total, 37B activated
      {"deepseek-r1", 671e9, 37e9, true},        // DeepSeek-R1 card: 671B total, 37B activated
      {"gpt-oss-120b", 116.83e9, 5.13e9, false}, // arXiv:2508.10925 Table 1: 116.83B, 5.13B
      {"gpt-oss-20b", 20.91e9, 3.61e9, false},   // arXiv:2508.10925 Table 1: 20.91B, 3.61B
      {"llama3.3-70b", 70.6e9, 70.6e9, true},    // Llama 3.3 card: 70B (dense; 70.55B counted)
  };
  for (const Card &c : cards) {
    INFO(c.preset);
    const ModelSpec m = test::model(c.preset);
    const ModelParams p = model_params(m);
    const double active =
        static_cast<double>(p.active() - (c.active_has_embedding ? 0 : p.embedding));
    CHECK(std::abs(static_cast<double>(p.total()) / c.total - 1) < 0.01);
    // cards give the active count to 2 digits (Qwen3-30B-A3B's 3.35B counted reads "3.3B",
    // DeepSeek's 37.55B "37B"): within 2%
    CHECK(std::abs(active / c.active - 1) < 0.02);
    CHECK(!m.hf_id.empty()); // each names the checkpoint vLLM serves
  }
  // gpt-oss-120b by hand: 36 x (attention 2 x 2880 x 64 x (64 + 8) + biases 64 x (64 + 16) + 2880
  // + 128 experts x (3 x 2880^2 + 3 x 2880) + router 2880 x 128 + 2 norms x 2880)
  // + 2 x 201088 x 2880 + 2880 = 116,829,149,760
  CHECK(model_params(test::model("gpt-oss-120b")).total() == 116'829'149'760);
}
