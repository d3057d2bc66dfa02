// The serving planner over engines, precisions and MoE layouts, and its sizing shortcuts.
#include "helpers.hpp"

#include "core/io/config_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"

#include <algorithm>

using namespace rl;
using nlohmann::json;

namespace {
json serve_workload(const std::string &extra) {
  return json::parse(R"({"mode": "serve", "request_rate": 6, "requests": 300, "prompt_len": 1024,
    "gen_len": 64, "slo": {"ttft": 0.5, "tpot": 0.03}, )" +
                     extra + "}");
}
} // namespace

TEST_CASE("serving planner: choices are hardware x engine x precision, FP4 only with its peak",
          "[serve][planner]") {
  json c = {{"model", "llama3-8b"},
            {"hardware", "h100-sxm"},
            {"cluster", "dgx-h100"},
            {"workload", serve_workload(R"("hardware_options": ["h100-sxm", "b200@dgx-b200"],
              "engine_options": ["vllm", "sglang"], "precision_options": ["fp8", "fp4"])")}};
  const std::vector<Config> ch = io::planner_choices(c);
  // H100 has no FP4 peak: 2 engines x fp8; B200: 2 engines x (fp8, fp4)
  REQUIRE(ch.size() == 6);
  std::vector<std::string> seen;
  for (const Config &k : ch)
    seen.push_back(k.hardware.name + " " + k.workload.serve.engine.name + " " +
                   io::name_of(k.workload.weight_dtype) + "/" + io::name_of(k.workload.precision));
  CHECK(seen == std::vector<std::string>{"h100-sxm vllm fp8/fp8", "h100-sxm sglang fp8/fp8",
                                         "b200 vllm fp8/fp8", "b200 vllm fp4/fp4",
                                         "b200 sglang fp8/fp8", "b200 sglang fp4/fp4"});
  // each engine brings its own scheduler defaults (presets/engines/sglang.json: chunk 8192,
  // iterations all prefill or all decode)
  CHECK(ch[1].workload.serve.chunk == 8192);
  CHECK_FALSE(ch[1].workload.serve.mixed_prefill);
  CHECK(ch[0].workload.serve.mixed_prefill);
  // INT4 is weight-only: the GEMMs keep the configuration's precision
  c["workload"]["precision_options"] = {"int4"};
  c["workload"]["precision"] = "bf16";
  CHECK(io::name_of(io::planner_choices(c).front().workload.precision) == std::string("bf16"));
  CHECK(io::planner_choices(c).front().workload.weight_dtype == Dtype::int4);
  // FP4 on no hardware with its peak, and an unknown engine: errors naming the entry
  c["workload"]["hardware_options"] = {"h100-sxm", "a100-80gb"};
  c["workload"]["precision_options"] = {"fp8", "fp4"};
  CHECK(test::error_of([&] {
          io::planner_choices(c);
        }).rfind("workload.precision_options[1]: fp4 needs an FP4 peak", 0) == 0);
  c["workload"]["engine_options"] = {"vllm", "tgi"};
  CHECK(test::error_of([&] {
          io::planner_choices(c);
        }).rfind("workload.engine_options[1]: unknown engine preset \"tgi\"", 0) == 0);
}

TEST_CASE("serving planner: over engines it finds the cheapest of each engine planned alone",
          "[serve][planner]") {
  const json c = {{"model", "llama3-8b"},
                  {"hardware", "h100-sxm"},
                  {"cluster", "dgx-h100"},
                  {"workload", serve_workload(R"("engine_options": ["vllm", "trtllm", "sglang"])")},
                  {"parallel", {{"tp", 1}, {"pp", 1}}}};
  ServePlanOptions o;
  o.sim_requests = 300;
  o.top = 3;
  const std::vector<Config> all = io::planner_choices(c);
  REQUIRE(all.size() == 3);
  const ServePlanResult joint = plan_serving(all, o);
  REQUIRE_FALSE(joint.deployments.empty());
  double best = 1e300;
  std::string best_engine;
  for (const Config &k : all) {
    const ServePlanResult alone = plan_serving({k}, o);
    REQUIRE_FALSE(alone.deployments.empty());
    const Deployment &d = alone.deployments.front();
    if (d.cost_per_million_tokens < best) {
      best = d.cost_per_million_tokens;
      best_engine = k.workload.serve.engine.name;
    }
  }
  const Deployment &top = joint.deployments.front();
  CHECK(top.cost_per_million_tokens == best); // the same simulations: equal, not close
  CHECK(top.config.workload.serve.engine.name == best_engine);
  // the JSON says which engine and precision a deployment runs
  const json j = io::to_json(joint).at("deployments").at(0);
  CHECK(j.at("engine") == best_engine);
  CHECK(j.at("weight_dtype") == "bf16");
}

TEST_CASE("serving planner: a MoE instance searches attention DP with its experts split by "
          "tensor or by expert",
          "[serve][planner][moe]") {
  // Qwen3-30B-A3B, 128 experts, on 8-GPU nodes: tp 1-8 over one node; attention DP up to 64
  // GPUs of attention; experts as moe_tp = tp x adp (ep 1) or ep = tp x adp (moe_tp 1).
  // (tp, adp) pairs with tp x adp <= 64: 7 + 6 + 5 + 4 = 22, of which 21 have tp x adp > 1
  // and so two expert splits: 43 instance shapes x pp {1, 2, 4} x max batch {64, 256} x chunk
  // {512, 2048} x aggregated / disaggregated = 1032 candidates.
  const json c = {{"model", "qwen3-30b-a3b"},
                  {"hardware", "h100-sxm"},
                  {"cluster", "dgx-h100"},
                  {"workload", serve_workload(R"("weight_dtype": "fp8", "precision": "fp8")")}};
  ServePlanOptions o;
  o.sim_requests = 200;
  o.top = 20;
  const ServePlanResult r = plan_serving(io::planner_choices(c), o);
  CHECK(r.candidates == 1032);
  REQUIRE_FALSE(r.deployments.empty());
  bool adp = false;
  for (const Deployment &d : r.deployments) {
    const Layout &l = d.layout;
    CHECK(l.moe_tp * l.ep == l.tp * l.attention_dp); // the instance's rule
    CHECK(d.devices == d.instances * l.tp * l.attention_dp * l.pp);
    adp = adp || l.attention_dp > 1;
  }
  CHECK(adp); // among the 20 cheapest: an attention-DP instance (1-2 GPUs serve this rate)
}

TEST_CASE("serving sizing: stopping at the first sure miss gives the whole run's verdict",
          "[serve][planner]") {
  const Config c = test::serve_config(R"({"mode": "serve", "request_rate": 1, "requests": 400,
    "prompt_len": 2048, "gen_len": 128, "length_dist": "exponential",
    "slo": {"ttft": 0.4, "tpot": 0.02}})",
                                      R"({"tp": 1})", R"({"base": "dgx-h100", "devices": 1})");
  const Layout l = resolve_layout(c);
  int failed = 0, passed = 0;
  for (const double rate : {2.0, 6.0, 12.0, 24.0, 48.0}) {
    INFO(rate);
    const auto reqs = make_requests(c.workload, rate, 400);
    const ServeResult whole = simulate_serving(c, l, reqs, 1, 0);
    const ServeResult cut = simulate_serving(c, l, reqs, 1, 0, kServeIterationBudget, true);
    CHECK(meets_slo(c.workload.serve, cut) == meets_slo(c.workload.serve, whole));
    if (!meets_slo(c.workload.serve, whole)) {
      ++failed;
      CHECK(cut.stopped_at_miss);
      CHECK(cut.iterations < whole.iterations);
    } else {
      ++passed;
      CHECK(cut.iterations == whole.iterations);
      CHECK(cut.ttft.p90 == whole.ttft.p90);
    }
    for (const Pool pool : {Pool::prefill, Pool::decode}) {
      const ServeResult pw = simulate_pool(c, l, reqs, 1, pool);
      const ServeResult pc = simulate_pool(c, l, reqs, 1, pool, kServeIterationBudget, true);
      const double att = c.workload.serve.slo_attainment;
      const double aw = pool == Pool::prefill ? pw.attainment_ttft : pw.attainment_tpot;
      const double ac = pool == Pool::prefill ? pc.attainment_ttft : pc.attainment_tpot;
      CHECK((aw >= att) == (ac >= att && !pc.stopped_at_miss));
    }
  }
  CHECK(failed > 0); // the rates span both verdicts
  CHECK(passed > 0);
  // Exactly at the target: 9 of 10 requests far apart meet a 0.5 s TTFT, the tenth (a
  // 60,000-token prompt, about 1.5 s of prefill on one H100) misses it: attainment 0.9 meets
  // 0.9, so no stop (0.1 misses are not a sure miss, though 1 - 0.9 < 0.1 in floating point).
  std::string rows;
  for (int i = 0; i < 10; ++i)
    rows += (i ? ", [" : "[") + std::to_string(10 * i) + (i < 9 ? ", 100, 4]" : ", 60000, 4]");
  const Config exact = test::serve_config(R"({"mode": "serve", "trace": [)" + rows +
                                              R"(], "slo": {"ttft": 0.5, "attainment": 0.9}})",
                                          R"({"tp": 1})", R"({"base": "dgx-h100", "devices": 1})");
  const auto ten = make_requests(exact.workload, 1.0, 10);
  const ServeResult at = simulate_serving(exact, l, ten, 1, 0, kServeIterationBudget, true);
  CHECK(at.attainment == 0.9);
  CHECK_FALSE(at.stopped_at_miss);
  CHECK(meets_slo(exact.workload.serve, at));
  // A closed loop: a sure miss even if every request left out of the steady state (the first
  // and last C to arrive) had been among the misses; the same verdict as the whole run.
  failed = passed = 0;
  for (const int clients : {2, 8, 32, 128}) {
    INFO(clients << " clients");
    const Config k =
        test::serve_config(R"({"mode": "serve", "concurrency": )" + std::to_string(clients) +
                               R"(, "requests": 600, "prompt_len": 2048, "gen_len": 128,
      "length_dist": "exponential", "slo": {"ttft": 0.4, "tpot": 0.02}})",
                           R"({"tp": 1})", R"({"base": "dgx-h100", "devices": 1})");
    const auto reqs = make_requests(k.workload, 1.0, simulated_requests(k.workload.serve));
    const ServeResult whole = simulate_serving(k, l, reqs, 1, 0);
    const ServeResult cut = simulate_serving(k, l, reqs, 1, 0, kServeIterationBudget, true);
    CHECK(meets_slo(k.workload.serve, cut) == meets_slo(k.workload.serve, whole));
    (meets_slo(k.workload.serve, whole) ? passed : failed) += 1;
    CHECK(cut.iterations <= whole.iterations);
    // the opening burst counted (count_warmup) weights the statistics at the end: never cut
    Config counted = k;
    counted.workload.serve.count_warmup = true;
    CHECK_FALSE(
        simulate_serving(counted, l, reqs, 1, 0, kServeIterationBudget, true).stopped_at_miss);
  }
  CHECK(failed > 0);
  CHECK(passed > 0);
}

