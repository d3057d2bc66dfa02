// tx8 video inference (Open-Sora Sora workflow, the DSP paper (Zhao et al. 2024) DSP): request
// shapes, the STDiT3 operator list, sequence-parallel volumes and die-mesh times, whole-request
// totals, the planner's choice, `ridgeline tx8` configurations and their errors.
#include "helpers.hpp"

#include "core/io/tx8_json.hpp"
#include "core/tx8/arch.hpp"
#include "core/tx8/request.hpp"
#include "core/tx8/sp.hpp"
#include "core/tx8/stdit3.hpp"

using namespace rl;
using namespace rl::tx8;
using nlohmann::json;

namespace {
Config video(const std::string &model, const std::string &cluster, const std::string &parallel,
             const std::string &extra = "") {
  return test::config(("{\"model\": \"" + model + "\", \"hardware\": \"tx8\", \"cluster\": \"" +
                       cluster +
                       "\", \"workload\": {\"mode\": \"video\", \"batch\": 1, \"seconds\": 4, "
                       "\"resolution\": [720, 1280], \"text_tokens\": 300, \"steps\": 30" +
                       extra + "}, \"parallel\": " + parallel + "}")
                          .c_str());
}
Tx8Options no_plan() {
  Tx8Options o;
  o.plan = false;
  return o;
}
} // namespace

TEST_CASE("tx8 video: Open-Sora latent and token shapes", "[tx8][video]") {
  const Config c = video("stdit3-720m", "tx8-2x2", "{}");
  const VideoShape v = video_shape(c.model, c.workload);
  CHECK(v.frames == 102);   // 4 s x 25.5 frames/s
  CHECK(v.latent_t == 30);  // 102*5//17
  CHECK(v.latent_h == 90);  // 720/8
  CHECK(v.latent_w == 160); // 1280/8
  CHECK(v.grid_h == 45);    // patch 2
  CHECK(v.grid_w == 80);
  CHECK(v.spatial() == 3600);                 // H*W/256
  CHECK(v.tokens() == 108000);                // 30 x 3600
  CHECK(latent_frames(video_frames(1)) == 7); // 1 s: 25 frames -> 25*5//17
  CHECK(latent_frames(51) == 15);             // the DSP paper's "S ~ 15" temporal length
}

TEST_CASE("tx8 video: the STDiT3 block is the Open-Sora operator list", "[tx8][video]") {
  const Config c = video("stdit3-720m", "tx8-2x2", "{}");
  const Tx8Spec &a = *c.hardware.tx8;
  const VideoShape v = video_shape(c.model, c.workload);
  const SpScheme one{SpKind::dsp, 1, 1, 1};
  const auto ops =
      block_ops(a, c.model, "spatial", shard_block(one, c.model, v, 1, "spatial"), false, 28);
  REQUIRE(ops.size() == 18); // norm1 and modulate1 through gate_residual2
  CHECK(ops[2].name == "spatial.qkv_proj");
  CHECK(ops[2].gemm.m == 108000); // every token
  CHECK(ops[2].gemm.n == 3 * 1152);
  CHECK(ops[5].flash.groups == 30 * 16); // spatial: batch x frames x heads
  CHECK(ops[5].flash.seq_q == 3600);
  CHECK(ops[9].gemm.m == 300); // cross K/V on the text tokens
  CHECK(ops[10].flash.seq_kv == 300);
  CHECK(ops[15].gemm.silu);      // Open-Sora: FFN up & SiLU fused
  CHECK(ops[15].gemm.n == 4608); // mlp ratio 4
  CHECK(ops[16].preset == SeedPreset::ffn_down);
  const auto t =
      block_ops(a, c.model, "temporal", shard_block(one, c.model, v, 1, "temporal"), false, 28);
  CHECK(t[5].flash.groups == 3600 * 16); // temporal: batch x H*W/256 x heads
  CHECK(t[5].flash.seq_q == 30);
  // FLOPs of one step on one die with the whole video: 2mkn per GEMM, 4*G*S*S*d per
  // attention; the spatial attention alone is 4 x 480 x 3600^2 x 72 per block.
  CHECK(4.0 * ops[5].flash.groups * 3600.0 * 3600 * 72 == Approx(1.79159e12).epsilon(1e-5));
}

