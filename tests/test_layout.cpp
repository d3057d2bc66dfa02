// Legality of a parallel layout: each failure names the field and the numbers.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/parallel/layout.hpp"
#include "core/schema/fields.hpp"

#include <string>

using namespace rl;

namespace {
std::string layout_error(const std::string &parallel,
                         const char *cluster = "{\"base\": \"dgx-h100\", \"devices\": 64}",
                         const char *model = "\"llama3-70b\"") {
  const std::string text =
      std::string("{\"model\": ") + model +
      ", \"hardware\": \"h100-sxm\", \"cluster\": " + cluster +
      ", \"workload\": {\"mode\": \"train\", \"global_batch\": 64, \"seq_len\": 4096}, "
      "\"parallel\": " +
      parallel + "}";
  return test::error_of([&] { resolve_layout(test::config(text.c_str())); });
}
} // namespace

TEST_CASE("Layout errors name the field and the numbers", "[layout]") {
  // divisibility rules come before the device product: tp 7 is named against the heads
  CHECK(layout_error(R"({"tp": 7})") == "parallel.tp: 7 does not divide heads 64");
  // pp 5 divides 80 layers, but 8 x 5 = 40 does not divide 64 devices
  CHECK(layout_error(R"({"tp": 8, "pp": 5})") ==
        "parallel: tp 8 x pp 5 x cp 1 = 40 does not divide devices 64");
  CHECK(layout_error(R"({"tp": 16, "dp": 4})") == "");
  CHECK(layout_error(R"({"tp": 3, "dp": 1, "pp": 1, "cp": 1})",
                     R"({"base": "dgx-h100", "devices": 3})") ==
        "parallel.tp: 3 does not divide heads 64");
  CHECK(layout_error(R"({"dp": 4, "tp": 8})") ==
        "parallel.dp: dp 4 x tp 8 x pp 1 x cp 1 = 32 != devices 64");
  CHECK(layout_error(R"({"tp": 8, "pp": 8, "vpp": 3})") ==
        "parallel.vpp: pp 8 x vpp 3 does not divide layers 80 (set parallel.uneven_pp to allow "
        "uneven stages)");
  CHECK(layout_error(R"({"tp": 8, "pp": 8, "vpp": 3, "uneven_pp": true})") == "");
  CHECK(layout_error(R"({"tp": 1, "pp": 64})") ==
        "parallel.pp: pp 64 x vpp 1 does not divide layers 80 (set parallel.uneven_pp to allow "
        "uneven stages)");
  CHECK(layout_error(R"({"cp": 64, "cp_kind": "ulysses"})") == "");         // 64 heads / 64
  CHECK(layout_error(R"({"tp": 8, "cp": 8, "cp_kind": "ulysses"})") == ""); // 8 x 8 = 64 heads
  CHECK(layout_error(R"({"tp": 4, "cp": 16, "cp_kind": "ring"})") == "");
  CHECK(layout_error(R"({"tp": 2, "cp": 32, "cp_kind": "usp", "ulysses": 64})") ==
        "parallel.ulysses: 64 does not divide cp 32");
  CHECK(layout_error(R"({"ep": 2})") == "parallel.ep: is 2 but the model has no experts");
  CHECK(layout_error(R"({"tp": 1, "microbatch": 3})") ==
        "parallel.microbatch: dp 64 x microbatch 3 = 192 does not divide global_batch 64");
  CHECK(layout_error(R"({"ep": 3})", R"({"base": "dgx-h100", "devices": 64})",
                     "\"mixtral-8x7b\"") == "parallel.ep: 3 does not divide experts 8");
  CHECK(layout_error(R"({"tp": 8, "pp": 8, "vpp": 2})") == "");
  CHECK(layout_error(R"({"tp": 8, "pp": 8, "vpp": 2, "microbatch": 16})") ==
        "parallel.microbatch: interleaving needs micro-batches 4 to be a multiple of pp 8");
  CHECK(layout_error(R"({"tp": 8, "pp": 8, "vpp": 2, "pp_schedule": "1f1b"})") ==
        "parallel.pp_schedule: vpp 2 needs the interleaved schedule");
}

TEST_CASE("Ulysses and TP share the heads", "[layout]") {
  const ModelSpec m = test::model("llama2-13b"); // 40 heads
  CHECK(layout_error(R"({"tp": 8, "cp": 8, "cp_kind": "ulysses"})",
                     R"({"base": "dgx-h100", "devices": 64})",
                     "\"llama2-13b\"") == "parallel.cp: Ulysses 8 x tp 8 does not divide heads 40");
  CHECK(m.heads == 40);
}

