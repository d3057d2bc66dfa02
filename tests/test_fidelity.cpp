// The step-time model per component (docs/calibration.md, docs/formulas.md "Step time"): each
// rule against its source's number.
#include "core/calibrate/components.hpp"
#include "core/estimate/estimate.hpp"
#include "core/io/validation_json.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/step_time.hpp"
#include "helpers.hpp"

#include <cmath>

using namespace rl;
using json = nlohmann::json;

namespace {
const char *kGpt = R"({"model": "llama3-70b", "hardware": "h100-sxm",
  "cluster": {"base": "dgx-h100", "devices": 256},
  "workload": {"mode": "train", "global_batch": 256, "seq_len": 8192}, "parallel": )";

Estimate est(const char *parallel, const char *base = kGpt) {
  return estimate(io::parse_config(json::parse(std::string(base) + parallel + "}")));
}
const CommCost *comm(const Estimate &e, const char *kind) {
  for (const auto &c : e.time.comm)
    if (c.kind == kind)
      return &c;
  return nullptr;
}
} // namespace

TEST_CASE("Interleaved pipeline: v sends per micro-batch each way", "[time][fidelity]") {
  // Narayanan et al. 2021 sec. 2.2.2: "the amount of communication also increases by v"
  const Estimate one = est(R"({"tp": 8, "pp": 4, "vpp": 1, "sp": true})");
  const Estimate four = est(R"({"tp": 8, "pp": 4, "vpp": 5, "sp": true})");
  REQUIRE(comm(one, "pp"));
  REQUIRE(comm(four, "pp"));
  CHECK(comm(four, "pp")->bytes_per_device == Approx(5 * comm(one, "pp")->bytes_per_device));
  // b s h / t bf16 per send (scatter/gather), 2 x num_micro x v sends
  const double act = 2.0 * 8192 * 8192 / 8;
  CHECK(comm(one, "pp")->bytes_per_device == Approx(act * 2 * one.layout.num_micro));
}

TEST_CASE("Pipeline sends without SP: Megatron's scatter/gather sends 1/t", "[time][fidelity]") {
  // Megatron-LM (--no-scatter-gather-tensors-in-pipeline off by default): each of the t
  // ranks sends 1/t of the activation; the receiver AllGathers it over the TP group
  const Estimate nosp = est(R"({"tp": 8, "pp": 4, "sp": false})");
  const Estimate sp = est(R"({"tp": 8, "pp": 4, "sp": true})");
  const double p2p_nosp = comm(nosp, "pp")->bytes_per_device;
  const double ag = 2.0 * 8192 * 8192 * 7 / 8 * 2 * static_cast<double>(nosp.layout.num_micro);
  CHECK(p2p_nosp == Approx(comm(sp, "pp")->bytes_per_device + ag));
}

TEST_CASE("Megatron-Core's DDP bucket: max(40M, 1M x dp) parameters", "[time][fidelity]") {
  // megatron/core/distributed/distributed_data_parallel.py
  CHECK(ddp_bucket_params(0, 16) == 40e6);
  CHECK(ddp_bucket_params(1, 128) == 128e6);
  // DeepSpeed ZeRO-2 reduce_bucket_size default 5e8 (deepspeed/runtime/zero/config.py)
  CHECK(ddp_bucket_params(2, 128) == 5e8);
}

TEST_CASE("ZeRO-2 reduce-scatters every micro-batch's gradients, ZeRO-1 once", "[time][fidelity]") {
  // DeepSpeed stage_1_and_2.py: partition_gradients reduces in each backward
  const Estimate z1 = est(R"({"tp": 8, "pp": 4, "zero": 1})");
  const Estimate z2 = est(R"({"tp": 8, "pp": 4, "zero": 2})");
  REQUIRE(z1.layout.num_micro == z2.layout.num_micro);
  const CommCost *d1 = comm(z1, "dp"), *d2 = comm(z2, "dp");
  REQUIRE(d1);
  REQUIRE(d2);
  // gradients: num_micro reduce-scatters instead of one; the parameter gather stays once
  // fp32 gradients reduce-scattered (4 B a parameter), bf16 weights gathered (2 B)
  const double gather = d1->bytes_per_device / 3, rs = 2 * d1->bytes_per_device / 3;
  CHECK(d2->bytes_per_device ==
        Approx(gather + rs * static_cast<double>(z2.layout.num_micro)).epsilon(1e-9));
}

