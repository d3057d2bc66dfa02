#include "shell/serve_command.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/units.hpp"
#include "core/serve/serve_planner.hpp"
#include "shell/table.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>

namespace rl::shell {

using json = nlohmann::json;

const char *kServeHelp = R"(usage: ridgeline serve CFG [--json] [--sweep rate] [--trace FILE]

Simulates serving request by request (workload.mode "serve"): Poisson arrivals at
workload.request_rate (or workload.trace), a vLLM-like scheduler (continuous batching with
chunked prefill under max_tokens, or static batching; paged KV blocks, admission and
preemption), on instances of tp x pp x ep chips (devices / instance size of them;
scheduler.prefill_instances > 0 disaggregates prefill and decode). Each iteration's time
comes from operator rooflines at the chip's achievable HBM bandwidth and GEMM efficiency.

Prints TTFT, TPOT and end-to-end latency (mean, p50, p90, p99), throughput, goodput
under the SLO (workload.slo), memory per chip and the simulation's statistics.

  --json        keys: latency.{ttft,tpot,e2e}.{mean,p50,p90,p99},
                throughput.{output_tokens_per_s,requests_per_s}, goodput, memory, stats
  --sweep rate  the same deployment at 1/8 to 2x the request rate (latency percentiles
                and throughput per rate)
  --trace FILE  requests from a file instead of the Poisson stream: CSV lines
                arrival_s,prompt_len,gen_len (a header and # comments allowed) or a JSON
                array of [arrival_s, prompt_len, gen_len], sorted by arrival

`ridgeline plan CFG` on a serve configuration finds the cheapest deployment meeting the SLO.
)";

namespace {

std::string ms(double s) {
  return units::seconds(s);
}

std::string num(double x, const char *fmt = "%.1f") {
  return units::format(fmt, x);
}

void print_result(std::ostream &os, const Config &c, const ServeResult &r) {
  const Layout &l = r.layout;
  os << "ridgeline serve: " << c.model.name << " on " << r.devices << " x " << c.hardware.name
     << ": " << r.instances << " instance(s) of tp " << l.tp << " x pp " << l.pp << " x ep "
     << l.ep;
  if (r.prefill_instances > 0)
    os << " (" << r.prefill_instances << " prefill, " << r.decode_instances << " decode)";
  os << "\n\n";
  Table t{{"latency", "mean", "p50", "p90", "p99"}, {}};
  auto row = [&](const char *n, const Percentiles &p) {
    t.rows.push_back({n, ms(p.mean), ms(p.p50), ms(p.p90), ms(p.p99)});
  };
  row("TTFT", r.ttft);
  row("TPOT (inter-token)", r.tpot);
  row("end to end", r.e2e);
  t.print(os);
  os << "\nthroughput      " << num(r.output_tokens_per_s) << " output tokens/s ("
     << num(r.output_tokens_per_s / static_cast<double>(r.devices), "%.2f") << " per chip), "
     << num(r.requests_per_s, "%.3f") << " requests/s\n";
  const ServeSpec &s = c.workload.serve;
  os << "goodput         " << num(r.goodput, "%.3f") << " requests/s within the SLO (TTFT "
     << (s.slo_ttft > 0 ? ms(s.slo_ttft) : "-") << ", TPOT "
     << (s.slo_tpot > 0 ? ms(s.slo_tpot) : "-") << "): " << units::percent(r.attainment)
     << " of requests\n";
  os << "memory per chip " << units::bytes(r.memory.weights) << " weights + "
     << units::bytes(r.memory.workspace) << " workspace + " << units::bytes(r.memory.kv_cache)
     << " KV (" << r.memory.kv_blocks << " blocks of " << s.block_size << " tokens per instance; "
     << num(100 * r.memory.kv_fragmentation, "%.1f") << "% of allocated slots empty) of "
     << units::bytes(r.memory.capacity) << " x " << s.memory_fraction << "\n";
  os << "batch           " << num(r.mean_batch) << " decoding sequences per iteration (mean); "
     << num(r.mean_in_system) << " requests in the system (time average)\n";
  if (r.prefill_instances > 0)
    os << "KV transfer     " << ms(r.kv_transfer) << " per request (mean)\n";
  if (r.cost_per_hour > 0)
    os << "cost            $" << num(r.cost_per_hour, "%.2f") << " per hour, $"
       << num(r.cost_per_million_tokens, "%.3f") << " per million output tokens\n";
  os << "simulated       " << r.completed << " of " << r.requests << " requests";
  if (r.dropped > 0)
    os << " (" << r.dropped << " dropped: longer than the whole KV cache)";
  os << ", " << r.iterations << " iterations, " << r.preemptions << " preemptions, "
     << ms(r.simulated_s) << " of serving";
  if (r.truncated)
    os << " (cut short: the iteration budget ran out)";
  os << "\n";
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

int run_serve(const json &cfg, bool json_out, bool sweep, std::ostream &os) {
  const Config c = io::parse_config(cfg);
  if (c.workload.mode != Mode::serve)
    throw ConfigError("workload.mode", "`ridgeline serve` needs mode \"serve\" (see --help)");
  const auto t0 = std::chrono::steady_clock::now();
  if (sweep) {
    const json rows = io::serve_rate_sweep(c, io::serve_sweep_rates(c.workload.serve.request_rate));
    if (json_out) {
      os << io::dump(json{{"sweep", rows}}, 2) << "\n";
      return 0;
    }
    Table t{{"rate (req/s)", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "e2e p99", "tokens/s",
             "SLO met"},
            {}};
    for (const json &r : rows)
      t.rows.push_back({num(r["request_rate"].get<double>(), "%.3f"),
                        ms(r["ttft"]["p50"].get<double>()), ms(r["ttft"]["p99"].get<double>()),
                        ms(r["tpot"]["p50"].get<double>()), ms(r["tpot"]["p99"].get<double>()),
                        ms(r["e2e"]["p99"].get<double>()),
                        num(r["output_tokens_per_s"].get<double>()),
                        units::percent(r["slo_attainment"].get<double>())});
    t.print(os);
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

int run_serve_plan(const json &cfg, int top, bool json_out, std::ostream &os) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Config> choices = io::planner_choices(cfg);
  ServePlanOptions o;
  o.top = top;
  const ServePlanResult r = plan_serving(choices, o);
  const double secs = seconds_since(t0);
  if (json_out) {
    print_timed_json(os, io::to_json(r), secs);
  } else {
    const Config &c = choices.front();
    const ServeSpec &s = c.workload.serve;
    os << "ridgeline plan (serving): " << c.model.name << " at " << s.request_rate
       << " requests/s, " << c.workload.prompt_len << " in / " << c.workload.gen_len
       << " out, SLO TTFT " << (s.slo_ttft > 0 ? ms(s.slo_ttft) : "-") << ", TPOT "
       << (s.slo_tpot > 0 ? ms(s.slo_tpot) : "-") << " for " << units::percent(s.slo_attainment)
       << " of requests\n\n";
    Table t{{"#", "hardware", "instance", "batch", "chunk", "split", "devices", "$/h", "$/M tokens",
             "TTFT p90", "TPOT p90", "SLO met", "tokens/s"},
            {}};
    int i = 0;
    for (const Deployment &d : r.deployments) {
      const Layout &l = d.layout;
      t.rows.push_back({std::to_string(++i), d.hardware,
                        "tp" + std::to_string(l.tp) + " pp" + std::to_string(l.pp) +
                            (l.ep > 1 ? " ep" + std::to_string(l.ep) : ""),
                        std::to_string(d.max_batch), std::to_string(d.chunk),
                        d.disaggregated ? std::to_string(d.prefill_instances) + "P + " +
                                              std::to_string(d.decode_instances) + "D"
                                        : std::to_string(d.instances) + " replicas",
                        std::to_string(d.devices),
                        d.cost_per_hour > 0 ? num(d.cost_per_hour, "%.2f") : "-",
                        d.cost_per_hour > 0 ? num(d.cost_per_million_tokens, "%.3f") : "-",
                        ms(d.result.ttft.p90), ms(d.result.tpot.p90),
                        units::percent(d.result.attainment), num(d.result.output_tokens_per_s)});
    }
    t.print(os);
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