TEST_CASE("Defaults fill every free knob", "[layout]") {
  const Config c = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 256, "seq_len": 4096},
    "parallel": {"tp": 8}})");
  const Layout l = resolve_layout(c);
  CHECK(l.dp == 8);
  CHECK(l.pp == 1);
  CHECK(l.sp);
  CHECK(l.zero == 0);
  CHECK(l.num_micro == 32);
  CHECK(l.schedule == PpSchedule::one_f_one_b);
}

TEST_CASE("KV heads: split when tp divides them, one replicated head when tp exceeds them",
          "[layout]") {
  const ModelSpec m = test::model("llama3-70b");
  CHECK(kv_heads_per_rank(m, 4) == 2);
  CHECK(kv_heads_per_rank(m, 8) == 1);
  CHECK(kv_heads_per_rank(m, 16) == 1);
  CHECK(stage_layer_counts(10, 4) == std::vector<i64>{3, 3, 2, 2});
}

TEST_CASE("knob_error judges one knob with resolve_layout's own words", "[layout]") {
  const Config c = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 8, "dp": 8}})");
  CHECK(knob_error(c, "tp", 4) == ""); // dp re-derives to 16
  // the model's own rule first: 64 heads, 80 layers (LLaMA-3 70B config.json)
  CHECK(knob_error(c, "tp", 3) == "3 does not divide heads 64");
  CHECK(knob_error(c, "pp", 3) ==
        "pp 3 x vpp 1 does not divide layers 80 (set parallel.uneven_pp to allow uneven stages)");
  // pp 5 divides 80 layers; tp 8 x pp 5 = 40 does not divide 64 devices
  CHECK(knob_error(c, "pp", 5) == "tp 8 x pp 5 x cp 1 = 40 does not divide devices 64");
  CHECK(knob_error(c, "microbatch", 16) ==
        "dp 8 x microbatch 16 = 128 does not divide global_batch 64");
  CHECK(knob_error(c, "ep", 2) == "is 2 but the model has no experts");
}

TEST_CASE("layout JSON: every knob under its parallel.* key, and it resolves back to the layout",
          "[layout][schema]") {
  // Training with interleaving, USP context parallelism and a stage split; a serving MoE
  // instance with attention DP and the experts' own TP.
  const char *cases[][2] = {
      {R"({"model": "llama3-70b", "hardware": "h100-sxm", "cluster": "dgx-h100-1024",
           "workload": {"mode": "train", "global_batch": 512, "seq_len": 8192}})",
       R"({"tp": 4, "pp": 4, "vpp": 5, "cp": 4, "cp_kind": "usp", "ulysses": 2, "zero": 1,
           "microbatch": 2, "recompute": "selective", "first_stage_layers": 18,
           "last_stage_layers": 18, "overlap_tp": true, "order": "tp-cp-pp-dp"})"},
      {R"({"model": "deepseek-r1", "hardware": "b200", "cluster": "dgx-b200",
           "workload": {"mode": "serve", "request_rate": 1, "prompt_len": 1024,
           "gen_len": 64, "weight_dtype": "fp8"}})",
       R"({"tp": 2, "attention_dp": 4, "ep": 4, "moe_tp": 2})"}};
  for (const auto &cs : cases) {
    nlohmann::json c = nlohmann::json::parse(cs[0]);
    c["parallel"] = nlohmann::json::parse(cs[1]);
    const Config k = io::parse_config(c);
    const Layout l = resolve_layout(k);
    nlohmann::json j = io::to_json(l);
    CHECK(j.at("num_microbatches") == l.num_micro); // derived, not a knob
    j.erase("num_microbatches");
    for (const auto &[key, v] : j.items()) {
      INFO(key);
      CHECK(schema::parallel_field(key) != nullptr);
    }
    // every knob the configuration set is written, at the resolved value
    for (const auto &[key, v] : c["parallel"].items()) {
      INFO(key);
      CHECK(j.contains(key));
    }
    CHECK(j.at("ulysses") == l.ulysses);
    if (l.cp_kind != CpKind::usp)
      j.erase("ulysses");       // reported as 1; a configuration sets it only with usp
    j["order"] = "tp-cp-pp-dp"; // the configuration's spelling of the axis order
    if (l.order == Layout{}.order)
      j.erase("order");
    Config back = k;
    back.parallel = io::parse_parallel(j, "parallel");
    CHECK(io::to_json(resolve_layout(back)) == io::to_json(l));
  }
}
