// Collectives and step time: How to Scale Your Model ch. 3 and ch.5-6 examples, decomposition
// identities, and the calibration rows within the band ridgeline reports.
#include "helpers.hpp"

#include "core/calibrate/calibration.hpp"
#include "core/comm/collective.hpp"
#include "core/estimate/estimate.hpp"
#include "core/io/validation_json.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/time/rooflines.hpp"

using namespace rl;
using nlohmann::json;

namespace {
ClusterSpec cluster(const char *preset) {
  return io::parse_cluster(json(preset), "cluster");
}
} // namespace

TEST_CASE("How to Scale Your Model ch. 3: AllGather on a TPU v5e 8x4 mesh", "[comm][tpu]") {
  ClusterSpec c = cluster("tpu-v5e-2x4");
  c.torus_axes = {8, 4};
  c.wraparound = {false, false};
  c.devices = 32;
  const Group y{4, 8}; // the Y axis
  // bf16[E=2048, F=8192] = 33,554,432 B; no wraparound on v5e: 3 hops x 8.4 MB / 4.5e10
  const double V = 2048.0 * 8192 * 2;
  const CollectiveTime ag = collective_time(c, Collective::allgather, V, y);
  CHECK(ag.time == Approx(3 * (V / 4) / 4.5e10)); // 559 us (seed: ~560 us)
  CHECK(ag.time == Approx(559.2e-6).epsilon(1e-3));
  // with wraparound: V / W_bidir = 33.5e6 / 9e10 = 372.8 us (How to Scale Your Model rounds V to
  // 34e6: 377)
  c.wraparound = {false, true};
  const CollectiveTime wrap = collective_time(c, Collective::allgather, V, Group{4, 8});
  CHECK(wrap.time == Approx(V / 9e10));
  // latency-bound: E = F = 256: 3 hops x 1 us
  c.wraparound = {false, false};
  CHECK(collective_time(c, Collective::allgather, 256.0 * 256 * 2, y).time == Approx(3e-6));
  // AllReduce = 2 x AllGather; AllToAll = AllGather / 4 on a bidirectional ring
  c.wraparound = {false, true};
  CHECK(collective_time(c, Collective::allreduce, V, y).time == Approx(2 * wrap.time));
  CHECK(collective_time(c, Collective::alltoall, V / 4, y).time == Approx(wrap.time / 4));
  // two axes: the bandwidth term is shared by both axes' links
  c.wraparound = {true, true};
  const CollectiveTime xy = collective_time(c, Collective::allgather, V, Group{32, 1});
  CHECK(xy.time == Approx(V / (2 * 9e10)));
}

