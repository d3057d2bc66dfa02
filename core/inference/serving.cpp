#include "core/inference/serving.hpp"

#include "core/error.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"
#include "core/serve/iteration.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

// int4 carries one bf16 scale per 128 weights (group quantisation): 0.5 + 2/128 bytes.
double weight_bytes(Dtype d) {
  return d == Dtype::int4 ? 0.5 + 2.0 / 128 : dtype_bytes(d);
}

namespace {

// The compute dtype of decode: int8 x int8 when both weights and activations are int8
// (workload.precision int8), otherwise bf16 FLOPs (How to Scale Your Model ch. 7).
double decode_peak(const Config &c) {
  return peak_flops(c.hardware, c.workload.precision);
}

} // namespace

// MLA's latent is replicated over TP.
double kv_bytes_per_token_layer(const ModelSpec &m, Dtype kv) {
  const double values = m.mla ? static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim)
                              : 2.0 * static_cast<double>(m.kv_heads * m.head_dim);
  return values * dtype_bytes(kv);
}

double kv_cache_bytes_per_token(const ModelSpec &m, Dtype kv) {
  return static_cast<double>(m.layers) * kv_bytes_per_token_layer(m, kv);
}

double kv_per_chip(const ModelSpec &m, const Layout &l, double batch_replica, double context,
                   double layers, Dtype kv, KvSharding sharding) {
  double share = 1; // fraction of the replica's KV on one chip
  if (!m.mla) {
    const double t = static_cast<double>(l.tp), k = static_cast<double>(m.kv_heads);
    if (t <= k || sharding == KvSharding::replicate) {
      share = kv_share(m, l.tp, KvSharding::replicate);
    } else {
      const double batch_split = t / k;
      share = std::ceil(batch_replica / batch_split) / std::max(batch_replica, 1.0) / k;
    }
  }
  return batch_replica * context / static_cast<double>(l.cp) * layers *
         kv_bytes_per_token_layer(m, kv) * share;
}

// Achievable HBM bandwidth and GEMM efficiency, or the datasheet figures (roofline).
double serving_bw(const Config &c) {
  return c.hardware.hbm_bw *
         (c.workload.bound == ServingBound::roofline ? 1.0 : c.hardware.hbm_efficiency);
}
double serving_gemm_eff(const Config &c) {
  return c.workload.bound == ServingBound::roofline
             ? 1.0
             : serving_gemm_efficiency(c.hardware, c.workload.precision);
}

namespace {
Group tp_group(const Layout &l) {
  return layout_groups(l).tp;
}
Group ep_group(const Layout &l) {
  return layout_groups(l).ep;
}
Group pp_group(const Layout &l) {
  return layout_groups(l).pp;
}
Group instance_group(const Layout &l) {
  return layout_groups(l).instance;
}

} // namespace

double prefill_working_set(const ModelSpec &m, const Layout &l, double prompt) {
  const ActLayout al = act_layout(l);
  return layer_activations(m, false, 1, prompt, ActLayout{al.tp, al.sp, al.seq_div, true}).total();
}

InferenceStageBytes inference_stage_bytes(const Config &c, const Layout &l, i64 stage, double batch,
                                          double context) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  InferenceStageBytes b;
  b.layers = static_cast<double>(stage_layers(m.layers, l, stage).size());
  b.params = stage_params(m, l, stage).total();
  b.weights = b.params * weight_bytes(w.weight_dtype);
  b.kv = kv_per_chip(m, l, batch / static_cast<double>(l.attention_replicas()), context, b.layers,
                     w.kv_dtype, w.kv_sharding);
  b.working_set = prefill_working_set(m, l, static_cast<double>(w.prompt_len));
  return b;
}

double decode_memory_per_device(const Config &c, const Layout &l, double batch, double context) {
  double worst = 0;
  for (i64 j = 0; j < l.pp; ++j)
    worst = std::max(worst, inference_stage_bytes(c, l, j, batch, context).total());
  return worst;
}

