#include "core/io/serving_groups_json.hpp"

#include "core/error.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/readers.hpp"

#include <algorithm>

namespace rl::io {

using json = nlohmann::json;

namespace {

const std::string &string_field(const json &o, const char *key, const std::string &at) {
  if (!o.contains(key))
    throw ConfigError(at + "." + key, "is missing");
  const json &v = o.at(key);
  if (!v.is_string() || v.get_ref<const std::string &>().empty())
    throw ConfigError(at + "." + key, "expected a non-empty string");
  return v.get_ref<const std::string &>();
}

// The sample's value of a `where` field.
const std::string &sample_field(const ServingSample &s, const std::string &key) {
  return key == "model" ? s.model : key == "engine" ? s.engine : s.hardware;
}

} // namespace

std::vector<ServingGroup>
serving_groups(const json &manifest,
               const std::function<std::string(const std::string &, const std::string &)> &read) {
  if (!manifest.is_object() || !manifest.contains("groups"))
    throw ConfigError("groups", "expected {\"groups\": [{\"name\", \"runs\", \"base\"}, ...]}");
  for (const auto &[k, v] : manifest.items())
    if (k != "groups")
      throw ConfigError(k, "unknown field (the manifest has \"groups\")");
  const json &list = manifest.at("groups");
  if (!list.is_array() || list.empty())
    throw ConfigError("groups", "expected a non-empty list of groups");
  if (list.size() > kMaxServingGroups)
    throw ConfigError("groups", std::to_string(list.size()) + " groups; the limit is " +
                                    std::to_string(kMaxServingGroups));
  std::vector<ServingGroup> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = "groups[" + std::to_string(i) + "]";
    const json &g = list[i];
    if (!g.is_object())
      throw ConfigError(at, "expected an object {\"name\", \"runs\", \"base\", \"where\"}");
    for (const auto &[k, v] : g.items())
      if (k != "name" && k != "runs" && k != "base" && k != "where")
        throw ConfigError(at + "." + k, "unknown field (name, runs, base, where)");
    ServingGroup sg;
    sg.name = string_field(g, "name", at);
    for (const ServingGroup &o : out)
      if (o.name == sg.name)
        throw ConfigError(at + ".name", "\"" + sg.name + "\" names two groups");
    const std::string &runs = string_field(g, "runs", at);
    const std::string &base = string_field(g, "base", at);
    sg.base = parse_config(parse_json_text(read(base, at + ".base")));
    if (sg.base.workload.mode != Mode::serve)
      throw ConfigError(at + ".base", "is not a serving configuration (workload.mode \"serve\")");
    Measurements m = read_measurements(read(runs, at + ".runs"), runs);
    if (!m.training.empty() || !m.components.empty() || !m.kernels.empty() || !m.layers.empty() ||
        m.serving.empty())
      throw ConfigError(at + ".runs", "\"" + runs + "\" holds no serving runs");
    std::vector<std::pair<std::string, std::string>> where;
    if (g.contains("where")) {
      const json &w = g.at("where");
      if (!w.is_object())
        throw ConfigError(at + ".where", "expected an object of model, engine, hardware");
      for (const auto &[k, v] : w.items()) {
        if (k != "model" && k != "engine" && k != "hardware")
          throw ConfigError(at + ".where." + k, "unknown field (model, engine, hardware)");
        if (!v.is_string())
          throw ConfigError(at + ".where." + k, "expected a string");
        where.emplace_back(k, v.get<std::string>());
      }
    }
    for (ServingSample &s : m.serving) {
      const bool keep = std::all_of(where.begin(), where.end(), [&](const auto &kv) {
        return sample_field(s, kv.first) == kv.second;
      });
      if (keep) {
        s.file = runs;
        sg.samples.push_back(std::move(s));
      }
    }
    if (sg.samples.empty())
      throw ConfigError(at + ".where", "keeps none of the " + std::to_string(m.serving.size()) +
                                           " runs of \"" + runs + "\"");
    out.push_back(std::move(sg));
  }
  return out;
}

namespace {

json group_json(const GroupErrors &g) {
  return {{"name", g.name},
          {"engine", g.engine},
          {"iteration_overhead", g.iteration_overhead},
          {"request_overhead", g.request_overhead},
          {"fitted_to", g.fitted_to},
          {"runs", g.tpot.size()},
          {"tpot",
           {{"median_abs_error", median_abs_error(g.tpot)},
            {"median_error", median_error(g.tpot)},
            {"errors", g.tpot}}},
          {"ttft",
           {{"median_abs_error", median_abs_error(g.ttft)},
            {"median_error", median_error(g.ttft)},
            {"errors", g.ttft}}}};
}

} // namespace

json to_json(const ServingGroupsReport &r) {
  json out;
  for (const bool held : {false, true}) {
    json groups = json::array();
    for (const GroupErrors &g : held ? r.held_out : r.in_sample)
      groups.push_back(group_json(g));
    out[held ? "held_out" : "in_sample"] = {
        {"groups", groups},
        {"tpot_median_abs_error", median_abs_error(r.all_tpot(held))},
        {"ttft_median_abs_error", median_abs_error(r.all_ttft(held))}};
  }
  json engines = json::array();
  for (const EngineGroupFit &e : r.engines)
    engines.push_back({{"name", e.engine},
                       {"iteration_overhead", e.iteration_overhead},
                       {"request_overhead", e.request_overhead},
                       {"tpot_uncertainty", e.tpot_band},
                       {"ttft_uncertainty", e.ttft_band},
                       {"runs", e.runs}});
  out["engines"] = engines;
  out["notes"] = r.notes;
  return out;
}

} // namespace rl::io