TEST_CASE("Switched clusters: ring vs tree, hierarchical groups", "[comm]") {
  const ClusterSpec c = cluster("dgx-h100-1024");
  const Link nv = c.intra_node, ib = c.inter_node;
  // inside a node: ring for large buffers, tree wins for tiny ones (latency)
  const CollectiveTime big = collective_time(c, Collective::allreduce, 1e9, Group{8, 1});
  CHECK(std::string(big.algorithm) == "ring");
  CHECK(big.time == Approx(14 * nv.latency + 2 * 1e9 * 7 / 8 / nv.rate()));
  const CollectiveTime tiny = collective_time(c, Collective::allreduce, 1e3, Group{8, 1});
  CHECK(std::string(tiny.algorithm) == "tree");
  CHECK(tiny.time == Approx(6 * nv.latency + 2e3 / nv.rate()));
  // one GPU per node (stride 8): the network only
  const CollectiveTime across = collective_time(c, Collective::allgather, 1e9, Group{16, 8});
  CHECK(across.time == Approx(15 * ib.latency + 1e9 * 15 / 16 / ib.rate()));
  // 64 GPUs on 8 nodes: RS(NVLink) + AR(IB, M/8) + AG(NVLink), pipelined in chunks: the
  // latencies add, the bandwidth term is the slower level's
  const CollectiveTime h = collective_time(c, Collective::allreduce, 8e9, Group{64, 1});
  CHECK(std::string(h.algorithm) == "hierarchical");
  const CollectiveTime rs = ring_reduce_scatter(8e9, 8, nv), ag = ring_allgather(8e9, 8, nv);
  const CollectiveTime ar = flat_collective(Collective::allreduce, 1e9, 8, ib);
  const double in_bw = rs.time - rs.latency + ag.time - ag.latency;
  CHECK(h.time ==
        Approx(rs.latency + ag.latency + ar.latency + std::max(in_bw, ar.time - ar.latency)));
  CHECK(group_devices_per_node(c, Group{64, 1}) == 8);
  // nccl-tests' bus bandwidth (doc/PERFORMANCE.md: AllReduce busbw = S / t x 2(n-1)/n). A
  // large pipelined hierarchical AllReduce runs at the ring bound of its slower level: NVLink
  // (algbw = rate / (2 x 7/8)) or the 8 NICs of a node carrying M/8 each (8 rate / (2(N-1)/N)).
  for (const i64 nodes : {2, 8, 16}) {
    const i64 n = 8 * nodes;
    const double M = 16e9;
    const CollectiveTime t = collective_time(c, Collective::allreduce, M, Group{n, 1});
    const double algbw_nv = nv.rate() / (2.0 * 7 / 8);
    const double algbw_ib = 8 * ib.rate() / (2.0 * static_cast<double>(nodes - 1) / nodes);
    const double ring_bound = std::min(algbw_nv, algbw_ib) * 2 * static_cast<double>(n - 1) / n;
    const double busbw = M / t.time * 2 * static_cast<double>(n - 1) / n;
    INFO(n << " GPUs: busbw " << busbw / 1e9 << " GB/s, bound " << ring_bound / 1e9);
    CHECK(busbw <= ring_bound);
    CHECK(busbw == Approx(ring_bound).epsilon(0.01));
    CHECK(busbw > 390e9); // nccl-tests-class figures on DGX H100 (NCCL team: 370 GB/s NVLink)
  }
  CHECK(group_devices_per_node(c, Group{4, 4}) == 2);
}

