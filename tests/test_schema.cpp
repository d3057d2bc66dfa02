// The schema's tables (core/schema/fields.hpp) drive parsing and printing: every plain row is
// read into its member, range-checked with the field's path, and printed back under its key;
// a value changed in the JSON comes back from the URL codec unchanged.
#include "helpers.hpp"

#include "core/io/presets.hpp"
#include "core/io/schema_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/schema/fields.hpp"

#include <map>
#include <set>

using namespace rl;
using nlohmann::json;

namespace {

// A value inside [lo, hi] near `current` (the preset's or the default) and different from
// it, so coupled rules (max_tokens >= max_batch, sram_usable_bytes <= sram_bytes) still hold.
double other_value(const schema::FieldInfo &i, double current) {
  if (i.choices) { // the next name of the list
    const schema::ChoiceList &l = *i.choices;
    for (std::size_t k = 0; k < l.size(); ++k)
      if (l[k].value == static_cast<int>(current))
        return l[(k + 1) % l.size()].value;
  }
  if (i.type == schema::FieldType::boolean)
    return current != 0 ? 0 : 1;
  if (i.type == schema::FieldType::integer)
    return current + 1 <= i.hi ? current + 1 : current - 1;
  return current < i.hi ? (current + i.hi) / 2 : (current + i.lo) / 2;
}

json value_json(const schema::FieldInfo &i, double v) {
  if (i.choices) // by its name
    return schema::name_in(*i.choices, static_cast<int>(v));
  if (i.type == schema::FieldType::boolean)
    return v != 0;
  if (i.type == schema::FieldType::integer)
    return static_cast<i64>(v);
  return v;
}

template <class S> double member(const S &s, const schema::Field<S> &f) {
  return f.num       ? s.*f.num
         : f.integer ? static_cast<double>(s.*f.integer)
         : f.get     ? f.get(s)
                     : (s.*f.flag ? 1 : 0);
}

// Every plain row of `table` in `object`, one at a time: set in the section's JSON at `at`,
// parsed into the member, printed back at the same key, and rejected above its range with
// the field's path.
template <class S, class Parse, class Get>
void round_trip_rows(const std::vector<schema::Field<S>> &table, const char *object,
                     const json &base, const json::json_pointer &at, const std::string &path,
                     Parse parse, Get get, schema::Modes modes = schema::kAllModes,
                     const char *group = nullptr, const char *skip = "") {
  for (const schema::Field<S> &f : table) {
    if (f.info.custom || std::string(f.info.object) != object || !(f.info.modes & modes) ||
        (group && std::string(f.info.group) != group) || std::string(f.info.key) == skip)
      continue;
    INFO(path + "." + f.info.key);
    const double before = member(get(parse(base)), f);
    const double v = other_value(f.info, before);
    json j = base;
    j[at][f.info.key] = value_json(f.info, v);
    const auto parsed = parse(j);
    CHECK(member(get(parsed), f) == v);
    const json printed = io::to_json(parsed);
    CHECK(printed.at(at).at(f.info.key) == value_json(f.info, v));
    if (f.info.choices) { // a name not in the list, refused with the list
      j[at][f.info.key] = "not-a-choice";
      CHECK(test::error_of([&] { parse(j); }) == path + "." + f.info.key +
                                                     ": \"not-a-choice\" is not one of " +
                                                     schema::names_text(*f.info.choices));
    } else if (f.info.type != schema::FieldType::boolean) {
      j[at][f.info.key] = f.info.hi * 2 + 1;
      CHECK(test::error_of([&] { parse(j); }).rfind(path + "." + f.info.key + ":", 0) == 0);
    }
  }
}

} // namespace

TEST_CASE("schema: every hardware row parses into its member, prints back and is range-checked",
          "[schema]") {
  const json h100 = io::preset_json("hardware", "h100-sxm", "hardware");
  auto parse = [](const json &j) { return io::parse_hardware(j, "hardware"); };
  auto self = [](const HardwareSpec &h) -> const HardwareSpec & { return h; };
  round_trip_rows(schema::hardware_fields(), "", h100, json::json_pointer(""), "hardware", parse,
                  self);
  const json tx8 = io::preset_json("hardware", "tx8", "hardware");
  auto die = [](const HardwareSpec &h) -> const Tx8Spec & { return *h.tx8; };
  round_trip_rows(schema::tx8_fields(), "tx8", tx8, json::json_pointer("/tx8"), "hardware.tx8",
                  parse, die);
}

