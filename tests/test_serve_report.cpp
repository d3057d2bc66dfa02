// The report layer's serving tables (core/report/serve_report): what `ridgeline serve` prints
// and the page's serve results draw come from the simulation they describe.
#include "helpers.hpp"

#include "core/io/serve_json.hpp"
#include "core/report/serve_report.hpp"
#include "core/serve/simulate.hpp"

using namespace rl;

TEST_CASE("serve report: latency percentiles, SLO marks and the summary", "[report]") {
  const Config c = test::config(R"({"scenario": "llama3-70b-h100-serve"})");
  const ServeResult r = simulate_serving(c);
  const ServeReport rep = serve_report(c, r);
  const ReportTable &lat = rep.latency;
  REQUIRE(lat.rows.size() == 3);
  const ReportLine *ttft = lat.row("ttft");
  REQUIRE(ttft != nullptr);
  CHECK((*ttft)[static_cast<std::size_t>(lat.column("p90"))].value == r.ttft.p90);
  CHECK((*ttft)[static_cast<std::size_t>(lat.column("p99"))].value == r.ttft.p99);
  // A cell is marked exactly when it misses the configured target.
  const ServeSpec &s = c.workload.serve;
  REQUIRE(s.slo_ttft > 0);
  for (std::size_t k = 1; k < lat.columns.size(); ++k)
    CHECK(((*ttft)[k].mark == Mark::warn) == ((*ttft)[k].value > s.slo_ttft));
  // end to end has no target: never marked
  for (const ReportCell &cell : lat.row("e2e")->cells)
    CHECK(cell.mark == Mark::none);

  const ReportTable &m = rep.summary;
  CHECK((*m.row("throughput"))[1].value == r.output_tokens_per_s);
  CHECK((*m.row("goodput"))[1].value == r.goodput);
  CHECK((*m.row("kv_cache"))[1].value == r.memory.kv_cache);
  // weights + workspace + KV = the memory the simulation sized
  CHECK((*m.row("weights"))[1].value + (*m.row("workspace"))[1].value +
            (*m.row("kv_cache"))[1].value ==
        Approx(r.memory.total).epsilon(1e-12));
  CHECK((*m.row("simulated"))[1].text ==
        std::to_string(r.completed) + " of " + std::to_string(r.requests));
}

TEST_CASE("serve report: the rate sweep, one row per rate", "[report]") {
  const Config c = test::config(R"({"scenario": "llama3-70b-h100-serve",
                                    "workload": {"requests": 200}})");
  const LoadSweep sweep = load_sweep(c, {1.0, 4.0});
  const nlohmann::json rows = io::to_json(sweep);
  const ReportTable t = serve_sweep_table(sweep);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1][0].value == 4.0);
  CHECK(t.rows[1][static_cast<std::size_t>(t.column("ttft_p90"))].value ==
        rows[1]["ttft"]["p90"].get<double>());
  CHECK(t.rows[0][static_cast<std::size_t>(t.column("slo"))].value ==
        rows[0]["slo_attainment"].get<double>());
}

TEST_CASE("serve report: a fixed-length closed loop says why its percentiles coincide",
          "[report][serve]") {
  // 16 clients of fixed 1024/128 requests, staggered over a cycle: the same state for all
  const Config c = test::serve_config(R"({"mode": "serve", "concurrency": 16, "requests": 200,
    "prompt_len": 1024, "gen_len": 128})");
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.ttft.p99 - r.ttft.p50 <= 1e-3 * r.ttft.p50);
  CHECK(serve_report(c, r).latency.note.find("p50, p90 and p99 coincide") != std::string::npos);
  // exponential lengths spread them, and the report says nothing of it
  Config e = c;
  e.workload.serve.length_dist = LengthDist::exponential;
  const ServeResult re = simulate_serving(e);
  CHECK(re.ttft.p99 > 1.05 * re.ttft.p50);
  CHECK(serve_report(e, re).latency.note.find("coincide") == std::string::npos);
}
