// Serving simulation and planner: closed forms, Little's law, KV capacity, KV sharding,
// static-batch accounting and a brute-force check of the planner.
#include "helpers.hpp"

#include "core/estimate/estimate.hpp"
#include "core/inference/serving.hpp"
#include "core/io/serve_json.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/serve_planner.hpp"
#include "core/serve/simulate.hpp"

#include <cmath>

using namespace rl;
using nlohmann::json;

using test::serve_config;

TEST_CASE("Percentiles are nearest-rank", "[serve]") {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i);
  const Percentiles p = percentiles(v);
  CHECK(p.mean == Approx(50.5));
  CHECK(p.p50 == 50); // ceil(0.5 x 100) = 50th smallest
  CHECK(p.p90 == 90);
  CHECK(p.p99 == 99);
}

TEST_CASE("One request: the simulation equals the closed form", "[serve]") {
  // prompt 1000 in chunks of 512 (512 + 488), then 9 decode steps at contexts 1000..1008
  const Config c = serve_config(R"({"mode": "serve", "trace": [[0.5, 1000, 10]],
    "scheduler": {"chunk": 512, "max_tokens": 4096}})");
  const Layout l = resolve_layout(c);
  IterationModel m(c, l);
  IterationLoad a;
  a.prefill = 512;
  a.prefill_pairs = 512 * 256.0;
  a.prefill_kv = 512;
  IterationLoad b;
  b.prefill = 488;
  b.prefill_pairs = 488 * (512 + 244.0);
  b.prefill_kv = 1000;
  b.outputs = 1;
  const double ttft = m.time(a).total + m.time(b).total;
  double decode = 0;
  for (int i = 0; i < 9; ++i) {
    IterationLoad d;
    d.decode = 1;
    d.decode_context = 1000 + i;
    d.outputs = 1;
    decode += m.time(d).total;
  }
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 1);
  CHECK(r.ttft.p50 == Approx(ttft).epsilon(1e-12));
  CHECK(r.tpot.p50 == Approx(decode / 9).epsilon(1e-12));
  CHECK(r.e2e.p50 == Approx(ttft + decode).epsilon(1e-12));
  CHECK(r.iterations == 11);
}

TEST_CASE("Little's law on a simulated steady state", "[serve]") {
  // L = lambda x W: the time-average number in the system (integrated by the simulator)
  // against the completion rate times the mean time in the system
  const Config c = serve_config(R"({"mode": "serve", "request_rate": 6, "requests": 4000,
    "prompt_len": 1024, "gen_len": 128, "length_dist": "exponential"})");
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 4000);
  CHECK(r.mean_in_system == Approx(r.requests_per_s * r.e2e.mean).epsilon(0.01));
  // and the arrival rate is what was asked (Poisson: 4000 arrivals, within 5%)
  CHECK(r.requests_per_s == Approx(6).epsilon(0.05));
}

TEST_CASE("Continuous batching never exceeds the KV capacity, preemption recovers", "[serve]") {
  // A small KV share forces preemption: 8B weights ~8 GB per chip of 80 GB at 0.115
  const Config c = serve_config(R"({"mode": "serve", "request_rate": 50, "requests": 600,
    "prompt_len": 2048, "gen_len": 512, "length_dist": "uniform",
    "scheduler": {"memory_fraction": 0.115, "max_batch": 256}})");
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.memory.kv_blocks > 0);
  CHECK(r.peak_kv_blocks <= r.memory.kv_blocks);
  CHECK(r.preemptions > 0);
  CHECK(r.completed + r.dropped == 600);
  // blocks of 16 tokens: 16 x 128 KB per token (8 KV heads x 128 x 2 x 2 B x 32 layers / tp 2)
  CHECK(r.memory.kv_tokens == Approx(static_cast<double>(r.memory.kv_blocks) * 16).margin(16));
}