TEST_CASE("schema: the model's plain rows parse into their members and print back", "[schema]") {
  auto parse = [](const json &j) { return io::parse_model(j, "model"); };
  auto self = [](const ModelSpec &m) -> const ModelSpec & { return m; };
  const json gpt3 = io::preset_json("model", "gpt3-175b", "model");
  round_trip_rows(schema::model_fields(), "", gpt3, json::json_pointer(""), "model", parse, self);
  const json mixtral = io::preset_json("model", "mixtral-8x7b", "model");
  auto moe = [](const ModelSpec &m) -> const MoeSpec & { return *m.moe; };
  round_trip_rows(schema::moe_fields(), "moe", mixtral, json::json_pointer("/moe"), "model.moe",
                  parse, moe);
  // every row is printed (the RoPE base and its scaling only when given)
  const json printed = io::to_json(parse(gpt3));
  for (const auto &f : schema::model_fields())
    CHECK((printed.contains(f.info.key) || std::string(f.info.key) == "rope_theta" ||
           std::string(f.info.key) == "rope_scaling"));
}

TEST_CASE("schema: the train, infer and video workload rows parse in their mode and print back",
          "[schema]") {
  auto parse = [](const json &j) { return io::parse_workload(j, "workload"); };
  auto self = [](const WorkloadSpec &w) -> const WorkloadSpec & { return w; };
  json train = io::expand_scenario(json("llama3-70b-h100-1024")).at("workload");
  // fp8 so that fp8_params may flip, tensorwise so that the BF16 layers may be set; the
  // precision itself is flipped below (another precision refuses the recipe)
  train["precision"] = "fp8";
  train["fp8_recipe"] = "tensorwise";
  round_trip_rows(schema::workload_fields(), "", train, json::json_pointer(""), "workload", parse,
                  self, schema::mode_bit(Mode::train), nullptr, "precision");
  json mx = train;
  mx.erase("fp8_recipe");
  mx["precision"] = "mxfp8";
  CHECK(io::to_json(parse(mx)).at("precision") == "mxfp8");
  json infer = io::expand_scenario(json("llama2-13b-v5e-infer")).at("workload");
  infer.update({{"request_rate", 4.0}, {"ttft_target", 1.0}, {"tpot_target", 0.05}});
  round_trip_rows(schema::workload_fields(), "", infer, json::json_pointer(""), "workload", parse,
                  self, schema::mode_bit(Mode::infer));
  const json video = io::expand_scenario(json("sora-720m-tx8-2x2")).at("workload");
  round_trip_rows(schema::workload_fields(), "", video, json::json_pointer(""), "workload", parse,
                  self, schema::mode_bit(Mode::video));
  // a row of another mode is not a field of this one
  json bad = infer;
  bad["moe_imbalance"] = 1.5;
  CHECK(test::error_of([&] { parse(bad); }).rfind("workload.moe_imbalance:", 0) == 0);
  // "not given" (0) is not printed
  CHECK_FALSE(io::to_json(parse(train)).contains("train_tokens"));
}