DecodeStep decode_step(const Config &c, const Layout &l, double batch, double context) {
  const ModelSpec &m = c.model;
  const HardwareSpec &hw = c.hardware;
  const WorkloadSpec &w = c.workload;
  DecodeStep d;
  d.batch = batch;
  d.context = context;
  // sequences per attention replica (dp x attention_dp; SGLang DP attention: each rank its own)
  const double br = batch / static_cast<double>(l.attention_replicas());
  const double idp = static_cast<double>(l.instance_dp());
  const bool gather = l.ep_in_instance && l.attention_dp > 1 && l.ep == 1;
  const double peak = decode_peak(c) * serving_gemm_eff(c);
  const double bw = serving_bw(c);
  const bool kv_split = w.kv_sharding == KvSharding::batch && !m.mla && l.tp > m.kv_heads;
  const double wb = weight_bytes(w.weight_dtype);
  const double h = static_cast<double>(m.hidden);
  for (i64 j = 0; j < l.pp; ++j) {
    const auto layers = stage_layers(m.layers, l, j);
    const StageParams p = stage_params(m, l, j);
    double dense = p.dense, experts_loaded = p.experts, experts_flops = 0;
    if (m.moe && p.experts > 0) {
      // The EP group's ep x B_r tokens route to its experts (uniform routing): a local
      // expert is loaded when any of them picks it; each chip serves B_r x k expert
      // assignments on average, each worth one local expert's parameters.
      const double E = static_cast<double>(m.moe->experts), k = static_cast<double>(m.moe->top_k);
      const double ep = static_cast<double>(l.ep);
      const double touched = 1 - std::pow(1 - k / E, br * idp);
      experts_loaded = p.experts * touched;
      experts_flops = l.ep_in_instance ? 2 * br * idp * k * p.experts / E // the instance's tokens
                                       : 2 * br * k * p.experts / (E / ep);
    }
    const double kv = kv_per_chip(m, l, br, context, static_cast<double>(layers.size()), w.kv_dtype,
                                  w.kv_sharding);
    const double kv_time = kv / bw;
    const double weight_time = (dense + experts_loaded) * wb / bw;
    const double compute = (2 * br * dense + experts_flops) / peak;
    double comm = 0;
    for (const i64 i : layers) {
      const bool moe_in = l.ep_in_instance && is_moe_layer(m, i);
      if (moe_in) { // core/serve/iteration.cpp: the same collectives
        const double all = 2 * br * idp * h;
        if (l.tp > 1 && !gather)
          comm += collective_time(c.cluster, Collective::allreduce, 2 * br * h, tp_group(l)).time;
        if (gather) // SGLang DP attention: all-gather before the experts, reduce-scatter after
          comm +=
              collective_time(c.cluster, Collective::allgather, all, instance_group(l)).time +
              collective_time(c.cluster, Collective::reduce_scatter, all, instance_group(l)).time;
        else // DeepSeek-V3 report: dispatch + combine, each GPU its 1/(tp x attention_dp) slice
          comm += 2 * collective_time(c.cluster, Collective::alltoall,
                                      all / static_cast<double>(l.tp * l.attention_dp) *
                                          static_cast<double>(m.moe->top_k),
                                      ep_group(l))
                          .time;
      } else if (l.tp > 1) // two AllReduce of [B, h] per layer (attention out, MLP down)
        comm += 2 * collective_time(c.cluster, Collective::allreduce, 2 * br * h, tp_group(l)).time;
      if (kv_split) // the batch split: attention inputs and outputs cross the TP ranks
        comm += 2 * collective_time(c.cluster, Collective::alltoall, 2 * br * h, tp_group(l)).time;
      if (l.ep > 1 && !l.ep_in_instance && is_moe_layer(m, i)) // dispatch + combine
        comm += 2 * collective_time(c.cluster, Collective::alltoall,
                                    2 * br * h * static_cast<double>(m.moe->top_k), ep_group(l))
                        .time;
    }
    if (l.pp > 1 && j + 1 < l.pp)
      comm += collective_time(c.cluster, Collective::p2p, 2 * br * h, pp_group(l)).time;
    d.kv_time += kv_time;
    d.weight_time += weight_time;
    d.compute_time += compute;
    d.comm_time += comm;
    d.step += kv_time + std::max(compute, weight_time) + comm;
    d.compute_bound = d.compute_bound || compute > weight_time;
  }
  d.memory_per_device = decode_memory_per_device(c, l, batch, context);
  d.fits = d.memory_per_device <= usable_memory(hw);
  if (w.bound == ServingBound::achievable) {
    // One engine iteration of the instance (tp x pp x ep chips, ep replicas' sequences),
    // timed by the serving iteration model: the same costs `ridgeline serve` simulates.
    IterationModel model(c, l);
    const double seqs = br * idp;
    IterationLoad x;
    x.decode = seqs;
    x.decode_context = seqs * context;
    x.outputs = seqs;
    const IterationTime it = model.time(x);
    d.kv_time = it.attention;
    d.weight_time = it.linear_bytes;
    d.compute_time = it.linear_flops;
    d.other_time = it.elementwise + it.head;
    d.comm_time = it.comm;
    d.step = it.total;
    d.compute_bound = it.linear_flops > it.linear_bytes;
  }
  d.tokens_per_s = batch / d.step;
  d.tokens_per_s_per_chip = d.tokens_per_s / static_cast<double>(l.devices());
  return d;
}

