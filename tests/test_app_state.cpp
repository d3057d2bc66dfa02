// The page's app model (web/app_state.cpp), built natively: URL state with page parameters,
// forgiving links, the layout repair after a model change, device stepping and the pin.
#include "core/io/config_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/parallel/layout.hpp"
#include "web/app_state.hpp"

#include <catch2/catch.hpp>

using rl::web::AppState;
using json = nlohmann::json;

namespace {
// Qwen2-7B's config.json as published on the Hugging Face hub (28 heads, 28 layers), with the
// fields ridgeline does not read (inline: the WASM build of this suite has no file system).
json qwen2_7b() {
  return json::parse(R"({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 131072,
    "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "transformers_version": "4.37.0", "use_cache": true,
    "use_sliding_window": false, "vocab_size": 152064})");
}
// Mixtral-8x7B's config.json (hub), with its routing fields.
json mixtral() {
  return json::parse(R"({"architectures": ["MixtralForCausalLM"], "bos_token_id": 1,
    "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
    "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32,
    "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "num_local_experts": 8, "output_router_logits": false, "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32000})");
}
} // namespace

TEST_CASE("url: page parameters ride along and are not configuration", "[url][app]") {
  const auto p = rl::io::split_url("https://x/?scenario=a&tab=roofline&pin=model%3Db");
  CHECK(p.config == "scenario=a");
  CHECK(p.tab == "roofline");
  CHECK(p.pin == "model=b");
  CHECK(rl::io::join_url(p) == "scenario=a&tab=roofline&pin=model%3Db");
  // The older "#tab=" fragment still names the tab.
  CHECK(rl::io::split_url("?scenario=a#tab=planner").tab == "planner");
  CHECK(rl::io::decode_url_query("scenario=a&tab=roofline") == json{{"scenario", "a"}});
}

TEST_CASE("url: a misspelled key is dropped and named, the rest of the link applies",
          "[url][app]") {
  const auto r = rl::io::decode_url_lenient(
      "scenario=llama3-70b-h100-1024&parallel.tpp=4&parallel.zero=3&model.layers=abc");
  REQUIRE(r.dropped.size() == 2); // in the order the schema meets them: model first
  CHECK(r.dropped[0].path == "model.layers");
  CHECK(r.dropped[1].param == "parallel.tpp=4");
  CHECK(r.dropped[1].message == "unknown field (did you mean \"pp\"?)");
  CHECK(r.config.at("parallel").at("zero") == 3);
  CHECK_FALSE(r.config.at("parallel").contains("tpp"));

  AppState s;
  s.load_from_url("?scenario=llama3-70b-h100-1024&parallel.tpp=4&parallel.zero=3");
  CHECK_FALSE(s.startup_error());
  REQUIRE(s.url_issues().size() == 1);
  CHECK(s.url_issues()[0].path == "parallel.tpp");
  REQUIRE(s.estimate());
  CHECK(s.estimate()->layout.zero == 3);
}

TEST_CASE("url: a link of another mode applies over a scenario of its mode, a tx8-op link alone",
          "[url][app]") {
  // The default scenario trains; its global_batch is not a serving field.
  const auto serve = rl::io::decode_url_lenient("workload.mode=serve&workload.request_rate=2",
                                                rl::web::kDefaultScenario);
  CHECK(serve.dropped.empty());
  CHECK(serve.config.at("scenario") == "llama3-70b-h100-serve"); // the one serve scenario shipped
  const auto keep =
      rl::io::decode_url_lenient("workload.mode=train&parallel.tp=4", rl::web::kDefaultScenario);
  CHECK(keep.config.at("scenario") == rl::web::kDefaultScenario);
  // No scenario runs one tx8 operator: the link stands alone, as `ridgeline tx8` reads it.
  const std::string op = "?hardware=tx8&workload.mode=tx8-op&workload.op.type=gemm&"
                         "workload.op.m=4096&workload.op.k=1152&workload.op.n=4608";
  CHECK_FALSE(rl::io::decode_url_lenient(op.substr(1), rl::web::kDefaultScenario)
                  .config.contains("scenario"));
  AppState s;
  s.load_from_url(op);
  CHECK_FALSE(s.startup_error());
  CHECK(s.url_issues().empty());
  CHECK_FALSE(s.error());
}