TEST_CASE("How to Scale Your Model ch. 5-6 thresholds, derived from the presets", "[time][tpu]") {
  const HardwareSpec v5e = io::parse_hardware(json("tpu-v5e"), "hardware");
  const HardwareSpec v5p = io::parse_hardware(json("tpu-v5p"), "hardware");
  const ClusterSpec pod = cluster("tpu-v5p-8960");
  // critical batch per chip: 1.97e14 / 8.2e11 = 240 (seed); the preset's 8.19e11 gives 240.5
  CHECK(critical_batch_tokens(v5e.peak.bf16, 8.2e11) == Approx(240.2).epsilon(1e-3));
  CHECK(critical_batch_tokens(v5e.peak.bf16, v5e.hbm_bw) == Approx(240.5).epsilon(1e-3));
  // FSDP over ICI on v5p: 4.59e14 / (2 x 9e10) = 2550 tokens per chip; 3 axes: 850
  const double w = 2 * pod.ici.bw;
  CHECK(fsdp_min_tokens_per_chip(v5p.peak.bf16, w, 1) == Approx(2550));
  CHECK(fsdp_min_tokens_per_chip(v5p.peak.bf16, w, 3) == Approx(850));
  // over DCN (6.25e9 B/s per chip): ~75,000
  CHECK(fsdp_min_tokens_per_chip(v5p.peak.bf16, pod.dcn.bw, 1) == Approx(73'440));
  // TP of LLaMA-3 70B's MLP (F = 28672) stays compute-bound below F / 2550 = 11
  const ModelSpec m = test::model("llama3-70b");
  CHECK(tp_max_degree(static_cast<double>(m.ffn), v5p.peak.bf16, w) == Approx(28672.0 / 2550));
  // 4M-token batch on 8960 chips: sqrt(2 B N / F) = 1619 (seed: 1618) -> 2048 x 4 layout;
  // pure FSDP gives 4,194,304 / 8960 = 468 tokens per chip, under 850: comm-bound
  CHECK(optimal_fsdp_degree(4'194'304.0, 8960, 28672) == Approx(1619.1).epsilon(1e-3));
  CHECK(4'194'304.0 / 8960 < fsdp_min_tokens_per_chip(v5p.peak.bf16, w, 3));
  // training time: 6 x 70e9 x 15e12 tokens = 6.3e24 FLOPs at 40% MFU: 3.8e6 s (~44 days)
  CHECK(training_seconds(6.3e24, 8960, v5p.peak.bf16, 0.4) == Approx(3.83e6).epsilon(2e-3));
}

TEST_CASE("Step time decomposes exactly, MFU follows from it", "[time]") {
  for (const char *n :
       {"llama3-70b-h100-1024", "gpt3-175b-a100", "mixtral-8x7b-h100", "megatron-18b-a100"}) {
    INFO(n);
    const Config c = io::parse_config(json(n));
    const Estimate e = estimate(c);
    const StepTime &t = e.time;
    CHECK(t.step == Approx(t.compute + t.comm_exposed + t.bubble + t.optimizer));
    const double m = static_cast<double>(e.layout.num_micro);
    const double p = static_cast<double>(e.layout.pp), v = static_cast<double>(e.layout.vpp);
    // pipeline: step - DP (its exposed time and the SMs its hidden part holds) - optimizer
    // = (m + (p-1)/v) (t_fwd + t_bwd)
    double dp_exposed = 0;
    for (const auto &cc : t.comm)
      if (cc.kind == "dp" || cc.kind == "dp_experts")
        dp_exposed += cc.exposed;
    CHECK(t.step - dp_exposed - t.sync_sms - t.optimizer ==
          Approx((m + (p - 1) / v) * (t.t_fwd + t.t_bwd)));
    CHECK(t.bubble / (m * (t.t_fwd + t.t_bwd)) == Approx((p - 1) / (v * m)));
    CHECK(e.throughput.mfu ==
          Approx(e.model_flops_per_step /
                 (t.step * static_cast<double>(c.cluster.devices) * c.hardware.peak.bf16)));
    CHECK(e.throughput.mfu > 0.05);
    CHECK(e.throughput.mfu < 1.0);
  }
}

TEST_CASE("A GEMM's roofline: compute-bound at large sizes, memory-bound when skinny", "[time]") {
  const double peak = 989e12, eff = 0.5, bw = 3.35e12;
  const OpCost big = gemm_cost("big", 8192, 8192, 8192, 1, peak, eff, bw);
  CHECK(big.time == Approx(2.0 * 8192 * 8192 * 8192 / (peak * eff)));
  const OpCost skinny = gemm_cost("gemv", 1, 8192, 8192, 1, peak, eff, bw);
  CHECK(skinny.time == Approx(2.0 * (8192 + 8192.0 * 8192 + 8192) / bw));
}

TEST_CASE("Overlap and sharding change exposed communication the way they should", "[time]") {
  const char *base = R"({"model": "llama2-7b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 256, "seq_len": 4096}, "parallel": )";
  auto est = [&](const char *par) {
    return estimate(io::parse_config(json::parse(std::string(base) + par + "}")));
  };
  const Estimate plain = est(R"({"tp": 8, "sp": true})");
  const Estimate overlapped = est(R"({"tp": 8, "sp": true, "overlap_tp": true})");
  CHECK(overlapped.time.comm_exposed < plain.time.comm_exposed);
  CHECK(overlapped.time.step < plain.time.step);
  // ZeRO-3 moves 1.5x the bytes of ZeRO-1's gradient + parameter sync per micro-batch pass
  const Estimate z3 = est(R"({"zero": 3, "microbatch": 4})");
  double z3_bytes = 0;
  for (const auto &cc : z3.time.comm)
    if (cc.kind == "zero3")
      z3_bytes += cc.bytes_per_device;
  CHECK(z3_bytes > 0);
  // more pipeline stages -> more bubble at a fixed micro-batch count
  const Estimate pp2 = est(R"({"pp": 2, "tp": 4})");
  const Estimate pp4 = est(R"({"pp": 4, "tp": 2})");
  CHECK(pp4.time.bubble / pp4.time.step > pp2.time.bubble / pp2.time.step);
}

