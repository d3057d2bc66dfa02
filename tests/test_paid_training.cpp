// Training as it is paid for: energy and power caps, interruptions and checkpoints, LoRA and
// QLoRA fine-tuning (issue 39; docs/formulas.md "Energy", "Failures and checkpoints",
// "Fine-tuning").
#include "helpers.hpp"

#include "core/estimate/energy.hpp"
#include "core/estimate/estimate.hpp"
#include "core/estimate/goodput.hpp"
#include "core/io/estimate_json.hpp"
#include "core/jobs/export.hpp"
#include "core/model/lora.hpp"
#include "core/planner/planner.hpp"
#include "core/serve/simulate.hpp"

#include <cmath>

using namespace rl;

namespace {
// Llama-3.1-8B fine-tuned on one H100 of a DGX H100.
std::string finetune_config(const std::string &finetune, const std::string &parallel =
                                                             R"("tp": 1, "pp": 1, "dp": 1,
    "microbatch": 2, "recompute": "full")") {
  return R"({"model": "llama3.1-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 1},
    "workload": {"mode": "train", "global_batch": 2, "seq_len": 2048, "ce_fusion": true,
    "finetune": )" +
         finetune + R"(}, "parallel": {)" + parallel + "}}";
}
} // namespace

TEST_CASE("energy: one training step on H100 by hand", "[energy]") {
  const Config c = test::config(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": "dgx-h100", "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 1, "pp": 1, "microbatch": 1, "zero": 1}})");
  const Estimate e = estimate(c);
  REQUIRE(e.energy.known);
  // H100 SXM 700 W and DGX H100's (10.2 kW - 8 x 700 W) / 8 = 575 W host share, both at 76%
  // (Newkirk et al. 2025), x 8 GPUs x PUE 1.56 (Uptime 2024).
  const double watts = (700 + 575) * 0.76 * 8 * 1.56;
  CHECK(e.energy.device_w == Approx(532));
  CHECK(e.energy.host_w == Approx(437));
  CHECK(e.energy.facility_w == Approx(watts));
  CHECK(e.energy.kwh_per_step == Approx(watts * e.time.step / 3.6e6));
  CHECK(e.energy.joules_per_token == Approx(watts * e.time.step / (64 * 4096)));
  // no token budget: no energy to train
  CHECK(e.energy.mwh_to_train == 0);
  // without a board power nothing is claimed
  Config none = c;
  none.hardware.power_w = 0;
  CHECK(!estimate(none).energy.known);
}

TEST_CASE("energy: a power cap slows the compute by its clock and draws the cap", "[energy]") {
  const char *base = R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": "dgx-h100", "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096,
    "power_cap_w": %s}, "parallel": {"tp": 1, "pp": 1, "microbatch": 1, "zero": 1}})";
  char capped[1024], loose[1024];
  std::snprintf(capped, sizeof capped, base, "400");
  std::snprintf(loose, sizeof loose, base, "650");
  const Estimate e = estimate(test::config(capped));
  // (400 / (700 x 0.76))^(1/3): dynamic power ~ f^3 (hardware.power_clock_exponent)
  const double f = std::cbrt(400 / 532.0);
  CHECK(e.energy.clock == Approx(f));
  CHECK(e.energy.device_w == Approx(400));
  CHECK(e.time.peak == Approx(989e12 * f));            // the bf16 peak at the capped clock
  const Estimate free = estimate(test::config(loose)); // above the load power: no effect
  CHECK(free.energy.clock == 1);
  CHECK(free.energy.device_w == Approx(532));
  CHECK(e.time.step > free.time.step);
  CHECK(e.time.step < free.time.step / f); // memory and links keep their speed
  // the planner runs at the capped clock too
  PlanOptions o;
  o.top = 1;
  const PlanResult r = plan(test::config(capped), o);
  REQUIRE(!r.plans.empty());
  CHECK(r.plans.front().estimate.time.peak == Approx(989e12 * f));
}

TEST_CASE("failures: Young's and Daly's intervals and the expected wall time by hand",
          "[failures]") {
  // Daly 2006 Figs. 3-5: delta 5 min, R 10 min; M 24 h -> 117 min, 6 h -> 57 min, 15 min
  // -> 9.1 min.
  CHECK(daly_interval(5, 24 * 60) == Approx(116.69).epsilon(1e-4));
  CHECK(daly_interval(5, 6 * 60) == Approx(56.71).epsilon(1e-4));
  CHECK(daly_interval(5, 15) == Approx(9.141).epsilon(1e-3));
  CHECK(daly_interval(40, 15) == 15);               // delta >= 2M: M
  CHECK(young_interval(5, 24 * 60) == Approx(120)); // sqrt(2 x 5 x 1440)
  // M 10 h, R 600 s, delta 60 s, tau 1200 s: M e^{R/M} (e^{(tau+delta)/M} - 1) / tau = 1.086554
  // of the work (computed by hand: goodput 0.920344).
  CHECK(1000 / daly_wall_time(1000, 1200, 60, 600, 36000) == Approx(0.9203439));
  // no interruptions: only the checkpoints' stalls, (tau + delta) / tau
  CHECK(daly_wall_time(1000, 1200, 60, 600, 0) == Approx(1000 * 1260.0 / 1200));
}

