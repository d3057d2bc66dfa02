// ridgeline inference: prefill, decode, KV cache and the latency-throughput trade-off
// (How to Scale Your Model ch. 7-8; docs/formulas.md "Inference").
#pragma once

#include "core/comm/collective.hpp"
#include "core/config.hpp"
#include "core/parallel/layout.hpp"

#include <vector>

namespace rl {

// One decode step for a batch at a context length, on the devices of one model replica.
struct DecodeStep {
  double batch = 0, context = 0;
  double kv_time = 0;     // B * KV bytes / HBM bandwidth (always bandwidth-bound)
  double weight_time = 0; // parameter bytes / HBM bandwidth
  double compute_time =
      0;                // 2 * B * P_active / FLOP/s (at gemm efficiency 1, How to Scale Your Model)
  double comm_time = 0; // TP AllReduce (latency-bound) and PP sends per step
  double other_time = 0; // achievable bound: element-wise kernels and the LM head
  // roofline: kv + max(compute, weights) + comm over the stages (seed formula); achievable:
  // one iteration of the serving model (core/serve/iteration), which adds other_time
  double step = 0;
  bool compute_bound = false;
  double memory_per_device = 0; // weights + KV (+ prefill working set) on the worst stage
  bool fits = false;
  double tokens_per_s = 0; // batch / step
  double tokens_per_s_per_chip = 0;
};

struct Prefill {
  double tokens = 0; // one prompt
  double compute = 0, comm = 0;
  double time = 0; // TTFT for a request prefilled alone
};

struct ServingEstimate {
  Prefill prefill;
  DecodeStep decode;      // at the mean decode context (prompt + gen/2)
  DecodeStep decode_last; // at the final context (prompt + gen): the memory that must fit
  double ttft = 0, tpot = 0, request_latency = 0;
  // Static batching of the whole batch: all prompts prefilled, then gen decode steps.
  double batch_prefill = 0, batch_time = 0;
  double batch_tokens_per_s = 0, batch_tokens_per_s_per_chip = 0;
  double critical_batch = 0;     // decode turns compute-bound above this batch
  double moe_critical_batch = 0; // MoE: B > critical * E / k (How to Scale Your Model ch. 4)
  i64 max_batch = 0;
  i64 min_devices = 0; // smallest TP slice (power of two) holding weights + KV of the batch
  double weight_bytes_per_param = 2;
  // Disaggregated serving (when workload.request_rate is given).
  bool disaggregated = false;
  double prefill_instances = 0, decode_instances = 0;
  i64 decode_batch = 0;         // the largest batch meeting the TPOT target
  i64 devices_per_instance = 1; // one model instance: tp x pp x cp x ep chips
  double prefill_to_decode = 0;
};

// Bytes per weight for a dtype, with group-quantisation scales for int4/int8 (one bf16
// scale per 128 weights: +1/64 B for int8 is ignored by How to Scale Your Model, so only int4
// carries it).
double weight_bytes(Dtype d);

// KV cache bytes per token of one layer (docs/formulas.md: 2*k*d*bytes; MLA keeps the
// compressed latent r_kv + rope), and of the whole model (x layers).
double kv_bytes_per_token_layer(const ModelSpec &m, Dtype kv);
double kv_cache_bytes_per_token(const ModelSpec &m, Dtype kv);

// KV bytes one chip holds for `batch_replica` sequences of `context` tokens over `layers`
// layers: heads split over TP up to the KV heads; beyond them each rank keeps whole heads
// (replicate, as vLLM and TensorRT-LLM do) or the batch splits over the replicas (How to Scale Your
// Model ch.7, which costs an AllToAll each way per layer).
double kv_per_chip(const ModelSpec &m, const Layout &l, double batch_replica, double context,
                   double layers, Dtype kv, KvSharding sharding);
// The HBM bandwidth and GEMM efficiency serving runs at: hardware.hbm_bw x hbm_efficiency
// and gemm_efficiency, or 100% of the datasheet with workload.bound "roofline".
double serving_bw(const Config &c);
double serving_gemm_eff(const Config &c);
// One prompt's prefill working set of one layer (FlashAttention, nothing stored).
double prefill_working_set(const ModelSpec &m, const Layout &l, double prompt);

// Memory of one chip of the worst stage while decoding: its weights, the KV of its share of
// `batch` sequences at `context` tokens, one prompt's prefill working set.
double decode_memory_per_device(const Config &c, const Layout &l, double batch, double context);

// One device of pipeline stage `stage` serving `batch` sequences (over all dp replicas) at
// `context` tokens: weights in weight_dtype, the KV cache of this replica's share (heads,
// then batch, split over TP: How to Scale Your Model ch. 7) and one prompt's prefill working
// set of one layer (requests are prefilled one at a time). The one rule behind
// `estimate`'s inference stages and the decode memory above.
struct InferenceStageBytes {
  double layers = 0, params = 0;
  double weights = 0, kv = 0, working_set = 0;
  double total() const { return weights + kv + working_set; }
};
InferenceStageBytes inference_stage_bytes(const Config &c, const Layout &l, i64 stage, double batch,
                                          double context);
DecodeStep decode_step(const Config &c, const Layout &l, double batch, double context);
Prefill prefill(const Config &c, const Layout &l, double prompt_tokens);
ServingEstimate serving(const Config &c, const Layout &l);

// The batch sizes of the curve: powers of two (times dp) up to twice the largest batch that
// fits (at most 65536), plus the critical batch and the largest batch that fits.
std::vector<double> sweep_batches(i64 max_batch, i64 dp, double critical_batch);

// The curve of How to Scale Your Model ch. 7: decode step and throughput over batch sizes.
std::vector<DecodeStep> batch_sweep(const Config &c, const Layout &l,
                                    const std::vector<double> &batches, double context);

} // namespace rl
