#include "core/io/estimate_json.hpp"

#include "core/io/config_json.hpp"
#include "core/io/schema_json.hpp"
#include "core/parallel/layout.hpp"
#include "core/schema/fields.hpp"

#include <algorithm>
#include <cmath>

namespace rl::io {

using json = nlohmann::json;

json error_json(const std::string &path, const std::string &message) {
  return {{"error", {{"path", path}, {"message", message}}}};
}

json to_json(const DecodeStep &d) {
  return {{"batch", d.batch},
          {"context", d.context},
          {"kv_time", d.kv_time},
          {"weight_time", d.weight_time},
          {"compute_time", d.compute_time},
          {"comm_time", d.comm_time},
          {"other_time", d.other_time},
          {"step", d.step},
          {"compute_bound", d.compute_bound},
          {"memory_per_device", d.memory_per_device},
          {"fits", d.fits},
          {"tokens_per_s", d.tokens_per_s},
          {"tokens_per_s_per_chip", d.tokens_per_s_per_chip}};
}

json to_json(const DecodeCurve &c) {
  json rows = json::array();
  for (const auto &d : c.rows)
    rows.push_back(to_json(d));
  return json{{"context", c.context},
              {"memory_context", c.memory_context},
              {"critical_batch", c.critical_batch},
              {"sweep", rows}};
}

// Every knob of the layout under its parallel.* key and choice names (core/schema
// parallel_fields), the Ulysses degree, stage split flag and axis order always (the order as an
// array), and the micro-batches per step it derives.
json to_json(const Layout &l) {
  ParallelSpec p = spec_of(l);
  p.ulysses = l.ulysses;
  p.uneven_pp = l.uneven_pp;
  json j = json::object();
  write_fields(j, p, schema::parallel_fields());
  j[schema::parallel_key<&ParallelSpec::order>()] = l.order;
  j["num_microbatches"] = l.num_micro;
  return j;
}

json to_json(const LayerActivations &a) {
  return {{"norm_inputs", a.norm_inputs},
          {"qkv_input", a.qkv_input},
          {"qk", a.qk},
          {"v", a.v},
          {"out_input", a.out_input},
          {"attn_dropout", a.attn_dropout},
          {"softmax", a.softmax},
          {"softmax_dropout", a.softmax_dropout},
          {"flash_stats", a.flash_stats},
          {"mla_latent", a.mla_latent},
          {"mlp_input", a.mlp_input},
          {"mlp_hidden", a.mlp_hidden},
          {"mlp_dropout", a.mlp_dropout},
          {"router", a.router},
          {"total", a.total()}};
}

json to_json(const LayerFlops &f) {
  return {{"qkv", f.qkv}, {"scores", f.scores}, {"out", f.out},
          {"mlp", f.mlp}, {"router", f.router}, {"total", f.total()}};
}

namespace {
json layer_params_json(const LayerParams &p) {
  return {{"attention", p.attention},
          {"attention_bias", p.attention_bias},
          {"mlp", p.mlp},
          {"mlp_bias", p.mlp_bias},
          {"router", p.router},
          {"norms", p.norms},
          {"total", p.total()},
          {"active", p.active()}};
}
} // namespace

json to_json(const Estimate &e) {
  json j;
  j["mode"] = name_of(e.mode);
  j["parallel"] = to_json(e.layout);
  j["params"] = {{"total", e.total_params},
                 {"active", e.active_params},
                 {"embedding", e.params.embedding},
                 {"head", e.params.head},
                 {"final_norm", e.params.final_norm},
                 {"pos_embedding", e.params.pos_embedding},
                 {"dense_layers", e.params.dense_layers},
                 {"moe_layers", e.params.moe_layers},
                 {"dense_layer", layer_params_json(e.params.dense_layer)}};
  if (e.params.moe_layers > 0)
    j["params"]["moe_layer"] = layer_params_json(e.params.moe_layer);
  json flops = {{"model_per_step", e.model_flops_per_step},
                {"hardware_per_step", e.hardware_flops_per_step},
                {"model_per_token", e.model_flops_per_token},
                {"forward", e.forward.forward()},
                {"head_forward", e.forward.head},
                {"per_layer_forward", to_json(e.forward.dense_layer)}};
  if (e.forward.moe_layers > 0)
    flops["per_moe_layer_forward"] = to_json(e.forward.moe_layer);
  j["flops"] = flops;
  json mem = {{"weights", e.memory.weights},
              {"gradients", e.memory.gradients},
              {"optimizer", e.memory.optimizer},
              {"activations", e.memory.activations},
              {"activations_layers", e.memory.activations_layers},
              {"kv_cache", e.memory.kv_cache},
              {"total", e.memory.total},
              {"capacity", e.memory.capacity},
              {"reserve", e.memory.reserve},
              {"fits", e.memory.fits},
              {"worst_stage", e.memory.worst_stage},
              {"kv_bytes_per_token", e.kv_bytes_per_token}};
  if (e.mode == Mode::train)
    mem["activation_terms"] = to_json(e.act_terms);
  if (e.mode == Mode::infer)
    mem["max_batch"] = e.memory.max_batch;
  json stages = json::array();
  for (const auto &s : e.stages)
    stages.push_back({{"stage", s.stage},
                      {"layers", s.layers},
                      {"params", s.params},
                      {"weights", s.states.weights},
                      {"gradients", s.states.gradients},
                      {"optimizer", s.states.optimizer},
                      {"activations", s.activations.total()},
                      {"activations_layers", s.activations.layers},
                      {"layers_in_flight", s.activations.layers_in_flight},
                      {"kv_cache", s.kv_cache},
                      {"total", s.total()}});
  mem["stages"] = stages;
  j["memory"] = mem;
  j["tokens_per_step"] = e.tokens_per_step;
  if (e.has_serving) {
    const ServingEstimate &sv = e.serving;
    const double u = e.uncertainty;
    j["latency"] = {{"ttft", sv.ttft},
                    {"tpot", sv.tpot},
                    {"request", sv.request_latency},
                    {"ttft_low", time_band_of(sv.ttft, u).low},
                    {"ttft_high", time_band_of(sv.ttft, u).high},
                    {"tpot_low", time_band_of(sv.tpot, u).low},
                    {"tpot_high", time_band_of(sv.tpot, u).high},
                    {"uncertainty", u}};
    j["throughput"] = {{"tokens_per_s", sv.decode.tokens_per_s},
                       {"tokens_per_s_per_chip", sv.decode.tokens_per_s_per_chip},
                       {"batch_tokens_per_s", sv.batch_tokens_per_s},
                       {"batch_tokens_per_s_per_chip", sv.batch_tokens_per_s_per_chip}};
    j["latency"]["batch"] = sv.batch_time;
    j["latency"]["batch_prefill"] = sv.batch_prefill;
    j["decode"] = to_json(sv.decode);
    j["decode_final_context"] = to_json(sv.decode_last);
    j["prefill"] = {{"tokens", sv.prefill.tokens},
                    {"compute", sv.prefill.compute},
                    {"comm", sv.prefill.comm},
                    {"time", sv.prefill.time}};
    j["critical_batch"] = sv.critical_batch;
    if (sv.moe_critical_batch > 0)
      j["moe_critical_batch"] = sv.moe_critical_batch;
    j["memory"]["min_devices"] = sv.min_devices;
    j["weight_bytes_per_param"] = sv.weight_bytes_per_param;
    if (sv.disaggregated)
      j["disaggregated"] = {
          {"prefill_instances", sv.prefill_instances},
          {"decode_instances", sv.decode_instances},
          {"decode_batch", sv.decode_batch},
          {"prefill_to_decode", sv.prefill_to_decode},
          {"devices_per_instance", sv.devices_per_instance},
          {"devices", (std::ceil(sv.prefill_instances) + std::ceil(sv.decode_instances)) *
                          static_cast<double>(sv.devices_per_instance)}};
  }
  if (e.has_time) {
    const StepTime &t = e.time;
    const double u = e.uncertainty;
    j["time"] = {{"step", t.step},
                 {"compute", t.compute},
                 {"recompute", t.recompute},
                 {"comm_exposed", t.comm_exposed},
                 {"host", t.host},
                 {"bubble", t.bubble},
                 {"optimizer", t.optimizer},
                 {"microbatch_forward", t.t_fwd},
                 {"microbatch_backward", t.t_bwd},
                 {"slowest_stage", t.slowest_stage},
                 {"step_low", time_band_of(t.step, u).low},
                 {"step_high", time_band_of(t.step, u).high},
                 {"uncertainty", u}};
    const Throughput &p = e.throughput;
    j["throughput"] = {{"tokens_per_s", p.tokens_per_s},
                       {"mfu", p.mfu},
                       {"mfu_causal", p.mfu_causal},
                       {"hfu", p.hfu},
                       {"tflops_per_device", p.tflops_per_device},
                       {"hardware_tflops_per_device", p.hardware_tflops_per_device},
                       {"mfu_low", rate_band_of(p.mfu, u).low},
                       {"mfu_high", rate_band_of(p.mfu, u).high}};
    if (e.train_steps > 0) {
      j["train_steps"] = e.train_steps;
      j["time_to_train"] = e.time_to_train;
    }
    if (e.cost_per_hour > 0) {
      j["cost"] = {{"per_hour", e.cost_per_hour}};
      if (e.train_steps > 0)
        j["cost"]["to_train"] = e.cost_to_train;
    }
    j["trained_params"] = e.trained_params;
    if (e.train_steps > 0) {
      const Resilience &r = e.resilience;
      j["goodput"] = r.goodput;
      j["checkpoint"] = {{"bytes", r.checkpoint_bytes},     {"write_s", r.write_s},
                         {"blocking_s", r.blocking_s},      {"interval_s", r.interval_s},
                         {"restart_s", r.restart_s},        {"mtbf_s", r.mtbf_s},
                         {"interruptions", r.interruptions}};
    }
    if (e.energy.known) {
      const TrainEnergy &en = e.energy;
      j["energy"] = {{"device_w", en.device_w},
                     {"host_w", en.host_w},
                     {"clock", en.clock},
                     {"facility_w", en.facility_w},
                     {"joules_per_token", en.joules_per_token},
                     {"kwh_per_step", en.kwh_per_step}};
      if (e.train_steps > 0) {
        j["energy"]["mwh_to_train"] = en.mwh_to_train;
        j["energy"]["cost_to_train"] = en.cost_to_train;
      }
    }
    json comm = json::array();
    for (const auto &c : t.comm)
      comm.push_back({{"kind", c.kind},
                      {"collective", c.collective},
                      {"group", c.group},
                      {"bytes_per_device", c.bytes_per_device},
                      {"time", c.time},
                      {"exposed", c.exposed}});
    j["comm"] = comm;
    json ops = json::array();
    for (const auto &o : t.ops)
      ops.push_back({{"name", o.name}, {"flops", o.flops}, {"bytes", o.bytes}, {"time", o.time}});
    j["layer_ops"] = ops;
    j["peak_flops"] = t.peak;
  }
  return j;
}

} // namespace rl::io

