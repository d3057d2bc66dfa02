// DeepSeek-V3's DualPipe and its V form (DualPipeV): where each device's layers sit, the
// parameters, activations and bubble the DualPipe README's Table gives, the legality its
// code asserts, the exports and the planner's search.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/launch_export.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/parallel/pipeline_schedule.hpp"
#include "core/planner/planner.hpp"
#include "core/time/step_time.hpp"

#include <map>
#include <numeric>

using namespace rl;
using nlohmann::json;

namespace {
// Llama-3 8B (32 layers) on 16 H100, pp 4 x dp 4, 16 micro-batches a pipeline
json llama8b(const char *schedule) {
  json j = json::parse(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 16},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 1, "pp": 4, "dp": 4, "microbatch": 1}})");
  j["parallel"]["pp_schedule"] = schedule;
  return j;
}
std::vector<i64> range(i64 from, i64 to) { // [from, to)
  std::vector<i64> v(static_cast<std::size_t>(to - from));
  std::iota(v.begin(), v.end(), from);
  return v;
}
std::vector<i64> join(std::vector<i64> a, const std::vector<i64> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
} // namespace

TEST_CASE("DualPipe: each device holds a stage of each copy; DualPipeV the two legs of its V",
          "[pipeline][dualpipe]") {
  const Config dp = io::parse_config(llama8b("dualpipe"));
  const Layout l = resolve_layout(dp);
  // DeepSeek-V3 sec. 3.2.1: 32 layers in 4 stages of 8, the second copy fed from the far end
  CHECK(stage_layers(32, l, 0) == join(range(0, 8), range(24, 32)));
  CHECK(stage_layers(32, l, 1) == join(range(8, 16), range(16, 24)));
  CHECK(stage_layers(32, l, 3) == join(range(24, 32), range(0, 8)));
  CHECK(holds_embedding(l, 0));
  CHECK(holds_embedding(l, 3));
  CHECK(holds_head(l, 0));
  CHECK(holds_head(l, 3));
  CHECK_FALSE(holds_head(l, 1));
  // DualPipe's README: 4 ranks, 8 stages of 4 layers; rank r holds stages r and 7 - r
  const Config v = io::parse_config(llama8b("dualpipev"));
  const Layout lv = resolve_layout(v);
  CHECK(stage_layers(32, lv, 0) == join(range(0, 4), range(28, 32)));
  CHECK(stage_layers(32, lv, 3) == range(12, 20));
  CHECK(holds_embedding(lv, 0));
  CHECK(holds_head(lv, 0));
  CHECK_FALSE(holds_head(lv, 3));
}

TEST_CASE("DualPipe: parameters twice (two copies), DualPipeV once", "[memory][dualpipe]") {
  const Config one = io::parse_config(llama8b("1f1b"));
  const Config dp = io::parse_config(llama8b("dualpipe"));
  const Config v = io::parse_config(llama8b("dualpipev"));
  const Layout l1 = resolve_layout(one), ld = resolve_layout(dp), lv = resolve_layout(v);
  double once = 0, twice = 0, vee = 0;
  for (i64 j = 0; j < 4; ++j) {
    once += stage_params(one.model, l1, j).total();
    twice += stage_params(dp.model, ld, j).total();
    vee += stage_params(v.model, lv, j).total();
    // device j holds 1F1B's stage j and stage 3 - j
    CHECK(stage_params(dp.model, ld, j).total() ==
          Approx(stage_params(one.model, l1, j).total() +
                 stage_params(one.model, l1, 3 - j).total()));
  }
  // Llama-3 8B: 8.03e9 parameters, each held once over the pipeline (twice under DualPipe)
  CHECK(once == Approx(static_cast<double>(model_params(one.model).total())));
  CHECK(twice == Approx(2 * once));
  CHECK(vee == Approx(once));
}

