#include "core/serve/iteration.hpp"

#include "core/serve/lora.hpp"

#include "core/serve/speculative.hpp"

#include "core/inference/serving.hpp"
#include "core/model/params.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace rl {

double kv_share(const ModelSpec &m, i64 tp, KvSharding s) {
  if (m.mla || m.kv_heads <= 0)
    return 1;
  if (s == KvSharding::batch)
    return 1 / static_cast<double>(tp);
  return static_cast<double>(kv_heads_per_rank(m, tp)) / static_cast<double>(m.kv_heads);
}

double gemm_calls_per_layer(const ModelSpec &m, bool moe_layer) {
  const double attention = m.mla ? 4 : 2;
  if (!moe_layer || !m.moe)
    return attention + 2;
  return attention + 1 + 2 + (m.moe->shared_experts > 0 ? 2 : 0);
}

Dtype attention_dtype(const WorkloadSpec &w) {
  const bool low = w.precision == Dtype::fp8 || is_fp4(w.precision);
  return low && w.kv_dtype == Dtype::fp8 ? Dtype::fp8 : Dtype::bf16;
}

const EngineSpec::SmallGemm *small_gemm(const EngineSpec &e, const std::string &hardware,
                                        Dtype weights, Dtype precision) {
  const auto half = [](Dtype d) { return d == Dtype::bf16 || d == Dtype::fp16; };
  const auto eight = [](Dtype d) { return d == Dtype::fp8 || d == Dtype::mxfp8; };
  const auto on = e.gemm_on.find(hardware);
  const EngineSpec::GemmFits &f = on != e.gemm_on.end() ? on->second : e.gemm;
  const EngineSpec::SmallGemm *g = half(weights) && half(precision)       ? &f.bf16
                                   : eight(weights) && eight(precision)   ? &f.fp8
                                   : is_fp4(weights) && is_fp4(precision) ? &f.fp4
                                                                          : nullptr;
  return g && g->latency > 0 ? g : nullptr;
}

const EngineSpec::SmallGemm &engine_decode_attention(const EngineSpec &e,
                                                     const std::string &hardware) {
  const auto on = e.decode_attention_on.find(hardware);
  return on != e.decode_attention_on.end() ? on->second : e.decode_attention;
}

double moe_efficiency(const EngineSpec &e, const std::string &hardware, const WorkloadSpec &w) {
  const auto on = e.moe_on.find(hardware);
  if (on == e.moe_on.end() || w.weight_dtype != w.precision)
    return 0;
  const EngineSpec::MoeEfficiency &f = on->second;
  switch (w.precision) {
  case Dtype::bf16:
  case Dtype::fp16:
    return f.bf16;
  case Dtype::fp8:
    return w.fp8_recipe == Fp8Recipe::blockwise ? f.fp8_block : f.fp8;
  default:
    return is_fp4(w.precision) ? f.fp4 : 0;
  }
}

double context_attention_efficiency(const EngineSpec &e, const std::string &hardware,
                                    const ModelSpec &m, Dtype kv_dtype) {
  const auto on = e.context_attention_on.find(hardware);
  if (on == e.context_attention_on.end())
    return 0;
  const EngineSpec::ContextAttention &f = on->second;
  const bool fp8 = kv_dtype == Dtype::fp8;
  return m.mla ? (fp8 ? f.mla_fp8 : f.mla_bf16) : (fp8 ? f.fp8 : f.bf16);
}

double moe_efficiency(const Config &c) {
  if (!c.model.moe || c.workload.bound == ServingBound::roofline)
    return 0;
  return moe_efficiency(c.workload.serve.engine, c.hardware.name, c.workload);
}