TEST_CASE("app: a pasted config.json leads to a legal layout, not a deadlock", "[app]") {
  AppState s;
  s.load_scenario(rl::web::kDefaultScenario); // tp 8 x pp 8 on 1024 H100
  s.set_hf_model(qwen2_7b());
  // 28 heads and 28 layers: tp 8 and pp 8 are both illegal; the page re-plans.
  REQUIRE_FALSE(s.error());
  REQUIRE(s.estimate());
  const auto &l = s.estimate()->layout;
  CHECK(28 % l.tp == 0);
  CHECK(28 % l.pp == 0);
  CHECK(l.dp * l.tp * l.pp * l.cp == 1024);
  CHECK_FALSE(s.notice().empty());
  // Only the fields the importer reads travel in the URL.
  CHECK(s.url_query().find("transformers") == std::string::npos);
  CHECK(s.url_query().find("rms_norm_eps") == std::string::npos);
  CHECK(s.url_query().find("num_hidden_layers=28") != std::string::npos);
}

TEST_CASE("app: a knob set to a value the others forbid pushes them to legal ones", "[app]") {
  AppState s;
  s.load_scenario(rl::web::kDefaultScenario);
  s.set_hf_model(qwen2_7b());
  REQUIRE_FALSE(s.error());
  s.set_parallel("tp", 7); // legal for 28 heads; 1024 devices are not divisible by 7
  // The edit keeps tp 7 only if some layout allows it; 7 never divides 1024, so the error stays
  // on tp (the user's own choice is not overridden).
  REQUIRE(s.error());
  CHECK(s.error()->path.rfind("parallel", 0) == 0);
  s.set_parallel("tp", 2);
  REQUIRE_FALSE(s.error());
  CHECK(s.estimate()->layout.tp == 2);
}

TEST_CASE("app: hf_config_used keeps what the importer reads, nothing that matters is lost",
          "[app][hf]") {
  for (const json &hf : {qwen2_7b(), mixtral()}) {
    CHECK(rl::io::hf_config_used(hf).size() < hf.size()); // rms_norm_eps, torch_dtype, ... gone
    const json used = rl::io::hf_config_used(hf);
    CHECK(used.size() <= hf.size());
    CHECK(rl::io::to_json(rl::io::model_from_hf_config(used, "m")) ==
          rl::io::to_json(rl::io::model_from_hf_config(hf, "m")));
  }
}

TEST_CASE("app: devices +/- step through legal counts", "[app]") {
  AppState s;
  s.load_scenario(rl::web::kDefaultScenario);
  // tp 8 x pp 8 = 64 per replica, global batch 1024: dp must divide 1024, so the neighbours
  // of 1024 = 64 x 16 are 64 x 32 = 2048 and 64 x 8 = 512 (not 1016 or 1032).
  CHECK(s.step_devices(1024, +1) == 2048);
  CHECK(s.step_devices(1024, -1) == 512);
}

TEST_CASE("app: the tab and the pinned configuration travel in the URL", "[app]") {
  AppState s;
  s.load_from_url("?scenario=llama3-70b-h100-1024&parallel.tp=4&tab=roofline&pin=scenario%3D"
                  "llama3-70b-h100-1024");
  CHECK(s.tab() == "roofline");
  REQUIRE(s.pinned());
  REQUIRE(s.pinned()->estimate);
  REQUIRE(s.estimate());
  CHECK(s.estimate()->layout.tp == 4);
  CHECK(s.pinned()->estimate->layout.tp == 8);
  CHECK(s.url_query() ==
        "scenario=llama3-70b-h100-1024&parallel.tp=4&tab=roofline&pin=scenario%3Dllama3-70b-"
        "h100-1024");
  s.unpin();
  s.set_tab("compare");
  CHECK(s.url_query() == "scenario=llama3-70b-h100-1024&parallel.tp=4&tab=compare");
  AppState t;
  t.load_from_url("?" + s.url_query());
  CHECK(t.tab() == "compare");
  CHECK(t.user() == s.user());
}

TEST_CASE("app: the serve view's tab names, and a closed loop set over a rate scenario",
          "[app][url]") {
  AppState s;
  s.load_from_url("?scenario=llama3-70b-h100-serve&tab=deployments");
  CHECK(s.tab() == "planner"); // the Deployments tab is the planner's
  CHECK(s.url_issues().empty());
  s.load_from_url("?scenario=llama3-70b-h100-serve&tab=nosuchtab");
  CHECK(s.tab().empty());
  REQUIRE(s.url_issues().size() == 1);
  CHECK(s.url_issues()[0].path == "tab");
  // Concurrency typed over the scenario's request_rate: the closed loop alone, no null
  s.load_from_url("?scenario=llama3-70b-h100-serve");
  s.set_field("workload", "concurrency", 64);
  CHECK(!s.error());
  CHECK(s.url_query() == "scenario=llama3-70b-h100-serve&workload.concurrency=64");
  REQUIRE(s.view_config());
  CHECK(s.view_config()->workload.serve.concurrency == 64);
}

