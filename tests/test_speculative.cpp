// Speculative decoding (workload.speculative; docs/serving.md "Speculative decoding").
#include "helpers.hpp"

#include "core/io/launch_export.hpp"
#include "core/memory/model_states.hpp"
#include "core/parallel/layout.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"
#include "core/serve/speculative.hpp"

#include <cmath>

using namespace rl;

namespace {
std::string deepseek(const std::string &speculative, int concurrency = 4) {
  return R"({"model": "deepseek-r1", "hardware": "b200",
    "cluster": {"base": "dgx-b200", "devices": 8},
    "workload": {"mode": "serve", "concurrency": )" +
         std::to_string(concurrency) + R"(, "requests_per_client": 10, "count_warmup": true,
      "prompt_len": 922, "gen_len": 922, "precision": "fp8", "weight_dtype": "fp8",
      "kv_dtype": "fp8", "fp8_recipe": "blockwise", "engine": "trtllm")" +
         (speculative.empty() ? "" : R"(, "speculative": )" + speculative) + R"(},
    "parallel": {"tp": 8, "moe_tp": 8}})";
}
} // namespace

TEST_CASE("speculative: tokens kept per iteration by hand", "[speculative]") {
  SpeculativeSpec s;
  s.draft_tokens = 3;
  s.acceptance = {0.6};
  // Leviathan et al. 2023: (1 - a^{k+1}) / (1 - a) = 1 + 0.6 + 0.36 + 0.216
  CHECK(committed_tokens(s) == Approx((1 - std::pow(0.6, 4)) / 0.4));
  CHECK(committed_tokens(s) == Approx(2.176));
  s.acceptance = {0.8, 0.5}; // the last rate carries on: 1 + 0.8 + 0.8 x 0.5 + 0.8 x 0.5 x 0.5
  CHECK(committed_tokens(s) == Approx(2.4));
  s.acceptance = {0};
  CHECK(committed_tokens(s) == 1);
}

TEST_CASE("speculative: a request's decode takes ceil(tokens / kept) iterations", "[speculative]") {
  const auto one = [](const std::string &spec) {
    return test::config((R"({"model": "llama3-8b", "hardware": "h100-sxm",
      "cluster": {"base": "dgx-h100", "devices": 1},
      "workload": {"mode": "serve", "concurrency": 1, "requests_per_client": 1,
        "count_warmup": true, "prompt_len": 512, "gen_len": 1001)" +
                         spec + R"(}, "parallel": {"tp": 1}})")
                            .c_str());
  };
  const ServeResult plain =
      simulate_serving(one(R"(, "speculative": {"method": "eagle", "draft_tokens": 3,
        "acceptance": 0.6})"));
  // the prompt's one chunk of 512 gives the first token; the other 1000 at 2.176 an iteration
  // (floor((n + 1) g) - floor(n g) tokens in iteration n): ceil(1000 / 2.176) = 460
  CHECK(plain.iterations == 1 + 460);
  CHECK(plain.committed_tokens == Approx(2.176));
  const ServeResult base = simulate_serving(one(""));
  CHECK(base.iterations == 1 + 1000);
}

TEST_CASE("speculative: the MTP block's weights and KV beside the model's", "[speculative]") {
  const Config plain = test::config(deepseek("").c_str());
  const Config mtp = test::config(deepseek(R"({"method": "mtp", "draft_tokens": 3})").c_str());
  const Layout l = resolve_layout(plain);
  IterationModel a(plain, l), b(mtp, l);
  // DeepSeek-V3's MTP module: one MLA + MoE block (its 11.5 B parameters) sharing the
  // embedding and the head: one MoE layer on each of the 8 GPUs at 1 B a weight (fp8)
  const double layer = layer_params_per_device(mtp.model, true, 8, 1, 8).total();
  CHECK(b.weight_bytes() - a.weight_bytes() == Approx(layer * 1.0));
  // its KV: one more layer's compressed latent (61 -> 62 layers)
  CHECK(b.kv_bytes_per_token() == Approx(a.kv_bytes_per_token() * 62 / 61));
  // an all-decode iteration: the model verifies 1 + 3 queries a sequence, the draft runs 3 steps
  IterationLoad x;
  x.decode = 8;
  x.decode_context = 8 * 2000;
  x.outputs = 8;
  const IterationTime ta = a.time(x), tb = b.time(x);
  CHECK(ta.draft == 0);
  CHECK(tb.draft > 0);
  CHECK(tb.total > ta.total);
  // the linear layers' FLOPs over 8 x (1 + 3) queries, 4 times the plain iteration's
  CHECK(tb.linear_flops == Approx(4 * ta.linear_flops));
}