namespace rl::io {

json to_json(const SpComparison &c) {
  json rows = json::array();
  for (const auto &r : c.rows)
    rows.push_back({{"name", r.name},
                    {"split", r.split},
                    {"param_comm", r.param_comm},
                    {"param_comm_bytes", r.param_bytes},
                    {"act_comm", r.act_comm},
                    {"act_comm_bytes_per_layer", r.act_bytes},
                    {"params_grads_bytes", r.pg_bytes},
                    {"optimizer_bytes", r.os_bytes},
                    {"activation_bytes_per_layer", r.act_mem}});
  return {{"degree", c.degree},
          {"usp", {{"ulysses", c.ulysses}, {"ring", c.ring}}},
          {schema::parallel_key<&ParallelSpec::microbatch>(), c.b},
          {"seq_len", c.s},
          {"params", c.params},
          {"rows", rows}};
}

} // namespace rl::io

namespace rl::io {

const char *name_of(Objective o) {
  switch (o) {
  case Objective::tokens:
    return "tokens";
  case Objective::time_to_train:
    return "time-to-train";
  case Objective::cost:
    return "cost";
  case Objective::energy:
    return "energy";
  case Objective::step:
    break;
  }
  return "step";
}

json to_json(const PlanResult &r, double seconds) {
  json plans = json::array();
  for (const auto &p : r.plans) {
    json j = to_json(p.estimate);
    j["parallel"] = to_json(p.parallel);
    j["objective"] = p.objective;
    j["why"] = p.why;
    if (p.estimate.has_time)
      j["step_band_s"] = p.step_band;
    if (p.vs_next)
      j["vs_next"] = {{"delta_s", p.vs_next->delta},
                      {"band_s", p.vs_next->band},
                      {"beyond_band", p.vs_next->beyond_band()},
                      {"deciding", p.vs_next->deciding},
                      {"deciding_delta_s", p.vs_next->deciding_delta}};
    plans.push_back(j);
  }
  json inf = json::array();
  for (const auto &i : r.infeasible)
    inf.push_back({{"parallel", to_json(i.parallel)},
                   {"kind", i.kind},
                   {"path", i.path},
                   {"message", i.message},
                   {"overflow_bytes", i.overflow}});
  json front = json::array();
  for (const auto &p : r.pareto)
    front.push_back({{"layout", p.layout},
                     {"parallel", to_json(p.parallel)},
                     {"objective", p.objective},
                     {"step", p.step},
                     {"memory", p.memory}});
  return {{"plans", plans},
          {"infeasible", inf},
          {"pareto", front},
          {"headroom", r.headroom},
          {"rejected", r.rejected},
          {"candidates", r.candidates},
          {"timed", r.timed},
          {"free", r.free_knobs},
          {"budget", {{"space", r.space}, {"skipped", r.skipped}, {"work", r.work}}},
          {"objective", name_of(r.objective)},
          {"stats",
           {{"candidates", r.candidates},
            {"evaluated", r.evaluated},
            {"timed", r.timed},
            {"feasible", r.feasible},
            {"rejected", r.rejected},
            {"seconds", seconds}}}};
}

json to_json(const JointPlanResult &r, double seconds) {
  json choices = json::array();
  for (const ChoicePlan &c : r.choices) {
    json search = to_json(c.result);
    json best = search["plans"].empty() ? json() : search["plans"][0];
    choices.push_back({{"hardware", c.hardware},
                       {"cluster", c.cluster},
                       {"devices", c.devices},
                       {"time_to_train", c.time_to_train},
                       {"cost", c.cost},
                       {"meets_deadline", c.meets_deadline},
                       {"best", best},
                       {"search",
                        {{"candidates", c.result.candidates},
                         {"evaluated", c.result.evaluated},
                         {"feasible", c.result.feasible},
                         {"rejected", c.result.rejected},
                         {"pareto", search["pareto"]}}}});
  }
  auto index = [](i64 i) { return i < 0 ? json() : json(i); };
  i64 candidates = 0, evaluated = 0, feasible = 0;
  std::map<std::string, i64> rejected;
  for (const ChoicePlan &c : r.choices) {
    candidates += c.result.candidates;
    evaluated += c.result.evaluated;
    feasible += c.result.feasible;
    for (const auto &[k, n] : c.result.rejected)
      rejected[k] += n;
  }
  // "plans": every choice's best plan (an estimate + its parallel object, with the choice's
  // hardware and devices), fastest first, as a single-choice search lists its plans.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < r.choices.size(); ++i)
    if (!choices[i]["best"].is_null())
      order.push_back(i);
  auto time_of = [&](std::size_t i) {
    const ChoicePlan &c = r.choices[i];
    return c.time_to_train > 0 ? c.time_to_train : c.result.plans.front().estimate.time.step;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return time_of(a) < time_of(b); });
  json plans = json::array();
  for (const std::size_t i : order) {
    json p = choices[i]["best"];
    p["hardware"] = r.choices[i].hardware;
    p["devices"] = r.choices[i].devices;
    p["choice"] = i;
    plans.push_back(p);
  }
  return {{"plans", plans},
          {"choices", choices},
          {"fastest", index(r.fastest)},
          {"cheapest", index(r.cheapest)},
          {"pareto_cost", r.front},
          {"deadline_s", r.deadline},
          {"stats",
           {{"choices", r.choices.size()},
            {"candidates", candidates},
            {"evaluated", evaluated},
            {"feasible", feasible},
            {"rejected", rejected},
            {"seconds", seconds}}}};
}

} // namespace rl::io