TEST_CASE("Calibration: the fit gives the presets' compute overheads, every row within its band",
          "[time][calibration]") {
  const auto runs = io::parse_validation(json("calibration"));
  // ../shared/calibration.md: 3 A100, 2 H100 bf16, 1 H100 FP8, 4 Megatron-Bridge 25.11 on
  // B200 and GB200 (two dense FP8 runs pooled as one Blackwell fit, two MoE runs predicted)
  REQUIRE(runs.size() == 10);
  CHECK(std::count_if(runs.begin(), runs.end(), [](const auto &r) { return !r.fit; }) == 2);
  for (const auto &row : validate(runs)) {
    INFO(row.name << " error " << row.error);
    CHECK(std::fabs(row.error) <= row.band);
  }
  const std::vector<FitResult> fits = fit_compute_overhead(runs);
  REQUIRE(fits.size() == 3); // a100-80gb, blackwell (b200, gb200), h100-sxm
  for (const auto &f : fits) {
    for (const std::string &chip : f.chips) {
      INFO(f.hardware << ": " << chip);
      const HardwareSpec hw = io::parse_hardware(json(chip), "hardware");
      CHECK(f.overhead == Approx(hw.compute_overhead).margin(1e-9));
      CHECK(f.loo_max_error <= hw.time_uncertainty);
    }
  }
  CHECK(fits[1].chips == std::vector<std::string>{"b200", "gb200"});
}

TEST_CASE("Calibration: fit groups pool chips, runs held out of the fit are still validated",
          "[time][calibration]") {
  const json run = json::parse(R"({"name": "r", "config": "megatron-1p7b-a100",
    "measured": {"hardware_tflops_per_device": 137e12}})");
  auto runs_of = [&](const json &extra) {
    json r = run;
    r.update(extra);
    return io::parse_validation(json{{"runs", json::array({r})}});
  };
  CHECK(runs_of(json::object()).front().fit);
  CHECK(runs_of({{"fit_group", "ampere"}}).front().fit_group == "ampere");
  CHECK(fit_compute_overhead(runs_of({{"fit", false}})).empty()); // predicted only
  CHECK(validate(runs_of({{"fit", false}})).size() == 1);
  CHECK(test::error_of([&] {
          runs_of({{"fit_group", ""}});
        }) == "runs[0].fit_group: a name of 1 to 64 printable characters");
  CHECK(test::error_of([&] {
          runs_of({{"fit_group", "a\x1b[2Jb"}});
        }) == "runs[0].fit_group: a name of 1 to 64 printable characters");
  CHECK(test::error_of([&] { runs_of({{"fit", "no"}}); }).rfind("runs[0].fit:", 0) == 0);
  // one group over two chips: one overhead, both chips named
  json two = run;
  two["name"] = "s";
  two["config"] = "megatron-18b-a100";
  json a = run, b = two;
  a["fit_group"] = b["fit_group"] = "g";
  b["config"] = json::parse(R"({"scenario": "megatron-18b-a100", "hardware": "a100-40gb"})");
  const auto fits = fit_compute_overhead(io::parse_validation(json{{"runs", {a, b}}}));
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].hardware == "g");
  CHECK(fits[0].chips == std::vector<std::string>{"a100-40gb", "a100-80gb"});
  CHECK(fits[0].rows == 2);
}

