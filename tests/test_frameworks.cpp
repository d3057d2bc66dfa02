// Every answer runs: a layout a framework refuses at start-up is refused here, by the
// framework's own rule (core/parallel/frameworks), and each export carries what the plan
// assumes (precision recipes, rope scaling, attention DP) or says it cannot.
#include "helpers.hpp"

#include "core/io/launch_export.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/parallel/frameworks.hpp"
#include "core/parallel/knobs.hpp"
#include "core/planner/planner.hpp"
#include "core/schema/suggest.hpp"
#include "core/serve/serve_planner.hpp"

#include <map>
#include <sstream>

using namespace rl;
using nlohmann::json;

namespace {
bool has(const std::string &text, const std::string &needle) {
  return text.find(needle) != std::string::npos;
}

Config llama405b(const char *parallel, const char *framework = "any") {
  return test::config((std::string(R"({"model": "llama3-405b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 8192}, "workload": {"mode": "train",
    "global_batch": 2048, "seq_len": 8192, "framework": ")") +
                       framework + R"("}, "parallel": )" + parallel + "}")
                          .c_str());
}
} // namespace

TEST_CASE("frameworks: Megatron-Core's virtual stages divide every stage's layers",
          "[frameworks][layout]") {
  // 126 layers on pp 4 as 31 | 32 | 32 | 31: Megatron-Core refuses vpp 31 ("number of layers
  // at middle stage: 32 must be divisible by virtual pipeline parallel degree 31",
  // megatron/core/transformer/transformer_config.py)
  const char *split31 = R"({"tp": 8, "pp": 4, "vpp": 31, "first_stage_layers": 31,
    "last_stage_layers": 31})";
  const Config bad = llama405b(split31, "megatron");
  CHECK(test::error_of([&] { resolve_layout(bad); }) ==
        "parallel.vpp: vpp 31 does not divide the 32 layers of the middle stage (Megatron-Core "
        "splits each stage into vpp equal virtual stages)");
  // the core alone runs it (uneven virtual stages), and Megatron's export refuses it
  const Config any = llama405b(split31);
  const Layout la = resolve_layout(any);
  CHECK(test::error_of([&] { io::launch_export(any, la, "megatron"); }) ==
        "parallel.vpp: vpp 31 does not divide the 32 layers of the middle stage (Megatron-Core "
        "splits each stage into vpp equal virtual stages) (--format megatron)");
  // 126 = 7 + 14 x 8 + 7 on 16 stages, as Meta ran it with interleaving (Dubey et al. 2024,
  // sec. 3.3.2): 7 and 8 share no divisor but 1, yet Megatron-Core launches it by counting the
  // embedding and the loss as layers (126 + 2 = 16 x 8, 4 a virtual stage, the first and the
  // last one short: megatron/core/transformer/transformer_block.py get_num_layers_to_build)
  const char *meta_split = R"({"tp": 8, "pp": 16, "vpp": 2, "first_stage_layers": 7,
    "last_stage_layers": 7})";
  CHECK_NOTHROW(resolve_layout(llama405b(meta_split)));
  const Config meta = llama405b(meta_split, "megatron");
  const Layout lm = resolve_layout(meta);
  CHECK(megatron_split_flags(126, lm).embedding);
  CHECK(megatron_split_flags(126, lm).loss);
  const std::string ml = io::launch_export(meta, lm, "megatron");
  CHECK(has(ml, "--account-for-embedding-in-pipeline-split"));
  CHECK(has(ml, "--account-for-loss-in-pipeline-split"));
  CHECK(has(ml, "--num-virtual-stages-per-pipeline-rank 2"));
  CHECK_FALSE(has(ml, "--decoder-first-pipeline-num-layers"));
  // a split those flags do not give stays refused: 5 + 14 x 8 + 9
  CHECK(test::error_of([&] {
          resolve_layout(llama405b(R"({"tp": 8, "pp": 16, "vpp": 2, "first_stage_layers": 5,
            "last_stage_layers": 9})",
                                   "megatron"));
        }).rfind("parallel.vpp: vpp 2 does not divide", 0) == 0);
  // 32 | 31 x 2 ... : 128 - 2 x 32 = 62 = 2 x 31 on pp 4 with first and last 32: vpp 2 fails on
  // 31; first/last 30 leave 66 = 2 x 33 (33 % 3 == 0, 30 % 3 == 0): vpp 3 launches
  const Config ok = llama405b(R"({"tp": 8, "pp": 4, "vpp": 3, "first_stage_layers": 30,
    "last_stage_layers": 30})",
                              "megatron");
  const Layout l = resolve_layout(ok);
  CHECK(l.vpp == 3);
  CHECK(check_framework(ok, l, Framework::megatron).ok());
  const std::string mg = io::launch_export(ok, l, "megatron");
  CHECK(has(mg, "--decoder-first-pipeline-num-layers 30"));
  CHECK(has(mg, "--num-virtual-stages-per-pipeline-rank 3"));
}