TEST_CASE("failures: the run's checkpoint, interval and goodput", "[failures]") {
  const char *base = R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": "dgx-h100-1024", "workload": {"mode": "train", "global_batch": 1024,
    "seq_len": 8192, "train_tokens": 1e12, "checkpoint": %s},
    "parallel": {"tp": 8, "pp": 8, "vpp": 5, "microbatch": 1, "zero": 1, "sp": true}})";
  char sync[1024], async[1024], fixed[1024], never[1024];
  std::snprintf(sync, sizeof sync, base, "{}");
  std::snprintf(async, sizeof async, base, R"({"async": true})");
  std::snprintf(fixed, sizeof fixed, base, R"({"interval_s": 3600, "restart_s": 300})");
  const Estimate e = estimate(test::config(sync));
  const Resilience &r = e.resilience;
  // 14 B per parameter, each of 1024 GPUs writing 1/1024 at 2e12 / 16,384 B/s
  const double bytes = static_cast<double>(e.total_params) * 14;
  CHECK(r.checkpoint_bytes == Approx(bytes));
  CHECK(r.write_s == Approx(bytes / 1024 / (2e12 / 16384)));
  CHECK(r.blocking_s == Approx(r.write_s));
  // Llama 3: 419 interruptions in 54 days on 16,384 GPUs -> M = 3600 / (1024 x 1.9729e-5)
  CHECK(r.mtbf_s == Approx(3600 / (1024 * 419.0 / (54 * 24 * 16384.0))));
  CHECK(r.interval_s == Approx(daly_interval(r.blocking_s, r.mtbf_s)));
  const double work = e.train_steps * e.time.step;
  CHECK(e.time_to_train == Approx(daly_wall_time(work, r.interval_s, r.blocking_s, 600, r.mtbf_s)));
  CHECK(r.goodput == Approx(work / e.time_to_train));
  CHECK(r.interruptions == Approx(e.time_to_train / r.mtbf_s));
  CHECK(r.goodput > 0.9);
  CHECK(r.goodput < 1);
  // Async: the stall is the copy to host memory (PCIe 5.0 x16, 63 GB/s); a lost write adds to
  // the restart.
  const Estimate a = estimate(test::config(async));
  CHECK(a.resilience.blocking_s == Approx(bytes / 1024 / 63e9));
  CHECK(a.resilience.restart_s == Approx(600 + a.resilience.write_s));
  CHECK(a.resilience.interval_s >= a.resilience.write_s);
  // A fixed interval and restart are taken as given.
  const Estimate f = estimate(test::config(fixed));
  CHECK(f.resilience.interval_s == 3600);
  CHECK(f.time_to_train ==
        Approx(daly_wall_time(work, 3600, f.resilience.blocking_s, 300, f.resilience.mtbf_s)));
  // No interruptions and no interval: the steps alone.
  Config calm = test::config(sync);
  calm.cluster.interruptions_per_gpu_hour = 0;
  const Estimate q = estimate(calm);
  CHECK(q.time_to_train == Approx(work));
  CHECK(q.resilience.goodput == 1);
  std::snprintf(never, sizeof never, base, R"({"async": true})");
  Config no_host = test::config(never);
  no_host.cluster.host_bw = 0;
  CHECK(test::error_of([&] { estimate(no_host); }) ==
        "workload.checkpoint.async: copies the checkpoint to host memory first: it needs "
        "cluster.host_bw");
}

