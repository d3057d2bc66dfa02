// FP4 and MX precisions (NVFP4, MXFP4, MXFP8) and the Blackwell presets: bytes with their block
// scales, the FP4 peak, the refusal on a chip without one, and every new preset estimating.
#include "helpers.hpp"

#include "core/comm/collective.hpp"
#include "core/estimate/estimate.hpp"
#include "core/inference/serving.hpp"
#include "core/io/launch_export.hpp"
#include "core/io/presets.hpp"
#include "core/memory/model_states.hpp"
#include "core/schema/choices.hpp"
#include "core/serve/simulate.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <string>

using namespace rl;
using nlohmann::json;

namespace {

constexpr double kLlama31_70b = 70'553'706'496.0; // docs/formulas.md: LLaMA-3-70B's count

Config llama70b_infer(const std::string &hardware, const std::string &weights,
                      const std::string &precision = "bf16",
                      const std::string &bound = "roofline") {
  return io::parse_config(
      json::parse(R"({"model": "llama3.1-70b", "hardware": ")" + hardware +
                  R"(", "cluster": {"base": "dgx-b200", "devices": 1}, "workload": {"mode": "infer",
      "batch": 8, "prompt_len": 1024, "gen_len": 128, "bound": ")" +
                  bound + R"(", "weight_dtype": ")" + weights + R"(", "precision": ")" + precision +
                  R"("}, "parallel": {"tp": 1}})"));
}

} // namespace

TEST_CASE("FP4 and MX formats: bytes per element with their block scales", "[precision]") {
  // NVIDIA, "Introducing NVFP4": E2M1 values, one E4M3 scale per 16 (+ one FP32 per tensor)
  CHECK(dtype_bytes(Dtype::nvfp4) == 0.5625);
  // OCP Microscaling Formats (MX) v1.0: one E8M0 scale per 32 E2M1 (E4M3) elements
  CHECK(dtype_bytes(Dtype::mxfp4) == 0.53125);
  CHECK(dtype_bytes(Dtype::mxfp8) == 1.03125);
  // the scales are the format's: weights carry nothing more (int4 adds its group scale)
  CHECK(weight_bytes(Dtype::nvfp4) == 0.5625);
  CHECK(weight_bytes(Dtype::mxfp4) == 0.53125);
  // GEMM operands move at these sizes too
  CHECK(gemm_operand_bytes(Dtype::nvfp4) == 0.5625);
  CHECK(gemm_operand_bytes(Dtype::mxfp8) == 1.03125);
  CHECK(gemm_operand_bytes(Dtype::fp8) == 1.0);
  CHECK(gemm_operand_bytes(Dtype::bf16) == 2.0);
}

TEST_CASE("fp4 names NVFP4 (SPEC.md), nvfp4 is read as the same, written as fp4", "[precision]") {
  const auto &dtypes = schema::choices<Dtype>();
  CHECK(schema::value_in(dtypes, "fp4") == static_cast<int>(Dtype::nvfp4));
  CHECK(schema::value_in(dtypes, "nvfp4") == static_cast<int>(Dtype::nvfp4));
  CHECK(std::string(schema::name_in(dtypes, static_cast<int>(Dtype::nvfp4))) == "fp4");
  // the alias is accepted but not listed (lists, combos and errors show each value once)
  CHECK(schema::names_text(dtypes) == "fp32, bf16, fp16, fp8, int8, int4, fp4, mxfp4, mxfp8");
  const Config c = llama70b_infer("b200", "nvfp4", "mxfp4");
  CHECK(c.workload.weight_dtype == Dtype::nvfp4);
  CHECK(c.workload.precision == Dtype::mxfp4);
  CHECK(io::to_json(c.workload)["weight_dtype"] == "fp4");
}

TEST_CASE("Llama-3.1-70B in NVFP4 holds 0.5625 B per parameter", "[precision][inference]") {
  const Estimate e = estimate(llama70b_infer("b200", "fp4"));
  CHECK(e.memory.weights == Approx(kLlama31_70b * 0.5625)); // 39.69 GB on one B200
  CHECK(estimate(llama70b_infer("b200", "mxfp4")).memory.weights == Approx(kLlama31_70b * 0.53125));
}