TEST_CASE("frameworks: DeepSpeed's pipeline engine runs ZeRO 0-1 only; the planner for it "
          "ranks none else",
          "[frameworks][planner]") {
  Config c = io::parse_config(json("llama3-70b-h100-1024"));
  c.parallel.zero = 2;
  const Layout l = resolve_layout(c); // the core runs it (pp 8 with ZeRO-2) ...
  const LayoutCheck k = check_framework(c, l, Framework::deepspeed);
  // ... DeepSpeed does not: deepspeed/runtime/pipe/engine.py asserts
  // zero_optimization_stage() < ZeroStageEnum.gradients when the pipeline has stages
  CHECK(k.path == "parallel.zero");
  CHECK(test::error_of([&] { io::launch_export(c, l, "deepspeed"); }) ==
        "parallel.zero: DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 with pp 8 (ZeRO-2 and "
        "ZeRO-3 are incompatible with pipeline parallelism) (--format deepspeed)");
  CHECK(check_framework(c, l, Framework::megatron).ok());
  CHECK_NOTHROW(io::launch_export(c, l, "megatron"));
  // planned for DeepSpeed: zero and pp free, every plan launches there
  c.parallel.zero.reset();
  c.parallel.pp.reset();
  c.parallel.vpp.reset();
  c.parallel.dp.reset();
  c.workload.framework = Framework::deepspeed;
  PlanOptions o;
  o.top = 20;
  const PlanResult r = plan(c, o);
  REQUIRE_FALSE(r.plans.empty());
  CHECK(r.rejected.count("framework") == 1);
  for (const Plan &p : r.plans) {
    const Layout &pl = p.estimate.layout;
    CHECK((pl.pp == 1 || pl.zero <= 1));
    CHECK_NOTHROW(io::launch_export(c, pl, "deepspeed"));
  }
}

TEST_CASE("frameworks: every plan the planner ranks for Megatron-LM exports to it",
          "[frameworks]") {
  Config c = llama405b(R"({"tp": 8})", "megatron");
  PlanOptions o;
  o.top = 10;
  const PlanResult r = plan(c, o);
  REQUIRE_FALSE(r.plans.empty());
  for (const Plan &p : r.plans) {
    INFO(p.estimate.layout.tp << " x pp " << p.estimate.layout.pp << " vpp "
                              << p.estimate.layout.vpp);
    CHECK(check_framework(c, p.estimate.layout, Framework::megatron).ok());
    CHECK_NOTHROW(io::launch_export(c, p.estimate.layout, "megatron"));
  }
}

TEST_CASE("export: Llama 3.x rope scaling, FP8 recipes in TorchTitan and DeepSpeed",
          "[frameworks][export]") {
  // meta-llama/Llama-3.1-70B config.json: rope_scaling {"rope_type": "llama3", "factor": 8.0}
  const Config c = test::config(R"({"model": "llama3.1-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64}, "workload": {"mode": "train",
    "global_batch": 128, "seq_len": 8192, "precision": "fp8", "fp8_recipe": "tensorwise"},
    "parallel": {"tp": 8, "pp": 1, "zero": 1, "microbatch": 1, "recompute": "none"}})");
  const Layout l = resolve_layout(c);
  CHECK(has(io::launch_export(c, l, "megatron"), "--use-rope-scaling --rope-scaling-factor 8"));
  // Llama 3 8k (meta-llama/Meta-Llama-3-70B): no rope scaling
  const Config l3 = io::parse_config(json("llama3-70b-h100-1024"));
  CHECK(!has(io::launch_export(l3, resolve_layout(l3), "megatron"), "rope-scaling"));
  // TorchTitan: float8 as a model converter (torchtitan/config/job_config.py Quantize)
  const std::string tt = io::launch_export(c, l, "torchtitan");
  CHECK(has(tt, "--model.converters quantize.linear.float8"));
  CHECK(has(tt, "--quantize.linear.float8.recipe_name tensorwise"));
  // DeepSpeed's ds_config has no FP8 section: said, not silently bf16
  CHECK(has(io::launch_export(c, l, "deepspeed"),
            "# note: fp8 training is not expressible in ds_config.json"));
  // a Hugging Face config.json's rope_scaling is read (llama3 type only)
  const ModelSpec m =
      io::parse_model(json::parse(R"({"hf_config": {"model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
        "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0,
        "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
        "rope_type": "llama3"}}})"),
                      "model");
  CHECK(m.rope_scaling == 8.0);
}