TEST_CASE("tx8 video: the DSP paper (Zhao et al. 2024) per-device volumes per layer",
          "[tx8][video][comm]") {
  const double M = 1e9;
  for (const i64 N : {2, 4, 16}) {
    const double n = static_cast<double>(N), f = (n - 1) / n;
    INFO("N " << N);
    CHECK(seed004_layer_bytes(SpKind::dsp, M, N) == Approx(2 * M / n));     // DSP 2M/N
    CHECK(seed004_layer_bytes(SpKind::ulysses, M, N) == Approx(4 * M / n)); // Ulysses 4M/N
    CHECK(seed004_layer_bytes(SpKind::ring, M, N) == Approx(2 * M));        // Ring 2M
    CHECK(seed004_layer_bytes(SpKind::megatron_sp, M, N) == Approx(8 * M)); // Megatron-SP 8M
    // exact: each collective keeps the (N-1)/N a device does not send to itself
    CHECK(layer_bytes_per_die({SpKind::dsp, N, 1, 1}, M, false) == Approx(2 * M / n * f));
    CHECK(layer_bytes_per_die({SpKind::ulysses, N, N, 1}, M, false) == Approx(4 * M / n * f));
    CHECK(layer_bytes_per_die({SpKind::ring, N, 1, 1}, M, false) == Approx(2 * M * f));
    CHECK(layer_bytes_per_die({SpKind::megatron_sp, N, 1, 1}, M, false) == Approx(8 * M * f));
    // with STDiT3's cross attention Megatron-SP gathers and scatters once more per block
    CHECK(layer_bytes_per_die({SpKind::megatron_sp, N, 1, 1}, M, true) == Approx(12 * M * f));
  }
  // USP u x c: Ulysses inside (u), ring across (c); the two ends are Ulysses and Ring.
  CHECK(layer_bytes_per_die({SpKind::usp, 4, 4, 1}, M, false) ==
        Approx(layer_bytes_per_die({SpKind::ulysses, 4, 4, 1}, M, false)));
  CHECK(layer_bytes_per_die({SpKind::usp, 4, 1, 4}, M, false) ==
        Approx(layer_bytes_per_die({SpKind::ring, 4, 1, 1}, M, false)));
  CHECK(layer_bytes_per_die({SpKind::usp, 4, 2, 2}, M, false) ==
        Approx(4 * M / 4 * 0.5 + 2 * M / 4 * 1)); // 4(M/P)(u-1)/u + 2(M/P)(c-1)
}

TEST_CASE("tx8 video: all-to-all on a die mesh and its bisection bound", "[tx8][video][comm]") {
  const Link l{1e11, 1e-7};
  const double A = 64e6;
  // docs/formulas.md (tx8): k x k mesh ~ sqrt(P)*A/(4 bw) + hops x latency
  CHECK(alltoall_mesh_s(A, 4, 4, l) == Approx(4 * A / (4 * 1e11) + 6 * 1e-7));
  // 2 x 2: the 2-link cut carries 2 x 2 x A/4 each way: A/(2 bw)
  CHECK(alltoall_mesh_s(A, 2, 2, l) == Approx(A / 2e11 + 2 * 1e-7));
  // 4 x 1 line: one link carries 2 x 2 x A/4: A / bw
  CHECK(alltoall_bisection_s(A, 4, 1, l) == Approx(A / 1e11));
  for (const auto &[x, y] : {std::pair<i64, i64>{2, 2}, {4, 4}, {4, 2}, {8, 1}, {3, 3}}) {
    INFO(x << "x" << y);
    CHECK(alltoall_mesh_s(A, x, y, l) >= alltoall_bisection_s(A, x, y, l));
    // and >= the bytes a die sends over its own links (a corner has 2, a line end 1)
    CHECK(alltoall_mesh_s(A, x, y, l) >= A * (x * y - 1) / (x * y) / (2 * 1e11));
  }
  CHECK(allgather_mesh_s(A, 4, l) == Approx(3 * 1e-7 + A * 3 / 4 / 1e11)); // docs/formulas.md ring
  CHECK(alltoall_mesh_s(A, 1, 1, l) == 0);
}

