// The report layer's estimate tables (core/report/estimate_report): the cells `ridgeline
// estimate` prints and the page's Results panel draws come from the estimate they describe,
// and the derived columns (shares, bands, sums) follow from those cells.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/units.hpp"
#include "core/report/estimate_report.hpp"
#include "core/report/table.hpp"

#include <algorithm>
#include <cmath>

using namespace rl;

namespace {
double value(const ReportTable &t, const std::string &row, const std::string &col) {
  const ReportLine *r = t.row(row);
  REQUIRE(r != nullptr);
  const int k = t.column(col);
  REQUIRE(k >= 0);
  return (*r)[static_cast<std::size_t>(k)].value;
}
} // namespace

TEST_CASE("estimate report: training tables hold the estimate's numbers", "[report]") {
  const Config c = test::config(R"({"scenario": "llama3-70b-h100-1024"})");
  const Estimate e = estimate(c);
  const EstimateReport r = estimate_report(c, e);
  // Llama 3 70B: 70,553,706,496 parameters (the safetensors index of meta-llama/Meta-Llama-3-70B)
  CHECK(value(r.size, "params", "value") == 70553706496.0);
  CHECK((*r.size.row("params"))[2].text == "70,553,706,496");
  CHECK(r.workload == "train: global batch 1024 x seq 8192 = 8,388,608 tokens/step, bf16");
  CHECK(value(r.size, "model_flops", "value") == e.model_flops_per_step);

  // The step's parts add up to the step (compute here excludes recompute, its own part).
  const ReportTable &st = r.step_time;
  double parts = 0;
  for (const char *k : {"compute", "recompute", "comm", "bubble", "optimizer"}) {
    parts += value(st, k, "time");
    CHECK(value(st, k, "share") == Approx(value(st, k, "time") / e.time.step));
  }
  CHECK(parts == Approx(e.time.step).epsilon(1e-12));
  CHECK(value(st, "step", "time") == e.time.step);
  CHECK(st.row("step")->mark == Mark::total);

  // The band: [t (1 - u), t (1 + u)] for the step, [r / (1 + u), r / (1 - u)] for MFU.
  REQUIRE(r.summary.size() == 2);
  const double u = e.uncertainty;
  CHECK(r.summary[0].text.find(units::seconds(e.time.step * (1 - u))) != std::string::npos);
  CHECK(r.summary[0].text.find(units::seconds(e.time.step * (1 + u))) != std::string::npos);
  char mfu[64];
  std::snprintf(mfu, sizeof mfu, "MFU %.1f%% (%.1f .. %.1f)", 100 * e.throughput.mfu,
                100 * e.throughput.mfu / (1 + u), 100 * e.throughput.mfu / (1 - u));
  CHECK(r.summary[1].text.rfind(mfu, 0) == 0);

  // Memory: the parts sum to the total; the verdict against the usable memory.
  const ReportTable &m = r.memory;
  const double sum = value(m, "weights", "bytes") + value(m, "gradients", "bytes") +
                     value(m, "optimizer", "bytes") + value(m, "activations", "bytes");
  CHECK(sum == Approx(value(m, "total", "bytes")).epsilon(1e-12));
  CHECK(value(m, "usable", "bytes") == e.memory.capacity - e.memory.reserve);
  CHECK(m.note.rfind(e.memory.fits ? "fits: " : "DOES NOT FIT: ", 0) == 0);

  // One row per stage; the worst marked; its share of HBM = total / capacity.
  REQUIRE(r.stages.rows.size() == e.stages.size());
  const std::size_t worst = static_cast<std::size_t>(e.memory.worst_stage);
  CHECK(r.stages.rows[worst].mark == Mark::warn);
  CHECK(r.stages.rows[worst][static_cast<std::size_t>(r.stages.column("hbm"))].value ==
        Approx(e.stages[worst].total() / c.hardware.hbm_bytes));

  // Communication: one row per collective, as the estimate lists them.
  REQUIRE(r.comm.rows.size() == e.time.comm.size());
  CHECK(r.comm.rows[0][static_cast<std::size_t>(r.comm.column("exposed"))].value ==
        e.time.comm[0].exposed);
  // Activations: the terms add up to the per-layer total, whose share is 100%.
  double acts = 0;
  for (const ReportLine &row : r.activations.rows)
    if (row.key != "total")
      acts += row[2].value;
  CHECK(acts == Approx(e.act_terms.total()).epsilon(1e-12));
  // No inference tables in training.
  CHECK(r.decode_step.empty());
  CHECK(r.serving.empty());
}