TEST_CASE("DualPipe: p + 1 stages of activations in flight, the V 2p + 1 half-stages",
          "[memory][dualpipe]") {
  // DualPipe's README, "Activation Per Device": PP + 1 against 1F1B's PP on the first stage
  const auto in_flight = [](const char *schedule, i64 stage) {
    const Config c = io::parse_config(llama8b(schedule));
    const Layout l = resolve_layout(c);
    return stage_activations(c.model, l, stage, 4096, Dtype::bf16).layers_in_flight;
  };
  CHECK(in_flight("1f1b", 0) == Approx(4 * 8));     // 4 micro-batches x 8 layers
  CHECK(in_flight("1f1b", 3) == Approx(1 * 8));     // the last stage: one
  CHECK(in_flight("dualpipe", 0) == Approx(5 * 8)); // 5 stages of 8 layers, every device
  CHECK(in_flight("dualpipe", 3) == Approx(5 * 8));
  CHECK(in_flight("dualpipev", 0) == Approx(9 * 4)); // 9 stages of 4 layers
  CHECK(in_flight("dualpipev", 2) == Approx(9 * 4));
}

TEST_CASE("DualPipe: the bubble is (S/2 - 1)(F&B + B - 3W) of chunk times", "[time][dualpipe]") {
  for (const char *schedule : {"dualpipe", "dualpipev"}) {
    const Config c = io::parse_config(llama8b(schedule));
    const Layout l = resolve_layout(c);
    const StepTime st = training_step_time(c, l);
    // W: the weight gradients, a GEMM's forward time again (backward = 2 x forward,
    // Narayanan et al. 2021), over the slowest device's layers a micro-batch passes
    const std::vector<OpCost> ops =
        layer_ops(c.model, false, l, 4096, c.hardware, Dtype::bf16, c.workload.causal_skip);
    double gemm = 0;
    for (const OpCost &o : ops)
      if (o.kind != OpKind::attention && o.kind != OpKind::memory)
        gemm += o.time;
    const double w_layer = gemm * (1 + c.hardware.compute_overhead);
    CHECK(layer_times(c, l, false).w == Approx(w_layer));
    const bool v = std::string(schedule) == "dualpipev";
    // a micro-batch passes 8 layers of the device (one of DualPipe's two stages; both of the
    // V's half-stages), in 1 or 2 chunks; S = 4 stages, or 8 for the V
    const double chunks = v ? 2 : 1, stages = v ? 8 : 4, W = 8 * w_layer;
    CHECK(st.bubble == Approx((stages / 2 - 1) * (st.t_fwd + 2 * st.t_bwd - 3 * W) / chunks));
    // against 1F1B's (p - 1)(F + B) on the same layout
    const Config one = io::parse_config(llama8b("1f1b"));
    const StepTime s1 = training_step_time(one, resolve_layout(one));
    CHECK(st.bubble < 0.6 * s1.bubble);
  }
}

TEST_CASE("DualPipe: what its code asserts, and training only, named", "[layout][dualpipe]") {
  auto error = [](json j) { return test::error_of([&] { resolve_layout(io::parse_config(j)); }); };
  json odd = llama8b("dualpipe"); // dualpipe.py: num_ranks % 2 == 0
  odd["cluster"]["devices"] = 8;
  odd["parallel"]["pp"] = 2;
  odd["parallel"]["dp"] = 4;
  CHECK(error(odd).empty());
  odd["cluster"]["devices"] = 24;
  odd["parallel"]["dp"] = 8;
  odd["parallel"]["pp"] = 3;
  odd["model"] = "llama3-70b"; // 80 layers: pp 3 needs uneven stages
  odd["parallel"]["uneven_pp"] = true;
  CHECK(error(odd) == "parallel.pp_schedule: dualpipe needs an even pp >= 2, not 3");
  json few = llama8b("dualpipe"); // num_chunks >= num_ranks * 2
  few["workload"]["global_batch"] = 16;
  CHECK(error(few) == "parallel.microbatch: dualpipe needs an even number of micro-batches >= "
                      "2 x pp = 8, not 4");
  json v = llama8b("dualpipev");
  v["parallel"]["first_stage_layers"] = 6;
  v["parallel"]["last_stage_layers"] = 6;
  CHECK(error(v) == "parallel.first_stage_layers: dualpipev splits its 2 x pp stages evenly "
                    "(parallel.uneven_pp for the rest)");
}

