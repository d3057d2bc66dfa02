// Activation memory: Korthikanti et al. 2022 worked values, closed forms, pipeline in-flight.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/memory/activations.hpp"

#include <random>

using namespace rl;
using nlohmann::json;
using rl::test::gpt;

namespace {
const ActLayout kNone{1, false, 1, false};
Layout pipeline(i64 pp, i64 vpp, i64 m, PpSchedule s) {
  Layout l;
  l.pp = pp;
  l.vpp = vpp;
  l.num_micro = m;
  l.schedule = s;
  l.flash = false;
  return l;
}
} // namespace

TEST_CASE("GPT-3 175B activations per layer, s=2048, b=1 (Korthikanti et al. 2022)", "[memory]") {
  const ModelSpec m = test::model("gpt3-175b");
  const double s = 2048, b = 1;
  // sbh(34 + 5as/h)
  REQUIRE(layer_activations(m, false, b, s, kNone).total() == 2'868'903'936.0);
  // TP 8: sbh(10 + 24/t + 5as/(ht))
  REQUIRE(layer_activations(m, false, b, s, {8, false, 1, false}).total() == 578'813'952.0);
  // TP 8 + SP: sbh/t (34 + 5as/h)
  const LayerActivations sp = layer_activations(m, false, b, s, {8, true, 1, false});
  REQUIRE(sp.total() == 358'612'992.0);
  // + selective recompute: 34 sbh / t
  REQUIRE(layer_activations_kept(sp, Recompute::selective, m, b, s, {8, true, 1, false}) ==
          106'954'752.0);
}

TEST_CASE("GPT activation closed forms hold term by term for random shapes", "[memory]") {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 300; ++i) {
    const i64 t = i64{1} << (rng() % 4);
    const i64 a = t * (1 + static_cast<i64>(rng() % 16));
    const i64 h = a * (1 + static_cast<i64>(rng() % 64));
    const ModelSpec m = gpt(1, h, a, 1000);
    const double s = static_cast<double>(1 + rng() % 8192), b = static_cast<double>(1 + rng() % 8);
    const double sbh = s * b * static_cast<double>(h),
                 as_h = static_cast<double>(a) * s / static_cast<double>(h);
    const double td = static_cast<double>(t);
    REQUIRE(layer_activations(m, false, b, s, kNone).total() ==
            Approx(sbh * (34 + 5 * as_h)).epsilon(1e-12));
    REQUIRE(layer_activations(m, false, b, s, {t, false, 1, false}).total() ==
            Approx(sbh * (10 + 24 / td + 5 * as_h / td)).epsilon(1e-12));
    REQUIRE(layer_activations(m, false, b, s, {t, true, 1, false}).total() ==
            Approx(sbh / td * (34 + 5 * as_h)).epsilon(1e-12));
    // Ulysses / ring CP degree n: A/N (docs/formulas.md: Ulysses keeps a/u heads over the whole
    // sequence)
    const i64 n = 1 + static_cast<i64>(rng() % 8);
    REQUIRE(layer_activations(m, false, b, s, {1, false, n, false}).total() ==
            Approx(sbh * (34 + 5 * as_h) / static_cast<double>(n)).epsilon(1e-12));
    // FlashAttention: the s^2 terms become 4asb fp32 statistics
    REQUIRE(layer_activations(m, false, b, s, {1, false, 1, true}).total() ==
            Approx(34 * sbh + 4 * static_cast<double>(a) * s * b).epsilon(1e-12));
  }
}

TEST_CASE("GQA shrinks K and V, TP beyond kv_heads replicates one KV head", "[memory]") {
  const ModelSpec m = test::model("llama3-70b"); // a 64, k 8, d 128, f 28672, gated
  const double s = 8192, b = 1;
  const LayerActivations x = layer_activations(m, false, b, s, {1, false, 1, true});
  REQUIRE(x.qk == 2 * s * b * 128 * (64 + 8));
  REQUIRE(x.v == 2 * s * b * 128 * 8);
  REQUIRE(x.mlp_hidden == 6 * s * b * 28672);
  // tp 16 > k 8: each rank keeps a/t = 4 query heads and one KV head
  ModelSpec wide = m;
  const LayerActivations y = layer_activations(wide, false, b, s, {16, true, 1, true});
  REQUIRE(y.qk == 2 * s * b * 128 * (4 + 1));
  REQUIRE(y.v == 2 * s * b * 128 * 1);
}