TEST_CASE("tx8 video: sharding per scheme", "[tx8][video]") {
  const Config c = video("stdit3-720m", "tx8-2x2", "{}");
  const VideoShape v = video_shape(c.model, c.workload);
  // DSP, 4 dies: the spatial block splits the 30 frames (8 on the busiest die), the
  // temporal block the 3600 tokens of a frame (900 each).
  const Shard sp = shard_block({SpKind::dsp, 4, 1, 1}, c.model, v, 1, "spatial");
  const Shard tp = shard_block({SpKind::dsp, 4, 1, 1}, c.model, v, 1, "temporal");
  CHECK(sp.gemm_rows == 8 * 3600);
  CHECK(sp.self_attn.seq_q == 3600);
  CHECK(tp.gemm_rows == 30 * 900);
  CHECK(tp.self_attn.groups == 900 * 16);
  // Ulysses: heads split 4 ways around the spatial attention; Ring: 900 queries, all keys.
  CHECK(shard_block({SpKind::ulysses, 4, 4, 1}, c.model, v, 1, "spatial").self_attn.groups ==
        30 * 4);
  const Shard ring = shard_block({SpKind::ring, 4, 1, 1}, c.model, v, 1, "spatial");
  CHECK(ring.self_attn.seq_q == 900);
  CHECK(ring.self_attn.seq_kv == 3600);
  // Megatron-SP: weights split, whole sequence through the GEMMs, 1/4 through the norms.
  const Shard m = shard_block({SpKind::megatron_sp, 4, 1, 1}, c.model, v, 1, "spatial");
  CHECK(m.tp == 4);
  CHECK(m.gemm_rows == 108000);
  CHECK(m.vec_rows == 27000);
  CHECK(test::error_of([&] {
          check_scheme({SpKind::ulysses, 3, 3, 1}, c.model, "parallel.sp_kind");
        }) == "parallel.sp_kind: ulysses over 3 dies needs heads divisible by 3, got 16");
}

TEST_CASE("tx8 video: 720M, 4 s of 720p on a 2x2 mesh with DSP adds up", "[tx8][video]") {
  const Config c = video("stdit3-720m", "tx8-2x2", "{\"sp_kind\": \"dsp\"}");
  const Tx8Result r = solve(c, no_plan());
  REQUIRE(r.video);
  CHECK(r.dies == 4);
  // per step = sum over operators of count x latency + exposed communication
  double ops = 0;
  for (const OpRow &o : r.ops)
    ops += o.count * o.map.cost.latency;
  CHECK(r.compute_per_step == Approx(ops));
  CHECK(r.per_step == Approx(ops + r.comm_exposed_per_step));
  CHECK(r.latency == Approx(30 * r.per_step + r.once)); // 30 sampling steps
  // the DSP paper (Zhao et al. 2024): 2 all-to-alls per layer, 28 layers; M = 108000 x 1152 x 2 B
  REQUIRE(r.comm.size() == 1);
  const double M = 108000.0 * 1152 * 2;
  CHECK(r.comm[0].per_step == 56);
  CHECK(r.comm[0].bytes_per_die == Approx(M / 4 * 3 / 4));
  CHECK(r.comm[0].time == Approx(M / 4 / 2e11 + 2 * 1e-7)); // A/(2 bw) + 2 hops (2x2 cut)
  CHECK(r.comm_exposed_per_step == Approx(56 * r.comm[0].time));
  // every operator mapped, none at zero, all inside SRAM
  for (const OpRow &o : r.ops) {
    INFO(o.name);
    CHECK(o.map.cost.latency > 0);
    CHECK(o.map.cost.sram_bytes <= 3014656);
  }
  CHECK(r.per_layer == Approx(r.spatial_block + r.temporal_block + 2 * r.comm[0].time));
  CHECK(r.utilization > 0);
  CHECK(r.utilization < 1);
  // JSON keys of the issue
  const json j = io::to_json(r);
  for (const char *k : {"name", "type", "shape", "tiling", "latency", "compute_time", "dram_time",
                        "noc_time", "dram_bytes", "flops", "utilization"})
    CHECK(j["ops"][0].contains(k));
  CHECK(j["total"]["per_step"].get<double>() == r.per_step);
  CHECK(j["total"]["latency"].get<double>() == r.latency);
  CHECK(j["comm"][0]["kind"] == "dsp switch all-to-all");
  CHECK(j["comm"][0]["bytes_per_die"].get<double>() == r.comm[0].bytes_per_die);
}