TEST_CASE("KV heads beyond TP are replicated by default, How to Scale Your Model's batch split is "
          "an option",
          "[serve][inference]") {
  // LLaMA-3 70B has 8 KV heads; at TP 16 vLLM/TensorRT-LLM keep one whole head per rank
  // (2 ranks per head), How to Scale Your Model's batch split keeps 1/16 of the KV per chip: 2x
  // less.
  const ModelSpec m = test::model("llama3-70b");
  Layout l;
  l.tp = 16;
  const double rep = kv_per_chip(m, l, 32, 8192, 80, Dtype::bf16, KvSharding::replicate);
  const double split = kv_per_chip(m, l, 32, 8192, 80, Dtype::bf16, KvSharding::batch);
  CHECK(rep == Approx(2 * split));
  // 32 x 8192 tokens x 320 KB / 8 heads: one head's share per chip
  CHECK(rep == Approx(32.0 * 8192 * 80 * 2 * 8 * 128 * 2 / 8));
  l.tp = 8; // up to the KV heads both agree: 1/8
  CHECK(kv_per_chip(m, l, 32, 8192, 80, Dtype::bf16, KvSharding::replicate) ==
        Approx(32.0 * 8192 * 80 * 2 * 8 * 128 * 2 / 8));
  CHECK(kv_share(m, 16, KvSharding::replicate) == Approx(1.0 / 8));
  CHECK(kv_share(m, 16, KvSharding::batch) == Approx(1.0 / 16));
}

TEST_CASE("Inference uses the serving iteration model, roofline keeps the textbook bound",
          "[serve][inference]") {
  auto cfg = [](const char *bound) {
    return io::parse_config(json::parse(std::string(R"({"model": "llama3-70b",
      "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 8},
      "workload": {"mode": "infer", "batch": 16, "prompt_len": 2048, "gen_len": 256,
      "bound": ")") + bound + R"("}, "parallel": {"tp": 8}})"));
  };
  const Config a = cfg("achievable"), r = cfg("roofline");
  const Layout l = resolve_layout(a);
  const DecodeStep da = estimate(a).serving.decode, dr = estimate(r).serving.decode;
  // achievable: one decode iteration of 16 sequences at the mean context 2048 + 128
  IterationModel m(a, l);
  IterationLoad x;
  x.decode = 16;
  x.decode_context = 16 * 2176.0;
  x.outputs = 16;
  const IterationTime it = m.time(x);
  CHECK(da.step == Approx(it.total));
  CHECK(da.kv_time == Approx(it.attention));
  // the KV read runs at hbm_efficiency of the datasheet bandwidth (bandwidth-bound at B=16)
  CHECK(da.kv_time == Approx(dr.kv_time / a.hardware.hbm_efficiency));
  // roofline: the textbook decode bound, kv + max(weights, FLOPs) + collectives
  CHECK(dr.step == Approx(dr.kv_time + std::max(dr.weight_time, dr.compute_time) + dr.comm_time));
  // TTFT: the prompt as one iteration of the same model
  IterationLoad p;
  p.prefill = 2048;
  p.prefill_pairs = 2048.0 * 2048 / 2;
  p.prefill_kv = 2048;
  p.outputs = 1;
  CHECK(estimate(a).serving.ttft == Approx(m.time(p).total));
}

TEST_CASE("Static batching counts every prompt's prefill", "[serve][inference]") {
  // LLaMA-3 70B FP8 on 4 H100 (TP 4), 512 requests of 2048 in / 256 out: the batch's wall
  // time is 512 prefills plus 256 decode steps, not one prefill
  const Config c = io::parse_config(json::parse(R"({"model": "llama3-70b",
    "hardware": "h100-sxm", "cluster": {"base": "dgx-h100", "devices": 4},
    "workload": {"mode": "infer", "batch": 512, "prompt_len": 2048, "gen_len": 256,
    "weight_dtype": "fp8", "kv_dtype": "fp8", "precision": "fp8"}, "parallel": {"tp": 4}})"));
  const ServingEstimate s = estimate(c).serving;
  CHECK(s.batch_prefill == Approx(512 * s.prefill.time));
  CHECK(s.batch_time == Approx(512 * s.prefill.time + 256 * s.tpot));
  CHECK(s.batch_tokens_per_s == Approx(512.0 * 256 / s.batch_time));
  // the prefill of the other 511 prompts dominates: throughput is several times below the
  // decode-only rate
  CHECK(s.batch_tokens_per_s < s.decode.tokens_per_s / 4);
}