TEST_CASE("Pipeline in-flight activations (Korthikanti et al. 2022, Narayanan et al. 2021)",
          "[memory][pipeline]") {
  const ModelSpec m = gpt(48, 1024, 16, 1000);
  const double s = 1024;
  const double per_layer = layer_activations(m, false, 1, s, kNone).total();
  SECTION("1F1B: the first stage holds L layers' worth whatever p") {
    for (const i64 p : {1, 2, 4, 8, 16}) {
      const StageActivations a =
          stage_activations(m, pipeline(p, 1, 64, PpSchedule::one_f_one_b), 0, s);
      REQUIRE(a.layers_in_flight == 48);
      REQUIRE(a.layers == Approx(48 * per_layer));
    }
    // the last stage holds one micro-batch of L/p layers
    REQUIRE(
        stage_activations(m, pipeline(4, 1, 64, PpSchedule::one_f_one_b), 3, s).layers_in_flight ==
        12);
    // fewer micro-batches than stages: only m in flight
    REQUIRE(
        stage_activations(m, pipeline(8, 1, 2, PpSchedule::one_f_one_b), 0, s).layers_in_flight ==
        12);
  }
  SECTION("interleaved: L(1 + (p-1)/(p v))") {
    for (const i64 p : {2, 4, 8})
      for (const i64 v : {2, 3}) {
        if (48 % (p * v) != 0)
          continue;
        const StageActivations a =
            stage_activations(m, pipeline(p, v, 64, PpSchedule::interleaved), 0, s);
        const double pd = static_cast<double>(p), vd = static_cast<double>(v);
        REQUIRE(a.layers_in_flight == Approx(48 * (1 + (pd - 1) / (pd * vd))));
      }
  }
  SECTION("GPipe: all m micro-batches of L/p layers") {
    REQUIRE(stage_activations(m, pipeline(4, 1, 16, PpSchedule::gpipe), 0, s).layers_in_flight ==
            16 * 12);
  }
}

TEST_CASE("Full recompute keeps the layer inputs plus one layer's working set", "[memory]") {
  const ModelSpec m = gpt(32, 2048, 16, 1000);
  Layout l;
  l.tp = 4;
  l.sp = true;
  l.pp = 2;
  l.num_micro = 8;
  l.recompute = Recompute::full;
  l.flash = false;
  const double s = 2048, sbh = s * 2048;
  const StageActivations a = stage_activations(m, l, 0, s);
  const double full_layer = layer_activations(m, false, 1, s, {4, true, 1, false}).total();
  // 1F1B stage 0: p = 2 micro-batches x 16 layers of 2sbh/t, + one full layer
  REQUIRE(a.layers == Approx(32 * 2 * sbh / 4 + full_layer));
}

TEST_CASE("Embedding and output activations (Korthikanti)", "[memory]") {
  const ModelSpec m = gpt(8, 1024, 16, 50000);
  const double s = 512, b = 2, sbh = s * b * 1024;
  // input dropout mask sbh; output 4sbh(1 + v/h); both divided by t under TP+SP
  REQUIRE(embedding_activation_bytes(m, b, s, kNone) == sbh);
  REQUIRE(output_activation_bytes(m, b, s, kNone) == Approx(4 * sbh * (1 + 50000.0 / 1024)));
  REQUIRE(output_activation_bytes(m, b, s, {8, true, 1, false}) ==
          Approx(4 * sbh * (1 + 50000.0 / 1024) / 8));
  Layout l;
  l.pp = 4;
  l.num_micro = 8;
  l.microbatch = 2;
  // stage 0 holds p = 4 micro-batches' masks; the last stage the output term
  REQUIRE(stage_activations(m, l, 0, s).embedding == Approx(4 * sbh));
  REQUIRE(stage_activations(m, l, 3, s).output == Approx(4 * sbh * (1 + 50000.0 / 1024)));
  REQUIRE(stage_activations(m, l, 1, s).output == 0);
}