TEST_CASE("tx8 video: the planner picks the fastest scheme and mesh split", "[tx8][video]") {
  const Config c = video("stdit3-720m", "tx8-2x2", "{}");
  const Tx8Result r = solve(c, {});
  CHECK(r.chosen_by == "planner");
  REQUIRE(r.schemes.size() >= 5);
  for (const SchemeRow &s : r.schemes)
    if (s.feasible)
      CHECK(s.per_step >= r.schemes.front().per_step);
  CHECK(r.per_step == Approx(r.schemes.front().per_step));
  // a single sample gains nothing from pipeline stages: the best keeps one stage
  CHECK(r.stages.size() == 1);
  // and the four-stage split is the slowest of the feasible ones
  const SchemeRow &last = r.schemes.back();
  CHECK(last.stages == 4);
}

TEST_CASE("tx8 video: reference presets, fusion, pipeline stages, one die", "[tx8][video]") {
  Tx8Options o = no_plan();
  o.compare_presets = true;
  const Tx8Result r = solve(video("stdit3-720m", "tx8-2x2", "{\"sp_kind\": \"ulysses\"}"), o);
  REQUIRE(r.preset_error.empty());
  CHECK(r.preset_per_step > r.per_step); // the search never loses to a fixed tiling
  for (const OpRow &row : r.ops)
    if (row.has_preset)
      CHECK(row.preset.cost.latency >= row.map.cost.latency * (1 - 1e-12));
  // norm + modulate fused: the norm's output never goes to DRAM
  const Tx8Result f =
      solve(video("stdit3-720m", "tx8-2x2", "{\"sp_kind\": \"ulysses\"}", ", \"fusion\": true"),
            no_plan());
  CHECK(f.per_step < r.per_step);
  // two stages of 2 dies, explicit ids and sub-meshes (Open-Sora's form), batch 1: the
  // stages run one after the other
  const Tx8Result p = solve(video("stdit3-720m", "tx8-2x2",
                                  "{\"sp_kind\": \"dsp\", \"stage_ids\": [0, 13, 14, 27], "
                                  "\"submeshes\": [2, 1, 0, 0, 2, 1, 0, 1]}"),
                            no_plan());
  REQUIRE(p.stages.size() == 2);
  CHECK(p.per_step == Approx(p.stages[0].time() + p.stages[0].p2p + p.stages[1].time()));
  // one die: no communication
  const Config one = test::config(R"({"model": "stdit3-720m", "hardware": "tx8",
    "workload": {"mode": "video", "frames": 51, "resolution": [256, 256], "steps": 2}})");
  const Tx8Result s = solve(one, {});
  CHECK(s.comm.empty());
  CHECK(s.dies == 1);
  CHECK(s.shape.tokens() == 15 * 16 * 16); // 51*5//17 frames x (256/16)^2
  CHECK(s.latency == Approx(2 * s.per_step));
}