Prefill prefill(const Config &c, const Layout &l, double prompt_tokens) {
  const ModelSpec &m = c.model;
  Prefill p;
  p.tokens = prompt_tokens;
  if (c.workload.bound == ServingBound::achievable) {
    // The prompt as one iteration of the serving model (causal attention over itself).
    IterationModel model(c, l);
    IterationLoad x;
    x.prefill = prompt_tokens;
    x.prefill_pairs = prompt_tokens * prompt_tokens / 2;
    x.prefill_kv = prompt_tokens;
    x.outputs = 1;
    const IterationTime it = model.time(x);
    p.comm = it.comm;
    p.compute = it.total - it.comm;
    p.time = it.total;
    return p;
  }
  Layout one = l;
  one.microbatch = 1;
  const std::vector<OpCost> dense = layer_ops(m, false, one, prompt_tokens, c.hardware,
                                              c.workload.precision, c.workload.causal_skip);
  std::vector<OpCost> moe;
  if (m.moe)
    moe = layer_ops(m, true, one, prompt_tokens, c.hardware, c.workload.precision,
                    c.workload.causal_skip);
  auto total = [](const std::vector<OpCost> &ops) {
    double t = 0;
    for (const auto &o : ops)
      t += o.time;
    return t;
  };
  const double act = 2 * prompt_tokens / static_cast<double>(l.cp) * static_cast<double>(m.hidden);
  for (i64 i = 0; i < m.layers; ++i) {
    const bool is_moe = is_moe_layer(m, i);
    p.compute += total(is_moe ? moe : dense);
    if (l.tp > 1) {
      if (l.sp)
        p.comm +=
            2 * (collective_time(c.cluster, Collective::allgather, act, tp_group(l)).time +
                 collective_time(c.cluster, Collective::reduce_scatter, act, tp_group(l)).time);
      else
        p.comm += 2 * collective_time(c.cluster, Collective::allreduce, act, tp_group(l)).time;
    }
    if (is_moe && l.ep > 1)
      p.comm += 2 * collective_time(c.cluster, Collective::alltoall,
                                    act * static_cast<double>(m.moe->top_k), ep_group(l))
                        .time;
  }
  if (l.pp > 1)
    p.comm += static_cast<double>(l.pp - 1) *
              collective_time(c.cluster, Collective::p2p, act, pp_group(l)).time;
  // the LM head runs on the last prompt token only
  p.compute +=
      gemm_cost("lm head", 1, static_cast<double>(m.hidden),
                static_cast<double>(m.vocab) / static_cast<double>(l.tp), 1,
                peak_flops(c.hardware, c.workload.precision),
                serving_gemm_efficiency(c.hardware, c.workload.precision), c.hardware.hbm_bw)
          .time;
  p.time = p.compute + p.comm;
  return p;
}

