// The layout's knobs, once (core/parallel/knobs): what pins each, what freeing it resets, and
// the planner's list of free knobs read from the same table.
#include "helpers.hpp"

#include "core/parallel/knobs.hpp"
#include "core/planner/planner.hpp"

#include <set>

using namespace rl;
using nlohmann::json;

namespace {
// A valid value of each optional parallel key, for parse_parallel.
json valid_value(const std::string &key) {
  if (key == "sp" || key == "uneven_pp" || key == "recompute_norm" || key == "recompute_mla_up" ||
      key == "recompute_moe_act")
    return true;
  if (key == "cp_kind")
    return "usp";
  if (key == "order")
    return "tp-cp-dp-pp";
  if (key == "recompute")
    return "full";
  if (key == "pp_schedule")
    return "1f1b";
  return 2;
}
} // namespace

TEST_CASE("knobs: every key a knob pins or frees is a parallel key the parser reads", "[knobs]") {
  std::set<std::string> names;
  for (const KnobInfo &k : knobs()) {
    CHECK(names.insert(k.name).second);
    CHECK(knob_named(k.name) == &k);
    REQUIRE(!k.pins.empty());
    for (const auto *list : {&k.pins, &k.frees})
      for (const char *key : *list) {
        INFO(std::string(k.name) + ": " + key);
        const ParallelSpec p = io::parse_parallel(json{{key, valid_value(key)}}, "parallel");
        CHECK(parallel_has(p, key));
        ParallelSpec q = p;
        free_knob(k, q);
        // freeing a knob resets every key it lists
        if (list == &k.frees)
          CHECK_FALSE(parallel_has(q, key));
      }
    // a knob frees the keys that pin it (else a freed knob would stay pinned)
    for (const char *key : k.pins)
      CHECK(std::find_if(k.frees.begin(), k.frees.end(),
                         [&](const char *f) { return std::string(f) == key; }) != k.frees.end());
  }
}

TEST_CASE("knobs: the coupling rules (dp, SP, the schedule and the stage split follow)",
          "[knobs]") {
  const ParallelSpec all = io::parse_parallel(
      json::parse(R"({"tp": 8, "sp": true, "dp": 16, "pp": 4, "pp_schedule": "interleaved",
                      "vpp": 2, "first_stage_layers": 7, "cp": 2, "cp_kind": "usp",
                      "ulysses": 2})"),
      "parallel");
  ParallelSpec p = all;
  free_knob(*knob_named("tp"), p); // Megatron-SP follows tp, dp = devices / (tp pp cp)
  CHECK((!p.tp && !p.sp && !p.dp && p.pp && p.cp));
  p = all;
  free_knob(*knob_named("pp"), p); // the schedule and the stage split follow pp
  CHECK((!p.pp && !p.pp_schedule && !p.first_stage_layers && !p.dp && p.vpp && p.tp));
  p = all;
  free_knob(*knob_named("vpp"), p);
  CHECK((!p.vpp && !p.pp_schedule && p.pp && p.dp));
  p = all;
  free_knob(*knob_named("cp_kind"), p); // the Ulysses degree is the USP kind's
  CHECK((!p.cp_kind && !p.ulysses && p.cp && p.dp));
  // the stage split is pinned by any one of its three keys
  const KnobInfo &split = *knob_named("stage split");
  CHECK(knob_pinned(split, io::parse_parallel(json{{"uneven_pp", true}}, "parallel")));
  CHECK(knob_pinned(split, io::parse_parallel(json{{"last_stage_layers", 7}}, "parallel")));
  CHECK_FALSE(knob_pinned(split, io::parse_parallel(json{{"pp", 4}}, "parallel")));
}

TEST_CASE("knobs: the planner reports as free exactly the applicable knobs left unpinned",
          "[knobs]") {
  Config c = test::config(R"({"scenario": "llama3-70b-h100-1024"})");
  c.parallel = io::parse_parallel(json{{"tp", 8}, {"pp", 4}, {"zero", 1}}, "parallel");
  PlanOptions o;
  o.top = 1;
  o.budget = 2000;
  const PlanResult r = plan(c, o);
  // dense training: every knob but ep (MoE only) and dp (derived); tp, pp, ZeRO pinned
  CHECK(r.free_knobs == std::vector<std::string>{"stage split", "vpp", "cp", "cp_kind",
                                                 "microbatch", "recompute", "order"});
  c.workload = io::parse_workload(
      json{{"mode", "infer"}, {"batch", 8}, {"prompt_len", 2048}, {"gen_len", 128}}, "workload");
  c.parallel = ParallelSpec{};
  // inference: vpp, ZeRO, micro-batch and recompute do not apply
  CHECK(plan(c, o).free_knobs ==
        std::vector<std::string>{"tp", "pp", "stage split", "cp", "cp_kind", "order"});
}

TEST_CASE("knobs: free_knobs frees what `plan --free` names, and a preset then searches",
          "[knobs]") {
  const Config preset = test::config(R"({"scenario": "llama3-70b-h100-1024"})");
  Config c = preset;
  // dense training: every knob but ep (MoE only) and dp (derived) is freed by "all"
  std::vector<std::string> names;
  for (const KnobInfo *k : free_knobs(c, "all"))
    names.push_back(k->name);
  CHECK(names == std::vector<std::string>{"tp", "pp", "stage split", "vpp", "cp", "cp_kind", "zero",
                                          "microbatch", "recompute", "order"});
  // the preset pins tp 8, pp 8, sp: all three (and dp, which follows tp) are reset
  CHECK((!c.parallel.tp && !c.parallel.pp && !c.parallel.sp && !c.parallel.dp));
  CHECK(c.parallel.flash_attention == preset.parallel.flash_attention); // not a knob
  PlanOptions o;
  o.top = 1;
  // the preset as pinned enumerates 2 layouts (stage split x order); freed, thousands
  CHECK(plan(preset, o).candidates == 2);
  CHECK(plan(c, o).candidates > 1000);
  // a list: tp alone frees tp, Megatron-SP and dp; pp stays 8; ep on a dense model is skipped
  Config t = preset;
  CHECK(free_knobs(t, "tp,ep").size() == 1);
  CHECK((!t.parallel.tp && !t.parallel.sp && t.parallel.pp == 8));
  CHECK(test::error_of([&] { free_knobs(t, "tp,bogus"); }) ==
        "--free: \"bogus\" is not a knob (all, tp, pp, stage split, vpp, cp, cp_kind, ep, moe_tp, "
        "zero, microbatch, recompute, order, dp)");
}