TEST_CASE("Disaggregated: TTFT from the prefill pool, KV shipped over the network", "[serve]") {
  const Config c = serve_config(R"({"mode": "serve", "trace": [[0, 4096, 8]],
    "scheduler": {"prefill_instances": 1, "chunk": 8192, "max_tokens": 8192}})",
                                R"({"tp": 2})", R"({"base": "dgx-h100", "devices": 4})");
  const Layout l = resolve_layout(c);
  IterationModel m(c, l);
  IterationLoad p;
  p.prefill = 4096;
  p.prefill_pairs = 4096 * 2048.0;
  p.prefill_kv = 4096;
  p.outputs = 1;
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 1);
  CHECK(r.prefill_instances == 1);
  CHECK(r.decode_instances == 1);
  CHECK(r.ttft.p50 == Approx(m.time(p).total).epsilon(1e-12));
  // 4096 tokens x 128 KiB (32 layers x 8 heads x 128 x 2 x 2 B) over 2 NICs of the instance
  const double bytes = 4096.0 * 32 * 8 * 128 * 2 * 2;
  CHECK(r.kv_transfer ==
        Approx(c.cluster.inter_node.latency + bytes / (2 * c.cluster.inter_node.rate())));
}

TEST_CASE("Serve configuration errors name the field", "[serve]") {
  CHECK(test::error_of([] {
          serve_config(R"({"mode": "serve", "trace": [[1, 10, 10], [0.5, 10, 10]]})");
        }).rfind("workload.trace[1]: arrival 0.5 s is before the previous one", 0) == 0);
  CHECK(test::error_of([] {
          serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 10})");
        }) == "workload.gen_len: is required");
  CHECK(test::error_of([] {
          serve_config(R"({"mode": "serve", "request_rate": 1, "prompt_len": 10,
            "gen_len": 5, "hardware_options": ["h100-sxm", "tpu-v9"]})");
        }).rfind("workload.hardware_options[1]: \"tpu-v9\" is not a hardware preset", 0) == 0);
  CHECK(test::error_of([] {
          simulate_serving(serve_config(R"({"mode": "serve", "request_rate": 1,
            "prompt_len": 10, "gen_len": 5, "scheduler": {"prefill_instances": 1}})"));
        }).rfind("workload.scheduler.prefill_instances: 1 leaves no decode instance", 0) == 0);
}

