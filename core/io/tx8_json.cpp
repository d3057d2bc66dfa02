#include "core/io/tx8_json.hpp"

#include "core/io/config_json.hpp"

namespace rl::io {

using json = nlohmann::json;

json to_json(const tx8::OpMapping &m) {
  json dims = json::object(), tile = json::object();
  for (const auto &[k, v] : m.dims)
    dims[k] = v;
  for (const auto &[k, v] : m.tile)
    tile[k] = v;
  if (!m.variant.empty())
    tile["variant"] = m.variant;
  const tx8::OpCost &c = m.cost;
  return {{"type", m.type},
          {"shape", m.shape},
          {"dims", dims},
          {"tiling", m.tiling},
          {"tile", tile},
          {"latency", c.latency},
          {"serial_latency", c.serial_latency},
          {"compute_time", c.compute_time},
          {"dram_time", c.dram_time},
          {"noc_time", c.noc_time},
          {"dram_bytes", c.dram_bytes},
          {"compulsory_bytes", c.compulsory_bytes},
          {"flops", c.flops},
          {"vector_ops", c.vector_ops},
          {"utilization", c.utilization},
          {"sram_bytes", c.sram_bytes},
          {"rounds", c.rounds},
          {"search",
           {{"candidates", m.search.candidates},
            {"pruned_sram", m.search.pruned_sram},
            {"pruned_bound", m.search.pruned_bound},
            {"evaluated", m.search.evaluated},
            {"skipped", m.search.skipped}}}};
}

namespace {
json mesh_json(const tx8::SubMesh &s) {
  return {s.nx, s.ny, s.x0, s.y0};
}
} // namespace

json to_json(const tx8::Tx8Result &r) {
  json ops = json::array();
  for (const tx8::OpRow &row : r.ops) {
    json o = to_json(row.map);
    o["name"] = row.name;
    o["block"] = row.block;
    o["stage"] = row.stage;
    o["count"] = row.count;
    o["cached"] = row.cached;
    if (r.presets) {
      if (!row.preset_error.empty())
        o["preset"] = {{"error", row.preset_error}};
      else if (row.has_preset)
        o["preset"] = {{"tiling", row.preset.tiling},
                       {"latency", row.preset.cost.latency},
                       {"dram_bytes", row.preset.cost.dram_bytes},
                       {"utilization", row.preset.cost.utilization},
                       {"gain", row.preset.cost.latency / row.map.cost.latency}};
    }
    ops.push_back(o);
  }
  json comm = json::array();
  for (const tx8::CommRow &c : r.comm)
    comm.push_back({{"kind", c.kind},
                    {"stage", c.stage},
                    {"bytes_per_die", c.bytes_per_die},
                    {"time", c.time},
                    {"per_step", c.per_step},
                    {"exposed", c.exposed}});
  json j = {{"mode", r.video ? "video" : "tx8-op"},
            {"hardware", r.hardware},
            {"ops", ops},
            {"comm", comm},
            {"total",
             {{"latency", r.latency},
              {"per_step", r.per_step},
              {"per_layer", r.per_layer},
              {"spatial_block", r.spatial_block},
              {"temporal_block", r.temporal_block},
              {"embed", r.embed},
              {"final", r.final},
              {"compute_per_step", r.compute_per_step},
              {"comm_exposed_per_step", r.comm_exposed_per_step},
              {"comm_bytes_per_die_per_step", r.comm_bytes_per_die_per_step},
              {"once", r.once},
              {"flops_per_step", r.flops_per_step},
              {"utilization", r.utilization}}},
            {"search", {{"searches", r.searches}, {"cache_hits", r.cache_hits}}}};
  if (r.presets) {
    j["presets"] = {{"per_step", r.preset_per_step}, {"latency", r.preset_latency}};
    if (!r.preset_error.empty())
      j["presets"]["error"] = r.preset_error;
    else if (r.per_step > 0)
      j["presets"]["gain"] = r.preset_per_step / r.per_step;
  }
  if (!r.video)
    return j;
  const tx8::VideoShape &v = r.shape;
  j["model"] = r.model;
  j["cluster"] = r.cluster;
  j["video"] = {{"batch", v.batch},
                {"frames", v.frames},
                {"latent", {v.latent_t, v.latent_h, v.latent_w}},
                {"grid", {v.grid_t, v.grid_h, v.grid_w}},
                {"tokens", v.tokens()},
                {"spatial_tokens", v.spatial()},
                {"text_tokens", v.text},
                {"steps", v.steps}};
  json stages = json::array();
  for (const tx8::StageRow &s : r.stages)
    stages.push_back({{"mesh", mesh_json(s.mesh)},
                      {"blocks", {s.first, s.last}},
                      {"compute", s.compute},
                      {"comm", s.comm},
                      {"p2p", s.p2p}});
  j["parallel"] = {{"sp_kind", name_of(r.scheme.kind)},
                   {"scheme", tx8::scheme_name(r.scheme)},
                   {"dies", r.dies},
                   {"ulysses", r.scheme.ulysses},
                   {"ring", r.scheme.ring},
                   {"stages", stages},
                   {"micro_batches", r.micro_batches},
                   {"chosen_by", r.chosen_by}};
  json schemes = json::array();
  for (const tx8::SchemeRow &s : r.schemes) {
    json meshes = json::array();
    for (const tx8::SubMesh &m : s.meshes)
      meshes.push_back(mesh_json(m));
    json row = {{"name", s.name},
                {"sp_kind", name_of(s.scheme.kind)},
                {"stages", s.stages},
                {"meshes", meshes},
                {"feasible", s.feasible}};
    if (s.feasible)
      row.update({{"per_step", s.per_step},
                  {"latency", s.latency},
                  {"compute", s.compute},
                  {"comm_exposed", s.comm_exposed},
                  {"comm_bytes_per_die", s.comm_bytes_per_die}});
    else
      row["why"] = s.why;
    schemes.push_back(row);
  }
  j["schemes"] = schemes;
  return j;
}

} // namespace rl::io