TEST_CASE("activations: an FP8 or FP4 recipe keeps the linear layers' inputs quantized",
          "[memory]") {
  // Transformer Engine saves a linear layer's input for its weight gradient quantized
  // (transformer_engine/pytorch/module/linear.py: saved_inputmat = the quantized inputmat).
  // Llama-3 70B (h 8192, f 28672, 64 heads, 8 KV heads, d 128), TP 4 with SP, s 8192, b 1,
  // FlashAttention, by hand:
  //   norm inputs 4sbh/t = 67,108,864; QKV input sbh/t = 16,777,216 (FP8, 1 B);
  //   Q, K 2sbd(a/t + k/t) = 37,748,736; V 2sbd k/t = 4,194,304; out-proj input sb(a/t)d =
  //   16,777,216; softmax stats 4(a/t)sb = 524,288; MLP input sbh/t = 16,777,216; MLP hidden
  //   (4 + 1)sbf/t = 293,601,280 (the gate/up outputs in bf16, the down projection's input in
  //   FP8): 453,509,120 B, against 562,561,024 B in bf16.
  const ModelSpec m = test::model("llama3-70b");
  const ActLayout fp8{4, true, 1, true, 1.0}, bf16{4, true, 1, true};
  CHECK(layer_activations(m, false, 1, 8192, fp8).total() == 453'509'120.0);
  CHECK(layer_activations(m, false, 1, 8192, bf16).total() == 562'561'024.0);
  // The recipe's bytes: MXFP8 1 + 1/32, NVFP4 0.5 + 1/16 (core/memory/model_states dtype_bytes)
  Layout l;
  l.tp = 4;
  l.sp = true;
  l.flash = true;
  CHECK(act_layout(l, Dtype::mxfp8).linear_input == 1.03125);
  CHECK(act_layout(l, Dtype::nvfp4).linear_input == 0.5625);
  CHECK(act_layout(l, Dtype::bf16).linear_input == 2);
  // Full recompute keeps the layer input in bf16 whatever the recipe: 2sbh/t
  CHECK(layer_activations_kept(layer_activations(m, false, 1, 8192, fp8), Recompute::full, m, 1,
                               8192, fp8) == 2.0 * 8192 * 8192 / 4);
}

TEST_CASE("A stage's activations are Megatron-LM's own accounting for GPT layers",
          "[memory][megatron]") {
  // megatron/training/theoretical_memory_usage.py: the first stage keeps L layers' worth (pp
  // micro-batches in flight x L / pp layers), sbh (18 + 4 f / h) / t each with SP and
  // selective recompute (compute_activation_memory), sbh (10 + 24 / t) without SP
  // (compute_activation_memory_without_sp), times 1 + (p - 1) / (p v) when interleaved.
  // GPT-3 175B (f = 4h, dropout on), s 2048, b 1, TP 8, PP 8, 512 H100, without FlashAttention
  // (whose softmax statistics Megatron's formula does not count).
  const auto layers_bytes = [](bool sp, i64 vpp) {
    json j = json::parse(R"({"model": "gpt3-175b", "hardware": "h100-sxm",
      "cluster": {"base": "dgx-h100-1024", "devices": 512},
      "workload": {"mode": "train", "global_batch": 512, "seq_len": 2048},
      "parallel": {"tp": 8, "pp": 8, "microbatch": 1, "zero": 1, "recompute": "selective",
        "flash_attention": false}})");
    j["parallel"]["sp"] = sp;
    if (vpp > 1)
      j["parallel"]["vpp"] = vpp;
    return estimate(io::parse_config(j)).stages[0].activations.layers;
  };
  const double sbh = 2048.0 * 12288, L = 96, p = 8, t = 8;
  CHECK(layers_bytes(true, 1) == Approx(sbh * (18 + 4 * 4) / t * L));
  CHECK(layers_bytes(true, 2) == Approx(sbh * 34 / t * L * (1 + (p - 1) / (p * 2))));
  CHECK(layers_bytes(true, 4) == Approx(sbh * 34 / t * L * (1 + (p - 1) / (p * 4))));
  CHECK(layers_bytes(false, 1) == Approx(sbh * (10 + 24 / t) * L));
}

