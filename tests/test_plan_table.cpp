// The planner's table in the report layer (core/report/plan_table): the columns each mode
// shows and cells computed from the plan they describe, shared by `ridgeline plan` and the page.
#include "helpers.hpp"

#include "core/io/estimate_json.hpp"
#include "core/io/plan_apply.hpp"
#include "core/io/serve_json.hpp"
#include "core/report/plan_table.hpp"
#include "core/report/report.hpp"

#include <algorithm>

using namespace rl;
using nlohmann::json;

namespace {
std::vector<std::string> heads(const ReportTable &t) {
  std::vector<std::string> out;
  for (const ReportColumn &c : t.columns)
    out.push_back(c.head);
  return out;
}
} // namespace

TEST_CASE("plan table: training columns, cells from each plan's estimate", "[report]") {
  Config c = test::config(R"({"scenario": "llama3-70b-h100-1024",
                              "workload": {"train_tokens": 15e12},
                              "hardware": {"base": "h100-sxm", "price_per_hour": 3}})");
  c.parallel = ParallelSpec{}; // every knob free
  PlanOptions o;
  o.top = 3;
  const PlanResult r = plan(c, o);
  REQUIRE(r.plans.size() == 3);
  const ReportTable t = plan_table(c, r);
  // a token budget adds time to train, a price the cost, a board power the energy to train;
  // what a plan gives comes first, then its layout (a narrow window keeps the outcome in view);
  // a rank order other than the default (pipeline stages inside DP) gets its column
  CHECK(heads(t) == std::vector<std::string>{"#", "step", "MFU", "to train", "cost", "MWh",
                                             "memory", "dp", "tp", "pp", "vpp", "cp", "ep", "ZeRO",
                                             "mb", "recompute", "order", "why"});
  CHECK(std::any_of(r.plans.begin(), r.plans.end(),
                    [](const Plan &p) { return !order_label(p.estimate.layout).empty(); }));
  REQUIRE(t.rows.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const Estimate &e = r.plans[i].estimate;
    const auto &row = t.rows[i];
    CHECK(row[static_cast<std::size_t>(t.column("dp"))].value == e.layout.dp);
    CHECK(row[static_cast<std::size_t>(t.column("dp"))].text == std::to_string(e.layout.dp));
    CHECK(row[static_cast<std::size_t>(t.column("step"))].value == e.time.step);
    CHECK(row[static_cast<std::size_t>(t.column("mfu"))].value == e.throughput.mfu);
    CHECK(row[static_cast<std::size_t>(t.column("memory"))].value == e.memory.total);
    // cost = devices x hours x price, the estimate's own
    CHECK(row[static_cast<std::size_t>(t.column("cost"))].value == e.cost_to_train);
    CHECK(row[static_cast<std::size_t>(t.column("energy"))].value == e.energy.mwh_to_train);
    CHECK(row[static_cast<std::size_t>(t.column("why"))].text == r.plans[i].why);
  }
  CHECK(t.columns[static_cast<std::size_t>(t.column("mfu"))].better == Better::higher);
  CHECK(t.columns[static_cast<std::size_t>(t.column("step"))].better == Better::lower);
}

TEST_CASE("plan table: inference shows no training knobs and ranks by TPOT", "[report]") {
  const Config c = test::config(R"({"scenario": "llama2-13b-v5e-infer"})");
  PlanOptions o;
  o.top = 2;
  const PlanResult r = plan(c, o);
  REQUIRE(!r.plans.empty());
  const ReportTable t = plan_table(c, r);
  CHECK(t.column("vpp") < 0);
  CHECK(t.column("zero") < 0);
  CHECK(t.column("microbatch") < 0);
  CHECK(t.column("recompute") < 0);
  const auto &row = t.rows.front();
  CHECK(row[static_cast<std::size_t>(t.column("tpot"))].value == r.plans.front().objective);
  CHECK(row[static_cast<std::size_t>(t.column("tokens_per_s"))].value ==
        r.plans.front().estimate.serving.decode.tokens_per_s);
}

TEST_CASE("plan table: the choices of 'what should I run on', one row each", "[report]") {
  Config c = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
      "cluster": "dgx-h100-1024", "workload": {"mode": "train", "global_batch": 1024,
      "seq_len": 8192, "train_tokens": 15e12, "hardware_options": ["h100-sxm", "h200"]}})");
  PlanOptions o;
  o.top = 1;
  o.budget = 20000;
  const JointPlanResult r = plan_choices(io::planner_choices(io::to_json(c)), o);
  REQUIRE(r.choices.size() == 2);
  const ReportTable t = choice_table(c, r);
  CHECK(heads(t) == std::vector<std::string>{"#", "hardware", "cluster", "devices", "layout",
                                             "step", "MFU", "to train", "cost", "MWh", "deadline"});
  for (std::size_t i = 0; i < 2; ++i) {
    const ChoicePlan &x = r.choices[i];
    REQUIRE(!x.result.plans.empty());
    const Estimate &e = x.result.plans.front().estimate;
    CHECK(t.rows[i][1].text == x.hardware);
    CHECK(t.rows[i][4].text == layout_label(e.layout, c.model.layers));
    CHECK(t.rows[i][5].value == e.time.step);
    CHECK(t.rows[i][7].value == x.time_to_train);
  }
  // the compact label: dp, tp, pp always; vpp and ep only above 1; ZeRO
  Layout l;
  l.dp = 16, l.tp = 8, l.pp = 4, l.vpp = 2, l.ep = 1, l.zero = 1;
  CHECK(layout_label(l, 80) == "dp16 tp8 pp4 v2 z1");
}

TEST_CASE("a plan applied: the knobs that matter, the same layout, the configuration's keys kept",
          "[report]") {
  Config c = test::config(R"({"scenario": "llama3-70b-h100-1024"})");
  c.parallel = io::parse_parallel(json{{"sp", true}}, "parallel");
  PlanOptions o;
  o.top = 1;
  const PlanResult r = plan(c, o);
  REQUIRE(!r.plans.empty());
  const Plan &p = r.plans.front();
  const json applied = io::applied_parallel(c, p, json{{"sp", true}});
  for (const char *k : {"tp", "pp", "cp", "zero", "microbatch", "recompute", "sp"})
    CHECK(applied.contains(k));
  CHECK(applied.contains("vpp") == (p.estimate.layout.pp > 1));
  CHECK_FALSE(applied.contains("ep")); // a dense model
  // the short form resolves to the plan's own layout
  Config x = c;
  x.parallel = io::parse_parallel(applied, "parallel");
  CHECK(io::to_json(resolve_layout(x)) == io::to_json(p.estimate.layout));
}