std::vector<double> sweep_batches(i64 max_batch, i64 dp, double critical_batch) {
  std::vector<double> out;
  const double top = std::max<double>(static_cast<double>(max_batch), 1) * 2;
  for (double b = 1; b <= top && b <= 65536; b *= 2)
    out.push_back(b * static_cast<double>(dp));
  if (std::round(critical_batch) >= 1)
    out.push_back(std::round(critical_batch));
  if (max_batch > 0)
    out.push_back(static_cast<double>(max_batch));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<DecodeStep> batch_sweep(const Config &c, const Layout &l,
                                    const std::vector<double> &batches, double context) {
  std::vector<DecodeStep> out;
  for (const double b : batches)
    out.push_back(decode_step(c, l, b, context));
  return out;
}

ServingEstimate serving(const Config &c, const Layout &l) {
  const ModelSpec &m = c.model;
  const HardwareSpec &hw = c.hardware;
  const WorkloadSpec &w = c.workload;
  ServingEstimate s;
  s.weight_bytes_per_param = weight_bytes(w.weight_dtype);
  const double batch = static_cast<double>(w.batch);
  const double prompt = static_cast<double>(w.prompt_len), gen = static_cast<double>(w.gen_len);
  s.prefill = prefill(c, l, prompt);
  s.decode = decode_step(c, l, batch, prompt + gen / 2);
  s.decode_last = decode_step(c, l, batch, prompt + gen);
  s.ttft = s.prefill.time;
  s.tpot = s.decode.step;
  s.request_latency = s.ttft + gen * s.tpot;
  // Static batching: every prompt of the replica's batch is prefilled (back to back,
  // compute-bound) before the batch decodes gen tokens; the batch's wall time counts all.
  const double br = batch / static_cast<double>(l.attention_replicas());
  s.batch_prefill = br * s.prefill.time;
  s.batch_time = s.batch_prefill + gen * s.tpot;
  s.batch_tokens_per_s = s.batch_time > 0 ? batch * gen / s.batch_time : 0;
  s.batch_tokens_per_s_per_chip = s.batch_tokens_per_s / static_cast<double>(l.devices());
  // Decode is compute-bound when 2 B P / F > P * bytes / BW: B > F * bytes / (2 BW).
  s.critical_batch = decode_peak(c) * s.weight_bytes_per_param / (2 * hw.hbm_bw);
  if (m.moe)
    s.moe_critical_batch =
        s.critical_batch * static_cast<double>(m.moe->experts) / static_cast<double>(m.moe->top_k);
  // Largest batch (multiple of dp) whose final-context memory fits.
  auto fits = [&](double b) {
    return decode_memory_per_device(c, l, b, prompt + gen) <= usable_memory(hw); // memory only
  };
  i64 lo = 0, hi = 1;
  const i64 reps = l.attention_replicas();
  while (hi < (i64{1} << 30) && fits(static_cast<double>(hi * reps)))
    lo = hi, hi *= 2;
  while (hi - lo > 1) {
    const i64 mid = (lo + hi) / 2;
    (fits(static_cast<double>(mid * reps)) ? lo : hi) = mid;
  }
  s.max_batch = lo * reps;
  // Smallest power-of-two TP slice holding weights + KV of the batch at the final context.
  {
    const double total_weights =
        static_cast<double>(model_params(m).total()) * s.weight_bytes_per_param;
    const double total_kv = batch * (prompt + gen) * kv_cache_bytes_per_token(m, w.kv_dtype);
    for (i64 n = 1; n <= (i64{1} << 20); n *= 2)
      if ((total_weights + total_kv) / static_cast<double>(n) <= usable_memory(hw)) {
        s.min_devices = n;
        break;
      }
  }
  // Disaggregated serving: prefill instances run one prompt at a time; decode instances
  // batch the largest B meeting the TPOT target (How to Scale Your Model ch. 7: P / t_prefill = B G
  // / (t_decode * gen)).
  s.devices_per_instance = l.instance_devices();
  if (w.request_rate > 0) {
    s.disaggregated = true;
    if (s.prefill.time > w.ttft_target)
      throw ConfigError("workload.ttft_target", "prefill alone takes " +
                                                    std::to_string(s.prefill.time * 1e3) +
                                                    " ms on this layout, over the target");
    i64 best = 0;
    for (i64 b = std::max<i64>(1, s.max_batch); b >= 1; b = b > 64 ? b * 15 / 16 : b - 1) {
      const DecodeStep d = decode_step(c, l, static_cast<double>(b), prompt + gen / 2);
      if (d.step <= w.tpot_target) {
        best = b;
        break;
      }
    }
    if (best == 0)
      throw ConfigError("workload.tpot_target", "not met even at batch 1 on this layout");
    s.decode_batch = best;
    const DecodeStep d = decode_step(c, l, static_cast<double>(best), prompt + gen / 2);
    // an instance decodes its attention-DP ranks' batches at once (ep replicas of dp, or
    // attention_dp)
    const double per_instance = static_cast<double>(best) /
                                static_cast<double>(l.attention_replicas()) *
                                static_cast<double>(l.instance_dp());
    s.prefill_instances = w.request_rate * s.prefill.time;
    s.decode_instances = w.request_rate * gen * d.step / per_instance;
    s.prefill_to_decode = s.prefill_instances / std::max(s.decode_instances, 1e-30);
  }
  return s;
}

} // namespace rl