TEST_CASE("DualPipe: TorchTitan launches the V, Megatron-LM neither", "[export][dualpipe]") {
  const Config v = io::parse_config(llama8b("dualpipev"));
  const Layout lv = resolve_layout(v);
  // torch/distributed/pipelining/schedules.py get_schedule_class: "DualPipeV"; 32 layers
  // over 8 stages
  const std::string tt = io::launch_export(v, lv, "torchtitan");
  CHECK(tt.find("--parallelism.pipeline_parallel_schedule DualPipeV") != std::string::npos);
  CHECK(tt.find("--parallelism.pipeline_parallel_layers_per_stage 4") != std::string::npos);
  CHECK(test::error_of([&] { io::launch_export(v, lv, "megatron"); }) ==
        "parallel.pp_schedule: Megatron-Core's pipeline schedules are 1F1B and interleaved 1F1B: "
        "set pp_schedule 1f1b or interleaved, or export DualPipeV to TorchTitan (--format "
        "megatron)");
  const Config dp = io::parse_config(llama8b("dualpipe"));
  CHECK(test::error_of([&] { io::launch_export(dp, resolve_layout(dp), "torchtitan"); }) ==
        "parallel.pp_schedule: TorchTitan runs DualPipeV (PyTorch's ScheduleDualPipeV), not "
        "DualPipe's two model copies: set pp_schedule dualpipev (--format torchtitan)");
}

TEST_CASE("planner: DualPipe and DualPipeV are searched for MoE training; the best is at least "
          "as fast as each pinned schedule",
          "[planner][dualpipe]") {
  // DeepSeek-V3 on 2,048 H800 in its production parallelism (DeepSeek-AI 2024,
  // arXiv:2412.19437 sec. 3.2: PP 16, EP 64, no TP, FP8 blockwise, the EP AllToAll overlapped,
  // the norms, MLA up-projections and SwiGLU outputs recomputed: sec. 3.2.3, 3.3.3), each
  // schedule pinned, against the free search over the same overlaps
  const char *ds8 = R"({"model": "deepseek-v3", "hardware": "h800",
    "cluster": {"base": "dgx-h100", "devices": 2048},
    "workload": {"mode": "train", "global_batch": 15360, "seq_len": 4096, "precision": "fp8",
    "fp8_recipe": "blockwise"}, "parallel": {"overlap_ep": true}})";
  const Config free = test::config(ds8);
  PlanOptions o;
  o.top = 3;
  const PlanResult best = plan(free, o);
  REQUIRE_FALSE(best.plans.empty());
  std::map<PpSchedule, Plan> pinned;
  for (const PpSchedule s : {PpSchedule::one_f_one_b, PpSchedule::dualpipev}) {
    Config prod = free;
    prod.parallel.tp = 1;
    prod.parallel.pp = 16;
    prod.parallel.ep = 64;
    prod.parallel.pp_schedule = s;
    prod.parallel.recompute = Recompute::selective;
    prod.parallel.recompute_norm = true;
    prod.parallel.recompute_mla_up = true;
    prod.parallel.recompute_moe_act = true;
    const PlanResult r = plan(prod, o);
    REQUIRE_FALSE(r.plans.empty());
    // a pinned schedule is searched where it can run: no vpp or stage split it refuses
    CHECK(r.rejected.count("pipeline") == 0);
    CHECK(best.plans[0].objective <= r.plans[0].objective);
    pinned.emplace(s, r.plans[0]);
  }
  // the V's bubble is the smaller, its parameters the same
  const Estimate &one = pinned.at(PpSchedule::one_f_one_b).estimate,
                 &vee = pinned.at(PpSchedule::dualpipev).estimate;
  CHECK(vee.time.bubble < 0.8 * one.time.bubble);
  CHECK(vee.memory.weights <= one.memory.weights);
}