TEST_CASE("bf16 gradients accumulate in fp32 (Megatron), fp16 ones stay 2 bytes",
          "[time][fidelity]") {
  // Megatron-LM arguments.py: bf16 forces accumulate_allreduce_grads_in_fp32
  const Config bf = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 8, "pp": 8, "zero": 0}})");
  CHECK(bf.workload.fp32_grads);
  const Config fp16 = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096, "precision": "fp16"},
    "parallel": {"tp": 8, "pp": 8, "zero": 0}})");
  CHECK_FALSE(fp16.workload.fp32_grads);
  const Estimate a = estimate(bf), b = estimate(fp16);
  // 2 + 4 + 12 = 18 bytes per parameter against 16: gradients twice the bf16 size
  CHECK(a.memory.gradients == Approx(2 * b.memory.gradients));
  CHECK(a.memory.gradients == Approx(2 * a.memory.weights));
}

TEST_CASE("Causal attention with FlashAttention skips the masked half, MFU both ways",
          "[time][fidelity]") {
  const Estimate skip = est(R"({"tp": 8, "pp": 4})");
  const Estimate full = estimate(
      io::parse_config(json::parse(std::string(R"({"model": "llama3-70b", "hardware": "h100-sxm",
  "cluster": {"base": "dgx-h100", "devices": 256},
  "workload": {"mode": "train", "global_batch": 256, "seq_len": 8192, "causal_skip": false},
  "parallel": {"tp": 8, "pp": 4}})"))));
  auto flash = [](const Estimate &e) {
    for (const auto &o : e.time.ops)
      if (o.kind == OpKind::attention)
        return o.flops;
    return 0.0;
  };
  // FlashAttention-2 (Dao 2023 sec. 4.1): causal forward FLOPs are half of 4 s^2 h d
  CHECK(flash(skip) == Approx(flash(full) / 2));
  CHECK(skip.time.step < full.time.step);
  // MFU's 6N + 12 L h s convention counts the whole square: the same model FLOPs either way
  CHECK(skip.model_flops_per_step == full.model_flops_per_step);
  // and the causal convention counts 6 L h s^2 less per sequence-token step: 12 L h s / 2
  const double L = 80, h = 8192, s = 8192, tokens = 256 * 8192;
  CHECK(skip.model_flops_per_step - skip.model_flops_per_step_causal ==
        Approx(6 * L * h * s * tokens));
  CHECK(skip.throughput.mfu_causal / skip.throughput.mfu ==
        Approx(skip.model_flops_per_step_causal / skip.model_flops_per_step));
  // without FlashAttention the unfused kernels compute the whole score matrix
  const Estimate nof = est(R"({"tp": 8, "pp": 4, "flash_attention": false})");
  CHECK(nof.hardware_flops_per_step > skip.hardware_flops_per_step);
}

TEST_CASE("Megatron overlaps backward TP collectives with the weight-gradient GEMMs",
          "[time][fidelity]") {
  // LinearWithGradAccumulationAndAsyncCommunication: the input-gradient AllReduce runs under
  // the weight-gradient GEMM. Without SP the 2 backward AllReduces of a layer are hidden up
  // to the column-parallel GEMMs' time; the forward's 2 are exposed.
  const Estimate e = est(R"({"tp": 8, "pp": 4, "sp": false, "recompute": "none"})");
  const CommCost *tp = comm(e, "tp");
  REQUIRE(tp);
  CHECK(tp->exposed < tp->time);
  CHECK(tp->exposed >= tp->time / 2 - 1e-12); // the forward half stays exposed
  // Transformer Engine's userbuffers (parallel.overlap_tp) hide all of them
  const Estimate te = est(R"({"tp": 8, "pp": 4, "sp": false, "recompute": "none",
    "overlap_tp": true})");
  CHECK(comm(te, "tp")->exposed == 0);
}

TEST_CASE("MoE: EP overlap hides the AllToAll behind compute, imbalance slows the busiest rank",
          "[time][fidelity]") {
  const char *ds = R"({"model": "mixtral-8x7b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096}, "parallel": )";
  const Estimate plain = est(R"({"tp": 1, "pp": 4, "ep": 8})", ds);
  const Estimate over = est(R"({"tp": 1, "pp": 4, "ep": 8, "overlap_ep": true})", ds);
  REQUIRE(comm(plain, "ep"));
  CHECK(comm(plain, "ep")->exposed == Approx(comm(plain, "ep")->time));
  CHECK(comm(over, "ep")->exposed < comm(plain, "ep")->exposed);
  CHECK(comm(over, "ep")->time == Approx(comm(plain, "ep")->time));
  // 1.25 x the mean tokens on the busiest rank: its expert GEMMs and AllToAll grow 1.25 x
  const char *skew = R"({"model": "mixtral-8x7b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096, "moe_imbalance": 1.25},
    "parallel": )";
  const Estimate sk = est(R"({"tp": 1, "pp": 4, "ep": 8})", skew);
  CHECK(comm(sk, "ep")->bytes_per_device == Approx(1.25 * comm(plain, "ep")->bytes_per_device));
  CHECK(sk.time.step > plain.time.step);
  // a capacity factor caps it (tokens beyond it are dropped)
  const Config capped = test::config(R"({"model": "mixtral-8x7b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64}, "workload": {"mode": "train",
    "global_batch": 64, "seq_len": 4096, "moe_imbalance": 1.5, "moe_capacity_factor": 1.1},
    "parallel": {"tp": 1, "pp": 4, "ep": 8}})");
  CHECK(moe_load_factor(capped.workload) == 1.1);
}