TEST_CASE("schema: a tx8 operator's rows, by its type, parse, print and are range-checked",
          "[schema]") {
  auto parse = [](const json &j) { return io::parse_workload(j, "workload"); };
  auto op = [](const WorkloadSpec &w) -> const Tx8OpSpec & { return *w.op; };
  const schema::Modes m = schema::mode_bit(Mode::tx8_op);
  const json::json_pointer at("/op");
  const json gemm = {{"mode", "tx8-op"},
                     {"op", {{"type", "gemm"}, {"m", 64}, {"k", 64}, {"n", 64}}}};
  const json vector = {{"mode", "tx8-op"},
                       {"op", {{"type", "vector"}, {"rows", 64}, {"width", 64}}}};
  const json flash = {
      {"mode", "tx8-op"},
      {"op", {{"type", "flash_attention"}, {"heads", 8}, {"seq_q", 128}, {"head_dim", 64}}}};
  round_trip_rows(schema::op_fields(), "op", gemm, at, "workload.op", parse, op, m, "gemm");
  round_trip_rows(schema::op_fields(), "op", gemm, at, "workload.op", parse, op, m, "");
  round_trip_rows(schema::op_fields(), "op", vector, at, "workload.op", parse, op, m, "vector");
  round_trip_rows(schema::op_fields(), "op", flash, at, "workload.op", parse, op, m,
                  "flash_attention");
  // a row of another type is not a field of this one
  json bad = gemm;
  bad["op"]["rows"] = 4;
  CHECK(test::error_of([&] { parse(bad); }).rfind("workload.op.rows:", 0) == 0);
  // the required rows are named when missing; seq_kv follows seq_q
  json missing = flash;
  missing["op"].erase("heads");
  CHECK(test::error_of([&] { parse(missing); }).rfind("workload.op.heads:", 0) == 0);
  CHECK(op(parse(flash)).seq_kv == 128);
}

TEST_CASE("schema: the serve scheduler, SLO and link rows parse, print and are range-checked",
          "[schema]") {
  json serve = io::expand_scenario(json("llama3-70b-h100-serve"));
  serve["workload"]["length_dist"] = "uniform"; // range_ratio is refused with the others
  auto workload = [](const json &j) { return io::parse_workload(j, "workload"); };
  auto spec = [](const WorkloadSpec &w) -> const ServeSpec & { return w.serve; };
  for (const std::string object : {"", "slo", "scheduler"})
    round_trip_rows(schema::serve_fields(), object.c_str(), serve.at("workload"),
                    json::json_pointer(object.empty() ? "" : "/" + object),
                    object.empty() ? "workload" : "workload." + object, workload, spec);
  const json dgx = io::preset_json("cluster", "dgx-h100", "cluster");
  auto cluster = [](const json &j) { return io::parse_cluster(j, "cluster"); };
  auto inter = [](const ClusterSpec &c) -> const Link & { return c.inter_node; };
  round_trip_rows(schema::link_fields(), "", dgx, json::json_pointer("/inter_node"),
                  "cluster.inter_node", cluster, inter);
}

TEST_CASE("schema: rows are complete, unique and their defaults within range", "[schema]") {
  // A path may have one row per mode (workload.request_rate: infer's sizing, serve's arrivals).
  std::map<std::string, schema::Modes> modes_of;
  std::size_t rows = 0;
  for (const schema::FieldEntry &e : schema::all_fields()) {
    const std::string path = e.section + "." + e.info.path();
    INFO(path);
    CHECK((modes_of[path] & e.info.modes) == 0);
    modes_of[path] |= e.info.modes;
    ++rows;
    CHECK(std::string(e.info.label).size() > 0);
    CHECK(std::string(e.info.help).size() > 10);
    CHECK(e.info.modes != 0);
    if (e.info.type == schema::FieldType::choice && !e.info.custom) { // named, default included
      REQUIRE(e.info.choices != nullptr);
      CHECK(std::string(schema::name_in(*e.info.choices, static_cast<int>(e.default_value))) !=
            "?");
    }
    if (!*e.type &&
        (e.info.type == schema::FieldType::number || e.info.type == schema::FieldType::integer)) {
      CHECK(e.info.lo < e.info.hi);
      if (!e.info.custom && !e.info.omit_zero && e.section != "parallel") // (0: not given)
        CHECK((e.default_value >= e.info.lo && e.default_value <= e.info.hi));
    }
  }
  // 17 model (rope_scaling among them) + 6 moe + 34 workload (fp8_params, fp8_recipe,
  // framework, ce_fusion, bf16_first_layers, bf16_last_layers, moe_fp8_dispatch, power_cap_w
  // and bf16_moments among them) + 23 hardware (gemm_efficiency_fp4, moe_host_time, the four
  // quantize/amax kernel fields, device_memory and power_w, load_power_fraction,
  // power_clock_exponent among them) + 14 tx8 + 26 serve (concurrency, think_time,
  // requests_per_client, count_warmup, cuda_graph_max_batch, overlap_schedule, mixed_prefill,
  // recv_interval, batch_wait_iters, batch_wait_tokens_ratio, adp_balance_iters,
  // adp_batching_wait_iters and range_ratio among them) + 17 tx8-op
  // + 4 rows for each of 5 links (bw, latency, efficiency, uncertainty) + 30 parallel
  // (attention_dp, moe_tp, offload_layers, offload_optimizer and the three recompute modules
  // among them) + 42 the parser reads itself (12 model, 8 hardware with peak_flops.fp4, 10
  // cluster with nvlink_domain, devices_per_domain and host_bw, 12 workload with
  // engine_options, precision_options, finetune.targets, speculative.acceptance and
  // speculative.draft_model: schema::parsed_fields) + 6 cluster (host_power_w, pue,
  // energy_price_per_kwh, interruptions_per_gpu_hour, host_adam_rate, collective_sms) + 4
  // checkpoint + 3
  // finetune + 2 speculative + 3 more serve (prefix.shared_tokens, scheduler.prefix_cache,
  // routing) + 3 sessions + 4 scheduler.kv_offload + 4 lora
  CHECK(rows == 17 + 6 + 34 + 23 + 14 + 26 + 17 + 4 * 5 + 30 + 42 + 6 + 4 + 3 + 2 + 3 + 3 + 4 + 4);
  CHECK(modes_of.size() == rows - 2); // request_rate and batch twice
  CHECK(io::fields_json().size() == rows);
}