TEST_CASE("Axis order places the groups: TP outside the node costs the network", "[time][layout]") {
  const char *base = R"({"model": "llama2-7b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 256, "seq_len": 4096}, "parallel": )";
  auto est = [&](const char *par) {
    return estimate(io::parse_config(json::parse(std::string(base) + par + "}")));
  };
  const Estimate inner = est(R"({"tp": 8, "pp": 2})");
  const Estimate outer = est(R"({"tp": 8, "pp": 2, "order": "dp-pp-cp-tp"})");
  CHECK(axis_stride(inner.layout, "tp") == 1);
  CHECK(axis_stride(inner.layout, "pp") == 32); // tp 8 x cp 1 x dp 4
  CHECK(axis_stride(outer.layout, "tp") == 8);  // dp 4 x pp 2 x cp 1
  auto sp_time = [](const Estimate &e) {
    for (const auto &c : e.time.comm)
      if (c.kind == "sp")
        return c.time;
    return 0.0;
  };
  // one GPU per node in each TP group: 450 GB/s NVLink -> 50 GB/s network
  CHECK(sp_time(outer) > 5 * sp_time(inner));
  CHECK(test::error_of([&] { est(R"({"order": "tp-dp-pp"})"); }) ==
        "parallel.order: \"tp-dp-pp\" is not an order of tp, cp, dp, pp (e.g. tp-cp-dp-pp)");
}

TEST_CASE("TPU slices joined by the DCN: ICI inside, DCN across", "[comm][tpu]") {
  const ClusterSpec c = io::parse_cluster(json::parse(R"({"torus": [16, 16], "slices": 2,
    "wraparound": true, "ici": {"bw": 9e10, "latency": 1e-6},
    "dcn": {"bw": 6.25e9, "latency": 1e-5}})"),
                                          "cluster");
  CHECK(c.devices == 512);
  // data parallel over both slices: reduce-scatter on the torus, AllReduce of M/256 over
  // the DCN between the 2 slices, all-gather on the torus
  const double M = 1e9;
  ClusterSpec one = c;
  one.slices = 1;
  one.devices = 256;
  const CollectiveTime t = collective_time(c, Collective::allreduce, M, Group{512, 1});
  // (pipelined: the latencies add, the bandwidth term is the slower level's)
  const CollectiveTime ici = collective_time(one, Collective::allgather, M, Group{256, 1});
  const CollectiveTime dcn = flat_collective(Collective::allreduce, M / 256, 2, c.dcn);
  const double expect = 2 * ici.latency + dcn.latency +
                        std::max(2 * (ici.time - ici.latency), dcn.time - dcn.latency);
  CHECK(std::string(t.algorithm) == "ici+dcn");
  CHECK(t.time == Approx(expect));
  // a group inside one slice never touches the DCN
  CHECK(collective_time(c, Collective::allreduce, M, Group{256, 1}).time ==
        Approx(collective_time(one, Collective::allreduce, M, Group{256, 1}).time));
  CHECK(test::error_of([] {
          io::parse_cluster(json::parse(R"({"torus": [4, 4], "slices": 2, "ici": {"bw": 1e10}})"),
                            "cluster");
        }) == "cluster.dcn: is required to join 2 slices");
}

TEST_CASE("Step time: compute splits into GEMMs, attention, memory-bound kernels and the overhead",
          "[time][calibration]") {
  // compute - recompute = (GEMMs + attention + memory-bound) x (1 + compute_overhead), on every
  // calibration run (dense and MoE, bf16 and FP8 with its quantisation kernels)
  for (const ValidationRow &r : validate(io::parse_validation(json("calibration")))) {
    INFO(r.name);
    CHECK(r.gemm > 0);
    CHECK(r.attention > 0);
    CHECK(r.memory_bound > 0);
    const HardwareSpec hw = io::parse_hardware(json(r.hardware), "hardware");
    CHECK(r.overhead ==
          Approx((r.gemm + r.attention + r.memory_bound) * hw.compute_overhead).epsilon(1e-9));
  }
  // GPT-3 175B on one node (tp 8, 8 micro-batches): the step's GEMM part is one dense layer's
  // GEMM operators, forward and backward, times 96 layers and 8 micro-batches, plus the output
  // layer's GEMM (its 2 s b h v / t FLOPs are under 5% of the layers' 24 s b h^2 L / t)
  const Config c = io::parse_config(json::parse(R"({"model": "gpt3-175b",
    "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8},
    "workload": {"mode": "train", "global_batch": 8, "seq_len": 2048},
    "parallel": {"tp": 8, "pp": 1, "microbatch": 1}})"));
  const Estimate e = estimate(c);
  double gemm = 0;
  for (const OpCost &o : e.time.ops)
    if (o.kind != OpKind::attention && o.kind != OpKind::memory)
      gemm += o.time + o.backward();
  const double mb = 8; // global batch 8 on dp 1, micro-batch 1
  // 96 layers, plus the output layer's GEMM (forward and twice that backward)
  CHECK(e.time.parts.gemm > 96 * mb * gemm);
  CHECK(e.time.parts.gemm < 96 * mb * gemm * 1.05);
}