TEST_CASE("lora: adapters of Llama-3.1-8B rank 16 on q, k, v, o by hand", "[finetune]") {
  const Config c = test::config(finetune_config(R"({"method": "lora", "rank": 16})").c_str());
  // HF PEFT prints "trainable params: 13,631,488" for this LoraConfig: 32 layers x 16 x
  // ((4096 + 4096) + 2 x (4096 + 1024) + (4096 + 4096)).
  CHECK(lora_params(c.model, *c.workload.finetune).total == 13631488);
  const Estimate e = estimate(c);
  const double base = static_cast<double>(e.total_params);
  CHECK(base == 8030261248.0);
  CHECK(e.trained_params == 13631488);
  CHECK(e.memory.weights == Approx(2 * base + 2 * 13631488.0));
  CHECK(e.memory.gradients == Approx(4 * 13631488.0));  // fp32 gradients
  CHECK(e.memory.optimizer == Approx(12 * 13631488.0)); // fp32 master, m, v
  // FLOPs: 2F + scores + 3 x adapters' forward, against full training's 3F
  Config full = c;
  full.workload.finetune.reset();
  const Estimate f = estimate(full);
  const double F = f.model_flops_per_step / 3;
  const double adapters = 2 * 13631488.0 * 2 * 2048;
  CHECK(e.model_flops_per_step == Approx(2 * F + f.forward.scores_forward() + 3 * adapters));
  CHECK(e.model_flops_per_step / f.model_flops_per_step == Approx(0.70).margin(0.02));
  // the fine-tune is faster: no weight gradients but the adapters'
  CHECK(e.time.step < f.time.step);
  CHECK(e.time.optimizer < f.time.optimizer / 100);
}

TEST_CASE("qlora: NF4 bytes and the frozen base's memory", "[finetune]") {
  // QLoRA sec. 3: 4-bit values + 8-bit absmax per 64 + fp32 per 256 absmaxes = 4.127 bits
  CHECK(kNf4Bits == Approx(4.126953125));
  CHECK(base_weight_bytes(BaseDtype::nf4) == Approx(0.515869140625));
  const Config c = test::config(
      finetune_config(R"({"method": "qlora", "rank": 8, "targets": ["qkv", "o", "mlp"]})").c_str());
  CHECK(c.workload.finetune->base_dtype == BaseDtype::nf4); // qlora's default base
  const Estimate e = estimate(c);
  // linear weights: 32 layers x 218,112,000 less the two norms (2 x 4096) each; embedding and
  // head (2 x 525,336,576) and the norms stay bf16
  const double linear = 32 * (218112000.0 - 8192);
  const double other = 8030261248.0 - linear;
  const double adapters = lora_params(c.model, *c.workload.finetune).total;
  CHECK(adapters == 32 * 8 * (2 * 8192 + 2 * 5120 + 3 * (4096 + 14336)));
  CHECK(e.memory.weights == Approx(linear * kNf4Bits / 8 + other * 2 + adapters * 2));
  // dequantisation: an operator of its own, forward and backward
  bool dequant = false;
  for (const auto &o : e.time.ops)
    dequant = dequant || o.name == "dequantize base";
  CHECK(dequant);
  // Published: torchtune's Llama 3.1 8B QLoRA (rank 8, batch 2, 2,048 tokens, activation
  // checkpointing) peaks at 7.4 GiB (torchtune README "Memory and training speed"); ridgeline
  // keeps the whole bf16 logits, torchtune chunks them: within 15%.
  CHECK(e.memory.total == Approx(7.4 * 1073741824).epsilon(0.15));
}

TEST_CASE("finetune: bad input names the field", "[finetune]") {
  CHECK(test::error_of([] {
          test::config(finetune_config(R"({"method": "lora", "targets": ["q"]})").c_str());
        }) == "workload.finetune.targets[0]: must be one of qkv, o, mlp");
  CHECK(test::error_of([] {
          test::config(finetune_config(R"({"method": "lora", "targets": []})").c_str());
        }) == "workload.finetune.targets: must be a non-empty list of \"qkv\", \"o\", \"mlp\"");
  CHECK(test::error_of([] {
          test::config(finetune_config(R"({"method": "qlora", "base_dtype": "bf16"})").c_str());
        }) == "workload.finetune.base_dtype: qlora's base is nf4 (Dettmers et al. 2023)");
  CHECK(test::error_of([] {
          test::config(finetune_config(R"({"method": "lora", "base_dtype": "nf4"})").c_str());
        }) == "workload.finetune.method: an nf4 base is QLoRA: set method qlora");
  CHECK(test::error_of([] {
          test::config(finetune_config(R"({"method": "lora", "rank": 0})").c_str());
        }).rfind("workload.finetune.rank:", 0) == 0);
  // an NF4 base is split by data parallelism only
  CHECK(test::error_of([] {
          estimate(test::config(finetune_config(R"({"method": "qlora"})",
                                                R"("tp": 2, "pp": 1, "dp": 1, "microbatch": 2)")
                                    .c_str()));
        }).rfind("parallel.tp:", 0) == 0);
}