TEST_CASE("export: serving engines carry attention DP, and say which checkpoint to load",
          "[frameworks][export]") {
  // DeepSeek-R1 FP4 on 8 B200: two engines of tp 2 x attention DP 2, experts over the 4 GPUs
  const Config c = test::config(R"({"model": "deepseek-r1", "hardware": "b200",
    "cluster": "dgx-b200", "workload": {"mode": "serve", "request_rate": 4, "requests": 100,
    "prompt_len": 1024, "gen_len": 1024, "weight_dtype": "fp4", "kv_dtype": "fp8",
    "precision": "fp4"}, "parallel": {"tp": 2, "attention_dp": 2, "ep": 4}})");
  const Layout l = resolve_layout(c);
  const std::string v = io::launch_export(c, l, "vllm");
  // vllm/engine/arg_utils.py: --data-parallel-size, --enable-expert-parallel
  CHECK(has(v, "--tensor-parallel-size 2"));
  CHECK(has(v, "--data-parallel-size 2"));
  CHECK(has(v, "--enable-expert-parallel"));
  CHECK(has(v, "= 4 devices; run 2 of them")); // 8 / (2 x 2)
  CHECK(has(v, "# note: fp4 weights: \"deepseek-ai/DeepSeek-R1\" is the checkpoint as published; "
               "serve a checkpoint quantized to fp4 in its place"));
  // SGLang (python/sglang/srt/server_args.py): --tp-size counts the engine's GPUs
  const std::string sg = io::launch_export(c, l, "sglang");
  CHECK(has(sg, "--tp-size 4"));
  CHECK(has(sg, "--dp-size 2 --enable-dp-attention"));
  CHECK(has(sg, "--ep-size 4"));
  CHECK(has(sg, "--kv-cache-dtype fp8_e4m3"));
  // TensorRT-LLM (tensorrt_llm/commands/serve.py)
  const std::string tr = io::launch_export(c, l, "trtllm");
  CHECK(has(tr, "trtllm-serve deepseek-ai/DeepSeek-R1"));
  CHECK(has(tr, "--tp_size 4"));
  CHECK(has(tr, "--ep_size 4"));
  CHECK(has(tr, "enable_attention_dp: true"));
}

TEST_CASE("export: a name is never a second line of the launch", "[frameworks][export]") {
  Config c = io::parse_config(json("llama3-70b-h100-serve"));
  c.model.name = "x\ntouch /tmp/pwned\r";
  c.model.hf_id.clear();
  for (const char *f : {"vllm", "sglang", "trtllm"}) {
    const std::string t = io::launch_export(c, resolve_layout(c), f);
    std::istringstream in(t);
    for (std::string line; std::getline(in, line);)
      CHECK(line.rfind("touch", 0) != 0);
    CHECK(t.find('\r') == std::string::npos);
  }
}

TEST_CASE("cluster shape: a deployment rents whole nodes and NVLink domains", "[serve][planner]") {
  ClusterSpec dgx;
  dgx.devices = 8;
  dgx.devices_per_node = 8;
  CHECK(cluster_size_fault(dgx, 12).key == std::string("devices_per_node"));
  CHECK(cluster_size_fault(dgx, 4).ok());
  CHECK(cluster_size_fault(dgx, 16).ok());
  CHECK(whole_node_instances(dgx, 4, 3) == 4);  // 12 GPUs -> 16: two nodes
  CHECK(whole_node_instances(dgx, 4, 2) == 2);  // 8: one node
  CHECK(whole_node_instances(dgx, 12, 1) == 2); // 12 -> 24: three nodes
  ClusterSpec nvl = dgx;
  nvl.devices_per_node = 4;
  nvl.nvlink_domain = 72;
  nvl.devices = 8;
  CHECK(whole_node_instances(nvl, 8, 10) == 10); // 80: 40 GPUs in each of two NVL72 domains
  CHECK(whole_node_instances(nvl, 6, 3) == 4);   // 18 -> 24: whole 4-GPU trays
  CHECK(whole_node_instances(nvl, 8, 9) == 9);   // 72: one domain
}