TEST_CASE("serving planner in steps: the page's search (a candidate, then a verification a "
          "call) ranks what plan_serving ranks",
          "[serve][planner]") {
  const json c = {{"model", "llama3-8b"},
                  {"hardware", "h100-sxm"},
                  {"cluster", "dgx-h100"},
                  {"workload", serve_workload(R"("weight_dtype": "fp8", "precision": "fp8")")}};
  ServePlanOptions o;
  o.sim_requests = 200;
  o.top = 3;
  const std::vector<Config> choices = io::planner_choices(c);
  const ServePlanResult whole = plan_serving(choices, o);
  ServePlanSearch s(choices, o);
  int calls = 0;
  double last = 0;
  while (!s.step(1)) {
    ++calls;
    CHECK(s.progress() >= last);
    last = s.progress();
  }
  const ServePlanResult stepped = s.finish();
  // each verification is a call of its own: at least one simulation a pick
  CHECK(calls >= static_cast<int>(whole.candidates));
  CHECK(stepped.simulations == whole.simulations);
  REQUIRE(stepped.deployments.size() == whole.deployments.size());
  for (std::size_t i = 0; i < whole.deployments.size(); ++i) {
    CHECK(stepped.deployments[i].devices == whole.deployments[i].devices);
    CHECK(stepped.deployments[i].cost_per_million_tokens ==
          whole.deployments[i].cost_per_million_tokens);
    CHECK(stepped.deployments[i].result.ttft.p90 == whole.deployments[i].result.ttft.p90);
  }
}