TEST_CASE("offload_optimizer: no optimizer state on the GPU, its update over the host link",
          "[finetune]") {
  const Config c = test::config(finetune_config(R"({"method": "full"})",
                                                R"("tp": 1, "pp": 1, "dp": 1, "microbatch": 2,
    "recompute": "full", "offload_optimizer": true)")
                                    .c_str());
  const Estimate e = estimate(c);
  CHECK(e.memory.optimizer == 0);
  // fp32 gradients down, bf16 weights up at PCIe 5.0's 63 GB/s, Adam on the host at 1e9/s
  const double p = 8030261248.0;
  CHECK(e.time.optimizer == Approx(p * (4 + 2) / 63e9 + p / 1e9));
  Config no_host = c;
  no_host.cluster.host_bw = 0;
  CHECK(test::error_of([&] { estimate(no_host); }) ==
        "cluster.host_bw: is unknown: offloading the optimizer needs the device-to-host "
        "bandwidth");
}

TEST_CASE("finetune exports: torchtune, PEFT with DeepSpeed, Megatron-Bridge", "[finetune]") {
  const Config q = test::config(
      finetune_config(R"({"method": "qlora", "rank": 8, "targets": ["qkv", "o", "mlp"]})").c_str());
  const std::string tt = jobs::export_launch(q, "torchtune").text;
  CHECK(tt.find("tune run lora_finetune_single_device") != std::string::npos);
  CHECK(tt.find("model.lora_attn_modules=['q_proj', 'k_proj', 'v_proj', 'output_proj']") !=
        std::string::npos);
  CHECK(tt.find("model.apply_lora_to_mlp=True") != std::string::npos);
  CHECK(tt.find("model.lora_rank=8") != std::string::npos);
  const std::string ds = jobs::export_launch(q, "deepspeed").text;
  CHECK(ds.find("bnb_4bit_quant_type=\"nf4\"") != std::string::npos);
  CHECK(ds.find("target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\", \"gate_proj\", "
                "\"up_proj\", \"down_proj\"]") != std::string::npos);
  CHECK(test::error_of([&] { jobs::export_launch(q, "megatron"); }) ==
        "workload.finetune.base_dtype: Megatron-Core has no NF4 base (QLoRA): export to "
        "torchtune or deepspeed (Hugging Face PEFT with bitsandbytes) (--format megatron)");
  const Config l = test::config(finetune_config(R"({"method": "lora", "rank": 16})").c_str());
  CHECK(jobs::export_launch(l, "megatron")
            .text.find("cfg.peft = LoRA(target_modules=[\"linear_qkv\", \"linear_proj\"], dim=16, "
                       "alpha=32)") != std::string::npos);
  CHECK(test::error_of([&] {
          jobs::export_launch(l, "torchtitan");
        }).rfind("workload.finetune.method: TorchTitan trains every weight", 0) == 0);
  const Config off = test::config(finetune_config(R"({"method": "full"})",
                                                  R"("tp": 1, "pp": 1, "dp": 1, "zero": 1,
    "microbatch": 2, "recompute": "full", "offload_optimizer": true)")
                                      .c_str());
  CHECK(jobs::export_launch(off, "deepspeed").text.find("\"offload_optimizer\": {") !=
        std::string::npos);
}

TEST_CASE("energy: serving J per output token", "[energy]") {
  const Config c = test::serve_config(R"({"mode": "serve", "request_rate": 4, "requests": 200,
    "prompt_len": 512, "gen_len": 128})");
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.output_tokens_per_s > 0);
  const double watts =
      (700 + c.cluster.host_power_w) * 0.76 * static_cast<double>(r.devices) * c.cluster.pue;
  CHECK(r.facility_w == Approx(watts));
  CHECK(r.joules_per_output_token == Approx(watts / r.output_tokens_per_s));
  CHECK(r.energy_cost_per_million_tokens ==
        Approx(watts / 3.6e6 * 0.0806 * 1e6 / r.output_tokens_per_s));
}

TEST_CASE("planner: ranked by energy, which needs a board power", "[energy][planner]") {
  const Config c = test::config(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": "dgx-h100", "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096}})");
  PlanOptions o;
  o.top = 3;
  o.objective = Objective::energy;
  const PlanResult r = plan(c, o);
  REQUIRE(r.plans.size() == 3);
  // without a token budget: J per token, the plans in that order
  CHECK(r.plans[0].objective == Approx(r.plans[0].estimate.energy.joules_per_token));
  CHECK(r.plans[0].objective <= r.plans[1].objective);
  Config none = c;
  none.hardware.power_w = 0;
  CHECK(test::error_of([&] { plan(none, o); }) ==
        "hardware.power_w: is required to rank by energy (the board power, W)");
}
