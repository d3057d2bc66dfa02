// Prefix reuse, sessions and KV tiers in the serving simulation: the block pool's LRU and tiers
// by hand, hit rates counted by hand on small traces, a cached turn's TTFT as the prefill it
// skips, a host-memory hit as its bytes over the tier's link, and field-named errors.
#include "helpers.hpp"

#include "core/io/serve_json.hpp"
#include "core/serve/iteration.hpp"
#include "core/serve/kv_blocks.hpp"
#include "core/serve/requests.hpp"
#include "core/serve/simulate.hpp"

#include <cmath>

using namespace rl;
using test::error_of;
using test::serve_config;

namespace {
// A prefill of n tokens after `prior` cached ones, ending the prompt (one output).
double prefill_time(IterationModel &m, double n, double prior, bool last = true) {
  IterationLoad x;
  x.prefill = n;
  x.prefill_pairs = n * (prior + n / 2);
  x.prefill_kv = prior + n;
  x.outputs = last ? 1 : 0;
  return m.time(x).total;
}
} // namespace

TEST_CASE("KV blocks: reuse, least recently used eviction tail first, tiers", "[serve][prefix]") {
  const BlockName a{1, 0}, b{2, 0};
  KvBlocks k(10, true);
  k.take(4); // a's prompt: 4 blocks, computed
  k.publish(a, 0, 4);
  CHECK(k.free() == 6);
  k.release(a, 4, 4, 4); // finished: cached, no reference
  CHECK(k.free() == 10);
  CHECK(k.match(a, 4).hbm == 4);
  CHECK(k.match(a, 4).unreferenced == 4);
  CHECK(k.match(b, 4).blocks() == 0);
  // 8 new blocks: 6 never used, then 2 evicted, a's tail first (vLLM frees in reverse order)
  k.take(8);
  CHECK(k.free() == 2);
  CHECK(k.match(a, 4).hbm == 2);
  // a reference keeps a block: acquiring a's 2 leaves nothing to evict
  k.acquire(a, 2);
  CHECK(k.free() == 0);

  // Without reuse a block is free once given back.
  KvBlocks off(4, false);
  off.take(4);
  off.publish(a, 0, 4);
  off.release(a, 0, 4, 4);
  CHECK(off.free() == 4);
  CHECK(off.match(a, 4).blocks() == 0);

  // Host memory of 2 blocks below 4 in HBM: evicted blocks go down, the last two kept there.
  KvBlocks t(4, true, 2, 0);
  t.take(4);
  t.publish(a, 0, 4);
  t.release(a, 4, 4, 4);
  t.take(4); // b fills HBM: a's blocks 3, 2, 1, 0 evicted in that order; host keeps 1 and 0
  const BlockMatch m = t.match(a, 4);
  CHECK(m.hbm == 0);
  CHECK(m.host == 2);
  CHECK(m.lead == 0);
  CHECK(t.written(0) == 4); // every evicted block stored, the tier's own LRU pushing out two
  // a shared prefix: block j < shared_blocks is lineage 0's whatever the request
  CHECK(BlockName{7, 3}.key(2) == BlockName{9, 3}.key(2));
  CHECK(BlockName{7, 3}.key(3) != BlockName{9, 3}.key(3));
}

TEST_CASE("Prefix cache: hit rates by hand on small traces", "[serve][prefix]") {
  // A shared prefix of 512 tokens (32 blocks of 16) on three prompts of 1000, far apart: the
  // first computes it, the other two find it.
  const Config shared = serve_config(R"({"mode": "serve", "prefix": {"shared_tokens": 512},
    "trace": [[0, 1000, 10], [100, 1000, 10], [200, 1000, 10]]})");
  const ServeResult r = simulate_serving(shared);
  REQUIRE(r.cache.on);
  CHECK(r.cache.prompt_tokens == 3000);
  CHECK(r.cache.hit_tokens == 1024);
  CHECK(r.cache.hit_rate == Approx(1024.0 / 3000));
  // prefix caching off: nothing found
  const Config off = serve_config(R"({"mode": "serve", "prefix": {"shared_tokens": 512},
    "scheduler": {"prefix_cache": false},
    "trace": [[0, 1000, 10], [100, 1000, 10], [200, 1000, 10]]})");
  CHECK_FALSE(simulate_serving(off).cache.on);

  // Three sessions of three turns: each turn adds 100 new tokens to the conversation so far
  // (prompt 100, then 100 + 20 + 100 = 220, then 220 + 20 + 100 = 340), its answer 20 tokens. A
  // finished turn holds prompt + 19 tokens of KV (the last token is sampled, never fed back), of
  // which the full blocks are cached: 119 -> 7 blocks (112 tokens), 239 -> 14 (224). Hits per
  // session 0 + 112 + 224 = 336 of 660 prompt tokens.
  std::string rows;
  for (const char *id : {"0", "1", "2"}) {
    if (!rows.empty())
      rows.append(",");
    rows.append(R"({"t": )").append(id).append(R"(, "prompt": 100, "gen": 20, "session": )");
    rows.append(id).append(R"(}, {"think": 2, "prompt": 220, "gen": 20, "session": )");
    rows.append(id).append(R"(}, {"think": 2, "prompt": 340, "gen": 20, "session": )");
    rows.append(id).append("}");
  }
  const Config sessions = serve_config(R"({"mode": "serve", "trace": [)" + rows + "]}");
  const ServeResult s = simulate_serving(sessions);
  CHECK(s.completed == 9);
  CHECK(s.cache.prompt_tokens == 3 * 660);
  CHECK(s.cache.hit_tokens == 3 * 336);
  CHECK(s.cache.hit_rate == Approx(336.0 / 660));
  // a later turn is sent think s after its previous turn's last token
  CHECK(s.simulated_s > 4);
}