TEST_CASE("serving planner: every deployment is a configuration that parses and exports",
          "[serve][planner]") {
  // DeepSeek-R1 on B200 at 20 req/s, 1k/1k: the cheapest was 3 replicas of 4 B200 (12 GPUs,
  // "cluster.devices_per_node: 8 does not divide devices 12")
  json c = json::parse(R"({"model": "deepseek-r1", "hardware": "b200", "cluster": "dgx-b200",
    "workload": {"mode": "serve", "request_rate": 20, "requests": 400, "prompt_len": 1024,
    "gen_len": 1024, "weight_dtype": "fp4", "kv_dtype": "fp8", "precision": "fp4",
    "slo": {"ttft": 2.0, "tpot": 0.05, "attainment": 0.9}}, "parallel": {}})");
  ServePlanOptions o;
  o.sim_requests = 150;
  o.verify_requests = 400;
  o.top = 5;
  const ServePlanResult r = plan_serving(io::planner_choices(c), o);
  REQUIRE_FALSE(r.deployments.empty());
  for (const Deployment &d : r.deployments) {
    INFO(d.devices << " devices as " << d.instances << " instances");
    CHECK(cluster_size_fault(d.config.cluster, d.devices).ok());
    const Config back = io::parse_config(io::to_json(d.config));
    CHECK(back.cluster.devices == d.devices);
    CHECK_NOTHROW(io::launch_export(back, resolve_layout(back), "vllm"));
  }
}

TEST_CASE("did you mean: the closest name within a few edits", "[schema]") {
  const std::vector<std::string> names = {"estimate", "plan", "serve", "export"};
  CHECK(schema::did_you_mean("estimte", names) == " (did you mean \"estimate\"?)");
  CHECK(schema::did_you_mean("serv", names) == " (did you mean \"serve\"?)");
  CHECK(schema::did_you_mean("zzzzzz", names).empty());
  CHECK(schema::edit_distance("kitten", "sitting") == 3); // the textbook example
  CHECK_THAT(test::error_of([] { io::parse_config(json("llama3-70b-h100-1024x")); }),
             Catch::Contains("did you mean \"llama3-70b-h100-1024\"?"));
  CHECK(test::error_of([] {
          test::config(R"({"model": "llama3-8b", "hardware": "h100-sxm", "cluster":
            {"base": "dgx-h100", "devices": 8}, "workload": {"mode": "train",
            "global_batch": 8, "seq_len": 2048}, "parallel": {"tq": 2}})");
        }) == "parallel.tq: unknown field (did you mean \"tp\"?)");
}

TEST_CASE("serve: a prompt past the model's context is an error naming the field", "[serve]") {
  // Llama 3 8B: max_position_embeddings 8192 (meta-llama/Meta-Llama-3-8B config.json)
  CHECK(test::error_of([] {
          test::serve_config(R"({"mode": "serve", "request_rate": 1, "requests": 10,
            "prompt_len": 1000000, "gen_len": 10})");
        }) == "workload.prompt_len: 1000000 tokens exceed the model's context 8192 "
              "(model.max_seq)");
  CHECK_NOTHROW(test::serve_config(R"({"mode": "serve", "request_rate": 1, "requests": 10,
    "prompt_len": 8192, "gen_len": 10})"));
}

TEST_CASE("plan on several chips: a device count one chip's nodes do not make skips that chip "
          "only",
          "[planner]") {
  // 6 GPUs: part of one 8-GPU DGX node, but not whole GB200 compute trays of 4; 96 GPUs are
  // 12 DGX nodes, and on NVL72 racks 48 in each of two (a job may hold part of each rack)
  const json c = json::parse(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 64}, "workload": {"mode": "train",
    "global_batch": 192, "seq_len": 4096, "hardware_options": ["h100-sxm", "gb200@gb200-nvl72"],
    "device_options": [6, 96]}})");
  const std::vector<Config> choices = io::planner_choices(c);
  // h100 at 6 and 96, gb200 at 96; gb200 at 6 skipped
  REQUIRE(choices.size() == 3);
  CHECK(choices[2].hardware.name == "gb200");
  CHECK(choices[2].cluster.devices == 96);
  CHECK(choices[2].cluster.nvlink_devices() == 48);
  // only counts no chip takes: an error naming the field
  json bad = c;
  bad["workload"]["hardware_options"] = {"gb200@gb200-nvl72"};
  bad["workload"]["device_options"] = {6};
  CHECK_THAT(test::error_of([&] { io::planner_choices(bad); }),
             Catch::StartsWith("workload.device_options: no hardware runs any of these counts"));
}

