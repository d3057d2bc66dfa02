#include "core/io/serve_json.hpp"

#include "core/io/readers.hpp"
#include "core/schema/choices.hpp"

#include "core/parallel/layout.hpp"

#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/time/step_time.hpp"

#include <cmath>
#include <cstdlib>

namespace rl::io {

using json = nlohmann::json;

json to_json(const Percentiles &p) {
  return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
}

json to_json(const ServeResult &r) {
  const ServeMemory &m = r.memory;
  json j = {
      {"latency", {{"ttft", to_json(r.ttft)}, {"tpot", to_json(r.tpot)}, {"e2e", to_json(r.e2e)}}},
      {"throughput",
       {{"output_tokens_per_s", r.output_tokens_per_s},
        {"requests_per_s", r.requests_per_s},
        {"output_tokens_per_s_per_device",
         r.output_tokens_per_s / static_cast<double>(std::max<i64>(r.devices, 1))}}},
      {"goodput", r.goodput},
      {"slo_attainment", r.attainment},
      {"memory",
       {{"weights", m.weights},
        {"workspace", m.workspace},
        {"kv_cache", m.kv_cache},
        {"total", m.total},
        {"capacity", m.capacity},
        {"kv_tokens", m.kv_tokens},
        {"kv_blocks", m.kv_blocks},
        {"kv_fragmentation", m.kv_fragmentation}}},
      {"deployment",
       {{"layout", to_json(r.layout)},
        {"devices_per_instance", r.devices_per_instance},
        {"instances", r.instances},
        {"prefill_instances", r.prefill_instances},
        {"decode_instances", r.decode_instances},
        {"devices", r.devices}}},
      {"stats",
       {{"requests", r.requests},
        {"completed", r.completed},
        {"dropped", r.dropped},
        {"iterations", r.iterations},
        {"preemptions", r.preemptions},
        {"peak_kv_blocks", r.peak_kv_blocks},
        {"simulated_s", r.simulated_s},
        {"steady_s", r.steady_s},
        {"truncated", r.truncated}}},
      {"mean_batch", r.mean_batch},
      {"mean_in_system", r.mean_in_system}};
  const EngineSpec &e = r.engine;
  j["engine"] = {{"name", e.name},
                 {"version", e.version},
                 {"source", e.source},
                 {"iteration_overhead", e.iteration_overhead},
                 {"request_overhead", e.request_overhead},
                 {"allreduce", e.allreduce_bw > 0 ? json{{"latency", e.allreduce_latency},
                                                         {"bw", e.allreduce_bw},
                                                         {"max_bytes", e.allreduce_max_bytes},
                                                         {"source", e.allreduce_source}}
                                                  : json(nullptr)},
                 {"gemm", r.engine_gemm ? json{{"latency", r.engine_gemm->latency},
                                               {"bw_efficiency", r.engine_gemm->bw_efficiency},
                                               {"source", e.gemm_source}}
                                        : json(nullptr)},
                 {"moe", r.engine_moe_efficiency > 0 ? json{{"efficiency", r.engine_moe_efficiency},
                                                            {"source", e.moe_source}}
                                                     : json(nullptr)},
                 {"prefill_attention",
                  r.prefill_attention_efficiency > 0
                      ? json{{"efficiency", r.prefill_attention_efficiency},
                             {"measured", r.prefill_attention_measured},
                             {"source", r.prefill_attention_measured ? e.context_attention_source
                                                                     : std::string()}}
                      : json(nullptr)},
                 {"band", {{"tpot", e.tpot_uncertainty}, {"ttft", e.ttft_uncertainty}}}};
  if (r.prefill_instances > 0)
    j["kv_transfer"] = r.kv_transfer;
  if (r.cache.on) {
    json tiers = json::array();
    for (const ServeCache::Tier &k : r.cache.tiers)
      tiers.push_back({{"tier", k.tier},
                       {"hit_rate", k.hit_rate},
                       {"write_bw", k.write_bw},
                       {"write_share", k.write_share}});
    j["cache"] = {{"hit_rate", r.cache.hit_rate},
                  {"hit_tokens", r.cache.hit_tokens},
                  {"prompt_tokens", r.cache.prompt_tokens},
                  {"tiers", tiers}};
  }
  if (r.cost_per_hour > 0)
    j["cost"] = {{"per_hour", r.cost_per_hour}, {"per_million_tokens", r.cost_per_million_tokens}};
  if (r.committed_tokens != 1)
    j["speculative"] = {{"committed_tokens", r.committed_tokens}};
  if (r.facility_w > 0)
    j["energy"] = {{"facility_w", r.facility_w},
                   {"joules_per_token", r.joules_per_output_token},
                   {"cost_per_million_tokens", r.energy_cost_per_million_tokens}};
  return j;
}

json to_json(const ServePlanResult &r) {
  json deps = json::array();
  for (const Deployment &d : r.deployments) {
    const Layout &l = d.layout;
    const WorkloadSpec &w = d.config.workload;
    json j = {{"hardware", d.hardware},
              {"cluster", d.cluster},
              {"engine", w.serve.engine.name},
              {"weight_dtype", name_of(w.weight_dtype)},
              {"precision", name_of(w.precision)},
              {"instance",
               {{"tp", l.tp},
                {"pp", l.pp},
                {"ep", l.ep},
                {"attention_dp", l.instance_dp()},
                {"moe_tp", l.moe_tp}}},
              {"devices_per_instance", l.instance_devices()},
              {"scheduler", {{"max_batch", d.max_batch}, {"chunk", d.chunk}}},
              {"draft_tokens", d.draft_tokens},
              {"kv_offload", d.kv_offload},
              {"routing", schema::choice_name(w.serve.routing)},
              {"disaggregated", d.disaggregated},
              {"replicas", d.instances},
              {"prefill_instances", d.prefill_instances},
              {"decode_instances", d.decode_instances},
              {"devices", d.devices},
              {"cost",
               {{"per_hour", d.cost_per_hour}, {"per_million_tokens", d.cost_per_million_tokens}}},
              {"simulation", to_json(d.result)},
              {"config", to_json(d.config)}};
    deps.push_back(j);
  }
  json rej = json::object();
  for (const auto &[k, v] : r.rejected)
    rej[k] = v;
  json trials = json::array(); // the routing policies compared on the first pick
  for (const Deployment &d : r.routing_trials)
    trials.push_back({{"routing", schema::choice_name(d.config.workload.serve.routing)},
                      {"replicas", d.instances},
                      {"attainment", d.result.attainment},
                      {"stopped_at_miss", d.result.stopped_at_miss},
                      {"meets_slo", meets_slo(d.config.workload.serve, d.result)}});
  return {{"deployments", deps},
          {"routing_compared", trials},
          {"stats",
           {{"candidates", r.candidates},
            {"evaluated", r.evaluated},
            {"feasible", r.feasible},
            {"simulations", r.simulations},
            {"iterations", r.iterations},
            {"rejected", rej}}}};
}

std::vector<Config> planner_choices(const json &config) {
  const json full = expand_scenario(config);
  const Config c = parse_config(full);
  const WorkloadSpec &w = c.workload;
  const bool train = w.mode == Mode::train;
  std::vector<std::string> hardware = w.hardware_options;
  if (hardware.empty())
    hardware.push_back(""); // the configuration's own
  std::vector<i64> devices = w.device_options;
  if (devices.empty())
    devices.push_back(0); // the cluster's own
  std::vector<Config> out;
  std::vector<bool> precision_used(w.precision_options.size(), false);
  std::string first_skip; // a hardware x device count whose nodes or domains do not fit
  for (const std::string &name : hardware)
    for (const i64 n : devices) {
      json k = full;
      if (!name.empty()) {
        const auto at = name.find('@');
        k["hardware"] = name.substr(0, at);
        if (at != std::string::npos) {
          k["cluster"] = name.substr(at + 1);
          if (train) // training keeps its device count on the other machine
            k["cluster"] = {{"base", name.substr(at + 1)}, {"devices", c.cluster.devices}};
        }
      }
      if (n > 0) {
        if (!k["cluster"].is_object())
          k["cluster"] = {{"base", k["cluster"]}};
        // A count this machine's nodes or NVLink domains do not divide: this hardware skips
        // it, the others still run it (the cluster's shape, read without the count).
        json shape = k["cluster"];
        shape.erase("devices"); // the base's (or the torus's) own count, or one device
        if (!shape.contains("base") && !shape.contains("torus") && !shape.contains("mesh"))
          shape["devices"] = 1;
        if (const ClusterSizeFault f = cluster_size_fault(parse_cluster(shape, "cluster"), n);
            !f.ok()) {
          if (first_skip.empty())
            first_skip = (name.empty() ? c.hardware.name : name) + " at " + std::to_string(n) +
                         " devices: cluster." + f.key + " " + f.message;
          continue;
        }
        k["cluster"]["devices"] = n;
      }
      if (train || (w.engine_options.empty() && w.precision_options.empty())) {
        out.push_back(parse_config(k));
        continue;
      }
      // serving: each engine x precision on this hardware; FP4 where the chip has its peak
      const HardwareSpec hw = parse_config(k).hardware;
      for (std::size_t e = 0; e < std::max<std::size_t>(1, w.engine_options.size()); ++e)
        for (std::size_t p = 0; p < std::max<std::size_t>(1, w.precision_options.size()); ++p) {
          json x = k;
          if (!w.engine_options.empty())
            x["workload"]["engine"] = w.engine_options[e];
          if (!w.precision_options.empty()) {
            const Dtype d = w.precision_options[p];
            if (!has_precision_peak(hw, d))
              continue;
            x["workload"]["weight_dtype"] = name_of(d);
            if (d != Dtype::int4) // INT4 is weight-only: dequantised to the precision's GEMMs
              x["workload"]["precision"] = name_of(d);
            precision_used[p] = true;
          }
          out.push_back(parse_config(x));
        }
    }
  if (out.empty() && !first_skip.empty())
    throw ConfigError("workload.device_options",
                      "no hardware runs any of these counts (" + first_skip + ")");
  for (std::size_t p = 0; p < w.precision_options.size(); ++p)
    if (!precision_used[p])
      throw ConfigError("workload.precision_options[" + std::to_string(p) + "]",
                        std::string(name_of(w.precision_options[p])) +
                            " needs an FP4 peak (hardware.peak_flops.fp4), which none of the "
                            "hardware to plan on has (b200, b300, gb200, gb300 have one)");
  return out;
}

namespace {
// Mooncake's JSON-lines traces (kvcache-ai/Mooncake, FAST25-release/traces): a request a line,
// {"timestamp": ms, "input_length", "output_length", "hash_ids": [a chained hash per 512
// prompt tokens]}, as workload.trace rows {"t": s, "prompt", "gen", "hash_ids"}.
json mooncake_rows(const std::string &text, const std::string &name) {
  json out = json::array();
  std::size_t pos = 0;
  i64 line_no = 0;
  while (pos < text.size()) {
    const auto end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    const std::string at = name + ":" + std::to_string(line_no);
    json j;
    try {
      j = parse_json_text(line);
    } catch (const ConfigError &e) {
      throw ConfigError(at, e.message());
    }
    if (!j.is_object() || !j.contains("timestamp") || !j.contains("input_length") ||
        !j.contains("output_length") || !j["timestamp"].is_number() ||
        !j["input_length"].is_number() || !j["output_length"].is_number())
      throw ConfigError(at, "expected a Mooncake trace line {\"timestamp\": ms, "
                            "\"input_length\", \"output_length\", \"hash_ids\"}");
    json row = {{"t", j["timestamp"].get<double>() / 1000},
                {"prompt", j["input_length"]},
                {"gen", j["output_length"]}};
    if (j.contains("hash_ids"))
      row["hash_ids"] = j["hash_ids"];
    out.push_back(row);
    if (out.size() > 1'000'000)
      throw ConfigError(at, "over the limit of 1,000,000 requests");
  }
  return out;
}
} // namespace

json trace_from_text(const std::string &text, const std::string &name) {
  using readers_detail::parse_number;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{')
    return mooncake_rows(text, name);
  if (first != std::string::npos && text[first] == '[') {
    try {
      return parse_json_text(text);
    } catch (const ConfigError &e) {
      throw ConfigError(name, (e.path().empty() ? "" : e.path() + ": ") + e.message());
    }
  }
  json out = json::array();
  std::size_t pos = 0;
  i64 line_no = 0;
  while (pos <= text.size()) {
    const auto end = std::min(text.find('\n', pos), text.size());
    std::string_view line = std::string_view(text).substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::string at = readers_detail::where(name, line_no);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    const auto s0 = line.find_first_not_of(" \t");
    if (s0 == std::string::npos || line[s0] == '#')
      continue;
    // three cells, each a plain decimal number (no hex, inf or nan)
    std::vector<std::string_view> cells;
    for (std::size_t start = 0;;) {
      const auto comma = line.find(',', start);
      cells.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
      if (comma == std::string_view::npos)
        break;
      start = comma + 1;
    }
    double v[3];
    bool ok = cells.size() == 3;
    for (std::size_t k = 0; ok && k < 3; ++k)
      ok = parse_number(cells[k], v[k]);
    if (!ok) {
      double ignored = 0;
      if (out.empty() && line_no == 1 && !parse_number(cells[0], ignored))
        continue; // a header line
      throw ConfigError(
          at, "expected arrival_s,prompt_len,gen_len (three decimal numbers), got " +
                  readers_detail::quote_text(line) +
                  (cells.size() > 3 ? " (" + std::to_string(cells.size()) + " columns)" : ""));
    }
    out.push_back({v[0], v[1], v[2]});
    if (out.size() > 1'000'000)
      throw ConfigError(at, "over the limit of 1,000,000 requests");
  }
  return out;
}

json with_trace(const json &config, const json &trace) {
  json c = expand_scenario(config);
  if (!c.contains("workload") || !c.at("workload").is_object())
    throw ConfigError("workload", "is required");
  json &w = c["workload"];
  for (const char *k :
       {"request_rate", "requests", "prompt_len", "gen_len", "length_dist", "range_ratio", "seed"})
    w.erase(k);
  w["trace"] = trace;
  return c;
}

json to_json(const LoadSweep &sweep) {
  json rows = json::array();
  for (const LoadPoint &p : sweep.points)
    rows.push_back({{sweep.closed ? "concurrency" : "request_rate", p.load},
                    {"ttft", to_json(p.ttft)},
                    {"tpot", to_json(p.tpot)},
                    {"e2e", to_json(p.e2e)},
                    {"output_tokens_per_s", p.output_tokens_per_s},
                    {"goodput", p.goodput},
                    {"slo_attainment", p.attainment}});
  return rows;
}

} // namespace rl::io
