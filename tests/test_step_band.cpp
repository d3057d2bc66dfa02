// Bands of a step time and of a difference between two layouts (core/estimate/step_band;
// docs/formulas.md "Bands of a plan").
#include "helpers.hpp"

#include "core/estimate/step_band.hpp"
#include "core/io/units.hpp"
#include "core/planner/planner.hpp"
#include "core/report/report.hpp"

#include <cmath>

using namespace rl;

namespace {
StepTime step(double compute, double comm, double bubble, double optimizer) {
  StepTime t;
  t.compute = compute;
  t.comm_exposed = comm;
  t.bubble = bubble;
  t.optimizer = optimizer;
  t.step = compute + comm + bubble + optimizer;
  return t;
}
} // namespace

TEST_CASE("bands: a difference carries each component's band on that component's difference",
          "[band]") {
  const ComponentBands u{0.10, 0.30};
  // By hand: B has 0.2 s more compute and 1.0 s more exposed communication than A.
  // delta 1.2 s; band sqrt((0.10 x 0.2)^2 + (0.30 x 1.0)^2) = sqrt(0.0004 + 0.09) = 0.300666 s
  const StepTime a = step(10, 1, 0.5, 0.1), b = step(10.2, 2, 0.5, 0.1);
  const StepDifference d = step_difference(a, b, u);
  CHECK(d.delta == Approx(1.2));
  CHECK(d.band == Approx(std::sqrt(0.0004 + 0.09)));
  CHECK(std::string(d.deciding) == "exposed communication");
  CHECK(d.deciding_delta == Approx(1.0));
  CHECK(d.beyond_band());
  // 0.3 s more compute, 0.25 s less communication: delta 0.05 s against a band of
  // sqrt((0.1 x 0.3)^2 + (0.3 x 0.25)^2) = sqrt(0.0009 + 0.005625) = 0.0808 s: within it
  const StepDifference w = step_difference(a, step(10.3, 0.75, 0.5, 0.1), u);
  CHECK(w.delta == Approx(0.05));
  CHECK(w.band == Approx(std::sqrt(0.0009 + 0.005625)));
  // the deciding component points the way of the total: B's 0.3 s more compute
  CHECK(std::string(w.deciding) == "compute");
  CHECK(w.deciding_delta == Approx(0.3));
  CHECK_FALSE(w.beyond_band());
  // one plan's own band: sqrt((0.1 x (10 + 0.5 + 0.1))^2 + (0.3 x 1)^2)
  CHECK(step_band(a, u) == Approx(std::sqrt(1.06 * 1.06 + 0.09)));
}

TEST_CASE("bands: the chip's on compute, the links' on communication", "[band]") {
  Config c = test::config(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 16},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 8, "pp": 1}})");
  CHECK(component_bands(c).compute == c.hardware.time_uncertainty);
  CHECK(component_bands(c).comm == 0.25); // Link::uncertainty when not calibrated
  c.cluster.inter_node.uncertainty = 0.4;
  CHECK(component_bands(c).comm == 0.4); // the wider of the node's two link classes
  c.workload.precision = Dtype::fp8;     // FP8's own band (hardware.fp8_uncertainty)
  CHECK(component_bands(c).compute ==
        std::max(c.hardware.time_uncertainty, c.hardware.fp8_uncertainty));
}

TEST_CASE("bands: plans and compare say whether a difference is beyond the band", "[band]") {
  const Config c = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 128, "seq_len": 8192},
    "parallel": {"tp": 4, "pp": 8, "vpp": 5, "microbatch": 1, "sp": true}})");
  const PlanResult r = plan(c);
  REQUIRE(r.plans.size() >= 2);
  const Plan &p = r.plans.front();
  REQUIRE(p.vs_next);
  CHECK(p.vs_next->delta == Approx(r.plans[1].estimate.time.step - p.estimate.time.step));
  CHECK(p.step_band > 0);
  CHECK(p.why.find(p.vs_next->beyond_band() ? "beyond the band" : "within the band") !=
        std::string::npos);
  // compare: B = ZeRO-3 against A = ZeRO-1 with full recompute, the same layout otherwise
  Config a = c, b = c;
  a.parallel.recompute = b.parallel.recompute = Recompute::full;
  a.parallel.zero = 1;
  b.parallel.zero = 3;
  const Estimate ea = estimate(a), eb = estimate(b);
  const std::string v = step_verdict(a, ea, b, eb);
  const StepDifference d = step_difference(eb.time, ea.time, component_bands(a));
  CHECK(v.rfind(std::string("B is ") + units::seconds(std::fabs(d.delta)), 0) == 0);
  CHECK(v.find(d.beyond_band() ? "beyond the band" : "within the band") != std::string::npos);
}