TEST_CASE("Llama 3 405B at 8k on Meta's layout: Megatron-LM's accounting and ridgeline's",
          "[memory][megatron]") {
  // Meta's layout (Dubey et al. 2024, sec. 3.3.2, Table 4): TP 8 with sequence parallelism,
  // PP 16 interleaved, 7 layers on the first and last stage, micro-batch 1, seq 8192, no
  // activation checkpointing. Interleaving v = 2 (not stated; the smallest v that splits it).
  const Config c = io::parse_config(json::parse(R"({"model": "llama3-405b",
    "hardware": "h100-sxm", "cluster": {"base": "dgx-h100-1024", "devices": 8192},
    "workload": {"mode": "train", "global_batch": 2048, "seq_len": 8192},
    "parallel": {"tp": 8, "pp": 16, "vpp": 2, "microbatch": 1, "zero": 1, "sp": true,
      "recompute": "none", "first_stage_layers": 7, "last_stage_layers": 7}})"));
  const Estimate e = estimate(c);
  const double s = 8192, h = 16384, f = 53248, a = 128, d = 128, k = 8, t = 8, p = 16, v = 2;
  // One layer, FlashAttention, no dropout: norm inputs 4h, QKV input 2h, Q and K 2d(a + k),
  // V 2dk, out-proj input 2ad, softmax statistics 4a (fp32), MLP input 2h, SwiGLU's gate and up
  // outputs and its output 6f, all s b / t
  const double ridgeline_layer =
      s / t * (4 * h + 2 * h + 2 * d * (a + k) + 2 * d * k + 2 * a * d + 4 * a + 2 * h + 6 * f);
  // megatron/training/theoretical_memory_usage.py compute_activation_memory: s b h (18 + 4 f/h)
  // / t a layer: Korthikanti's GPT layer with dropout masks (2h) and K, V at every head, the
  // MLP's f-wide tensors as 4f (GeLU's), not SwiGLU's 6f
  const double megatron_layer = s * h * (18 + 4 * f / h) / t;
  // Megatron's first stage: all L layers' worth x (1 + (p - 1)/(p v)), plus the embedding's
  // input and dropout (p micro-batches in flight)
  const double megatron_stage0 =
      (megatron_layer * t * 126 + 8 * s * p + s * h * p) * (1 + (p - 1) / (p * v)) / t;
  // ridgeline: the first stage's 7 layers with 2(p - 1) + (v - 1) p + 1 = 47 model chunks of
  // 3.5 layers in flight (Megatron-LM's interleaved warm-up), 164.5 layer-micro-batches
  const StageActivations &a0 = e.stages[0].activations;
  CHECK(a0.layers_in_flight == Approx(47 * 7 / v));
  CHECK(a0.layers / a0.layers_in_flight == Approx(ridgeline_layer).epsilon(1e-6));
  // per layer 533.2 MB against Megatron's 520.1 MB (+2.5%: SwiGLU's 6f against GeLU's 4f, less
  // the dropout masks and GQA's K and V Megatron's formula keeps); the worst stage (8 layers)
  // against Megatron's first stage (L / p = 7.9 layers' worth): within 1%
  CHECK(a0.layers / a0.layers_in_flight / megatron_layer == Approx(1.025).epsilon(0.002));
  CHECK(e.memory.activations == Approx(megatron_stage0).epsilon(0.01));
  // Both put the worst stage's activations near 96 GB on an 80 GB H100, where Meta ran it:
  // its own runtime keeps less than either accounting (docs/formulas.md)
  CHECK(e.memory.activations > 80e9);
  CHECK_FALSE(e.memory.fits);
}