TEST_CASE("Prefix cache: a cached turn's TTFT is the prefill it skips", "[serve][prefix]") {
  // Turn 1: 1000 tokens in chunks of 512 (512 + 488); its 1000 + 9 tokens of KV leave 63 full
  // blocks (1008 tokens) cached. Turn 2 (1510 = 1000 + 10 + 500 new) prefills 502 tokens after
  // the 1008 it finds, in one chunk.
  const Config c = serve_config(R"({"mode": "serve", "scheduler": {"chunk": 512},
    "trace": [{"t": 0, "prompt": 1000, "gen": 10, "session": 1},
              {"t": 100, "prompt": 1510, "gen": 10, "session": 1}]})");
  const Layout l = resolve_layout(c);
  IterationModel m(c, l);
  const double first = prefill_time(m, 512, 0, false) + prefill_time(m, 488, 512);
  const double second = prefill_time(m, 502, 1008);
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 2);
  CHECK(r.cache.hit_tokens == 1008);
  CHECK(r.ttft.p50 == Approx(std::min(first, second)).epsilon(1e-12));
  CHECK(r.ttft.p99 == Approx(std::max(first, second)).epsilon(1e-12));
  CHECK(second < first);
}

TEST_CASE("KV tiers: a hit from host memory costs its bytes over the host link",
          "[serve][prefix]") {
  // A KV cache of a few thousand tokens (memory_fraction just above the weights): session a's
  // first turn, then b's long prompt evicts most of a's blocks to host memory, then a's second
  // turn finds them there and brings them up at cluster.host_bw (PCIe 5.0 x16, 63 GB/s).
  const auto make = [](const std::string &offload, i64 pa, i64 pb) {
    return serve_config(
        R"({"mode": "serve", "scheduler": {"memory_fraction": 0.1029, "chunk": 8192)" + offload +
        R"(}, "trace": [{"t": 0, "prompt": )" + std::to_string(pa) +
        R"(, "gen": 4, "session": "a"}, {"t": 100, "prompt": )" + std::to_string(pb) +
        R"(, "gen": 4, "session": "b"},
                        {"t": 200, "prompt": )" +
        std::to_string(pa + 3 + 16) + R"(, "gen": 4, "session": "a"}]})");
  };
  const Config probe = make("", 100, 100);
  const ServeMemory mem = serve_memory(probe, resolve_layout(probe));
  const i64 cap = mem.kv_blocks * 16;
  INFO("KV tokens " << cap);
  REQUIRE(cap > 2000);
  REQUIRE(cap < 9000); // each prompt in one chunk of max_tokens 8192
  const i64 pa = cap * 2 / 5, pb = cap - cap / 10;
  const Config c = make(R"(, "kv_offload": {"host_bytes": 50e9})", pa, pb);
  const Layout l = resolve_layout(c);
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 3);
  REQUIRE(r.cache.tiers.size() == 2);
  const double host_tokens = r.cache.tiers[1].hit_rate * r.cache.prompt_tokens;
  const double hbm_tokens = r.cache.tiers[0].hit_rate * r.cache.prompt_tokens;
  CHECK(host_tokens > 0);
  // a's second turn: its blocks come up over the host link, then the rest is prefilled
  const double block_bytes = mem.kv_cache / mem.kv_tokens * 16;
  const double load = host_tokens / 16 * block_bytes / c.cluster.host_bw;
  IterationModel m(c, l);
  const double hits = hbm_tokens + host_tokens;
  const double a2 = static_cast<double>(pa + 19);
  const double ttft_a2 = load + prefill_time(m, a2 - hits, hits);
  const double ttft_a1 = prefill_time(m, static_cast<double>(pa), 0);
  const double ttft_b = prefill_time(m, static_cast<double>(pb), 0);
  CHECK(r.ttft.mean == Approx((ttft_a1 + ttft_b + ttft_a2) / 3).epsilon(1e-9));
  // the host tier's writes: whole blocks, at least those a's second turn found there, over the
  // run's span and the link
  const ServeCache::Tier &host = r.cache.tiers[1];
  const double written = host.write_bw * r.simulated_s / block_bytes;
  CHECK(written == Approx(std::round(written)).margin(1e-6));
  CHECK(written >= host_tokens / 16);
  CHECK(host.write_share == Approx(host.write_bw / c.cluster.host_bw).epsilon(1e-12));
  // without the host tier a's second turn recomputes what was evicted
  const ServeResult plain = simulate_serving(make("", pa, pb));
  CHECK(plain.cache.hit_rate < r.cache.hit_rate);
  CHECK(plain.ttft.mean > r.ttft.mean);
}