TEST_CASE("NVFP4 weights stream in 0.5625/2 of bf16's decode time", "[precision][inference]") {
  // roofline decode: weight time = parameter bytes / HBM bandwidth (How to Scale Your Model ch. 7)
  const DecodeStep bf = estimate(llama70b_infer("b200", "bf16")).serving.decode;
  const DecodeStep f4 = estimate(llama70b_infer("b200", "fp4")).serving.decode;
  CHECK(bf.weight_time == Approx(kLlama31_70b * 2 / 8e12));
  CHECK(f4.weight_time == Approx(bf.weight_time * 0.5625 / 2));
  CHECK(f4.kv_time == Approx(bf.kv_time)); // the KV cache stays bf16
  // the achievable bound (the serving iteration model) scales its weight stream the same way
  const DecodeStep abf =
      estimate(llama70b_infer("b200", "bf16", "bf16", "achievable")).serving.decode;
  const DecodeStep af4 =
      estimate(llama70b_infer("b200", "fp4", "bf16", "achievable")).serving.decode;
  CHECK(af4.weight_time == Approx(abf.weight_time * 0.5625 / 2));
  CHECK(af4.step < abf.step);
}

TEST_CASE("ridgeline serve: Llama-3.1-70B with NVFP4 weights on a B200 runs",
          "[precision][serve]") {
  const Config c = io::parse_config(json::parse(R"({"model": "llama3.1-70b",
    "hardware": "b200", "cluster": "dgx-b200", "workload": {"mode": "serve",
    "request_rate": 2, "requests": 50, "prompt_len": 1024, "gen_len": 128,
    "weight_dtype": "fp4", "kv_dtype": "fp8", "precision": "fp4"}, "parallel": {"tp": 1}})"));
  const ServeResult r = simulate_serving(c);
  CHECK(r.completed == 50);
  // weights of one instance (tp 1): 70.55e9 x 0.5625 B
  CHECK(r.memory.weights == Approx(kLlama31_70b * 0.5625));
  CHECK(r.tpot.p50 > 0);
}

TEST_CASE("An FP4 GEMM runs at the chip's FP4 peak, attention stays bf16", "[precision][time]") {
  const HardwareSpec b200 = io::parse_hardware(json("b200"), "hardware");
  CHECK(peak_flops(b200, Dtype::nvfp4) == 9e15); // DGX B200: 72 PFLOPS dense FP4 / 8 GPUs
  CHECK(peak_flops(b200, Dtype::mxfp4) == 9e15); // one block-scaled FP4 rate
  CHECK(peak_flops(b200, Dtype::mxfp8) == 4.5e15);
  const Config c = io::parse_config(json::parse(R"({"model": "llama3-8b", "hardware": "b200",
    "cluster": "dgx-b200", "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096,
    "precision": "fp4"}, "parallel": {"tp": 1, "pp": 1, "dp": 8, "microbatch": 1}})"));
  const Layout l = resolve_layout(c);
  const std::vector<OpCost> ops =
      layer_ops(c.model, false, l, 4096, c.hardware, Dtype::nvfp4, true);
  auto op = [&](const char *name) {
    return *std::find_if(ops.begin(), ops.end(), [&](const OpCost &o) { return o.name == name; });
  };
  // QKV [4096 x 4096] x [4096 x 6144]: compute-bound at 9e15 x efficiency, operands 0.5625 B
  const OpCost qkv = op("qkv");
  const double eff = gemm_shape_efficiency(c.hardware, Dtype::nvfp4, 4096, 4096, 6144);
  CHECK(qkv.flops == 2.0 * 4096 * 4096 * 6144);
  CHECK(qkv.bytes == 0.5625 * (4096.0 * 4096 + 4096.0 * 6144 + 4096.0 * 6144));
  CHECK(qkv.time == Approx(qkv.flops / (9e15 * eff)));
  // the same layer in bf16: the GEMM at the 2.25 PF bf16 peak and bf16's efficiency; B200's
  // FP4 efficiency is its own (presets/hardware/b200.json: 0.515 against bf16's 0.776, the
  // measured NVFP4 rate relative to bf16; docs/calibration.md)
  CHECK(base_gemm_efficiency(c.hardware, Dtype::nvfp4) == 0.515);
  const std::vector<OpCost> bf = layer_ops(c.model, false, l, 4096, c.hardware, Dtype::bf16, true);
  CHECK(bf[0].time == Approx(qkv.flops / (2.25e15 * gemm_shape_efficiency(c.hardware, Dtype::bf16,
                                                                          4096, 4096, 6144))));
  CHECK(bf[0].time < qkv.time * 4); // FP4 is 4x the peak, not 4x the rate
  CHECK(estimate(c).time.peak == 9e15);
}