TEST_CASE("app: a link with overrides only applies over the default scenario", "[app][url]") {
  AppState s;
  s.load_from_url("?parallel.tp=4&parallel.tpp=2");
  CHECK(s.user() == json{{"scenario", rl::web::kDefaultScenario}, {"parallel", {{"tp", 4}}}});
  REQUIRE(s.url_issues().size() == 1);
  REQUIRE(s.estimate());
  CHECK(s.estimate()->layout.tp == 4);
  s.load_from_url("?parallel.tp=7"); // 7 does not divide LLaMA-3 70B's 64 heads
  REQUIRE(s.error());
  CHECK(s.error()->path == "parallel.tp");
  CHECK(s.error()->message == "7 does not divide heads 64");
}

TEST_CASE("app: a knob value the others forbid moves them, the chosen one stays", "[app]") {
  AppState s;
  s.load_scenario(rl::web::kDefaultScenario); // 80 layers, tp 8 x pp 8
  s.set_parallel("vpp", 2);                   // 80 / (8 x 2) = 5 layers per chunk: legal
  REQUIRE_FALSE(s.error());
  s.set_parallel("pp", 16); // 80 / (16 x 2) is not whole: vpp 2 no longer fits
  INFO((s.error() ? s.error()->text() : std::string("no error")) + " | " + s.notice());
  REQUIRE_FALSE(s.error());
  REQUIRE(s.estimate());
  CHECK(s.estimate()->layout.pp == 16); // the user's choice stays
  CHECK(80 % (16 * s.estimate()->layout.vpp) == 0);
  CHECK(s.notice().find("vpp 2 ->") != std::string::npos);
}

TEST_CASE("app: the planner's freed knobs travel in the link (free=)", "[app][url]") {
  const auto p = rl::io::split_url("?scenario=a&tab=planner&free=tp,pp");
  CHECK(p.free == "tp,pp");
  CHECK(p.config == "scenario=a");
  CHECK(rl::io::join_url(p) == "scenario=a&tab=planner&free=tp%2Cpp");
  AppState s;
  s.load_from_url("?scenario=llama3-70b-h100-1024&tab=planner-all"); // the older link
  CHECK(s.tab() == "planner");
  CHECK(s.free_knobs() == "all");
  CHECK(s.url_query() == "scenario=llama3-70b-h100-1024&tab=planner&free=all");
  s.set_free_knobs("");
  CHECK(s.url_query() == "scenario=llama3-70b-h100-1024&tab=planner");
}

TEST_CASE("app: a value out of range is marked, never written to the link", "[app][url]") {
  AppState s;
  s.load_scenario(rl::web::kDefaultScenario);
  const std::string before = s.url_query();
  s.set_field("model", "layers", 99999999999); // core/schema/fields.hpp: at most 100,000 layers
  REQUIRE(s.error());
  CHECK(s.error()->path == "model.layers");
  CHECK(s.url_query() == before);
  s.set_field("model", "layers", 40); // legal again: the link follows
  CHECK(s.url_query() == "scenario=llama3-70b-h100-1024&model.layers=40");
}

TEST_CASE("app: an override of a scenario's cluster keeps the scenario's preset as its base",
          "[app][url]") {
  AppState s;
  s.load_scenario(rl::web::kDefaultScenario);
  s.set_field("cluster", "devices", 512);
  CHECK(s.url_query() == "scenario=llama3-70b-h100-1024&cluster.devices=512");
  REQUIRE(s.estimate());
  CHECK(s.estimate()->layout.devices() == 512);
  // A setting put back to its default leaves the link (no "overlap_ep=false").
  s.set_parallel("overlap_ep", true);
  s.set_parallel("overlap_ep", false);
  CHECK(s.url_query() == "scenario=llama3-70b-h100-1024&cluster.devices=512");
  // Numbers read as typed: a request rate of 10 is "10", not "1e1".
  CHECK(rl::io::encode_url_query(json{{"workload", {{"request_rate", 10.0}}}}) ==
        "workload.request_rate=10");
}

TEST_CASE("app: a link that does not evaluate still shows its presets' values", "[app][url]") {
  // Opened cold on a link whose workload lacks a required field (training without a global
  // batch), the model, hardware and cluster rows read their presets
  // (presets/models/llama3-8b.json: 32 layers, hidden 4096), not zeros.
  AppState s;
  s.load_from_url("model=llama3-8b&hardware=h100-sxm&cluster=dgx-h100&workload.mode=train"
                  "&workload.seq_len=4096");
  REQUIRE(s.error());
  CHECK(s.error()->path == "workload.global_batch");
  CHECK(s.field("model", "layers") == json(32));
  CHECK(s.field("model", "hidden") == json(4096));
  CHECK(s.field("cluster", "devices_per_node") == json(8));
}