TEST_CASE("ZeRO-3 gathers weights at their stored width: FP8 parameters halve them",
          "[time][precision]") {
  // Megatron-LM's FP8 parameter gather (--fp8-param-gather): ZeRO-3 / FSDP all-gathers the FP8
  // weights (1 B), reduce-scatters the gradients at their width (4 B with fp32_grads). Per
  // layer: two gathers (forward, backward) and one reduce-scatter, so 2 x 2 + 4 = 8 B a
  // parameter in bf16, 2 x 1 + 4 = 6 B with FP8 parameters (state_widths).
  auto zero3_bytes = [](bool fp8_params) {
    json j = json::parse(R"({"model": "llama3-8b", "hardware": "h100-sxm",
      "cluster": {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "train",
      "global_batch": 8, "seq_len": 4096, "precision": "fp8", "fp32_grads": true},
      "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 1}})");
    j["workload"]["fp8_params"] = fp8_params;
    double bytes = 0;
    for (const auto &cc : estimate(io::parse_config(j)).time.comm)
      if (cc.kind == "zero3")
        bytes += cc.bytes_per_device;
    return bytes;
  };
  const double bf16 = zero3_bytes(false), fp8 = zero3_bytes(true);
  REQUIRE(bf16 > 0);
  CHECK(fp8 / bf16 == Approx(6.0 / 8.0).epsilon(1e-9));
}

TEST_CASE("ZeRO-3 exposes what its prefetch cannot hide: each micro-batch's first gather and "
          "the last reduce-scatter",
          "[time]") {
  // Llama 3.1 70B on 512 H100 as the planner's best bf16 layout: dp 128 over InfiniBand,
  // tp 4, ZeRO-3, micro-batch 1 (4 micro-batches). The per-layer gathers hide under the
  // layers' compute; the edges cannot: 4 x one layer's gather + one layer's reduce-scatter.
  const Config c = io::parse_config(json::parse(R"({"model": "llama3.1-70b",
    "hardware": "h100-sxm", "cluster": {"base": "dgx-h100-1024", "devices": 512},
    "workload": {"mode": "train", "global_batch": 512, "seq_len": 8192},
    "parallel": {"tp": 4, "pp": 1, "zero": 3, "microbatch": 1, "recompute": "none"}})"));
  const Estimate e = estimate(c);
  const ModelSpec &m = c.model;
  const double layer = layer_params_per_device(m, false, 4, 1).total();
  const Group dp{128, 4}; // dp ranks, one per tensor-parallel group of 4
  const CollectiveTime ag = collective_time(c.cluster, Collective::allgather, 2 * layer, dp);
  const CollectiveTime rs =
      collective_time(c.cluster, Collective::reduce_scatter, 4 * layer, dp); // fp32 grads
  double exposed = 0;
  for (const auto &cc : e.time.comm)
    if (cc.kind == "zero3")
      exposed = cc.exposed;
  CHECK(exposed == Approx(4 * ag.time + rs.time).epsilon(1e-6));
  CHECK(e.time.comm_exposed >= exposed);
}