TEST_CASE("Sessions: hit rate under a smaller KV cache, closed and open loop", "[serve][prefix]") {
  const auto run = [](const std::string &load, double fraction) {
    return simulate_serving(serve_config(R"({"mode": "serve", )" + load +
                                         R"(, "gen_len": 50, "requests": 240,
        "prefix": {"shared_tokens": 1024}, "sessions": {"turns": 6, "new_tokens": 400, "think_time": 5},
        "scheduler": {"memory_fraction": )" +
                                         std::to_string(fraction) + "}}"));
  };
  for (const char *load :
       {R"("concurrency": 16, "requests_per_client": 15)", R"("request_rate": 2)"}) {
    const ServeResult big = run(load, 0.9), small = run(load, 0.115);
    INFO(load);
    CHECK(big.completed == 240);
    // a conversation of 6 turns finds its earlier turns and the shared prefix: most of it
    CHECK(big.cache.hit_rate > 0.7);
    CHECK(big.cache.hit_rate < 1);
    CHECK(small.cache.hit_rate < big.cache.hit_rate);
  }
  // the open loop's conversations start at request_rate / turns: 240 requests in 40 of them
  CHECK(make_requests(serve_config(R"({"mode": "serve", "request_rate": 2, "gen_len": 50,
    "requests": 240, "sessions": {"turns": 6, "new_tokens": 400}})")
                          .workload,
                      2, 240)
            .back()
            .stream == 39);
}

TEST_CASE("Sessions, session traces and tiers print back as they were read", "[serve][prefix]") {
  const Config c = serve_config(R"({"mode": "serve", "prefix": {"shared_tokens": 64},
    "trace": [{"t": 0, "prompt": 100, "gen": 20, "session": "a"}, [0.5, 300, 4],
              {"think": 1.5, "prompt": 220, "gen": 20, "session": "a"}],
    "scheduler": {"kv_offload": {"host_bytes": 1e9, "disk_bytes": 1e10, "disk_bw": 3e9}}})");
  const Config back = io::parse_config(io::to_json(c));
  REQUIRE(back.workload.serve.trace.size() == 3);
  CHECK(back.workload.serve.trace[2].session == "a");
  CHECK(back.workload.serve.trace[2].think == 1.5);
  CHECK(back.workload.serve.trace[1].session.empty());
  CHECK(back.workload.serve.shared_prefix == 64);
  REQUIRE(back.workload.serve.kv_offload);
  CHECK(back.workload.serve.kv_offload->disk_bw == 3e9);
  CHECK(io::to_json(back) == io::to_json(c));
}

