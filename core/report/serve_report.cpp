#include "core/report/serve_report.hpp"

#include "core/io/units.hpp"
#include "core/report/cells.hpp"
#include "core/schema/choices.hpp"
#include "core/serve/requests.hpp"

#include <algorithm>

namespace rl {

namespace {

using namespace cells;

// A latency, marked when it misses its target (target 0: none).
ReportCell latency(double v, double target) {
  ReportCell c = cell(v, Unit::seconds);
  if (target > 0 && v > target)
    c.mark = Mark::warn;
  return c;
}
std::string slo_text(double target) {
  return target > 0 ? units::seconds(target) : std::string("-");
}
// "tp8 pp1 ep2": one instance of a deployment.
std::string instance_label(const Layout &l) {
  std::string s = "tp" + str(l.tp);
  s += " pp" + str(l.pp);
  if (l.ep_in_instance && l.attention_dp > 1)
    s += " adp" + str(l.attention_dp);
  if (l.ep > 1)
    s += " ep" + str(l.ep);
  if (l.ep_in_instance)
    s += " moe_tp" + str(l.moe_tp);
  return s;
}

// The weight dtype, and the GEMMs' precision when it differs (weight-only: "int4/bf16").
std::string weights_label(const WorkloadSpec &w) {
  std::string s = schema::choice_name(w.weight_dtype);
  if (w.precision != w.weight_dtype)
    s += std::string("/") + schema::choice_name(w.precision);
  return s;
}

// The engine's measured small-M GEMM kernels the run used ("" when none).
std::string gemm_text(const std::optional<EngineSpec::SmallGemm> &g, const WorkloadSpec &w) {
  if (!g)
    return "";
  return "; measured " + std::string(schema::choice_name(w.precision)) + " GEMMs " +
         units::seconds(g->latency) + " per call, weights at " +
         units::format("%.0f%%", 100 * g->bw_efficiency) + " of HBM";
}

// "hbm 53.5%, host 40.5%": the prompt tokens found in each tier.
std::string tier_hits(const ServeCache &c) {
  std::string s;
  for (const ServeCache::Tier &k : c.tiers)
    s += (s.empty() ? "" : ", ") + k.tier + " " + units::percent(k.hit_rate);
  return s;
}

// The routing policy; unset, a session or a client stays on one replica ("sticky") and other
// requests go at random.
std::string routing_label(const ServeSpec &s) {
  if (s.routing != Routing::none)
    return schema::choice_name(s.routing);
  return pins_streams(s) ? "sticky" : "random";
}

} // namespace

std::string engine_label(const EngineSpec &e) {
  return e.version.empty() ? e.name : e.name + "@" + e.version;
}

namespace {
// A relative band as read: "+/-18%", or "up to 14x" once it passes 100%.
std::string band(double u) {
  return u < 1 ? units::format("+/-%.0f%%", 100 * u) : units::format("up to %.0fx", 1 + u);
}
} // namespace

std::string engine_band_text(const EngineSpec &e) {
  if (e.name == "none")
    return "No engine preset (workload.engine): device time only, not calibrated; band TPOT " +
           band(e.tpot_uncertainty) + ", TTFT " + band(e.ttft_uncertainty) + ".";
  return "Band (" + engine_label(e) + "): measured TPOT " + band(e.tpot_uncertainty) + ", TTFT " +
         band(e.ttft_uncertainty) + " of these on its calibration runs (docs/serving.md).";
}

ServeReport serve_report(const Config &c, const ServeResult &r) {
  const Layout &l = r.layout;
  const ServeSpec &s = c.workload.serve;
  ServeReport out;
  out.title = c.model.name + " on " + str(r.devices) + " x " + c.hardware.name + ": " +
              str(r.instances) + " instance(s) of tp " + str(l.tp);
  out.title += " x pp " + str(l.pp);
  if (l.ep_in_instance && l.attention_dp > 1)
    out.title += " x attention_dp " + str(l.attention_dp);
  out.title += " x ep " + str(l.ep);
  if (l.ep_in_instance)
    out.title += " (moe_tp " + str(l.moe_tp) + ")";
  if (r.prefill_instances > 0) {
    out.title += " (" + str(r.prefill_instances) + " prefill, ";
    out.title += str(r.decode_instances) + " decode)";
  }

  ReportTable &t = out.latency;
  t.key = "serve_latency";
  t.title = "Latency (*: above the SLO target)";
  t.help = "Per request, over the simulated requests: time to first token, mean inter-token "
           "time after it, and arrival to last token. TTFT includes the queueing.";
  t.columns = {{"latency", "latency"},
               {"mean", "mean", Unit::seconds, Better::lower},
               {"p50", "p50", Unit::seconds, Better::lower},
               {"p90", "p90", Unit::seconds, Better::lower},
               {"p99", "p99", Unit::seconds, Better::lower}};
  const auto row = [&](const char *key, const char *name, const Percentiles &p, double target) {
    t.rows.push_back({key,
                      "",
                      Mark::none,
                      {words(name), latency(p.mean, target), latency(p.p50, target),
                       latency(p.p90, target), latency(p.p99, target)}});
  };
  row("ttft", "TTFT", r.ttft, s.slo_ttft);
  row("tpot", "TPOT (inter-token)", r.tpot, s.slo_tpot);
  row("e2e", "end to end", r.e2e, 0);
  t.note = engine_band_text(s.engine);
  if (r.cache.on) { // the hits that set these latencies, beside them
    t.note += " Prefix cache: " + units::percent(r.cache.hit_rate) +
              " of prompt tokens found cached (" + tier_hits(r.cache) + ").";
  }
  // A closed loop of fixed lengths is deterministic: every request meets the same engine state
  // (clients staggered over a cycle), so its percentiles coincide; said, not left to puzzle.
  if (s.concurrency > 0 && s.length_dist == LengthDist::fixed && s.trace.empty() &&
      r.ttft.p99 - r.ttft.p50 <= 1e-3 * r.ttft.p50)
    t.note += " Fixed lengths in a closed loop: every request meets the same engine state, so "
              "p50, p90 and p99 coincide; a measured run's spread comes from its length and "
              "arrival jitter (workload.length_dist uniform or exponential models it).";

  ReportTable &m = out.summary;
  m.key = "serve_summary";
  m.title = "Throughput, memory and the simulation";
  m.columns = {{"quantity", "quantity"}, {"value", "value"}, {"detail", "detail", {}, {}, true}};
  const auto add = [&](const char *key, const char *name, ReportCell v, std::string detail,
                       std::string help = "") {
    m.rows.push_back(
        {key, std::move(help), Mark::none, {words(name), std::move(v), words(detail)}});
  };
  std::string thr =
      units::format("%.2f per chip, ", r.output_tokens_per_s / d(std::max<i64>(r.devices, 1)));
  thr += units::format("%.3f requests/s", r.requests_per_s);
  add("throughput", "output tokens/s", cell(r.output_tokens_per_s, Unit::count), thr,
      "Completed output tokens over the makespan (first arrival to last completion).");
  std::string good = "within TTFT " + slo_text(s.slo_ttft);
  good += ", TPOT " + slo_text(s.slo_tpot);
  good += ": " + units::percent(r.attainment) + " of requests";
  add("goodput", "goodput (requests/s)", num(r.goodput, "%.3f"), good,
      "A request meets the SLO when its TTFT and its mean inter-token time are both within the "
      "targets (workload.slo); goodput counts those per second (DistServe, Zhong et al. 2024).");
  const ServeMemory &mem = r.memory;
  add("weights", "weights per chip", cell(mem.weights, Unit::bytes), "",
      "The instance's parameters / (tp x pp), experts / ep, at weight_dtype bytes.");
  add("workspace", "workspace per chip", cell(mem.workspace, Unit::bytes),
      "one max_tokens iteration",
      "The activations of one iteration of scheduler.max_tokens through one layer.");
  std::string kv = str(mem.kv_blocks) + " blocks of " + str(s.block_size);
  kv += " tokens per instance; ";
  kv += units::format("%.1f%% of allocated slots empty", 100 * mem.kv_fragmentation);
  add("kv_cache", "KV blocks per chip", cell(mem.kv_cache, Unit::bytes), kv,
      "What the engine's memory rule leaves after the weights and the workspace (" +
          kv_memory_rule_text(s.engine.kv_memory, s.memory_fraction) +
          "), in paged blocks (vLLM's PagedAttention, Kwon et al. 2023).");
  add("capacity", "memory per chip", cell(mem.capacity, Unit::bytes),
      kv_memory_rule_text(s.engine.kv_memory, s.memory_fraction));
  add("engine", "engine", words(engine_label(s.engine)),
      s.engine.name == "none"
          ? std::string("no engine costs: device time only")
          : units::seconds(s.engine.iteration_overhead) + " host time per iteration" +
                (s.engine.request_overhead > 0
                     ? ", " + units::seconds(s.engine.request_overhead) + " per request"
                     : std::string()) +
                (s.engine.allreduce_bw > 0
                     ? "; own all-reduce up to " + units::bytes(s.engine.allreduce_max_bytes)
                     : std::string()) +
                gemm_text(r.engine_gemm, c.workload),
      s.engine.source.empty()
          ? std::string("workload.engine: an engine preset (vllm, sglang, trtllm; name@version) "
                        "adds its fitted per-iteration host time and carries its bands.")
          : s.engine.source);
  if (c.model.moe && s.engine.name != "none") {
    const double e = r.engine_moe_efficiency;
    add("moe_efficiency", "MoE experts",
        e > 0 ? ReportCell{units::format("%.1f%% of peak", 100 * e), e} : words("as dense GEMMs"),
        e > 0 ? "measured MoE kernels of " + engine_label(s.engine) + " on " + c.hardware.name
              : "no measured MoE kernels for this chip and dtype: the dense GEMM efficiency",
        e > 0
            ? s.engine.moe_source
            : std::string("workload.engine.moe: the routed experts' share of peak where "
                          "compute-bound, per chip and dtype (docs/serving.md \"MoE experts\")."));
  }
  if (const double e = r.prefill_attention_efficiency; e > 0)
    add("prefill_attention", "prompt attention",
        ReportCell{units::format("%.1f%% of bf16 peak", 100 * e), e},
        r.prefill_attention_measured
            ? "measured context kernel of " + engine_label(s.engine) + " on " + c.hardware.name
            : "no measured context kernel here: the chip's FlashAttention share "
              "(hardware.attention_efficiency)",
        r.prefill_attention_measured
            ? s.engine.context_attention_source
            : std::string("workload.engine.context_attention: the engine's prefill attention "
                          "kernels' share of the bf16 peak, per chip (docs/serving.md \"Prefill "
                          "attention\")."));
  add("batch", "decoding per iteration (mean)", num(r.mean_batch, "%.1f"),
      units::format("%.1f requests in the system (time average)", r.mean_in_system),
      "Sequences decoding in one engine iteration, and Little's L: the requests queued or "
      "running, averaged over time.");
  if (r.cache.on) {
    add("cache", "prefix cache hit rate", {units::percent(r.cache.hit_rate), r.cache.hit_rate},
        units::format("%.4g of ", r.cache.hit_tokens) +
            units::format("%.4g prompt tokens found cached; by tier: ", r.cache.prompt_tokens) +
            tier_hits(r.cache),
        "Prompt tokens found in the prefix cache at admission (each request's first), so not "
        "prefilled: in HBM (vLLM automatic prefix caching, SGLang RadixAttention), or brought "
        "back from host memory or disk (workload.scheduler.kv_offload) when that is sooner than "
        "computing them.");
    for (const ServeCache::Tier &k : r.cache.tiers)
      if (k.tier != "hbm")
        add(k.tier == "host" ? "writes_host" : "writes_disk",
            k.tier == "host" ? "KV writes to host memory" : "KV writes to disk",
            {units::format("%.3g GB/s", k.write_bw / 1e9), k.write_bw},
            units::percent(k.write_share) + " of its link per GPU, mean over the run",
            "The KV blocks HBM evicted to this tier (host memory's to disk), per GPU over the "
            "simulated time. The writes are taken to overlap the engine's work (vLLM's "
            "offloading connector and SGLang's HiCache copy on their own streams, and PCIe "
            "carries them the other way from the loads); near 100% they would not.");
  }
  if (r.prefill_instances > 0)
    add("kv_transfer", "KV transfer per request", cell(r.kv_transfer, Unit::seconds), "mean",
        "Disaggregated: the prompt's KV cache sent from the prefill to the decode instance.");
  if (r.cost_per_hour > 0) {
    add("cost_per_hour", "$ per hour", num(r.cost_per_hour, "$%.2f"), "");
    add("cost_per_million", "$ per million output tokens", num(r.cost_per_million_tokens, "$%.3f"),
        "");
  }
  if (r.committed_tokens != 1)
    add("speculative", "tokens kept per iteration", num(r.committed_tokens, "%.2f"),
        "a decoding sequence, of 1 + draft tokens verified",
        "Speculative decoding (workload.speculative): 1 + sum over the draft positions of the "
        "product of their acceptance rates (Leviathan et al. 2023); each iteration also runs "
        "the draft's k steps.");
  if (r.facility_w > 0)
    add("energy", "J per output token", num(r.joules_per_output_token, "%.3g"),
        units::format("%.1f kW at the meter", r.facility_w / 1e3) +
            units::format(", $%.3f of electricity per million tokens",
                          r.energy_cost_per_million_tokens),
        "Energy (docs/formulas.md): each GPU's board power and host share at "
        "hardware.load_power_fraction (or the power cap), times the facility's PUE, over the "
        "steady-state output tokens/s.");
  std::string sim = str(r.iterations) + " iterations, " + str(r.preemptions);
  sim += " preemptions, ";
  sim += units::seconds(r.simulated_s);
  sim += " of serving";
  if (r.steady_s > 0)
    sim += "; throughput over the " + units::seconds(r.steady_s) +
           " of steady state (ramp-up and drain left out)";
  if (r.dropped > 0)
    sim += "; " + str(r.dropped) + " dropped (longer than the whole KV cache)";
  if (r.truncated)
    sim += " (cut short: the iteration budget ran out)";
  if (r.warmup_excluded > 0)
    sim += "; latencies over the steady state (the first and last " + str(r.warmup_excluded) +
           " requests left out)";
  if (r.warmup_counted > 0)
    sim += "; latencies over every request, the opening burst of " + str(r.warmup_counted) +
           " among them";
  add("simulated", "requests completed",
      {str(r.completed) + " of " + str(r.requests), d(r.completed)}, sim,
      r.warmup_excluded > 0
          ? "Closed loop (workload.concurrency): every client's first request starts together "
            "and the last ones run as the load drains, so the latency statistics leave them out."
      : r.warmup_counted > 0
          ? "Closed loop with count_warmup: the opening burst (every client's first request at "
            "once, on an empty engine) is simulated on its own and counted with the steady "
            "state standing for the other requests, as a benchmark without warm-up reports."
          : "");
  return out;
}

ReportTable serve_sweep_table(const LoadSweep &sweep) {
  ReportTable t;
  t.key = "sweep";
  const bool closed = sweep.closed;
  t.title =
      closed ? "Latency against the clients (closed loop)" : "Latency against the request rate";
  t.columns = {{"rate", closed ? "clients" : "requests/s"},
               {"ttft_p50", "TTFT p50", Unit::seconds, Better::lower},
               {"ttft_p90", "TTFT p90", Unit::seconds, Better::lower},
               {"ttft_p99", "TTFT p99", Unit::seconds, Better::lower},
               {"tpot_p50", "TPOT p50", Unit::seconds, Better::lower},
               {"tpot_p90", "TPOT p90", Unit::seconds, Better::lower},
               {"tpot_p99", "TPOT p99", Unit::seconds, Better::lower},
               {"e2e_p99", "e2e p99", Unit::seconds, Better::lower},
               {"tokens", "tokens/s", Unit::count, Better::higher},
               {"slo", "SLO met", Unit::percent, Better::higher}};
  for (const LoadPoint &p : sweep.points) {
    const auto q = [](double v) { return cell(v, Unit::seconds); };
    t.rows.push_back(
        {"",
         "",
         Mark::none,
         {num(p.load, "%.3g"), q(p.ttft.p50), q(p.ttft.p90), q(p.ttft.p99), q(p.tpot.p50),
          q(p.tpot.p90), q(p.tpot.p99), q(p.e2e.p99), cell(p.output_tokens_per_s, Unit::count),
          cell(p.attainment, Unit::percent)}});
  }
  return t;
}

ReportTable deployment_table(const ServePlanResult &r) {
  ReportTable t;
  t.key = "deployments";
  t.title = "Deployments meeting the SLO, cheapest first";
  t.columns = {{"rank", "#"},
               {"hardware", "hardware", {}, {}, true},
               {"engine", "engine", {}, {}, true},
               {"weights", "weights", {}, {}, true},
               {"instance", "instance", {}, {}, true},
               {"batch", "batch"},
               {"chunk", "chunk"},
               {"split", "split", {}, {}, true},
               {"devices", "devices", Unit::count, Better::lower},
               {"cost_per_hour", "$/h", Unit::dollars, Better::lower},
               {"cost_per_million", "$/M tokens", Unit::dollars, Better::lower},
               {"ttft_p90", "TTFT p90", Unit::seconds, Better::lower},
               {"tpot_p90", "TPOT p90", Unit::seconds, Better::lower},
               {"slo", "SLO met", Unit::percent, Better::higher},
               {"tokens", "tokens/s", Unit::count, Better::higher}};
  if (r.speculative) // speculative decoding's draft tokens, after the chunk
    t.columns.insert(t.columns.begin() + 7, {"draft", "draft k"});
  if (r.kv_tiers) // the KV tiers, before the split
    t.columns.insert(t.columns.end() - 8, {"kv_tiers", "KV tiers", {}, {}, true});
  if (r.routing) // the routing policy, after the split
    t.columns.insert(t.columns.end() - 7, {"routing", "routing", {}, {}, true});
  if (r.prefix_reuse)
    t.columns.push_back({"hit_rate", "cache hits", Unit::percent, Better::higher});
  i64 i = 0;
  for (const Deployment &x : r.deployments) {
    ++i;
    std::string split = x.disaggregated ? str(x.prefill_instances) + "P + " : "";
    split += x.disaggregated ? str(x.decode_instances) + "D"
                             : str(x.instances) + (x.instances == 1 ? " replica" : " replicas");
    const bool priced = x.cost_per_hour > 0;
    t.rows.push_back({"",
                      "",
                      Mark::none,
                      {{str(i), d(i)},
                       words(x.hardware),
                       words(x.config.workload.serve.engine.name),
                       words(weights_label(x.config.workload)),
                       words(instance_label(x.layout)),
                       {str(x.max_batch), d(x.max_batch)},
                       {str(x.chunk), d(x.chunk)},
                       words(split),
                       {str(x.devices), d(x.devices)},
                       priced ? num(x.cost_per_hour, "%.2f") : words("-"),
                       priced ? num(x.cost_per_million_tokens, "%.3f") : words("-"),
                       cell(x.result.ttft.p90, Unit::seconds),
                       cell(x.result.tpot.p90, Unit::seconds),
                       cell(x.result.attainment, Unit::percent),
                       num(x.result.output_tokens_per_s, "%.1f")}});
    auto &cells = t.rows.back().cells;
    if (r.speculative)
      cells.insert(cells.begin() + 7, x.draft_tokens > 0
                                          ? ReportCell{str(x.draft_tokens), d(x.draft_tokens)}
                                          : ReportCell{"off", 0});
    const ServeSpec &sv = x.config.workload.serve;
    if (r.kv_tiers) { // the host tier with its size per GPU (the planner halves it)
      std::string tiers = "hbm";
      for (const ServeCache::Tier &k : x.result.cache.tiers)
        if (k.tier != "hbm")
          tiers += "+" + k.tier;
      if (sv.kv_offload && sv.kv_offload->host_bytes > 0)
        tiers += " " + units::format("%.3g GB", sv.kv_offload->host_bytes / 1e9);
      cells.insert(cells.end() - 8,
                   ReportCell{tiers, sv.kv_offload ? sv.kv_offload->host_bytes : 0.0});
    }
    if (r.routing) // one replica: nothing to route
      cells.insert(cells.end() - 7,
                   words(x.instances > 1 && !x.disaggregated ? routing_label(sv) : "-"));
    if (r.prefix_reuse)
      cells.push_back(cell(x.result.cache.hit_rate, Unit::percent));
  }
  return t;
}

std::string routing_note(const ServePlanResult &r) {
  if (r.routing_trials.empty())
    return "";
  const Deployment &d = r.routing_trials.front();
  std::string s = "Routing compared on " + str(d.instances) + " replicas of " +
                  instance_label(d.layout) + " (batch " + str(d.max_batch) + ", chunk " +
                  str(d.chunk) + (d.kv_offload ? ", hbm+host" : "") + "), requests within the SLO:";
  for (std::size_t i = 0; i < r.routing_trials.size(); ++i) {
    const Deployment &x = r.routing_trials[i];
    // a probe stopped at a sure miss counted only what had completed
    s += std::string(i ? ", " : " ") + routing_label(x.config.workload.serve) + " " +
         (x.result.stopped_at_miss
              ? "under " + units::percent(x.config.workload.serve.slo_attainment)
              : units::percent(x.result.attainment));
    if (x.instances != d.instances)
      s += " on " + str(x.instances) + " replicas";
    if (meets_slo(x.config.workload.serve, x.result))
      s += " (meets it)";
  }
  return s + ".";
}

} // namespace rl