TEST_CASE("speculative: the MTP fit against measured pairs it was not fitted alone to",
          "[speculative]") {
  // serving-calibration-b200.csv, TensorRT-LLM 1.2.0rc6 on 8 x B200, DeepSeek-R1 FP8, tp 8 with
  // the experts split by tensor, 1,024 / 1,024 tokens: TPOT 10.30 ms plain and 5.38 ms with MTP
  // (3 draft tokens) at 4 clients (a speed-up of 1.915); 21.50 and 14.20 ms at 64 (1.514). The
  // model's speed-up at the default acceptance (0.64, the median of the 36 pairs' fits):
  // within the pairs' leave-one-out spread (docs/serving.md: median 10.5%, at most 40%).
  const auto speedup = [](int c) {
    const double plain = simulate_serving(test::config(deepseek("", c).c_str())).tpot.mean;
    const double mtp =
        simulate_serving(
            test::config(deepseek(R"({"method": "mtp", "draft_tokens": 3})", c).c_str()))
            .tpot.mean;
    return plain / mtp;
  };
  CHECK(speedup(4) == Approx(1.915).epsilon(0.2));
  CHECK(speedup(64) == Approx(1.514).epsilon(0.3));
  CHECK(default_acceptance(SpecMethod::mtp) == 0.64);
}

TEST_CASE("speculative: bad input names the field", "[speculative]") {
  const auto err = [](const std::string &spec) {
    return test::error_of([&] { test::config(deepseek(spec).c_str()); });
  };
  CHECK(err(R"({"method": "mtp", "draft_tokens": 2, "acceptance": [0.7, 0.6, 0.5]})") ==
        "workload.speculative.acceptance: must be one number or up to draft_tokens (2) numbers "
        "in [0, 1]");
  CHECK(err(R"({"method": "mtp", "acceptance": 1.5})") ==
        "workload.speculative.acceptance: must be a probability in [0, 1]");
  CHECK(err(R"({"method": "eagle"})") ==
        "workload.speculative.acceptance: is required with method eagle (no measured pair sets "
        "its rate; mtp's is fitted)");
  CHECK(err(R"({"method": "draft", "acceptance": 0.7})") ==
        "workload.speculative.draft_model: is required with method draft (a model preset)");
  CHECK(err(R"({"method": "mtp", "draft_model": "llama3-8b"})") ==
        "workload.speculative.draft_model: is the draft of method draft, not of mtp");
  CHECK(err(R"({"method": "mtp", "draft_tokens": 0})")
            .rfind("workload.speculative.draft_tokens", 0) == 0);
}

TEST_CASE("speculative: the engines' launch arguments", "[speculative]") {
  const Config c = test::config(deepseek(R"({"method": "mtp", "draft_tokens": 3})").c_str());
  const Layout l = resolve_layout(c);
  // vllm/config/speculative.py; sglang server_args.py; tensorrt_llm/llmapi/llm_args.py
  CHECK(io::launch_export(c, l, "vllm")
            .find(R"(--speculative-config '{"method":"mtp","num_speculative_tokens":3}')") !=
        std::string::npos);
  const std::string sg = io::launch_export(c, l, "sglang");
  CHECK(sg.find("--speculative-algorithm EAGLE") != std::string::npos);
  CHECK(sg.find("--speculative-num-steps 3 --speculative-eagle-topk 1 "
                "--speculative-num-draft-tokens 4") != std::string::npos);
  CHECK(io::launch_export(c, l, "trtllm")
            .find("speculative_config: {decoding_type: MTP, num_nextn_predict_layers: 3}") !=
        std::string::npos);
}

TEST_CASE("speculative: the serving planner searches the draft tokens", "[speculative]") {
  const Config c = test::config(R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 8},
    "workload": {"mode": "serve", "request_rate": 2, "requests": 200, "prompt_len": 512,
      "gen_len": 256, "slo": {"ttft": 2, "tpot": 0.03},
      "speculative": {"method": "eagle", "draft_tokens": 2, "acceptance": 0.7}},
    "parallel": {"tp": 1}})");
  ServePlanOptions o;
  o.top = 3;
  const ServePlanResult r = plan_serving(std::vector<Config>{c}, o);
  CHECK(r.speculative);
  REQUIRE(!r.deployments.empty());
  for (const Deployment &d : r.deployments) {
    CHECK(d.draft_tokens >= 0);
    CHECK(d.draft_tokens <= 4);
    CHECK(d.config.workload.serve.speculative.has_value() == (d.draft_tokens > 0));
  }
}