TEST_CASE("Memory reserve: fits means fits with 1.5 GB + 5% of HBM left", "[memory][fidelity]") {
  const Config c = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 8, "pp": 8, "zero": 1}})");
  CHECK(memory_reserve(c.hardware) == Approx(1.5e9 + 0.05 * 80e9)); // 5.5 GB on 80 GB
  const Estimate e = estimate(c);
  CHECK(e.memory.fits == (e.memory.total <= 80e9 - 5.5e9));
  // a total between HBM - reserve and HBM does not fit
  Config tight = c;
  tight.hardware.memory_reserve = 80e9 - e.memory.total + 1e9;
  CHECK_FALSE(estimate(tight).memory.fits);
  tight.hardware.memory_reserve = 0;
  CHECK(estimate(tight).memory.fits == (e.memory.total <= 80e9));
}

TEST_CASE("FP8: linear GEMMs at the FP8 peak, attention in bf16, a band of its own",
          "[time][fidelity]") {
  const char *fp8 = R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 256},
    "workload": {"mode": "train", "global_batch": 256, "seq_len": 8192, "precision": "fp8"},
    "parallel": )";
  const Estimate f = est(R"({"tp": 8, "pp": 4})", fp8);
  const Estimate b = est(R"({"tp": 8, "pp": 4})");
  auto op = [](const Estimate &e, const char *name) {
    for (const auto &o : e.time.ops)
      if (o.name == name)
        return o.time;
    return 0.0;
  };
  CHECK(op(f, "attention (flash)") == Approx(op(b, "attention (flash)"))); // bf16 either way
  CHECK(op(f, "mlp up") < op(b, "mlp up") / 1.5);
  // hardware.fp8_uncertainty: one FP8 run (delayed scaling) is calibrated, the recipes not
  CHECK(f.uncertainty == 0.25);
  // time_uncertainty: the leave-one-out error of H100's three calibration runs (the FP8 run
  // predicted from the two bf16 runs, docs/calibration.md)
  CHECK(b.uncertainty == 0.146);
}