TEST_CASE("estimate report: inference tables, the decode step and the serving numbers",
          "[report]") {
  const Config c = test::config(R"({"scenario": "llama2-13b-v5e-infer"})");
  const Estimate e = estimate(c);
  const EstimateReport r = estimate_report(c, e);
  CHECK(r.step_time.empty());
  CHECK(r.summary.empty());
  CHECK(r.activations.rows.empty());
  CHECK(!r.activations.note.empty());
  const DecodeStep &d = e.serving.decode;
  CHECK(value(r.decode_step, "kv", "time") == d.kv_time);
  // the larger of the weight reads and the matmuls (How to Scale Your Model ch. 7)
  CHECK(value(r.decode_step, "weights", "time") == std::max(d.weight_time, d.compute_time));
  CHECK(value(r.decode_step, "step", "time") == e.serving.tpot);
  CHECK(value(r.serving, "ttft", "value") == e.serving.ttft);
  CHECK(value(r.serving, "request", "value") == e.serving.request_latency);
  CHECK(value(r.size, "max_batch", "value") == static_cast<double>(e.memory.max_batch));
  CHECK(r.memory.row("kv_cache") != nullptr);
  CHECK(r.memory.row("gradients") == nullptr);
  // Llama 2 13B: 13,015,864,320 parameters (the model card's 13B; HF safetensors index)
  CHECK(value(r.size, "params", "value") == 13015864320.0);
}

TEST_CASE("estimate report: the decode curve, one row per batch", "[report]") {
  const Config c = test::config(R"({"scenario": "llama2-13b-v5e-infer"})");
  const Estimate e = estimate(c);
  const DecodeCurve curve = decode_curve(c, e);
  const ReportTable t = decode_curve_table(curve, static_cast<double>(c.workload.batch));
  REQUIRE(t.rows.size() == curve.rows.size());
  const std::size_t tpot = static_cast<std::size_t>(t.column("tpot"));
  const std::size_t note = static_cast<std::size_t>(t.column("note"));
  int workload = 0, critical = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const DecodeStep &d = curve.rows[i];
    CHECK(t.rows[i][tpot].value == d.step);
    CHECK(t.rows[i][static_cast<std::size_t>(t.column("tokens"))].value == d.tokens_per_s);
    if (d.batch == static_cast<double>(c.workload.batch)) {
      ++workload;
      CHECK(t.rows[i].mark == Mark::ok); // the workload's own batch stands out
    }
    if (t.rows[i][note].text == "critical") {
      ++critical;
      CHECK(std::round(d.batch) == std::round(curve.critical_batch));
    }
    if (!d.fits)
      CHECK(t.rows[i].mark == Mark::dim);
  }
  CHECK(workload == 1);
  CHECK(critical == 1);
  // the workload batch's TPOT is the estimate's (one TPOT definition everywhere)
  CHECK(std::any_of(curve.rows.begin(), curve.rows.end(),
                    [&](const DecodeStep &d) { return d.step == e.serving.tpot; }));
}

TEST_CASE("units: a time keeps three decimals in seconds, two in a smaller unit, four digits "
          "beyond a million seconds",
          "[report]") {
  CHECK(units::seconds(12.03) == "12.030 s");
  CHECK(units::seconds(0.002) == "2.00 ms");
  CHECK(units::seconds(3.1e-6) == "3.10 us");
  // A flash-attention operator of 140,966 heads x 16 M queries on one tx8 die: ten years.
  CHECK(units::seconds(317427212.536) == "3.174e+08 s");
  CHECK(units::seconds(999999.5) == "999999.500 s");
}