TEST_CASE("tx8 configurations: one operator without a model, and errors", "[tx8][errors]") {
  const Config c = test::config(R"({"hardware": "tx8", "workload": {"mode": "tx8-op",
    "op": {"type": "gemm", "m": 4096, "k": 1152, "n": 4608, "fuse": "silu"}}})");
  Tx8Options o;
  o.compare_presets = true;
  const Tx8Result r = solve(c, o);
  REQUIRE(r.ops.size() == 1);
  CHECK(r.latency == r.ops[0].map.cost.latency);
  CHECK(r.per_step == r.latency);
  CHECK(r.preset_latency >= r.latency);
  CHECK(r.ops[0].preset.tiling.find("Tm 256 Tn 32") !=
        std::string::npos); // LLMPerf-for-TiledArch's TmTn
  // a fixed tiling is honoured
  const Tx8Result fx = solve(test::config(R"({"hardware": "tx8", "workload": {"mode": "tx8-op",
    "op": {"type": "flash_attention", "heads": 16, "seq_q": 3600, "head_dim": 72,
    "loop_order": "a", "tiling": [128, 64], "heads_fused": 2}}})"),
                             {});
  CHECK(fx.ops[0].map.tiling == "A Tx 128 Ty 64 h_f 2");
  CHECK(test::error_of([] {
          test::config(R"({"hardware": "tx8", "workload": {"mode": "tx8-op",
            "op": {"type": "flash_attention", "heads": 1, "seq_q": 8, "head_dim": 8, "loop_order": "c"}}})");
        }) == "workload.op.loop_order: \"c\" is not one of a, b, broadcast, packed");
  CHECK(test::error_of([] {
          test::config(R"({"hardware": "tx8", "workload": {"mode": "tx8-op",
            "op": {"type": "gemm", "m": 8, "k": 8, "n": 8, "tiling": [64]}}})");
        }) == "workload.op.tiling: expected 2 to 3 entries, got 1");
  CHECK(test::error_of([] {
          test::config(
              R"({"hardware": "tx8", "workload": {"mode": "infer", "batch": 1, "prompt_len": 8}})");
        }) == "model: is required");
  CHECK(test::error_of([] {
          solve(test::config(R"({"model": "llama3-8b", "hardware": "tx8", "workload":
            {"mode": "video", "seconds": 4, "resolution": [720, 1280]}})"),
                {});
        }) == "model.family: a video request needs an stdit3 model, got \"llama3-8b\"");
  CHECK(test::error_of([] {
          solve(test::config(R"({"model": "stdit3-720m", "hardware": "tx8", "workload":
            {"mode": "video", "frames": 3, "resolution": [720, 1280]}})"),
                {});
        }) == "workload.frames: 3 video frames keep 0 latent frames (frames*5//17): at least 4 "
              "frames are needed");
  CHECK(test::error_of([] {
          solve(video("stdit3-720m", "tx8-2x2", R"({"stage_ids": [0, 10, 12, 27]})"), {});
        }) == "parallel.stage_ids[1]: (12, 27) must start at block 11 and end before 28");
  CHECK(test::error_of([] {
          solve(video("stdit3-720m", "tx8-2x2", R"({"submeshes": [2, 2, 0, 0, 1, 1, 1, 1]})"), {});
        }) == "parallel.submeshes[1]: overlaps sub-mesh 0 at die (1, 1)");
  CHECK(test::error_of([] {
          solve(test::config(R"({"model": "stdit3-720m", "hardware": "h100-sxm", "workload":
            {"mode": "video", "seconds": 4, "resolution": [720, 1280]}})"),
                {});
        }) == "hardware: \"h100-sxm\" has no tx8 figures (kind tx8 needed)");
}

TEST_CASE("tx8: the stepped mapping (the page's, a scheme at a time) equals solve()",
          "[tx8][video]") {
  // Same candidates in the same order: the same schemes, choice and latency.
  const rl::Config c = rl::test::config(R"({"scenario": "sora-720m-tx8-2x2"})");
  const rl::tx8::Tx8Result whole = rl::tx8::solve(c, rl::tx8::Tx8Options{});
  rl::tx8::Tx8Solve s(c, rl::tx8::Tx8Options{});
  int steps = 0;
  while (!s.step(1))
    ++steps;
  const rl::tx8::Tx8Result &r = s.result();
  CHECK(steps + 1 == static_cast<int>(whole.schemes.size()));
  CHECK(s.progress() == 1.0);
  REQUIRE(r.schemes.size() == whole.schemes.size());
  for (std::size_t i = 0; i < r.schemes.size(); ++i) {
    CHECK(r.schemes[i].name == whole.schemes[i].name);
    CHECK(r.schemes[i].per_step == whole.schemes[i].per_step);
  }
  CHECK(r.latency == whole.latency);
  CHECK(r.chosen_by == whole.chosen_by);
  CHECK(r.searches == whole.searches);
}