TEST_CASE("FP4 on a chip without an FP4 peak is refused, naming the field", "[precision]") {
  CHECK(test::error_of([] { llama70b_infer("h100-sxm", "fp4", "fp4"); }) ==
        "workload.precision: h100-sxm has no FP4 peak (hardware.peak_flops.fp4); FP4 weights "
        "alone are weight_dtype (dequantised to the precision's GEMMs)");
  CHECK(test::error_of([] {
          llama70b_infer("h100-sxm", "bf16", "mxfp4");
        }).rfind("workload.precision: h100-sxm has no FP4 peak", 0) == 0);
  // weight-only FP4 on Hopper (vLLM's Marlin FP4 kernels): bf16 GEMMs over 0.5625 B weights
  const Estimate e = estimate(llama70b_infer("h100-sxm", "fp4"));
  CHECK(e.memory.weights == Approx(kLlama31_70b * 0.5625));
  // a Config built in code is refused by the estimate itself
  Config c = llama70b_infer("b200", "fp4");
  c.hardware.peak.fp4 = 0;
  c.workload.precision = Dtype::nvfp4;
  CHECK(test::error_of([&] { estimate(c); }).rfind("workload.precision: b200 has no FP4", 0) == 0);
}

TEST_CASE("Blackwell presets: listed, dense datasheet peaks, every one estimates",
          "[precision][presets]") {
  const auto hw = io::preset_names("hardware"), cl = io::preset_names("cluster");
  for (const char *n : {"b200", "b300", "gb200", "gb300"})
    CHECK(std::count(hw.begin(), hw.end(), n) == 1);
  for (const char *n : {"dgx-b200", "gb200-nvl72", "gb300-nvl72"})
    CHECK(std::count(cl.begin(), cl.end(), n) == 1);
  // dense FP4 per GPU: HGX B300 108 PF / 8; GB200 NVL72 1,440 PF sparse / 72 / 2; GB300 NVL72
  // 1,080 PF dense / 72
  auto fp4 = [](const char *n) { return io::parse_hardware(json(n), "hardware").peak.fp4; };
  CHECK(fp4("b300") == 13.5e15);
  CHECK(fp4("gb200") == 10e15);
  CHECK(fp4("gb300") == 15e15);
  CHECK(fp4("h100-sxm") == 0);
  // GB300: 288 GB HBM3e per GPU; GB200: 13.4 TB / 72
  CHECK(io::parse_hardware(json("gb300"), "hardware").hbm_bytes == 288e9);
  CHECK(io::parse_hardware(json("gb200"), "hardware").hbm_bytes == 186e9);
  const std::pair<const char *, const char *> pairs[] = {{"b200", "dgx-b200"},
                                                         {"b300", "dgx-b200"},
                                                         {"gb200", "gb200-nvl72"},
                                                         {"gb300", "gb300-nvl72"}};
  for (const auto &[h, c] : pairs) {
    INFO(h);
    const Config train = io::parse_config(json::parse(
        std::string(R"({"model": "llama3-8b", "hardware": ")") + h + R"(", "cluster": ")" + c +
        R"(", "workload": {"mode": "train", "global_batch": 576, "seq_len": 8192,
        "precision": "fp4"}, "parallel": {"tp": 1, "pp": 1, "zero": 1, "microbatch": 1}})"));
    const Estimate t = estimate(train);
    CHECK(t.time.step > 0);
    CHECK(t.memory.fits);
    const Estimate i = estimate(llama70b_infer(h, "fp4", "fp4", "achievable"));
    CHECK(i.serving.decode.step > 0);
  }
}