TEST_CASE("a one-item list may be given as its item (a link's hardware_options=b200)", "[url]") {
  const json j = io::decode_url_query(
      "scenario=deepseek-r1-b200-serve&workload.hardware_options=b200&workload.engine_options="
      "vllm");
  const Config c = io::parse_config(j);
  CHECK(c.workload.hardware_options == std::vector<std::string>{"b200"});
  CHECK(c.workload.engine_options == std::vector<std::string>{"vllm"});
}

namespace {
// A Megatron-LM launch read back as megatron/training/arguments.py reads it: each flag and its
// values (a flag without values: empty), and the world size torchrun starts.
struct MegatronArgs {
  std::map<std::string, std::vector<std::string>> flags;
  i64 world = 0;
  i64 num(const std::string &f, i64 dflt = 0) const {
    const auto it = flags.find(f);
    return it == flags.end() || it->second.empty() ? dflt : std::stoll(it->second[0]);
  }
  bool has(const std::string &f) const { return flags.count(f) > 0; }
};

MegatronArgs read_megatron(const std::string &text) {
  MegatronArgs a;
  std::istringstream in(text);
  std::string word, last;
  i64 nproc = 0, nnodes = 0;
  bool args = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0)
      continue;
    std::istringstream words(line);
    while (words >> word) {
      if (word == "\\")
        continue;
      if (word == "pretrain_gpt.py") {
        args = true;
        continue;
      }
      if (!args) {
        if (last == "--nproc_per_node")
          nproc = std::stoll(word);
        if (last == "--nnodes")
          nnodes = std::stoll(word);
        last = word;
        continue;
      }
      if (word.rfind("--", 0) == 0) {
        REQUIRE(a.flags.count(word) == 0); // each flag once
        a.flags[word];
        last = word;
      } else {
        a.flags[last].push_back(word);
      }
    }
  }
  a.world = nproc * nnodes;
  return a;
}
} // namespace

TEST_CASE("frameworks: Megatron-Bridge's Qwen3-235B-A22B split exports as its recipe writes it",
          "[frameworks][export]") {
  // 94 layers + embedding + loss over pp 8 x vpp 3 (Megatron-Bridge 25.11 on 256 GB200, its
  // recipe's account_for_embedding/loss_in_pipeline_split): 11 layers on the first and last
  // stage, 12 on the others
  const Config c = io::parse_config(json::parse(R"({"model": "qwen3-235b-a22b",
    "hardware": "gb200", "cluster": {"base": "gb200-nvl72", "devices": 256},
    "workload": {"mode": "train", "global_batch": 8192, "seq_len": 4096,
    "framework": "megatron"}, "parallel": {"tp": 1, "pp": 8, "vpp": 3, "ep": 32,
    "microbatch": 1, "first_stage_layers": 11, "last_stage_layers": 11}})"));
  const Layout l = resolve_layout(c);
  const MegatronArgs a = read_megatron(io::launch_export(c, l, "megatron"));
  CHECK(a.has("--account-for-embedding-in-pipeline-split"));
  CHECK(a.has("--account-for-loss-in-pipeline-split"));
  CHECK(a.num("--num-virtual-stages-per-pipeline-rank") == 3);
  CHECK(a.num("--pipeline-model-parallel-size") == 8);
  CHECK(a.world == 256);
  // (94 + 2) / 8 = 12 a rank, 4 a virtual stage: the split the flags give is the configured one
  CHECK(l.first_layers == (94 + 2) / 8 - 1);
  CHECK(l.last_layers == (94 + 2) / 8 - 1);
  // one flag: the embedding alone (95 = 5 x 19 on pp 5, vpp 1: 18 on the first stage)
  Layout one;
  one.pp = 5;
  one.vpp = 1;
  one.first_layers = 18;
  CHECK(megatron_split_flags(94, one).embedding);
  CHECK_FALSE(megatron_split_flags(94, one).loss);
  one.first_layers = 17;
  CHECK_FALSE(megatron_split_flags(94, one).any());
}