// Issue 25 item 9: MFU "+5.2%" in Compare was a relative change read as points.
TEST_CASE("compare: percentages change in points, quantities relatively, one table for both "
          "front ends",
          "[report][compare]") {
  CompareRow mfu{"throughput", "MFU", 0.30, 0.352, Unit::percent, Better::higher, true, true};
  CHECK(change_text(mfu) == "+5.2 pts"); // 35.2% - 30.0%, not the relative +17.3%
  mfu.after = 0.3004;
  CHECK(change_text(mfu) == "+0.04 pts"); // under 0.05 pts: two decimals, never "+0.0"
  CompareRow step{"step time", "step", 11.387, 9.963, Unit::seconds, Better::lower, true, true};
  CHECK(change_text(step) == "-12.5%"); // 9.963 / 11.387 - 1 = -0.12505
  step.has_before = false;
  CHECK(change_text(step) == "new");
  const Config a = test::config(R"({"scenario": "llama3-70b-h100-1024"})");
  const Config b =
      test::config(R"({"scenario": "llama3-70b-h100-1024", "parallel": {"tp": 4, "pp": 4}})");
  const Estimate ea = estimate(a), eb = estimate(b);
  const ReportTable t = compare_table(report_rows(ea), report_rows(eb), "A", "B");
  const ReportLine *row = t.row("MFU");
  REQUIRE(row != nullptr);
  // the MFU row: both values and their difference in points
  CHECK(row->cells[1].text == units::percent(ea.throughput.mfu));
  CHECK(row->cells[3].text ==
        units::format("%+.1f pts", 100 * (eb.throughput.mfu - ea.throughput.mfu)));
  // step 11.387 s -> 10.496 s: faster, an improvement (ok); the bubble grows: a regression
  CHECK(t.row("step")->cells[3].mark == Mark::ok);
  CHECK(t.row("pipeline bubble")->cells[3].mark == Mark::warn);
  CHECK(t.rows.front().key == "section"); // each section opens with its name
  CHECK(t.rows.front().cells[0].text == "model");
  // across precisions MFU is a share of another peak (H100 SXM: 989 bf16, 1979 fp8 TFLOP/s
  // dense): the rows say so instead of reading points as a speed-up
  const Config f = test::config(R"({"scenario": "llama3-70b-h100-1024",
    "workload": {"precision": "fp8", "fp8_recipe": "tensorwise"}})");
  const Estimate ef = estimate(f);
  const ReportTable tp = compare_table(report_rows(ea), report_rows(ef), "A", "B");
  CHECK(tp.row("MFU") == nullptr);
  REQUIRE(tp.row("MFU (of different peaks)") != nullptr);
  const ReportLine *peak = tp.row(kPeakLabel);
  REQUIRE(peak != nullptr);
  CHECK(peak->cells[3].text == "+100.1%"); // 1979 / 989 - 1: the fp8 peak against the bf16
  CHECK(t.row(kPeakLabel)->cells[3].text == "="); // one precision: MFU as it was
}

// Issue 25 item 9: the activation table showed `4sbh` beside the value 4sbh/t.
TEST_CASE("estimate report: each activation formula is the value it stands beside (per TP rank)",
          "[report]") {
  // Llama 3 70B, tp 8 with Megatron-SP, b 1, s 8192, h 8192, flash attention
  const Config c = test::config(R"({"scenario": "llama3-70b-h100-1024"})");
  const EstimateReport r = estimate_report(c, estimate(c));
  const double s = 8192, b = 1, h = 8192, t = 8, f = 28672;
  const ReportLine *norm = r.activations.row("norm_inputs");
  REQUIRE(norm != nullptr);
  CHECK(norm->cells[1].text == "4sbh/t");
  CHECK(norm->cells[2].value == 4 * s * b * h / t); // Korthikanti: 4sbh, split by SP over t
  CHECK(r.activations.row("mlp_hidden")->cells[1].text == "6sbf/t");
  CHECK(r.activations.row("mlp_hidden")->cells[2].value == 6 * s * b * f / t); // SwiGLU 6sbf
  CHECK(r.activations.row("qk")->cells[1].text == "2sbd(a+k)/t"); // 8 KV heads over tp 8
  // without SP the replicated terms stay whole: 4sbh, and its value is 4sbh
  const Config nosp =
      test::config(R"({"scenario": "llama3-70b-h100-1024", "parallel": {"sp": false}})");
  const EstimateReport q = estimate_report(nosp, estimate(nosp));
  CHECK(q.activations.row("norm_inputs")->cells[1].text == "4sbh");
  CHECK(q.activations.row("norm_inputs")->cells[2].value == 4 * s * b * h);
  // the stages' column counts layer-micro-batches: stage 0 of pp 8 under 1F1B holds 8
  // micro-batches of its 10 layers = 80, a whole number printed whole
  const int col = r.stages.column("in_flight");
  REQUIRE(col >= 0);
  CHECK(r.stages.columns[static_cast<std::size_t>(col)].head == "layer-mb in flight");
  CHECK(r.stages.rows[0].cells[static_cast<std::size_t>(col)].text == "80");
}
