#include "shell/serve_command.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/units.hpp"
#include "core/report/serve_report.hpp"
#include "core/serve/serve_planner.hpp"
#include "shell/format.hpp"
#include "shell/table.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>

namespace rl::shell {

using json = nlohmann::json;

const char *kServeHelp =
    R"(Simulates serving request by request (workload.mode "serve"): Poisson arrivals at
workload.request_rate (or workload.trace), or workload.concurrency clients in a closed loop
(each sends its next request when the last completes, as vLLM's bench --max-concurrency
does; latencies over the steady state), a vLLM-like scheduler (continuous batching with
chunked prefill under max_tokens, or static batching; paged KV blocks, admission and
preemption), on instances of tp x pp x ep chips (devices / instance size of them;
scheduler.prefill_instances > 0 disaggregates prefill and decode). Each iteration's time
comes from operator rooflines at the chip's achievable HBM bandwidth and GEMM efficiency.

Prints TTFT, TPOT and end-to-end latency (mean, p50, p90, p99), throughput, goodput
under the SLO (workload.slo), memory per chip and the simulation's statistics.

  --json        keys: latency.{ttft,tpot,e2e}.{mean,p50,p90,p99},
                throughput.{output_tokens_per_s,requests_per_s}, goodput, memory, stats,
                engine.{name,version,source,iteration_overhead,request_overhead,
                allreduce,gemm,band.{tpot,ttft}} (what the run was timed with: the
                engine preset and the measured small-M GEMM fit its GEMMs used)
  --sweep rate  the same deployment at 1/8 to 2x the request rate (latency percentiles
                and throughput per rate)
  --sweep concurrency
                closed loop: the same deployment at 1, 2, 4, ... clients up to twice
                workload.concurrency
  --trace FILE  requests from a file instead of the Poisson stream: CSV lines
                arrival_s,prompt_len,gen_len (a header and # comments allowed) or a JSON
                array of [arrival_s, prompt_len, gen_len], sorted by arrival

`ridgeline plan CFG` on a serve configuration finds the cheapest deployment meeting the SLO.
)";

namespace {

std::string ms(double s) {
  return units::seconds(s);
}

void print_result(std::ostream &os, const Config &c, const ServeResult &r) {
  // The report layer's tables (core/report/serve_report), the ones the page shows.
  const ServeReport rep = serve_report(c, r);
  os << "ridgeline serve: " << rep.title << "\n\n";
  table_of(rep.latency).print(os);
  os << "  " << rep.latency.note << "\n\n"; // the engine's band
  table_of(rep.summary).print(os);
}

// JSON output with the wall time of the work in stats.seconds (the core keeps no clock).
void print_timed_json(std::ostream &os, json j, double seconds) {
  j["stats"]["seconds"] = seconds;
  os << io::dump(j, 2) << "\n";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int run_serve(const json &cfg, bool json_out, const std::string &sweep_kind, std::ostream &os) {
  const bool sweep = !sweep_kind.empty();
  const Config c = io::parse_config(cfg);
  if (c.workload.mode != Mode::serve)
    throw ConfigError("workload.mode", "`ridgeline serve` needs mode \"serve\" (see --help)");
  const auto t0 = std::chrono::steady_clock::now();
  if (sweep) {
    if ((sweep_kind == "concurrency") != (c.workload.serve.concurrency > 0))
      throw ConfigError(sweep_kind == "concurrency" ? "workload.concurrency"
                                                    : "workload.request_rate",
                        sweep_kind == "concurrency"
                            ? "--sweep concurrency needs a closed-loop configuration (give "
                              "workload.concurrency)"
                            : "--sweep rate needs an open-loop configuration (give "
                              "workload.request_rate); use --sweep concurrency");
    const LoadSweep sweep = load_sweep(c);
    if (json_out) {
      os << io::dump(json{{"sweep", io::to_json(sweep)}}, 2) << "\n";
      return 0;
    }
    table_of(serve_sweep_table(sweep)).print(os);
    return 0;
  }
  const ServeResult r = simulate_serving(c);
  const double secs = seconds_since(t0);
  if (json_out) {
    print_timed_json(os, io::to_json(r), secs);
  } else {
    print_result(os, c, r);
    os << "(simulated in " << ms(secs) << ")\n";
  }
  return 0;
}

int run_serve_plan(const std::vector<Config> &choices, int top, bool json_out, std::ostream &os) {
  const auto t0 = std::chrono::steady_clock::now();
  ServePlanOptions o;
  o.top = top;
  const ServePlanResult r = plan_serving(choices, o);
  const double secs = seconds_since(t0);
  if (json_out) {
    print_timed_json(os, io::to_json(r), secs);
  } else {
    const Config &c = choices.front();
    const ServeSpec &s = c.workload.serve;
    os << "ridgeline plan (serving): " << c.model.name << " at "
       << (s.concurrency > 0 ? std::to_string(s.concurrency) + " concurrent clients"
                             : units::format("%g requests/s", s.request_rate))
       << (s.sessions ? " in sessions of " + std::to_string(s.sessions->turns) + " turns" : "")
       << ", " << c.workload.prompt_len << (s.sessions ? " in (mean turn) / " : " in / ")
       << c.workload.gen_len << " out, SLO TTFT " << (s.slo_ttft > 0 ? ms(s.slo_ttft) : "-")
       << ", TPOT " << (s.slo_tpot > 0 ? ms(s.slo_tpot) : "-") << " for "
       << units::percent(s.slo_attainment) << " of requests\n\n";
    table_of(deployment_table(r)).print(os);
    if (const std::string note = routing_note(r); !note.empty())
      os << "\n" << note << "\n";
    os << "\n"
       << r.candidates << " candidates, " << r.evaluated << " sized, " << r.feasible
       << " meet the SLO; rejected:";
    for (const auto &[k, v] : r.rejected)
      os << " " << k << " " << v;
    os << "; " << r.simulations << " simulations in " << ms(secs) << "\n";
  }
  if (r.deployments.empty())
    std::cerr << "workload.slo: no deployment meets the SLO (" << r.candidates << " candidates)\n";
  return r.deployments.empty() ? 2 : 0;
}

} // namespace rl::shell