TEST_CASE("The serving planner's choice is brute-force optimal on a small space", "[serve]") {
  // tp and pp pinned: the planner searches max batch {64, 256} x chunk {512, 2048} x
  // aggregated/disaggregated and the instance counts; brute force scans every count.
  const Config c = serve_config(R"({"mode": "serve", "request_rate": 12, "requests": 300,
    "prompt_len": 1024, "gen_len": 64, "slo": {"ttft": 0.3, "tpot": 0.02}})",
                                R"({"tp": 1, "pp": 1})");
  ServePlanOptions o;
  o.sim_requests = 300;
  const ServePlanResult r = plan_serving({c}, o);
  REQUIRE_FALSE(r.deployments.empty());
  i64 best = -1;
  for (const i64 mb : {64, 256})
    for (const i64 ch : {512, 2048})
      for (const bool disagg : {false, true}) {
        Config k = c;
        k.workload.serve.max_batch = mb;
        k.workload.serve.chunk = ch;
        k.workload.serve.max_tokens = std::max<i64>(8192, mb + ch);
        k.cluster.devices = 1;
        k.parallel.tp = 1;
        const Layout l = resolve_layout(k);
        auto first = [&](auto ok) {
          for (i64 n = 1; n <= 64; ++n)
            if (ok(n))
              return n;
          return i64{-1};
        };
        auto reqs = [&](i64 n) { return make_requests(k.workload, 12.0 / double(n), 300); };
        i64 devices = 0;
        if (!disagg) {
          devices = first([&](i64 n) {
            return meets_slo(k.workload.serve, simulate_serving(k, l, reqs(n), 1, 0));
          });
        } else {
          const i64 np = first([&](i64 n) {
            return simulate_pool(k, l, reqs(n), 1, Pool::prefill).attainment_ttft >= 0.9;
          });
          const i64 nd = first([&](i64 n) {
            return simulate_pool(k, l, reqs(n), 1, Pool::decode).attainment_tpot >= 0.9;
          });
          devices = np > 0 && nd > 0 ? np + nd : -1;
        }
        if (devices > 0 && (best < 0 || devices < best))
          best = devices;
      }
  CHECK(r.deployments.front().devices == best);
  CHECK(r.deployments.front().result.attainment >= 0.85); // the whole deployment, simulated
  CHECK(r.candidates == 8);
  // Keeping 3 (--top 1), the candidates sized after the third stop growing where they would
  // cost more than it: the same cheapest, in fewer simulations.
  o.top = 1;
  const ServePlanResult bounded = plan_serving({c}, o);
  REQUIRE_FALSE(bounded.deployments.empty());
  CHECK(bounded.deployments.front().devices == best);
  CHECK(bounded.rejected.count("bound") == 1);
  CHECK(bounded.simulations < r.simulations);
}

TEST_CASE("The serve scenario preset simulates within its SLO", "[serve][presets]") {
  const Config c = io::parse_config(json("llama3-70b-h100-serve"));
  const ServeResult r = simulate_serving(c);
  CHECK(r.completed == 2000);
  CHECK(r.dropped == 0);
  CHECK_FALSE(r.truncated);
  CHECK(meets_slo(c.workload.serve, r)); // 8 requests/s on one DGX H100, FP8, 2 x TP4
  CHECK(r.devices == 8);
  CHECK(r.instances == 2);
}

TEST_CASE("Trace files: CSV with a header and comments, or JSON", "[serve]") {
  const json t =
      io::trace_from_text("arrival_s,prompt_len,gen_len\n# burst\n0,100,10\r\n0.5,200,20\n");
  REQUIRE(t.size() == 2);
  CHECK(t[1][0].get<double>() == 0.5);
  CHECK(t[1][1].get<double>() == 200);
  CHECK(io::trace_from_text("[[0, 1, 2]]") == json::parse("[[0, 1, 2]]"));
  CHECK(test::error_of([] {
          io::trace_from_text("0,1,2\n1,2\n");
        }).rfind("trace:2: expected arrival_s,prompt_len,gen_len", 0) == 0);
  // a fourth column and hex or infinite values are refused by file and line
  CHECK(test::error_of([] {
          io::trace_from_text("0,1,2,3\n", "t.csv");
        }).rfind("t.csv:1: expected arrival_s,prompt_len,gen_len", 0) == 0);
  CHECK(test::error_of([] {
          io::trace_from_text("0,1,2\n0x1p3,1,2\n", "t.csv");
        }).rfind("t.csv:2:", 0) == 0);
  CHECK(test::error_of([] {
          io::trace_from_text("0,1,2\n1,inf,2\n", "t.csv");
        }).rfind("t.csv:2:", 0) == 0);
  // the trace replaces the Poisson stream of a scenario
  const Config c = io::parse_config(io::with_trace(json("llama3-70b-h100-serve"), t));
  CHECK(c.workload.serve.trace.size() == 2);
  CHECK(simulate_serving(c).completed == 2);
}