TEST_CASE("frameworks: the top plans of dense, MoE and FP8 runs pass Megatron-LM's argument "
          "checks",
          "[frameworks][export]") {
  // megatron/training/arguments.py validate_args (and TransformerConfig): the world is
  // dp x tp x pp x cp; the global batch a multiple of micro-batch x dp; heads and query groups
  // divisible by tp; layers split evenly over pp (or by the first/last stage counts) and each
  // stage's layers by the virtual stages; experts divisible by the expert-parallel size.
  const char *cases[] = {
      R"({"scenario": "llama3-70b-h100-1024", "workload": {"framework": "megatron"}})",
      R"({"scenario": "mixtral-8x7b-h100", "workload": {"framework": "megatron"}})",
      R"({"model": "llama3-405b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
        "devices": 8192}, "workload": {"mode": "train", "global_batch": 2048, "seq_len": 8192,
        "precision": "fp8", "fp8_recipe": "tensorwise", "framework": "megatron"},
        "parallel": {"tp": 8}})"};
  for (const char *text : cases) {
    Config c = io::parse_config(json::parse(text));
    free_knobs(c, "all");
    PlanOptions o;
    o.top = 3;
    const PlanResult r = plan(c, o);
    REQUIRE_FALSE(r.plans.empty());
    for (const Plan &p : r.plans) {
      const MegatronArgs a = read_megatron(io::launch_export(c, p.estimate.layout, "megatron"));
      INFO(text << "\nplan " << p.estimate.layout.tp << " x " << p.estimate.layout.pp);
      const i64 L = a.num("--num-layers"), tp = a.num("--tensor-model-parallel-size", 1),
                pp = a.num("--pipeline-model-parallel-size", 1),
                cp = a.num("--context-parallel-size", 1);
      REQUIRE(a.world % (tp * pp * cp) == 0);
      const i64 dp = a.world / (tp * pp * cp);
      CHECK(a.num("--global-batch-size") % (a.num("--micro-batch-size") * dp) == 0);
      CHECK(a.num("--num-attention-heads") % tp == 0);
      if (a.has("--num-query-groups"))
        CHECK(a.num("--num-query-groups") % tp == 0);
      const i64 first = a.num("--decoder-first-pipeline-num-layers"),
                last = a.num("--decoder-last-pipeline-num-layers");
      const i64 v = a.has("--num-virtual-stages-per-pipeline-rank")
                        ? a.num("--num-virtual-stages-per-pipeline-rank")
                    : a.has("--num-layers-per-virtual-pipeline-stage")
                        ? L / pp / a.num("--num-layers-per-virtual-pipeline-stage")
                        : 1;
      if (first == 0 && last == 0) {
        // the embedding and the loss count as layers when their flags are given
        const i64 n = L + a.has("--account-for-embedding-in-pipeline-split") +
                      a.has("--account-for-loss-in-pipeline-split");
        CHECK(n % pp == 0);
        CHECK((n / pp) % v == 0);
      } else {
        const i64 middle = pp - (first > 0) - (last > 0);
        const i64 rest = L - first - last;
        REQUIRE(middle > 0);
        CHECK(rest % middle == 0);
        for (const i64 n : {first, last, rest / middle})
          CHECK((n == 0 || n % v == 0));
      }
      if (a.has("--num-experts")) {
        // megatron/core/parallel_state.py: the experts' groups tile tp x cp x dp as
        // expert-tensor x expert-model x expert-data parallelism
        const i64 ep = a.num("--expert-model-parallel-size", 1);
        const i64 etp = a.num("--expert-tensor-parallel-size", tp);
        CHECK(a.num("--num-experts") % ep == 0);
        CHECK((tp * cp * dp) % (etp * ep) == 0);
      }
    }
  }
}

TEST_CASE("frameworks: a training layout names a training framework", "[frameworks][config]") {
  CHECK(test::error_of([] {
          test::config(R"({"scenario": "llama3-70b-h100-1024",
            "workload": {"framework": "vllm"}})");
        }) == "workload.framework: vllm is a serving engine; a training layout launches on "
              "megatron, deepspeed, torchtitan or torchtune (or any)");
  CHECK(test::config(R"({"scenario": "llama3-70b-h100-1024",
    "workload": {"framework": "deepspeed"}})")
            .workload.framework == Framework::deepspeed);
}