TEST_CASE("NVL72: a 72-GPU NVLink domain over trays of 4 (cluster.nvlink_domain)",
          "[presets][comm]") {
  const ClusterSpec c = io::parse_cluster(json("gb200-nvl72"), "cluster");
  CHECK(c.devices == 72);
  CHECK(c.devices_per_node == 4); // the compute tray
  CHECK(c.nvlink_domain == 72);
  CHECK(c.intra_node.bw == 900e9); // NVLink 5: 1.8 TB/s bidirectional per GPU
  // an AllReduce over all 72 GPUs stays on NVLink: one flat group at the NVLink rate
  const double M = 1e9;
  const CollectiveTime t = collective_time(c, Collective::allreduce, M, {72, 1});
  CHECK(t.time == Approx(flat_collective(Collective::allreduce, M, 72, c.intra_node).time));
  CHECK(group_devices_per_node(c, {8, 4}) == 8); // strided across trays, still one domain
  CHECK(collective_time(c, Collective::p2p, M, {2, 36}).time ==
        Approx(p2p_send(M, c.intra_node).time));
  // two racks: 144 GPUs cross the network between them, hierarchically
  const ClusterSpec two =
      io::parse_cluster(json::parse(R"({"base": "gb300-nvl72", "devices": 144})"), "cluster");
  CHECK(two.inter_node.bw == 100e9); // ConnectX-8: 800 Gb/s per GPU
  const CollectiveTime t2 = collective_time(two, Collective::allreduce, M, {144, 1});
  CHECK(std::string(t2.algorithm) == "hierarchical");
  CHECK(t2.time > t.time);
  CHECK(collective_time(two, Collective::p2p, M, {2, 72}).time ==
        Approx(p2p_send(M, two.inter_node).time));
  // without nvlink_domain the same trays would cross the network
  const ClusterSpec trays =
      io::parse_cluster(json::parse(R"({"base": "gb200-nvl72", "nvlink_domain": 4})"), "cluster");
  CHECK(collective_time(trays, Collective::allreduce, M, {72, 1}).time > t.time);
  // the domain is whole nodes and tiles the cluster
  CHECK(test::error_of([] {
          io::parse_cluster(json::parse(R"({"base": "gb200-nvl72", "nvlink_domain": 6})"),
                            "cluster");
        }) == "cluster.nvlink_domain: 6 is not a whole number of nodes of 4");
  // the planners may put TP across the whole domain
  CHECK(c.nvlink_devices() == 72);
}