IterationModel::IterationModel(const Config &c, const Layout &l) : c_(c), l_(l) {
  const ModelSpec &m = c.model;
  const HardwareSpec &hw = c.hardware;
  const WorkloadSpec &w = c.workload;
  const bool roofline = w.bound == ServingBound::roofline;
  peak_ = peak_flops(hw, w.precision);
  if (const EngineSpec::SmallGemm &a = engine_decode_attention(w.serve.engine, hw.name);
      !roofline && !m.mla && a.latency > 0)
    decode_attn_ = a;
  eff_ = roofline ? 1.0 : serving_gemm_efficiency(hw, w.precision);
  const Dtype ad = attention_dtype(w);
  attn_rate_ = peak_flops(hw, ad) * (roofline ? 1.0 : serving_gemm_efficiency(hw, ad));
  // a prompt's attention: the engine's measured context kernel on this chip, else the chip's
  // FlashAttention share of its bf16 peak (hardware.attention_efficiency), else as decode's
  const double ctx = context_attention_efficiency(w.serve.engine, hw.name, m, w.kv_dtype);
  ctx_share_ = roofline ? 0 : ctx > 0 ? ctx : hw.attention_efficiency;
  ctx_measured_ = !roofline && ctx > 0;
  ctx_rate_ = ctx_share_ > 0 ? peak_flops(hw, Dtype::bf16) * ctx_share_ : attn_rate_;
  bw_ = hw.hbm_bw * (roofline ? 1.0 : hw.hbm_efficiency);
  wb_ = rl::weight_bytes(w.weight_dtype);
  // the engine's measured GEMM kernels (achievable bound only): their weight-streaming share
  // of HBM and their fixed time per call
  const EngineSpec::SmallGemm *sg =
      roofline ? nullptr : small_gemm(w.serve.engine, hw.name, w.weight_dtype, w.precision);
  if (sg) {
    gemm_fit_ = *sg;
    // an engine that fuses per-tensor FP8 quantisation pays the GEMM kernel's own latency
    // (EngineSpec::fp8_quant_fused; block-scaled FP8 keeps its quantise kernel)
    const EngineSpec::SmallGemm *half =
        small_gemm(w.serve.engine, hw.name, Dtype::bf16, Dtype::bf16);
    if (w.serve.engine.fp8_quant_fused && w.precision == Dtype::fp8 &&
        w.weight_dtype == Dtype::fp8 && w.fp8_recipe != Fp8Recipe::blockwise && half)
      gemm_fit_->latency = half->latency;
  }
  bw_lin_ = sg ? hw.hbm_bw * sg->bw_efficiency : bw_;
  calls_d_ = sg ? gemm_calls_per_layer(c.model, false) * gemm_fit_->latency : 0;
  calls_m_ = sg ? gemm_calls_per_layer(c.model, true) * gemm_fit_->latency : 0;
  moe_eff_ = moe_efficiency(c);
  devices_ = l.instance_devices();
  dense_lp_ = layer_params_per_device(m, false, l.tp, l.ep);
  if (m.moe)
    moe_lp_ = layer_params_per_device(m, true, l.tp, l.ep, l.moe_tp);
  kv_layer_chip_ = kv_bytes_per_token_layer(m, w.kv_dtype) * kv_share(m, l.tp, w.kv_sharding);
  kv_model_bytes_ = kv_cache_bytes_per_token(m, w.kv_dtype);
  double dqk = static_cast<double>(m.head_dim), dv = dqk;
  if (m.mla) {
    dqk = static_cast<double>(m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim);
    dv = static_cast<double>(m.mla->v_head_dim);
  }
  attn_width_ = static_cast<double>(heads_per_rank(m, l.tp)) * (dqk + dv);
  // element-wise bytes are linear in the tokens: per token, once
  elem_d_ = elementwise_bytes(m, false, 1, l.tp, 1);
  elem_m_ = m.moe ? elementwise_bytes(m, true, 1, l.tp, 1) : elem_d_;
  const double t = static_cast<double>(l.tp);
  if (const auto &lo = w.serve.lora; lo && w.mode == Mode::serve) {
    const double r = static_cast<double>(lo->rank);
    lora_d_ = r * lora_layer_width(m, false) / t;
    lora_m_ = r * lora_layer_width(m, true) / t;
    lora_rate_ =
        peak_flops(hw, Dtype::bf16) * (roofline ? 1.0 : serving_gemm_efficiency(hw, Dtype::bf16));
  }
  const ModelParams mp = model_params(m);
  head_params_ = static_cast<double>(m.tied_embeddings ? mp.embedding : mp.head) / t;
  for (i64 j = 0; j < l.pp; ++j) {
    Stage s;
    for (const i64 i : stage_layers(m.layers, l, j))
      (is_moe_layer(m, i) ? s.moe_layers : s.dense_layers) += 1;
    s.last = j == l.pp - 1;
    stages_.push_back(s);
    const double layers = s.dense_layers + s.moe_layers;
    weight_bytes_ = std::max(weight_bytes_, stage_params(m, l, j).total() * wb_);
    kv_token_bytes_ = std::max(kv_token_bytes_, layers * kv_layer_chip_);
  }
  const LayoutGroups g = layout_groups(l);
  tp_g_ = g.tp;
  ep_g_ = g.ep;
  pp_g_ = g.pp;
  inst_g_ = g.instance;
  if (const auto &sp = w.serve.speculative; sp && w.mode == Mode::serve) {
    verify_ = 1 + static_cast<double>(sp->draft_tokens);
    draft_steps_ = static_cast<double>(sp->draft_tokens);
    draft_cfg_ = std::make_unique<Config>(c);
    draft_cfg_->model = draft_module(m, *sp);
    draft_cfg_->workload.serve.speculative.reset();
    draft_cfg_->workload.serve.lora.reset();                  // the adapters are the model's
    draft_cfg_->workload.serve.engine.iteration_overhead = 0; // the model's iteration carries it
    Layout dl = l;
    dl.pp = 1; // the draft runs beside the last stage
    draft_ = std::make_unique<IterationModel>(*draft_cfg_, dl);
    // its weights beside the model's, less what it shares: mtp the embedding and the head,
    // eagle the embedding (EAGLE-3 reads the model's)
    const ModelParams dp = model_params(draft_cfg_->model);
    double shared = 0;
    if (sp->method != SpecMethod::draft)
      shared += static_cast<double>(dp.embedding) / t;
    if (sp->method == SpecMethod::mtp)
      shared += static_cast<double>(dp.head) / t;
    weight_bytes_ += std::max(0.0, draft_->weight_bytes() - shared * wb_);
    kv_token_bytes_ += draft_->kv_bytes_per_token();
  }
}