TEST_CASE("Sessions and session traces: errors name the field", "[serve][prefix]") {
  const auto err = [](const std::string &w) { return error_of([&] { serve_config(w); }); };
  CHECK(err(R"({"mode": "serve", "trace": [{"think": 1, "prompt": 10, "gen": 2, "session": "x"}]})")
            .rfind("workload.trace[0].session: \"x\" has no earlier turn", 0) == 0);
  CHECK(err(R"({"mode": "serve", "trace": [{"t": 0, "prompt": 10, "gen": 2, "session": "x"},
      {"think": -1, "prompt": 10, "gen": 2, "session": "x"}]})")
            .rfind("workload.trace[1].think:", 0) == 0);
  CHECK(err(R"({"mode": "serve", "trace": [{"t": 5, "prompt": 10, "gen": 2, "session": "x"},
      {"t": 1, "prompt": 10, "gen": 2, "session": "x"}]})")
            .rfind("workload.trace[1]: arrival 1.0 s is before the previous one", 0) == 0);
  CHECK(err(R"({"mode": "serve", "trace": [{"think": 1, "prompt": 10, "gen": 2}]})")
            .rfind("workload.trace[0].think: is the pause after the session's previous turn", 0) ==
        0);
  CHECK(err(R"({"mode": "serve", "trace": [{"t": 0, "prompt": 10, "gen": 2, "session": -3}]})")
            .rfind("workload.trace[0].session: must be a session id", 0) == 0);
  CHECK(err(R"({"mode": "serve", "trace": [{"t": 0, "gen": 2}]})")
            .rfind("workload.trace[0].prompt: is required", 0) == 0);
  CHECK(err(R"({"mode": "serve", "request_rate": 1, "gen_len": 10, "prompt_len": 100,
      "sessions": {"turns": 2}})")
            .rfind("workload.prompt_len: is set by workload.sessions", 0) == 0);
  CHECK(err(R"({"mode": "serve", "request_rate": 1, "gen_len": 10, "sessions": {"turns": 0}})")
            .rfind("workload.sessions.turns:", 0) == 0);
  CHECK(err(R"({"mode": "serve", "request_rate": 1, "gen_len": 10, "prompt_len": 100,
      "prefix": {"shared_tokens": 100}})")
            .rfind("workload.prefix.shared_tokens: 100 is not below prompt_len 100", 0) == 0);
  CHECK(err(R"({"mode": "serve", "request_rate": 1, "gen_len": 10, "prompt_len": 100,
      "scheduler": {"kv_offload": {"disk_bytes": 1e12}}})")
            .rfind("workload.scheduler.kv_offload.disk_bw: is required with disk_bytes", 0) == 0);
  CHECK(err(R"({"mode": "serve", "request_rate": 1, "gen_len": 10, "prompt_len": 100,
      "scheduler": {"prefix_cache": false, "kv_offload": {"host_bytes": 1e12}}})")
            .rfind("workload.scheduler.kv_offload: holds blocks the prefix cache evicts", 0) == 0);
  // a conversation longer than the model's context (Llama-3 8B: 8,192)
  CHECK(err(R"({"mode": "serve", "request_rate": 1, "gen_len": 100,
      "sessions": {"turns": 20, "new_tokens": 500}})")
            .rfind("workload.sessions.turns: 20 turns reach a prompt of 11900 tokens", 0) == 0);
  // a turn sent on completion needs one deployment that serves both phases
  const Config c = serve_config(R"({"mode": "serve", "concurrency": 4, "gen_len": 10,
      "sessions": {"turns": 2, "new_tokens": 50}, "scheduler": {"prefill_instances": 1}})",
                                R"({"tp": 1})");
  CHECK(error_of([&] { simulate_serving(c); }).rfind("workload.sessions: a turn sent after", 0) ==
        0);
}

TEST_CASE("Mooncake traces: JSON lines, hash ids as the prompts' content", "[serve][prefix]") {
  // kvcache-ai/Mooncake FAST25-release traces: a chained hash per 512 prompt tokens. Three
  // requests: the second shares the first's two leading blocks (1,024 tokens), the third
  // nothing; 100 s apart, so every block the first left is cached when the second comes.
  const std::string lines =
      "{\"timestamp\": 0, \"input_length\": 1500, \"output_length\": 10, \"hash_ids\": [1, 2, 3]}\n"
      "{\"timestamp\": 100000, \"input_length\": 1200, \"output_length\": 10, \"hash_ids\": [1, 2, "
      "9]}\n"
      "\n"
      "{\"timestamp\": 200000, \"input_length\": 700, \"output_length\": 5, \"hash_ids\": [4, "
      "5]}\n";
  const nlohmann::json rows = io::trace_from_text(lines, "mooncake.jsonl");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1]["t"] == 100.0);
  CHECK(rows[1]["hash_ids"] == nlohmann::json::array({1, 2, 9}));
  const Config c = io::parse_config(
      io::with_trace(nlohmann::json::parse(R"({"model": "llama3-8b", "hardware": "h100-sxm",
        "cluster": {"base": "dgx-h100", "devices": 2}, "parallel": {"tp": 2},
        "workload": {"mode": "serve", "request_rate": 1, "prompt_len": 10, "gen_len": 2}})"),
                     rows));
  const ServeResult r = simulate_serving(c);
  REQUIRE(r.completed == 3);
  CHECK(r.cache.prompt_tokens == 1500 + 1200 + 700);
  CHECK(r.cache.hit_tokens == 1024); // blocks 1 and 2: 64 engine blocks of 16
  CHECK(io::to_json(io::parse_config(io::to_json(c))) == io::to_json(c));
  CHECK(test::error_of([] {
          io::trace_from_text("{\"timestamp\": 0}\n", "m.jsonl");
        }).rfind("m.jsonl:1: expected a Mooncake trace line", 0) == 0);
  CHECK(test::error_of([] {
          test::serve_config(R"({"mode": "serve", "trace": [{"t": 0, "prompt": 600, "gen": 2,
            "hash_ids": [1, 2, 3]}]})");
        }).rfind("workload.trace[0].hash_ids: must be an array of at most 2 block hashes", 0) == 0);
}
