// The report layer's tx8 tables (core/report/tx8_report): the operator table, the totals, the
// parts of a step, the schemes compared, as `ridgeline tx8` prints them and the page draws
// them, hold the mapping's own numbers.
#include "helpers.hpp"

#include "core/report/tx8_report.hpp"
#include "core/tx8/arch.hpp"
#include "core/tx8/request.hpp"

#include <algorithm>

using namespace rl;

TEST_CASE("tx8 report: a video request's operators, step parts, totals and schemes", "[report]") {
  const Config c = test::config(R"({"scenario": "sora-720m-tx8-2x2"})");
  const tx8::Tx8Result r = tx8::solve(c, {});
  const Tx8Report rep = tx8_report(c, r);
  REQUIRE(rep.ops.rows.size() == r.ops.size());
  const std::size_t lat = static_cast<std::size_t>(rep.ops.column("latency"));
  const std::size_t total = static_cast<std::size_t>(rep.ops.column("total"));
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const tx8::OpCost &k = r.ops[i].map.cost;
    CHECK(rep.ops.rows[i][lat].value == k.latency);
    // x count = latency x times per step
    CHECK(rep.ops.rows[i][total].value == k.latency * r.ops[i].count);
    // exactly one of compute / DRAM / NoC is marked: the largest, what bounds the operator
    int marked = 0;
    double most = 0;
    for (const char *col : {"compute", "dram", "noc"}) {
      const ReportCell &cell = rep.ops.rows[i][static_cast<std::size_t>(rep.ops.column(col))];
      most = std::max(most, cell.value);
      marked += cell.mark == Mark::warn ? 1 : 0;
    }
    CHECK(marked == 1);
    CHECK(most == std::max({k.compute_time, k.dram_time, k.noc_time}));
  }
  // One stage: every spatial and temporal block once, the exposed communication, the
  // embedders and the final layer make the step.
  double parts = 0;
  for (const ReportLine &row : rep.step.rows)
    if (row.key != "per_step")
      parts += row[1].value;
  CHECK(parts == Approx(r.per_step).epsilon(1e-9));
  CHECK(rep.totals.row("request")->cells[1].value == r.latency);
  CHECK(rep.totals.row("per_step")->cells[1].value == r.per_step);
  // The chosen scheme's row is the result's scheme on its sub-mesh.
  REQUIRE(rep.chosen_scheme >= 0);
  const tx8::SchemeRow &chosen = r.schemes[static_cast<std::size_t>(rep.chosen_scheme)];
  CHECK(chosen.name == tx8::scheme_name(r.scheme));
  CHECK(rep.schemes.rows.size() == r.schemes.size());
  CHECK(rep.comm.rows.size() == r.comm.size());
}

TEST_CASE("tx8 report: one operator in detail, with the roofline floor", "[report]") {
  const Config c = test::config(R"({"hardware": "tx8", "workload": {"mode": "tx8-op",
      "op": {"type": "gemm", "m": 4096, "k": 1152, "n": 4608}}})");
  tx8::Tx8Options o;
  o.compare_presets = true;
  const tx8::Tx8Result r = tx8::solve(c, o);
  const Tx8Report rep = tx8_report(c, r);
  const tx8::OpCost &k = r.ops.front().map.cost;
  CHECK(rep.op_detail.row("latency")->cells[1].value == k.latency);
  // 2 m k n FLOPs of the GEMM (2mnk, one multiply-add = 2 FLOPs)
  CHECK(rep.op_detail.row("flops")->cells[1].value == 2.0 * 4096 * 1152 * 4608);
  // the floor no tiling beats: max(FLOPs / die peak, compulsory bytes / DRAM bandwidth)
  const Tx8Spec &a = *c.hardware.tx8;
  const double floor = std::max(k.flops / tx8::die_gemm_flops(a), k.compulsory_bytes / a.dram_bw);
  CHECK(rep.op_detail.row("floor")->cells[1].value == Approx(floor));
  CHECK(rep.op_detail.row("floor")->cells[1].value <= k.latency);
  // the reference preset (TmTn 256x32) against the searched tiling: gain = preset / searched
  REQUIRE(rep.presets.rows.size() == 1);
  const tx8::OpRow &row = r.ops.front();
  REQUIRE(row.has_preset);
  CHECK(rep.presets.rows[0][5].value == row.preset.cost.latency / k.latency);
  CHECK(rep.presets.rows[0][5].value >= 1.0);
}