TEST_CASE("Paged KV fragmentation: none with one-token blocks, large when static batching "
          "reserves whole requests",
          "[serve]") {
  auto run = [](const char *sched) {
    return simulate_serving(serve_config(std::string(R"({"mode": "serve", "request_rate": 4,
      "requests": 300, "prompt_len": 512, "gen_len": 128, "length_dist": "uniform",
      "scheduler": )") + sched + "}"));
  };
  CHECK(run(R"({"block_size": 1})").memory.kv_fragmentation == Approx(0).margin(1e-12));
  const double paged = run(R"({"block_size": 16})").memory.kv_fragmentation;
  const double reserved = run(R"({"block_size": 16, "policy": "static"})").memory.kv_fragmentation;
  // the last block of a sequence is on average half empty: a few percent of ~600 tokens
  CHECK(paged > 0);
  CHECK(paged < 0.05);
  // static batching holds prompt + output blocks from admission: far emptier
  CHECK(reserved > 4 * paged);
}

TEST_CASE("A simulation's work is bounded before it starts", "[serve]") {
  // 1e8 output tokens at most (~1 s natively): 200,000 requests of up to 8 x 100 tokens pass
  // the request limit but not the token limit
  CHECK(test::error_of([] {
          serve_config(R"({"mode": "serve", "request_rate": 4, "requests": 200000,
            "prompt_len": 10, "gen_len": 1000, "length_dist": "exponential"})");
        }).rfind("workload.requests: 200000 requests of up to 8000 output tokens exceed", 0) == 0);
  CHECK_NOTHROW(serve_config(R"({"mode": "serve", "request_rate": 4, "requests": 100000,
    "prompt_len": 10, "gen_len": 1000})"));
}

TEST_CASE("serve: the stepped simulation (the page's, a frame at a time) equals one call",
          "[serve]") {
  // The same requests through the same engines, cut into passes of 50: identical results.
  for (const char *cfg : {R"({"scenario": "llama3-70b-h100-serve"})",
                          R"({"scenario": "llama3-70b-h100-serve",
                              "workload": {"scheduler": {"prefill_instances": 1}}})"}) {
    const rl::Config c = rl::test::config(cfg);
    const rl::ServeResult whole = rl::simulate_serving(c);
    rl::ServeSimulation sim(c);
    int steps = 0;
    while (!sim.step(50))
      ++steps;
    const rl::ServeResult &r = sim.result();
    CHECK(steps > 100);
    CHECK(sim.progress() == 1.0);
    CHECK(r.iterations == whole.iterations);
    CHECK(r.completed == whole.completed);
    CHECK(r.ttft.p99 == whole.ttft.p99);
    CHECK(r.tpot.p50 == whole.tpot.p50);
    CHECK(r.e2e.mean == whole.e2e.mean);
    CHECK(r.output_tokens_per_s == whole.output_tokens_per_s);
    CHECK(r.kv_transfer == whole.kv_transfer);
  }
}

// Issue 25 item 9: $3.393/M ranked above $3.389/M under "cheapest" (the rank was by $/h, the
// same 24 $/h for both; the table shows $/M tokens).
TEST_CASE("serving planner: deployments rank by the cost per million tokens they show", "[serve]") {
  ServePlanOptions o;
  o.top = 5;
  const ServePlanResult r =
      plan_serving(io::planner_choices(nlohmann::json("llama3-70b-h100-serve")), o);
  REQUIRE(r.deployments.size() >= 2);
  for (std::size_t i = 0; i + 1 < r.deployments.size(); ++i) {
    INFO(i);
    CHECK(r.deployments[i].cost_per_million_tokens > 0); // the H100/H200 presets carry a price
    CHECK(r.deployments[i].cost_per_million_tokens <= r.deployments[i + 1].cost_per_million_tokens);
  }
  // $/M = $/h / (output tokens/s x 3600) x 1e6, the simulation's own definition
  const Deployment &d = r.deployments.front();
  CHECK(d.cost_per_million_tokens ==
        Approx(d.cost_per_hour / (d.result.output_tokens_per_s * 3600) * 1e6));
}