namespace {
// The dotted paths of a configuration section's keys, arrays as one value; the metadata keys
// (name, source, notes, base) are not fields.
void key_paths(const json &j, const std::string &prefix, std::set<std::string> &out) {
  for (const auto &[k, v] : j.items()) {
    if (k == "name" || k == "source" || k == "notes" || k == "base")
      continue;
    const std::string p = prefix + "." + k;
    if (v.is_object() && k != "engine")
      key_paths(v, p, out);
    else
      out.insert(p);
  }
}
} // namespace

// Issue 25 item 8: `ridgeline fields` left out hardware.peak_flops.*, cluster.devices,
// cluster.devices_per_node and workload.mode (read by the parser's own code, in no table).
TEST_CASE("schema: every key of every preset and of full configurations is a listed field",
          "[schema]") {
  std::set<std::string> listed;
  for (const json &f : io::fields_json())
    listed.insert(f["path"].get<std::string>());
  for (const char *p : {"hardware.peak_flops.bf16", "hardware.peak_flops.fp8", "cluster.devices",
                        "cluster.devices_per_node", "workload.mode", "model.hf_id"})
    CHECK(listed.count(p) == 1);
  std::set<std::string> keys;
  for (const char *kind : {"model", "hardware", "cluster"}) {
    for (const std::string &n : io::preset_names(kind)) {
      const json j = io::preset_json(kind, n, kind);
      if (std::string(kind) == "model") // each parses
        io::parse_model(j, kind);
      else if (std::string(kind) == "hardware")
        io::parse_hardware(j, kind);
      else
        io::parse_cluster(j, kind);
      key_paths(j, kind, keys);
    }
  }
  for (const std::string &n : io::preset_names("scenario")) {
    const json j = io::preset_json("scenario", n, "scenario");
    for (const char *section : {"model", "hardware", "cluster", "workload", "parallel"})
      if (j.contains(section) && j[section].is_object())
        key_paths(j[section], section, keys);
  }
  // a serving configuration with the keys no preset uses: engine, trace, seed, planner options
  for (const char *w : {R"({"mode": "serve", "engine": "vllm", "request_rate": 2, "prompt_len":
                           128, "gen_len": 16, "seed": 7, "hardware_options": ["h100-sxm"],
                           "slo": {"ttft": 1, "tpot": 0.1}})",
                        R"({"mode": "serve", "trace": [[0, 128, 16], [0.5, 256, 32]]})"}) {
    const json serve = json::parse(w);
    io::parse_config(json{{"model", "llama3-8b"},
                          {"hardware", "h100-sxm"},
                          {"cluster", {{"base", "dgx-h100"}, {"devices", 1}}},
                          {"workload", serve}});
    key_paths(serve, "workload", keys);
  }
  CHECK(keys.size() > 100); // (the walk found the presets' keys)
  for (const std::string &k : keys) {
    INFO(k);
    CHECK(listed.count(k) == 1);
  }
}