TEST_CASE("NVL72 racks as jobs hold them: part of each rack (cluster.devices_per_domain)",
          "[presets][comm]") {
  auto rack = [](const char *j) { return io::parse_cluster(json::parse(j), "cluster"); };
  // Megatron-Bridge 25.11 runs Qwen3-235B-A22B on 256 GB200: 64 GPUs (16 trays) in each of 4
  // NVL72 racks (256 = 4 x 64; 72 does not divide it)
  const ClusterSpec q = rack(R"({"base": "gb200-nvl72", "devices": 256})");
  CHECK(q.nvlink_devices() == 64);
  CHECK(rack(R"({"base": "gb200-nvl72", "devices": 144})").nvlink_devices() == 72);
  CHECK(rack(R"({"base": "gb200-nvl72", "devices": 80})").nvlink_devices() == 40);
  CHECK(rack(R"({"base": "gb200-nvl72", "devices": 64})").nvlink_devices() == 72); // one rack
  // a 64-GPU group (TP 8 x EP 8, or DP 64 inside one rack) stays on NVLink; 128 crosses
  const double M = 1e9;
  CHECK(collective_time(q, Collective::allreduce, M, {64, 1}).time ==
        Approx(flat_collective(Collective::allreduce, M, 64, q.intra_node).time));
  CHECK(std::string(collective_time(q, Collective::allreduce, M, {128, 1}).algorithm) ==
        "hierarchical");
  CHECK(collective_time(q, Collective::p2p, M, {2, 64}).time ==
        Approx(p2p_send(M, q.inter_node).time));
  // set by hand: whole trays, at most the rack, dividing the devices
  const ClusterSpec set =
      rack(R"({"base": "gb200-nvl72", "devices": 256, "devices_per_domain": 32})");
  CHECK(set.nvlink_devices() == 32);
  CHECK(io::to_json(set)["devices_per_domain"] == 32);
  CHECK(test::error_of([&] {
          rack(R"({"base": "gb200-nvl72", "devices": 80, "devices_per_domain": 72})");
        }) == "cluster.devices_per_domain: 72 does not divide devices 80");
  CHECK(test::error_of([&] {
          rack(R"({"base": "gb200-nvl72", "devices": 256, "devices_per_domain": 6})");
        }) == "cluster.devices_per_domain: 6 is not a whole number of nodes of 4");
  CHECK(test::error_of([&] {
          rack(R"({"base": "gb200-nvl72", "devices": 256, "devices_per_domain": 76})");
        }) == "cluster.devices_per_domain: 76 is more than the NVLink domain's 72");
  CHECK(test::error_of([&] {
          rack(R"({"base": "dgx-h100", "devices": 16, "devices_per_domain": 8})");
        }) == "cluster.devices_per_domain: needs cluster.nvlink_domain (GPUs on one NVLink "
              "fabric)");
  // the launch places 16 trays in each of 4 racks
  const Config c = io::parse_config(json::parse(R"({"model": "llama3-8b", "hardware": "gb200",
    "cluster": {"base": "gb200-nvl72", "devices": 256}, "workload": {"mode": "train",
    "global_batch": 512, "seq_len": 4096}, "parallel": {"tp": 1, "pp": 1, "microbatch": 1}})"));
  const std::string cmd = io::launch_export(c, resolve_layout(c), "megatron");
  CHECK(cmd.find("--nnodes 64") != std::string::npos);
  CHECK(cmd.find("64 GPUs (16 nodes) in each of 4 NVLink domains of 72 (Slurm: --segment=16)") !=
        std::string::npos);
}

TEST_CASE("Megatron's FP4/MXFP8 recipe flags in the launch export", "[precision][export]") {
  auto megatron = [](const char *precision) {
    const Config c = io::parse_config(json::parse(
        std::string(R"({"model": "llama3-8b", "hardware": "b200", "cluster": "dgx-b200",
        "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096, "precision": ")") +
        precision + R"("}, "parallel": {"tp": 1, "pp": 1, "dp": 8, "microbatch": 1}})"));
    return io::launch_export(c, resolve_layout(c), "megatron");
  };
  CHECK(megatron("fp4").find("--bf16 --fp4-format e2m1 --fp4-recipe nvfp4") != std::string::npos);
  CHECK(megatron("mxfp4").find("--fp4-recipe mxfp4") != std::string::npos);
  CHECK(megatron("mxfp8").find("--fp8-format e4m3 --fp8-recipe mxfp8") != std::string::npos);
  // an NVL72 rack launches 4 processes on each of its 18 compute trays
  const Config rack = io::parse_config(json::parse(R"({"model": "llama3-8b", "hardware": "gb200",
    "cluster": "gb200-nvl72", "workload": {"mode": "train", "global_batch": 576,
    "seq_len": 4096, "precision": "fp4"}, "parallel": {"tp": 1, "pp": 1, "dp": 72,
    "microbatch": 1}})"));
  const std::string cmd = io::launch_export(rack, resolve_layout(rack), "megatron");
  CHECK(cmd.find("--nproc_per_node 4") != std::string::npos);
  CHECK(cmd.find("--nnodes 18") != std::string::npos);
}
