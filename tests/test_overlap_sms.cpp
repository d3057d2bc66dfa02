// The SMs a collective holds while it hides under computation (docs/calibration.md "The SMs
// overlapped collectives take"): NCCL's CTAs (cluster.collective_sms) and Transformer Engine's
// userbuffers (16 SMs on their pipelined and bulk overlaps).
#include "helpers.hpp"

#include "core/comm/collective.hpp"
#include "core/estimate/estimate.hpp"
#include "core/time/step_time.hpp"

using namespace rl;
using nlohmann::json;

namespace {
const CommCost &comm_of(const StepTime &t, const std::string &kind) {
  for (const CommCost &c : t.comm)
    if (c.kind == kind)
      return c;
  FAIL("no " << kind << " communication");
  return t.comm.front();
}
} // namespace

TEST_CASE("overlap SMs: a share of the chip's SMs, none where they are unknown", "[time]") {
  HardwareSpec h100 = test::config(R"({"scenario": "llama3-70b-h100-1024"})").hardware;
  // 24 of H100 SXM's 132 SMs: what one NCCL AllGather held beside a GEMM under Nsight Systems
  CHECK(overlap_sm_share(h100, 24) == Approx(24.0 / 132));
  CHECK(overlap_sm_share(h100, kUserbufferSms) == Approx(16.0 / 132));
  CHECK(overlap_sm_share(h100, 500) == 1.0); // never more than the chip
  h100.sm_count = 0;                         // a chip without SMs (TPU): free, as before
  CHECK(overlap_sm_share(h100, 24) == 0);
}

TEST_CASE("overlap SMs: the hidden DP sync costs the backward under it NCCL's SMs",
          "[time][comm]") {
  // Llama 3 8B on one DGX H100, DP 8 with the distributed optimizer: the gradients'
  // ReduceScatter hides under the last micro-batch's backward, the parameters' AllGather under
  // the first forward (overlap_dp, Megatron-Core's default); nothing else communicates
  const char *base = R"({"model": "llama3-8b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 8%s},
    "workload": {"mode": "train", "global_batch": 64, "seq_len": 4096},
    "parallel": {"tp": 1, "pp": 1, "dp": 8, "zero": 1, "microbatch": 1,
                 "recompute": "selective"}})";
  const auto with = [&](const char *extra) {
    char text[1024];
    std::snprintf(text, sizeof text, base, extra);
    return estimate(test::config(text));
  };
  const Estimate e = with(""), free = with(R"(, "collective_sms": 0)");
  const CommCost &dp = comm_of(e.time, "dp");
  REQUIRE(dp.time > dp.exposed); // most of it hides
  // (time - exposed) x 24 / 132: the SM-time NCCL's CTAs held while it ran
  CHECK(e.time.sync_sms == Approx((dp.time - dp.exposed) * 24 / 132));
  CHECK(e.time.parts.comm_sms == Approx(e.time.sync_sms)); // no other collective hides
  CHECK(e.time.compute == Approx(free.time.compute + e.time.sync_sms));
  CHECK(e.time.step == Approx(free.time.step + e.time.sync_sms));
  // 0 SMs: overlap is free, as the model had it before
  CHECK(free.time.sync_sms == 0);
  CHECK(free.time.parts.comm_sms == 0);
}

TEST_CASE("overlap SMs: userbuffers hold 16 SMs on their pipelined and bulk overlaps",
          "[time][comm]") {
  // Llama 3 70B on one DGX H100, TP 8 with SP and --tp-comm-overlap: per layer and micro-batch,
  // forward 2 AllGathers (ring exchange: copy engines) and 2 ReduceScatters (pipelined: 16
  // SMs); backward 2 AllGathers of the input gradient (ring exchange), 2 ReduceScatters and the
  // 2 re-gathers of the saved input for the weight gradient (bulk: 16 SMs)
  const Config c = test::config(R"({"model": "llama3-70b", "hardware": "h100-sxm",
    "cluster": {"base": "dgx-h100", "devices": 8},
    "workload": {"mode": "train", "global_batch": 8, "seq_len": 4096},
    "parallel": {"tp": 8, "pp": 1, "dp": 1, "sp": true, "microbatch": 1,
                 "recompute": "selective", "overlap_tp": true}})");
  const Estimate e = estimate(c);
  const double act = 2 * 4096.0 * 8192; // one bf16 activation [b s h]
  const double ag = collective_time(c.cluster, Collective::allgather, act, Group{8, 1}).time;
  const double rs = collective_time(c.cluster, Collective::reduce_scatter, act, Group{8, 1}).time;
  const double passes = 8 * 80; // micro-batches x layers
  const CommCost &sp = comm_of(e.time, "sp");
  CHECK(sp.time == Approx(passes * (6 * ag + 4 * rs))); // the same collectives the model counts
  CHECK(sp.exposed == 0);                               // all of them hidden
  CHECK(e.time.parts.comm_sms == Approx(passes * (4 * rs + 2 * ag) * 16 / 132));
}

TEST_CASE("overlap SMs: cluster.collective_sms is read, written and checked by name", "[io]") {
  const Config c =
      test::config(R"({"scenario": "llama3-70b-h100-1024", "cluster": {"collective_sms": 8}})");
  CHECK(c.cluster.collective_sms == 8);
  CHECK(test::config(R"({"scenario": "llama3-70b-h100-1024"})").cluster.collective_sms == 24);
  CHECK(test::error_of([] {
          test::config(
              R"({"scenario": "llama3-70b-h100-1024", "cluster": {"collective_sms": -1}})");
        }).rfind("cluster.collective_sms:", 0) == 0);
}