TEST_CASE("schema: the layout's knobs parse, print and are range-checked", "[schema]") {
  for (const schema::OptField<ParallelSpec> &f : schema::parallel_fields()) {
    if (f.info.custom)
      continue; // the axis order, parsed by its own syntax
    INFO(f.info.key);
    const json v = f.flag      ? json(true)
                   : f.integer ? json(static_cast<i64>(f.info.lo) + 1)
                               : json(f.info.choices->back().name); // a choice, by name
    const ParallelSpec p = io::parse_parallel(json{{f.info.key, v}}, "parallel");
    CHECK(f.has(p));
    CHECK(io::to_json(p) == json{{f.info.key, v}}); // only what is set is printed
    CHECK_FALSE(f.has(ParallelSpec{}));
    if (f.integer)
      CHECK(test::error_of([&] {
              io::parse_parallel(json{{f.info.key, f.info.hi + 1}}, "parallel");
            }).rfind(std::string("parallel.") + f.info.key + ":", 0) == 0);
    if (f.set) {
      CHECK(f.get(p) == f.info.choices->back().value);
      CHECK(test::error_of([&] {
              io::parse_parallel(json{{f.info.key, "not-a-choice"}}, "parallel");
            }) == std::string("parallel.") + f.info.key + ": \"not-a-choice\" is not one of " +
                      schema::names_text(*f.info.choices));
    }
  }
}

TEST_CASE("schema: code names a row by its member, and finds the key the JSON uses", "[schema]") {
  // Every layout row is reachable through its member: parallel_row(tag) is the row itself.
  for (const schema::OptField<ParallelSpec> &f : schema::parallel_fields()) {
    INFO(f.info.key);
    REQUIRE(f.member != nullptr);
    CHECK(&schema::parallel_row(f.member) == &f);
  }
  // The keys SPEC.md's config schema names (parallel.microbatch, parallel.overlap_tp, ...)
  CHECK(std::string(schema::parallel_key<&ParallelSpec::microbatch>()) == "microbatch");
  CHECK(std::string(schema::parallel_key<&ParallelSpec::overlap_tp>()) == "overlap_tp");
  CHECK(std::string(schema::parallel_key<&ParallelSpec::uneven_pp>()) == "uneven_pp");
  CHECK(std::string(schema::row_of(&ModelSpec::kv_heads).key) == "kv_heads");
  CHECK(std::string(schema::row_of(&WorkloadSpec::global_batch).key) == "global_batch");
  CHECK(std::string(schema::row_of(&WorkloadSpec::fp32_grads).key) == "fp32_grads");
  CHECK(std::string(schema::row_of(&HardwareSpec::hbm_bytes).key) == "hbm_bytes");
  // A member no plain row is built on is a programming error, said as such.
  CHECK_THROWS_AS(schema::row_of(&WorkloadSpec::height), std::logic_error);
}

TEST_CASE("schema: a changed row travels in the URL and comes back the same", "[schema]") {
  json c = io::expand_scenario(json("llama3-70b-h100-serve"));
  c["hardware"] = {{"base", "h100-sxm"}, {"fp8_uncertainty", 0.125}, {"sm_count", 114}};
  c["workload"]["scheduler"]["prefill_instances"] = 1;
  const json back = io::decode_url_query(io::encode_url_query(c));
  CHECK(back == c);
  const Config parsed = io::parse_config(back);
  CHECK(parsed.hardware.fp8_uncertainty == 0.125);
  CHECK(parsed.hardware.sm_count == 114);
  CHECK(parsed.workload.serve.prefill_instances == 1);
}