IterationModel::~IterationModel() = default;

double IterationModel::kv_tokens(double budget_per_chip) const {
  if (budget_per_chip <= 0 || kv_token_bytes_ <= 0)
    return 0;
  // sequences spread over the attention-DP ranks (EP ranks of dp, or attention_dp)
  return std::floor(budget_per_chip / kv_token_bytes_) * static_cast<double>(l_.instance_dp());
}

// An all-reduce the engine runs with its own kernel: within its size limit and one NVLink
// domain (custom all-reduce reads the peers' buffers over NVLink).
bool IterationModel::engine_allreduce(double bytes, const Group &g) const {
  const EngineSpec &e = c_.workload.serve.engine;
  return e.allreduce_bw > 0 && bytes <= e.allreduce_max_bytes && g.n > 1 &&
         group_devices_per_node(c_.cluster, g) >= g.n;
}

// Latency plus the bus bytes over the fitted bandwidth (nccl-tests' bus-bandwidth convention:
// an all-reduce moves 2 (n - 1) / n of the message per rank).
double engine_allreduce_time(const EngineSpec &e, double bytes, i64 n) {
  const double nn = static_cast<double>(n);
  return e.allreduce_latency + 2 * (nn - 1) / nn * bytes / e.allreduce_bw;
}

// Collectives depend on the tokens in flight only; memoised per whole token count.
double IterationModel::collective(Collective op, double bytes, const Group &g,
                                  std::vector<double> &cache, double tokens) {
  const double r = std::round(tokens);
  const bool cacheable = r == tokens && r >= 0 && r < 65536;
  const auto i = static_cast<std::size_t>(cacheable ? r : 0);
  if (cacheable && i < cache.size() && cache[i] >= 0)
    return cache[i];
  const double t = op == Collective::allreduce && engine_allreduce(bytes, g)
                       ? engine_allreduce_time(c_.workload.serve.engine, bytes, g.n)
                       : collective_time(c_.cluster, op, bytes, g).time;
  if (cacheable) {
    if (cache.size() <= i)
      cache.resize(i + 1, -1.0);
    cache[i] = t;
  }
  return t;
}