TEST_CASE("GEMM efficiency: wave quantisation and short reductions", "[time][fidelity]") {
  // NVIDIA's Matrix Multiplication Background guide: tiles spread over the SMs in waves;
  // 108 SMs, 128 x 128 tiles: a 1536 x 1536 output is 144 tiles = 2 waves, 144 / 216 busy
  CHECK(wave_utilization(1536, 1536, 1, 108) == Approx(144.0 / 216));
  CHECK(wave_utilization(13824, 1024, 1, 108) == 1.0); // 864 tiles of 128 x 128, 8 waves
  HardwareSpec hw = io::parse_hardware(json("a100-80gb"), "hardware");
  // k / (k + k_half): half the large-GEMM efficiency at k = k_half
  CHECK(gemm_shape_efficiency(hw, Dtype::bf16, 13824, hw.gemm_k_half, 1024) ==
        Approx(hw.gemm_efficiency / 2));
}

TEST_CASE("Components reproduce their fitted microbenchmark points within the stated bands",
          "[calibration][fidelity]") {
  // docs/calibration.md: GEMM +/-15%, attention +/-25% (short causal sequences), collectives
  // +/-40% (16 MB on A100: the protocol ramp), HBM +/-5%
  const auto rows = check_components(io::parse_components(json("components")));
  REQUIRE(rows.size() >= 40);
  for (const auto &r : rows) {
    if (!r.fitted)
      continue;
    INFO(r.name << " error " << r.error);
    const double band = r.kind == ComponentKind::gemm         ? 0.15
                        : r.kind == ComponentKind::attention  ? 0.25
                        : r.kind == ComponentKind::collective ? 0.40
                                                              : 0.05;
    CHECK(std::fabs(r.error) <= band);
  }
}

TEST_CASE("Held-out MoE runs: every one predicted too fast, the gap named",
          "[calibration][fidelity]") {
  // Megatron-Bridge 25.11's MoE rows (presets/validation/heldout-moe.json), never fitted. With
  // the host time of a layer pass (moe_host_time) a component, the dispatcher's own kernels and
  // the CUDA graph scopes are not yet (docs/calibration.md "Held-out MoE runs"): every run
  // comes out faster than measured, and the median miss is what the next component must take
  // down (27.7% before the host time, 20.6% with it; the guard is 22%).
  const std::vector<ValidationRow> rows = validate(io::parse_validation(json("heldout-moe")));
  REQUIRE(rows.size() == 15);
  for (const ValidationRow &r : rows) {
    INFO(r.name);
    CHECK(r.error < 0);
  }
  CHECK(summarize(rows).median_abs_error <= 0.22);
}

TEST_CASE("Held-out runs: median error at most 5.6%", "[calibration][fidelity]") {
  // runs never fitted (presets/validation/heldout.json)
  const ErrorSummary s = summarize(validate(io::parse_validation(json("heldout"))));
  CHECK(s.rows >= 25);
  // 5.14% since the engine presets were fitted to all seven serving calibration groups: the
  // four NIM rows (TensorRT-LLM on H100) moved from 4-18% to 10-198%, the 500-token TTFT with
  // the 101 ms per-request time the groups pool (docs/serving.md "Serving calibration groups");
  // 5.58% since the SMs overlapped collectives hold became a component: the A100 rows, whose
  // overhead fell from 0.102 to 0.084, moved 0.2-1.1 points faster, most of them already fast
  // (docs/calibration.md "The SMs overlapped collectives take")
  CHECK(s.median_abs_error <= 0.056);
}