IterationTime IterationModel::time(const IterationLoad &x) {
  const ModelSpec &m = c_.model;
  // Attention and dense layers run data-parallel over the instance's attention-DP ranks (the
  // EP ranks of dp, or attention_dp: SGLang v0.4 blog, LMSYS 2024-12).
  const double ep = static_cast<double>(l_.instance_dp());
  const double h = static_cast<double>(m.hidden);
  // every query the model runs: prompt chunks and 1 + k per decoding sequence
  const double all = x.prefill + x.decode * verify_;
  const double tokens = all / ep;
  IterationTime it;
  // One layer's linear layers: 2 FLOPs per weight per token; routed experts receive
  // tokens x top_k assignments spread over all experts; a local expert's weights are read
  // when any token of the instance picks it (uniform routing). With the engine's measured MoE
  // efficiency the routed experts are a kernel of their own: {compute, weight streaming} of
  // the rest, then the experts' max of the two at that efficiency.
  auto linear = [&](const StageParams &p, bool moe) {
    double flops = 2 * tokens * p.dense, bytes = p.dense * wb_, experts = 0;
    if (moe && m.moe && p.experts > 0) {
      const double E = static_cast<double>(m.moe->experts), k = static_cast<double>(m.moe->top_k);
      const double ef = 2 * all * k * p.experts / E;
      const double eb = p.experts * wb_ * (1 - std::pow(1 - k / E, all));
      if (moe_eff_ > 0) {
        experts = std::max(ef / (peak_ * moe_eff_), eb / bw_lin_);
      } else {
        flops += ef;
        bytes += eb;
      }
    }
    return std::array<double, 3>{flops / (peak_ * eff_), bytes / bw_lin_, experts};
  };
  const auto lin_d = linear(dense_lp_, false);
  const auto lin_m = m.moe ? linear(moe_lp_, true) : lin_d;
  // Attention (FlashAttention / paged attention): 2 x a_l x (d_qk + d_v) FLOPs per q-k pair;
  // decode reads every KV token of its sequences, prefill the prior KV plus its chunk.
  // Decode queries run at attn_rate_, prompt chunks at the context kernel's ctx_rate_.
  const double dflops = 2 * attn_width_ * x.decode_context * verify_ / ep;
  const double pflops = 2 * attn_width_ * x.prefill_pairs / ep;
  const double attn_bytes = kv_layer_chip_ * (x.decode_context + x.prefill_kv) / ep;
  double attn = std::max(dflops / attn_rate_ + pflops / ctx_rate_, attn_bytes / bw_);
  if (decode_attn_ && x.decode > 0) {
    // the engine's measured decode kernel: its time per call, the KV read at its share of
    // HBM; the prompt chunks beside it at the context kernel
    const double dbytes = kv_layer_chip_ * x.decode_context / ep;
    const double pbytes = attn_bytes - dbytes;
    attn =
        decode_attn_->latency +
        std::max(dflops / attn_rate_, dbytes / (c_.hardware.hbm_bw * decode_attn_->bw_efficiency)) +
        (x.prefill > 0 ? std::max(pflops / ctx_rate_, pbytes / bw_) : 0);
  }
  // Element-wise traffic: the same kernels as in training (core/time), no sequence parallelism.
  const double elem_d = elem_d_ * tokens / bw_;
  const double elem_m = elem_m_ * tokens / bw_;
  // Collectives per layer: two TP AllReduce of [tokens, h] (attention out, MLP down); MoE
  // dispatch + combine AllToAll of tokens x top_k x h; How to Scale Your Model's KV batch split
  // moves the attention input and output across the TP ranks (an AllToAll each way).
  const double act = tokens * h * act_b_;
  double comm_d = 0, comm_m = 0;
  if (l_.tp > 1) {
    comm_d += 2 * collective(Collective::allreduce, act, tp_g_, cache_tp_, tokens);
    if (c_.workload.kv_sharding == KvSharding::batch && !m.mla && l_.tp > m.kv_heads)
      comm_d += 2 * collective(Collective::alltoall, act, tp_g_, cache_kvsplit_, tokens);
  }
  comm_m = comm_d;
  if (m.moe && l_.ep_in_instance) {
    // EP inside the instance: the experts (moe_tp x ep = tp x attention_dp GPUs) replace the
    // MLP-down all-reduce; the attention output is all-reduced over tp unless DP attention
    // gathers it over tp x attention_dp.
    const bool gather = l_.attention_dp > 1 && l_.ep == 1;
    comm_m =
        comm_d - (l_.tp > 1 ? collective(Collective::allreduce, act, tp_g_, cache_tp_, tokens) : 0);
    if (gather && l_.tp > 1)
      comm_m -= collective(Collective::allreduce, act, tp_g_, cache_tp_, tokens);
    const double batch = all * h * act_b_; // the whole instance batch
    if (l_.ep > 1) // DeepSeek-V3 report / DeepEP: dispatch + combine, each GPU its 1/(t x a) slice
      comm_m +=
          2 * collective(Collective::alltoall,
                         batch / static_cast<double>(inst_g_.n) * static_cast<double>(m.moe->top_k),
                         ep_g_, cache_ep_, all);
    else // SGLang DP attention: gather the DP ranks' tokens for the experts, scatter back
      comm_m += collective(Collective::allgather, batch, inst_g_, cache_ag_, all) +
                collective(Collective::reduce_scatter, batch, inst_g_, cache_rs_, all);
  } else if (m.moe && l_.ep > 1) {
    comm_m += 2 * collective(Collective::alltoall, act * static_cast<double>(m.moe->top_k), ep_g_,
                             cache_ep_, tokens);
  }
  // LoRA (Punica's SGMV, S-LoRA's MBGMM): every token through its adapter's A and B, 2 r (in
  // + out) FLOPs per adapted matrix, the batch's distinct adapters read once (bf16)
  const auto lora = [&](double width) {
    return width > 0
               ? std::max(2 * all * width / ep / lora_rate_, x.lora_adapters * width * 2 / bw_)
               : 0.0;
  };
  const double lora_d = lora(lora_d_), lora_m = lora(lora_m_);
  for (const Stage &s : stages_) {
    const double n_d = s.dense_layers, n_m = s.moe_layers;
    it.lora += n_d * lora_d + n_m * lora_m;
    it.linear += n_d * (calls_d_ + std::max(lin_d[0], lin_d[1])) +
                 n_m * (calls_m_ + std::max(lin_m[0], lin_m[1]) + lin_m[2]);
    it.linear_flops += n_d * lin_d[0] + n_m * lin_m[0];
    it.linear_bytes += n_d * lin_d[1] + n_m * lin_m[1];
    it.linear_experts += n_m * lin_m[2];
    it.attention += (n_d + n_m) * attn;
    it.elementwise += n_d * elem_d + n_m * elem_m;
    it.comm += n_d * comm_d + n_m * comm_m;
    if (!s.last && l_.pp > 1)
      it.comm += collective(Collective::p2p, act, pp_g_, cache_pp_, tokens);
    if (s.last && x.outputs > 0) {
      const double rows = (x.outputs + x.decode * (verify_ - 1)) / ep;
      it.head = std::max(2 * rows * head_params_ / (peak_ * eff_), head_params_ * wb_ / bw_);
    }
  }
  if (draft_) {
    // k draft steps over the decoding sequences (each proposes one token a sequence), one pass
    // over the prompt chunks (the draft's own KV)
    if (x.decode > 0) {
      IterationLoad d;
      d.decode = x.decode;
      d.decode_context = x.decode_context;
      d.outputs = x.decode;
      it.draft += draft_steps_ * draft_->time(d).total;
    }
    if (x.prefill > 0) {
      IterationLoad p = x;
      p.decode = p.decode_context = p.outputs = 0;
      it.draft += draft_->time(p).total;
    }
  }
  it.engine = c_.workload.serve.engine.iteration_overhead;
  it.total = it.linear + it.attention + it.elementwise + it.head + it.comm + it.draft + it.lora +
             it.engine;
  return it;
}

} // namespace rl
