#include "core/time/step_time.hpp"

#include "core/error.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/lora.hpp"
#include "core/model/params.hpp"
#include "core/time/adapter_ops.hpp"
#include "core/time/gemm_efficiency.hpp"
#include "core/time/loss_and_routing.hpp"
#include "core/time/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace rl {

double peak_flops(const HardwareSpec &hw, Dtype precision) {
  switch (precision) {
  case Dtype::fp8:
  case Dtype::mxfp8:
    return hw.peak.fp8 > 0 ? hw.peak.fp8 : hw.peak.bf16;
  case Dtype::nvfp4:
  case Dtype::mxfp4:
    return hw.peak.fp4; // 0 is refused up front (check_precision_peak)
  case Dtype::int8:
    return hw.peak.int8 > 0 ? hw.peak.int8 : hw.peak.bf16;
  case Dtype::int4:
    return hw.peak.int4 > 0 ? hw.peak.int4 : hw.peak.bf16;
  case Dtype::fp32:
    return hw.peak.fp32 > 0 ? hw.peak.fp32 : hw.peak.bf16;
  default:
    return hw.peak.bf16;
  }
}

bool has_precision_peak(const HardwareSpec &hw, Dtype precision) {
  return !is_fp4(precision) || hw.peak.fp4 > 0;
}

void check_precision_peak(const HardwareSpec &hw, Dtype precision) {
  if (!has_precision_peak(hw, precision))
    throw ConfigError("workload.precision",
                      hw.name + " has no FP4 peak (hardware.peak_flops.fp4); FP4 weights alone "
                                "are weight_dtype (dequantised to the precision's GEMMs)");
}

double gemm_operand_bytes(Dtype d) {
  return is_scaled_float(d) ? dtype_bytes(d) : 2.0;
}

OpCost gemm_cost(const std::string &name, double m, double k, double n, double count, double peak,
                 double eff, double hbm_bw, double elem_bytes) {
  OpCost o;
  o.name = name;
  o.m = m;
  o.k = k;
  o.n = n;
  o.count = count;
  o.flops = 2 * m * k * n * count;
  o.bytes = elem_bytes * (m * k + k * n + m * n) * count;
  o.time = std::max(o.flops / (peak * eff), o.bytes / hbm_bw);
  return o;
}

namespace {
OpCost memory_op(const std::string &name, double bytes, double hbm_bw) {
  OpCost o;
  o.name = name;
  o.bytes = bytes;
  o.time = bytes / hbm_bw;
  return o;
}
} // namespace

namespace {
// MLA's up-projections: what recompute_mla_up reruns.
constexpr const char *kQUp = "q_up";
constexpr const char *kKvUp = "kv_up";
// An MoE layer's routed experts and their routing: what moe_experts_time sums.
constexpr const char *kExpertsUp = "experts up", *kExpertsDown = "experts down",
                     *kRouting = "routing";

// Transformer Engine FP8/FP4: only the linear layers' GEMMs run in FP8 or FP4; attention, the
// router and the output layer (outside Megatron's FP8/FP4 autocast) stay bf16.
Dtype outside_fp8_autocast(Dtype precision) {
  return is_scaled_float(precision) ? Dtype::bf16 : precision;
}
} // namespace

double overlap_sm_share(const HardwareSpec &hw, double sms) {
  const double n = static_cast<double>(hw.sm_count);
  return n > 0 ? std::min(sms, n) / n : 0.0;
}

double ddp_bucket_params(i64 zero, i64 dp) {
  return zero == 2 ? 5e8 : std::max(40e6, 1e6 * static_cast<double>(dp));
}

bool skips_causal_half(bool causal_skip, const Layout &l) {
  return causal_skip && l.flash;
}

double moe_load_factor(const WorkloadSpec &w) {
  return w.moe_capacity_factor > 0 ? std::min(w.moe_imbalance, w.moe_capacity_factor)
                                   : w.moe_imbalance;
}

std::vector<OpCost> layer_ops(const ModelSpec &m, bool moe, const Layout &l, double s,
                              const HardwareSpec &hw, Dtype precision, bool causal_skip,
                              double imbalance, std::optional<Fp8Recipe> recipe) {
  const Dtype other = outside_fp8_autocast(precision);
  const double bw = achieved_hbm_bw(hw);
  const double t = static_cast<double>(l.tp);
  const double b = static_cast<double>(l.microbatch);
  const double tok = b * s / static_cast<double>(l.cp); // tokens on this device
  const double h = static_cast<double>(m.hidden);
  const double a_l = static_cast<double>(heads_per_rank(m, l.tp));
  const double kv_l = static_cast<double>(kv_heads_per_rank(m, l.tp));
  const double rep = l.sp && l.tp > 1 ? t : 1.0; // element-wise work split by SP
  std::vector<OpCost> ops;
  // A linear layer's GEMM runs at the workload's precision, the others at `other`.
  auto gemm = [&](const char *n, OpKind kind, double M, double K, double N, double count = 1,
                  bool linear = true) {
    const Dtype d = linear ? precision : other;
    ops.push_back(gemm_cost(n, M, K, N, count, peak_flops(hw, d),
                            gemm_shape_efficiency(hw, d, M, K, N, count), bw,
                            gemm_operand_bytes(d)));
    ops.back().kind = kind;
  };
  double dqk = static_cast<double>(m.head_dim), dv = dqk;
  if (m.mla) {
    const MlaSpec &x = *m.mla;
    dqk = static_cast<double>(x.qk_nope_head_dim + x.qk_rope_head_dim);
    dv = static_cast<double>(x.v_head_dim);
    const double rq = static_cast<double>(x.q_lora_rank), rkv = static_cast<double>(x.kv_lora_rank);
    if (rq > 0) {
      gemm("q_down", OpKind::other, tok, h, rq);
      gemm(kQUp, OpKind::column, tok, rq, a_l * dqk);
    } else {
      gemm("q", OpKind::column, tok, h, a_l * dqk);
    }
    gemm("kv_down", OpKind::other, tok, h, rkv + static_cast<double>(x.qk_rope_head_dim));
    gemm(kKvUp, OpKind::column, tok, rkv, a_l * static_cast<double>(x.qk_nope_head_dim) + a_l * dv);
  } else {
    gemm("qkv", OpKind::column, tok, h, dqk * (a_l + 2 * kv_l));
  }
  // Attention: Ulysses gives each device a/(t u) heads over its ring shard of queries
  // against the whole sequence; ring CP streams the other shards' K, V.
  const double u = static_cast<double>(l.ulysses), ring = static_cast<double>(l.ring);
  const double heads = a_l / u, kv_heads = std::max(1.0, kv_l / u);
  const double sq = b * s / ring, skv = b * s / ring * ring; // b*s/ring queries, b*s keys
  const double causal = skips_causal_half(causal_skip, l) ? 0.5 : 1.0;
  const double seqs = b;
  if (l.flash) {
    OpCost o;
    o.name = "attention (flash)";
    o.kind = OpKind::attention;
    o.flops = causal * 2 * (sq / seqs) * (skv / seqs) * heads * (dqk + dv) * seqs;
    o.bytes = 2 * (sq * heads * (dqk + dv) + skv * kv_heads * (dqk + dv)) + 4 * sq * heads;
    const double eff =
        hw.attention_efficiency > 0 ? hw.attention_efficiency : base_gemm_efficiency(hw, other);
    o.time = std::max(o.flops / (peak_flops(hw, other) * eff), o.bytes / bw);
    ops.push_back(o);
  } else {
    gemm("scores QK^T", OpKind::attention, sq / seqs, dqk, skv / seqs, seqs * heads, false);
    ops.back().flops *= causal;
    ops.push_back(
        memory_op("softmax",
                  2 * 2 * heads * (sq / seqs) * (skv / seqs) * seqs * (m.dropout ? 2.5 : 1.0), bw));
    ops.back().kind = OpKind::attention;
    gemm("scores x V", OpKind::attention, sq / seqs, skv / seqs, dv, seqs * heads, false);
    ops.back().flops *= causal;
  }
  gemm("out proj", OpKind::row, tok, a_l * dv, h);
  const double gate = m.gated_mlp ? 2.0 : 1.0;
  if (moe && m.moe) {
    const MoeSpec &e = *m.moe;
    const ExpertShare x = expert_share(m, l, tok, imbalance);
    const double fe = x.ffn, routed = x.routed;
    const double local = static_cast<double>(e.experts / l.ep);
    gemm("router", OpKind::other, tok, h, static_cast<double>(e.experts), 1, false);
    // the router's scores and the tokens' permutation into expert order and back, on the SP
    // shard; the backward moves the same bytes
    ops.push_back(
        memory_op(kRouting,
                  moe_routing_bytes(tok / rep, h, x.dispatched, static_cast<double>(e.experts),
                                    l.ep > 1 && local > 1),
                  bw));
    ops.back().kind = OpKind::memory;
    ops.back().bwd = ops.back().time;
    gemm(kExpertsUp, OpKind::column, routed / local, h, gate * fe, local);
    gemm(kExpertsDown, OpKind::row, routed / local, fe, h, local);
    if (e.shared_experts > 0) { // split like the attention, by tp
      const double fs =
          static_cast<double>(e.expert_ffn) / t * static_cast<double>(e.shared_experts);
      gemm("shared up", OpKind::column, tok, h, gate * fs);
      gemm("shared down", OpKind::row, tok, fs, h);
    }
  } else {
    const double f = static_cast<double>(m.ffn) / t;
    gemm("mlp up", OpKind::column, tok, h, gate * f);
    gemm("mlp down", OpKind::row, tok, f, h);
  }
  ops.push_back(memory_op("element-wise", elementwise_bytes(m, moe, tok, l.tp, rep), bw));
  ops.back().kind = OpKind::memory;
  if (recipe && is_scaled_float(precision)) {
    const QuantizeFormat f = quantize_format(precision, *recipe);
    const ExpertShare share = moe ? expert_share(m, l, tok, imbalance) : ExpertShare{};
    const LayerQuantize q = layer_quantize(m, moe, tok, l.tp, rep, share.routed, share.ffn);
    OpCost o;
    o.name = kQuantizeOp;
    o.kind = OpKind::memory;
    o.bwd = 0;
    for (const QuantizedTensor &x : q.forward) {
      o.time += quantize_time(hw, f, x);
      o.bytes += quantize_bytes(f, x);
    }
    for (const QuantizedTensor &x : q.backward)
      o.bwd += quantize_time(hw, f, x);
    ops.push_back(o);
  }
  return ops;
}

double elementwise_bytes(const ModelSpec &m, bool moe, double tok, i64 tp, double sp_split) {
  // 2 norms read+write 2 x 2sbh, 2 residual adds read 2 write 1 (2 x 3 x 2sbh), split by SP;
  // the activation function reads gate(+up) and writes one f-wide tensor; rotary reads and
  // writes Q and K; dropout masks (when on) three h-wide tensors.
  const double h = static_cast<double>(m.hidden);
  const double a_l = static_cast<double>(heads_per_rank(m, tp));
  const double kv_l = static_cast<double>(kv_heads_per_rank(m, tp));
  const double dqk = m.mla ? static_cast<double>(m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim)
                           : static_cast<double>(m.head_dim);
  return (2 * 4 + 2 * 6) * tok * h / sp_split + activation_function_bytes(m, moe, tok, tp) +
         2 * 2 * tok * dqk * (a_l + kv_l) + (m.dropout ? 2 * 3 * tok * h / sp_split : 0.0);
}

double activation_function_bytes(const ModelSpec &m, bool moe, double tok, i64 tp) {
  const double gate = m.gated_mlp ? 2.0 : 1.0;
  const double ffn_w = moe && m.moe ? static_cast<double>(m.moe->expert_ffn) *
                                          static_cast<double>(m.moe->top_k + m.moe->shared_experts)
                                    : static_cast<double>(m.ffn);
  return 2 * (gate + 1) * tok * ffn_w / static_cast<double>(tp);
}

double moe_experts_time(const HardwareSpec &hw, Dtype precision, i64 hidden, i64 expert_ffn,
                        i64 experts, i64 top_k, double tokens) {
  ModelSpec m;
  m.layers = 1;
  m.hidden = hidden;
  m.heads = std::max<i64>(1, hidden / 128);
  m.kv_heads = m.heads;
  m.head_dim = hidden / m.heads;
  m.ffn = expert_ffn;
  m.moe = MoeSpec{experts, top_k, expert_ffn};
  const Layout l; // tp 1, ep 1, one sequence
  double t = 0;
  for (const OpCost &o : layer_ops(m, true, l, tokens, hw, precision, true, 1, std::nullopt))
    if (o.name == kExpertsUp || o.name == kExpertsDown || o.name == kRouting)
      t += o.time;
  return t + activation_function_bytes(m, true, tokens, 1) / achieved_hbm_bw(hw);
}

namespace {

double sum_time(const std::vector<OpCost> &ops) {
  double t = 0;
  for (const auto &o : ops)
    t += o.time;
  return t;
}

double kind_time(const std::vector<OpCost> &ops, OpKind kind) {
  double t = 0;
  for (const auto &o : ops)
    if (o.kind == kind)
      t += o.time;
  return t;
}

struct CommAcc {
  std::map<std::string, CommCost> by_kind;
  void add(const std::string &kind, const CollectiveTime &ct, double count, double exposed) {
    CommCost &c = by_kind[kind];
    c.kind = kind;
    if (c.collective.empty())
      c.collective = name_of_collective(ct.op);
    else if (c.collective.find(name_of_collective(ct.op)) == std::string::npos)
      c.collective.append("+").append(name_of_collective(ct.op));
    c.group = ct.n;
    c.bytes_per_device += ct.bytes_per_device * count;
    c.time += ct.time * count;
    c.exposed += exposed;
  }
};

// Adam step traffic per parameter: read the fp32 master, m, v and the gradient, write master,
// m, v and the bf16 weight: 2 x its state + g + 2 bytes (12 + g + 12 + 2 with fp32 moments).
double adam_bytes_per_param(const StateWidths &b) {
  return 2 * b.optimizer + b.grads + 2;
}

// A fine-tune with adapters (workload.finetune lora or qlora): the base is frozen.
const FinetuneSpec *adapters_of(const WorkloadSpec &w) {
  return w.finetune && w.finetune->adapters() ? &*w.finetune : nullptr;
}

// One layer's forward operators as the workload trains them: layer_ops, rewritten for a frozen
// base (core/time/adapter_ops).
std::vector<OpCost> trained_layer_ops(const Config &c, bool moe, const Layout &l, double s,
                                      Dtype precision, double load) {
  const WorkloadSpec &w = c.workload;
  std::vector<OpCost> ops =
      layer_ops(c.model, moe, l, s, c.hardware, precision, w.causal_skip, load, w.fp8_recipe);
  if (const FinetuneSpec *f = adapters_of(w))
    adapt_for_finetune(ops, c.model, *f, c.hardware, precision);
  return ops;
}

// The step-time model's inputs for one layout; `acc` (when set) records the comm list.
struct Model {
  const Config &c;
  const Layout &l;
  LayoutGroups g;
  double s, b, h, mb, tok, act_bytes, load;
  Model(const Config &c_, const Layout &l_)
      : c(c_), l(l_), g(layout_groups(l_)), s(static_cast<double>(c_.workload.seq_len)),
        b(static_cast<double>(l_.microbatch)), h(static_cast<double>(c_.model.hidden)),
        mb(static_cast<double>(l_.num_micro)), tok(b * s / static_cast<double>(l_.cp)),
        act_bytes(2 * tok * h), // one bf16 activation [b, s/cp, h]
        load(moe_load_factor(c_.workload)) {}

  // Per-layer collectives, forward and backward, exposed per micro-batch. With `acc`, records
  // bytes and times per micro-batch for `count` layers (scaled to the step at the end) and
  // their exposure for the whole step.
  // Megatron-Core's default overlap (LinearWithGradAccumulationAndAsyncCommunication): in a
  // column-parallel layer's backward, the ReduceScatter (SP) or AllReduce of the input
  // gradient runs under the weight-gradient GEMM, and SP's AllGather of the saved input
  // under the input-gradient GEMM: up to `column` (those GEMMs' forward time) each. The
  // row-parallel layers' backward AllGathers and a recomputed forward's collectives are
  // exposed. parallel.overlap_tp (Transformer Engine's userbuffers) hides them all.
  // Exposed time forward and backward, and `sms`: the computation's time lost to the SMs
  // of what hides under it (overlap_sm_share), forward and backward, all per micro-batch.
  struct Exposure {
    double fwd = 0, bwd = 0, sms_fwd = 0, sms_bwd = 0;
  };
  double nccl_share() const { return overlap_sm_share(c.hardware, c.cluster.collective_sms); }
  Exposure layer_comm(bool moe, const LayerTimes &lt, double count, CommAcc *acc) const {
    const double attn = lt.attention, column = lt.column, moe_f = lt.f;
    const ModelSpec &m = c.model;
    const ClusterSpec &cl = c.cluster;
    double fwd_exposed = 0, bwd_exposed = 0;
    const double nccl = nccl_share(), ub = overlap_sm_share(c.hardware, kUserbufferSms);
    Exposure x_sms; // the SM costs; the exposures are summed below
    const bool full = l.recompute == Recompute::full;
    if (l.tp > 1) {
      if (l.sp) { // Korthikanti et al. 2022: 6 AllGather + 4 ReduceScatter per layer, fwd 2 + 2
        // An MoE layer gathers its SP shard only for the attention: the router and the
        // dispatcher take the shard itself (the experts' gather is the expert-TP one below).
        const double blocks = moe && m.moe ? 1.0 : 2.0;
        const CollectiveTime ag = collective_time(cl, Collective::allgather, act_bytes, g.tp);
        const CollectiveTime rs = collective_time(cl, Collective::reduce_scatter, act_bytes, g.tp);
        const double fwd = blocks * (ag.time + rs.time);
        const double extra_ag = full ? 0.0 : blocks; // full recompute re-gathers in its forward
        const double recomp = full ? fwd : 0.0;
        const double hidden = std::max(0.0, blocks * rs.time - column) +
                              std::max(0.0, extra_ag * ag.time - (extra_ag > 0 ? column : 0.0));
        const double bwd = blocks * ag.time + hidden + recomp;
        const double fe = l.overlap_tp ? 0 : fwd, be = l.overlap_tp ? 0 : bwd;
        if (l.overlap_tp) {
          // userbuffers: the forward's AllGathers and the backward's input-gradient ones by
          // ring exchange (copy engines), the ReduceScatters (a recomputed forward's too)
          // and the weight gradient's re-gather on its SMs
          x_sms.sms_fwd += ub * blocks * rs.time;
          x_sms.sms_bwd +=
              ub * (blocks * rs.time + extra_ag * ag.time + (full ? blocks : 0.0) * rs.time);
        } else {
          // Megatron's overlap: what hides under the column GEMMs' backward, on NCCL's SMs
          x_sms.sms_bwd +=
              nccl * (blocks * rs.time + extra_ag * ag.time + recomp + blocks * ag.time - bwd);
        }
        if (acc) {
          acc->add("sp", ag, count * (2 * blocks + extra_ag + (recomp > 0 ? blocks : 0)), 0);
          acc->add("sp", rs, count * (2 * blocks + (recomp > 0 ? blocks : 0)),
                   count * mb * (fe + be));
        }
        fwd_exposed += fe;
        bwd_exposed += be;
      } else { // 2 AllReduce forward, 2 backward (+2 when the forward is recomputed)
        const CollectiveTime ar = collective_time(cl, Collective::allreduce, act_bytes, g.tp);
        const double n_bwd = 2 + (full ? 2 : 0);
        const double bwd = std::max(0.0, 2 * ar.time - column) + (full ? 2 * ar.time : 0.0);
        const double fe = l.overlap_tp ? 0 : 2 * ar.time, be = l.overlap_tp ? 0 : bwd;
        if (l.overlap_tp) {
          x_sms.sms_fwd += ub * 2 * ar.time;
          x_sms.sms_bwd += ub * n_bwd * ar.time;
        } else {
          x_sms.sms_bwd += nccl * (n_bwd * ar.time - bwd);
        }
        if (acc)
          acc->add("tp", ar, count * (2 + n_bwd), count * mb * (fe + be));
        fwd_exposed += fe;
        bwd_exposed += be;
      }
    }
    if (l.ulysses > 1) { // AllToAll of Q, K, V and O forward; their gradients backward
      const double a_l = static_cast<double>(heads_per_rank(m, l.tp));
      const double kv_l = static_cast<double>(kv_heads_per_rank(m, l.tp));
      const double d = static_cast<double>(m.head_dim);
      const double buf = 2 * tok * d * (2 * a_l + 2 * kv_l); // per-device Q,K,V,O buffers
      const CollectiveTime a2a = collective_time(cl, Collective::alltoall, buf, g.uly);
      if (acc)
        acc->add("ulysses", a2a, 2 * count, count * mb * 2 * a2a.time);
      fwd_exposed += a2a.time;
      bwd_exposed += a2a.time;
    }
    if (l.ring > 1) { // K, V chunks passed ring-1 times; hidden behind attention (max)
      const double kv_l = std::max(1.0, static_cast<double>(kv_heads_per_rank(m, l.tp)) /
                                            static_cast<double>(l.ulysses));
      const double chunk = 2 * 2 * b * s / static_cast<double>(l.cp) * kv_l *
                           static_cast<double>(m.head_dim); // K and V of one shard
      const CollectiveTime p = collective_time(cl, Collective::p2p, chunk, g.ring);
      const double fwd = static_cast<double>(l.ring - 1) * p.time;
      const double fe = std::max(0.0, fwd - attn), be = std::max(0.0, 2 * fwd - 2 * attn);
      x_sms.sms_fwd += nccl * (fwd - fe);
      x_sms.sms_bwd += nccl * (2 * fwd - be);
      if (acc)
        acc->add("ring_cp", p, count * 3 * static_cast<double>(l.ring - 1), count * mb * (fe + be));
      fwd_exposed += fe;
      bwd_exposed += be;
    }
    const ExpertShare x = moe && m.moe ? expert_share(m, l, tok, load) : ExpertShare{};
    // Megatron's alltoall dispatcher, forward: AllToAll of the dispatched tokens over EP, then
    // an AllGather over the expert-TP group; the combine reduce-scatters, then AllToAll back.
    // The backward runs each the other way. Buffers are the busiest rank's (moe_load_factor).
    // Of each direction's two AllToAlls, one (the forward dispatch, the backward combine
    // gradient) may go in FP8 (workload.moe_fp8_dispatch); the other stays bf16.
    CollectiveTime a2a, a2a_low, etp_ag, etp_rs;
    if (moe && m.moe && l.ep > 1) {
      a2a = collective_time(cl, Collective::alltoall, 2 * x.dispatched * h, g.ep);
      a2a_low = collective_time(cl, Collective::alltoall,
                                dispatch_wire_bytes(c.workload) * x.dispatched * h, g.ep);
    }
    if (moe && m.moe && x.gathered_over > 1) {
      etp_ag = collective_time(cl, Collective::allgather, 2 * x.routed * h, g.etp);
      etp_rs = collective_time(cl, Collective::reduce_scatter, 2 * x.routed * h, g.etp);
    }
    const double dispatch =
        a2a.time + a2a_low.time + etp_ag.time + etp_rs.time; // one pass, each way
    if (dispatch > 0) {
      // parallel.overlap_ep (DeepSeek-V3's DualPipe, Megatron-Core's EP overlap): a forward
      // chunk's dispatch/combine run under another micro-batch's backward (2 x its forward)
      // and the backward's under a forward.
      const double fe = l.overlap_ep ? std::max(0.0, dispatch - 2 * moe_f) : dispatch;
      const double be = l.overlap_ep ? std::max(0.0, dispatch - moe_f) : dispatch;
      const double share = fe + be > 0 ? (fe + be) / (2 * dispatch) : 0.0;
      x_sms.sms_fwd += nccl * (dispatch - fe);
      x_sms.sms_bwd += nccl * (dispatch - be);
      if (acc) {
        if (a2a.time > 0) {
          acc->add("ep", a2a, 2 * count, count * mb * share * 2 * a2a.time);
          acc->add("ep", a2a_low, 2 * count, count * mb * share * 2 * a2a_low.time);
        }
        if (etp_ag.time > 0) {
          acc->add("etp", etp_ag, 2 * count, 0);
          acc->add("etp", etp_rs, 2 * count, count * mb * share * 2 * (etp_ag.time + etp_rs.time));
        }
      }
      fwd_exposed += fe;
      bwd_exposed += be;
    }
    x_sms.fwd = fwd_exposed;
    x_sms.bwd = bwd_exposed;
    return x_sms;
  }

  // ZeRO-3: gather each layer's weights forward and backward, reduce-scatter its gradients,
  // per micro-batch; prefetched, so only what exceeds the layer's compute is exposed. The
  // weights travel at their stored width (FP8 with fp8_params: Megatron's FP8 parameter
  // gather), the gradients at theirs (state_widths, as the DP sync and the memory count them).
  std::pair<CollectiveTime, CollectiveTime> zero3_collectives(bool moe) const {
    const StageParams lp = layer_params_per_device(c.model, moe, l.tp, l.ep);
    const StateWidths b = state_widths(c.workload);
    double gathered = b.weights * lp.total(), reduced = b.grads * lp.total();
    if (const FinetuneSpec *f = adapters_of(c.workload)) {
      // the frozen base travels at its stored width; only the adapters have gradients
      const StageLayerCount one{moe ? 0 : 1, moe ? 1 : 0};
      const double a = lora_stage_params(c.model, l, one, *f).total();
      gathered = base_weight_bytes(f->base_dtype) * lp.total() + b.weights * a;
      reduced = b.grads * a;
    }
    return {collective_time(c.cluster, Collective::allgather, gathered, g.dp),
            collective_time(c.cluster, Collective::reduce_scatter, reduced, g.dp)};
  }
  Exposure zero3(bool moe, double fwd_compute, double count, CommAcc *acc) const {
    if (l.zero < 3 || l.dp * l.cp == 1)
      return {};
    const auto [ag, rs] = zero3_collectives(moe);
    const double fe = std::max(0.0, ag.time - fwd_compute);
    const double be = std::max(0.0, ag.time + rs.time - 2 * fwd_compute);
    if (acc) {
      acc->add("zero3", ag, 2 * count, 0);
      acc->add("zero3", rs, count, count * mb * (fe + be));
    }
    const double nccl = nccl_share();
    return {fe, be, nccl * (ag.time - fe), nccl * (ag.time + rs.time - be)};
  }

  // What ZeRO-3's one-layer prefetch cannot hide (PyTorch FSDP2, Megatron-LM's FSDP): each
  // micro-batch's first gather, issued when its forward starts with no compute before it, and
  // the last layer's gradient reduce-scatter after the step's final backward (the earlier
  // micro-batches' hide under the next forward). Seconds a step; `moe`: the first layer's type.
  double zero3_edges(bool moe, CommAcc *acc) const {
    if (l.zero < 3 || l.dp * l.cp == 1)
      return 0;
    const auto [ag, rs] = zero3_collectives(moe);
    const double e = mb * ag.time + rs.time;
    if (acc)
      acc->add("zero3", ag, 0, e);
    return e;
  }

  // Selective recompute's modules beyond the attention core, one layer's forward reruns: the
  // two norms (read the input, write the output at the linear layers' input bytes, on the SP
  // shard), MLA's up-projection GEMMs, the experts' activation function (read the gate and
  // up outputs, write the down projections' input).
  double selective_modules(bool moe, const std::vector<OpCost> &ops) const {
    const ModelSpec &m = c.model;
    const double bw = achieved_hbm_bw(c.hardware);
    const double rep = l.sp && l.tp > 1 ? static_cast<double>(l.tp) : 1.0;
    const double li = act_layout(l, c.workload.precision).linear_input;
    double t = 0;
    if (l.recompute_norm)
      t += 2 * (2 + li) * tok * h / rep / bw;
    if (l.recompute_mla_up && m.mla)
      for (const OpCost &o : ops)
        if (o.name == kQUp || o.name == kKvUp)
          t += o.time;
    if (l.recompute_moe_act && moe && m.moe) {
      const ExpertShare x = expert_share(m, l, tok, load);
      t += x.routed * x.ffn * (2 * (m.gated_mlp ? 2.0 : 1.0) + li) / bw;
    }
    return t;
  }

  LayerTimes layer(bool moe, const std::vector<OpCost> &ops) const {
    LayerTimes t;
    const double over = 1 + c.hardware.compute_overhead;
    t.f = sum_time(ops) * over;
    for (const OpCost &o : ops)
      t.b += o.backward() * over;
    t.attention = kind_time(ops, OpKind::attention) * over;
    t.column = kind_time(ops, OpKind::column) * over;
    for (const OpCost &o : ops) {
      const double fb = o.time + o.backward();
      (o.kind == OpKind::attention ? t.parts.attention
       : o.kind == OpKind::memory  ? t.parts.memory
                                   : t.parts.gemm) += fb;
      // a GEMM's backward: its input gradient (the forward's FLOPs), then its weight gradient
      if (o.kind != OpKind::attention && o.kind != OpKind::memory)
        t.w += std::max(0.0, o.backward() - o.time) * over;
    }
    // Recompute matches the hardware-FLOP count: full reruns the layer's forward,
    // selective the attention-score part (Korthikanti).
    if (l.recompute == Recompute::full)
      t.r = t.f;
    else if (l.recompute == Recompute::selective)
      t.r = t.attention + selective_modules(moe, ops) * over;
    const Exposure lc = layer_comm(moe, t, 1, nullptr);
    const Exposure z = zero3(moe, t.f, 1, nullptr);
    t.fwd = lc.fwd + z.fwd;
    t.bwd = lc.bwd + z.bwd;
    // the computation under the hidden collectives runs on the SMs they leave
    t.f += lc.sms_fwd + z.sms_fwd;
    t.b += lc.sms_bwd + z.sms_bwd;
    t.parts.comm_sms = lc.sms_fwd + z.sms_fwd + lc.sms_bwd + z.sms_bwd;
    // The dropless dispatcher's per-layer host synchronisation: the layer's pass takes at
    // least the host's time to issue it (docs/calibration.md "MoE host time").
    if (moe && c.model.moe)
      t.host = std::max(0.0, c.hardware.moe_host_time - (t.f + t.b + t.r + t.fwd + t.bwd));
    return t;
  }

  // The output layer on the last stage, forward and backward: its GEMM (bf16 under FP8:
  // Megatron keeps the output layer out of Transformer Engine's FP8 autocast; backward twice
  // the forward) and the cross-entropy over its logits at the achieved HBM bandwidth.
  struct Head {
    double f = 0, b = 0; // with the overhead
    ComputeParts parts;  // f + b before it
  };
  Head head() const {
    const ModelSpec &m = c.model;
    if (m.vocab <= 0)
      return {};
    const Dtype d = outside_fp8_autocast(c.workload.precision);
    const double n = static_cast<double>(m.vocab) / static_cast<double>(l.tp);
    const double over = 1 + c.hardware.compute_overhead;
    const double bw = achieved_hbm_bw(c.hardware);
    const double gemm = gemm_cost("lm head", tok, h, n, 1, peak_flops(c.hardware, d),
                                  gemm_shape_efficiency(c.hardware, d, tok, h, n), bw)
                            .time;
    const LossBytes ce = cross_entropy_bytes(tok * n, c.workload.ce_fusion);
    Head hd;
    // a frozen head (adapters) computes its input gradient only
    const double bwd_gemms = adapters_of(c.workload) ? 1 : 2;
    hd.f = (gemm + ce.forward / bw) * over;
    hd.b = (bwd_gemms * gemm + ce.backward / bw) * over;
    hd.parts.gemm = (1 + bwd_gemms) * gemm;
    hd.parts.memory = (ce.forward + ce.backward) / bw;
    return hd;
  }

  // Transformer Engine's CPU offload (parallel.offload_layers): an offloaded layer's stored
  // activations go to the host under the next layer's forward and come back under the
  // previous layer's backward, at cluster.host_bw each way; what a copy takes beyond that
  // layer's pass is exposed. Per micro-batch: {forward, backward, bytes each way}. The
  // offloaded layers are timed as the stage's layer type (MoE when it has MoE layers).
  struct Offload {
    double fwd = 0, bwd = 0, bytes = 0;
  };
  Offload offload(const LayerSet &t, const StageLayerCount &n) const {
    Offload o;
    if (l.offload_layers <= 0 || c.cluster.host_bw <= 0)
      return o;
    const bool moe = n.moe > 0;
    const LayerActivationBytes a = layer_activation_bytes(c.model, l, s, c.workload.precision);
    const LayerTimes &x = moe ? t.moe : t.dense;
    const double k = static_cast<double>(std::min<i64>(l.offload_layers, n.total()));
    const double copy = (moe ? a.kept_moe : a.kept_dense) / c.cluster.host_bw;
    o.fwd = k * std::max(0.0, copy - (x.f + x.fwd + x.host));
    o.bwd = k * std::max(0.0, copy - (x.b + x.r + x.bwd));
    o.bytes = k * (moe ? a.kept_moe : a.kept_dense);
    return o;
  }

  // One pipeline send of one micro-batch's chunk (activations forward, gradients back).
  // Megatron's scatter/gather (on unless --no-scatter-gather-tensors-in-pipeline) sends 1/t
  // of the activation between stages, with or without SP; without SP the receiver
  // AllGathers it over the TP group. Interleaving sends v times per micro-batch each way
  // (Narayanan et al. 2021 sec. 2.2.2).
  struct Send {
    double exposed = 0, sms = 0; // per send: on the critical path; the SM cost when hidden
  };
  Send pp_send(CommAcc *acc) const {
    if (l.pp <= 1)
      return {};
    const double t = static_cast<double>(l.tp);
    const CollectiveTime p = collective_time(c.cluster, Collective::p2p, act_bytes / t, g.pp);
    CollectiveTime gather;
    if (l.tp > 1 && !l.sp)
      gather = collective_time(c.cluster, Collective::allgather, act_bytes, g.tp);
    const double e = l.overlap_pp ? 0 : p.time + gather.time;
    const double sends = 2 * mb * static_cast<double>(chunk_passes(l));
    if (acc) {
      acc->add("pp", p, sends, sends * e);
      if (gather.time > 0)
        acc->add("pp", gather, sends, 0);
    }
    return {e, nccl_share() * (p.time + gather.time - e)};
  }

  // Data-parallel sync of a stage's gradients (and ZeRO's parameter gathers): exposed time,
  // and the SM cost of the part that hides (Send's fields, per step).
  Send dp_sync(const StageParams &sp, double t_fwd, double t_bwd, CommAcc *acc) const {
    if (l.zero >= 3)
      return {};
    const StateWidths b = state_widths(c.workload);
    double exposed = 0, hidden = 0;
    auto sync = [&](double params, const Group &grp, const char *kind) {
      if (grp.n <= 1 || params <= 0)
        return;
      CollectiveTime grad, gather;
      if (l.zero >= 1) {
        grad = collective_time(c.cluster, Collective::reduce_scatter, b.grads * params, grp);
        gather = collective_time(c.cluster, Collective::allgather, b.weights * params, grp);
      } else {
        grad = collective_time(c.cluster, Collective::allreduce, b.grads * params, grp);
      }
      // ZeRO-2 reduce-scatters each micro-batch's gradients during its backward (DeepSpeed
      // buckets); ZeRO-0/1 (Megatron's DDP and distributed optimizer) accumulate locally and
      // reduce once, under the last micro-batch's backward.
      const double times = l.zero == 2 ? mb : 1.0;
      const double bucket = std::min(1.0, ddp_bucket_params(l.zero, grp.n) / params);
      const double grad_exposed = l.overlap_dp
                                      ? std::max(times * (grad.time - t_bwd), grad.time * bucket)
                                      : times * grad.time;
      const double gather_exposed =
          l.zero >= 1 ? (l.overlap_dp ? std::max(0.0, gather.time - t_fwd) : gather.time) : 0.0;
      if (acc) {
        acc->add(kind, grad, times, grad_exposed);
        if (l.zero >= 1)
          acc->add(kind, gather, 1, gather_exposed);
      }
      exposed += grad_exposed + gather_exposed;
      hidden +=
          times * grad.time - grad_exposed + (l.zero >= 1 ? gather.time - gather_exposed : 0.0);
    };
    sync(sp.dense, g.dp, "dp");
    sync(sp.experts, g.edp, "dp_experts");
    return {exposed, nccl_share() * hidden};
  }
};

} // namespace

StageParams trained_stage_params(const Config &c, const ModelParams &mp, const Layout &l, i64 stage,
                                 const StageLayerCount &n) {
  if (const FinetuneSpec *f = adapters_of(c.workload))
    return lora_stage_params(c.model, l, n, *f);
  return stage_params(c.model, mp, l, stage, n);
}

LayerTimes layer_times(const Config &c, const Layout &l, bool moe, bool bf16) {
  const WorkloadSpec &w = c.workload;
  const Model md(c, l);
  return md.layer(moe,
                  trained_layer_ops(c, moe, l, md.s, bf16 ? Dtype::bf16 : w.precision, md.load));
}

LayerSet layer_set(const Config &c, const Layout &l) {
  const bool moe = c.model.moe.has_value();
  const Bf16Layers hp = bf16_layers(c.workload);
  LayerSet t;
  t.dense = layer_times(c, l, false);
  if (moe)
    t.moe = layer_times(c, l, true);
  if (hp.first > 0 || hp.last > 0) {
    t.dense_bf16 = layer_times(c, l, false, true);
    if (moe)
      t.moe_bf16 = layer_times(c, l, true, true);
  }
  return t;
}

double over_layers(const StageLayerCount &n, const LayerSet &t, double (*of)(const LayerTimes &)) {
  return static_cast<double>(n.dense - n.dense_bf16) * of(t.dense) +
         static_cast<double>(n.dense_bf16) * of(t.dense_bf16) +
         static_cast<double>(n.moe - n.moe_bf16) * of(t.moe) +
         static_cast<double>(n.moe_bf16) * of(t.moe_bf16);
}

StepTime step_time_from(const Config &c, const ModelParams &mp, const Layout &l, const LayerSet &t,
                        const std::vector<StageLayerCount> &mix) {
  const HardwareSpec &hw = c.hardware;
  const WorkloadSpec &w = c.workload;
  if (hw.hbm_bw <= 0)
    throw ConfigError("hardware.hbm_bw", "must be > 0 for a time estimate");
  const Model md(c, l);
  StepTime st;
  st.peak = peak_flops(hw, w.precision);
  const Model::Head hd = md.head();
  const double head_f = hd.f, head_b = hd.b;
  // the chunks of a device one micro-batch runs (interleaved vpp, DualPipeV's two, DualPipe's
  // one of two), and the share of the device's layers that is
  const double share = pass_share(l), v = static_cast<double>(chunk_passes(l));
  // one pipeline send: its exposed time, and the SM cost of a hidden one to the computation
  // under it; each micro-batch sends v times each way
  const Model::Send send = md.pp_send(nullptr);
  // Slowest stage: per micro-batch forward and backward.
  double worst = -1;
  Model::Offload worst_off; // its activation offload's exposed copies
  for (i64 j = 0; j < l.pp; ++j) {
    const StageLayerCount &n = mix[static_cast<std::size_t>(j)];
    double fwd =
        share * over_layers(n, t, [](const LayerTimes &x) { return x.f + x.fwd + x.host; });
    double bwd = share * over_layers(n, t, [](const LayerTimes &x) { return x.b + x.r + x.bwd; });
    double compute = share * over_layers(n, t, [](const LayerTimes &x) { return x.f + x.b + x.r; });
    const double recompute = share * over_layers(n, t, [](const LayerTimes &x) { return x.r; });
    if (holds_head(l, j)) {
      fwd += share * head_f;
      bwd += share * head_b;
      compute += share * (head_f + head_b);
    }
    fwd += v * (send.exposed + send.sms);
    bwd += v * (send.exposed + send.sms);
    compute += 2 * v * send.sms;
    Model::Offload off = md.offload(t, n);
    off.fwd *= share;
    off.bwd *= share;
    fwd += off.fwd;
    bwd += off.bwd;
    if (fwd + bwd > worst) {
      worst = fwd + bwd;
      st.compute = compute;
      st.recompute = recompute;
      st.t_fwd = fwd;
      st.t_bwd = bwd;
      st.slowest_stage = j;
      worst_off = off;
    }
  }
  const double mb = md.mb, p = static_cast<double>(l.pp);
  st.compute *= mb;
  st.recompute *= mb;
  {
    // the slowest stage's compute by component, once it is known
    const StageLayerCount &ns = mix[static_cast<std::size_t>(st.slowest_stage)];
    const bool last = holds_head(l, st.slowest_stage);
    const double ms = mb * share;
    st.parts.gemm = ms * (over_layers(ns, t, [](const LayerTimes &x) { return x.parts.gemm; }) +
                          (last ? hd.parts.gemm : 0.0));
    st.parts.attention =
        ms * over_layers(ns, t, [](const LayerTimes &x) { return x.parts.attention; });
    st.parts.memory = ms * (over_layers(ns, t, [](const LayerTimes &x) { return x.parts.memory; }) +
                            (last ? hd.parts.memory : 0.0));
    st.parts.comm_sms =
        ms * over_layers(ns, t, [](const LayerTimes &x) { return x.parts.comm_sms; }) +
        mb * 2 * v * send.sms;
  }
  const double t_mb = st.t_fwd + st.t_bwd;
  if (is_dualpipe(l.schedule)) {
    // DeepSeek-V3 Table 2 (DualPipe's README): (S/2 - 1)(F&B + B - 3W) over S stages of
    // chunk times, S = p (DualPipe) or 2p (the V), a chunk 1/v of a micro-batch's pass on the
    // device; F&B, a forward and a backward chunk overlapped, computes F + B (their
    // communication is what hides, parallel.overlap_ep).
    const double stages = p * v; // the stages a micro-batch passes
    const double wgrad = share * over_layers(mix[static_cast<std::size_t>(st.slowest_stage)], t,
                                             [](const LayerTimes &x) { return x.w; });
    st.bubble = std::max(0.0, (stages / 2 - 1) * (st.t_fwd + 2 * st.t_bwd - 3 * wgrad) / v);
  } else {
    st.bubble = l.schedule == PpSchedule::gpipe ? (p - 1) * t_mb : (p - 1) / v * t_mb;
  }

  // the weights the step trains (a fine-tune's adapters), their gradients synchronised
  const StageParams sp = trained_stage_params(c, mp, l, st.slowest_stage,
                                              mix[static_cast<std::size_t>(st.slowest_stage)]);
  const Model::Send dp = md.dp_sync(sp, st.t_fwd, st.t_bwd, nullptr);
  const double dp_exposed = dp.exposed;
  // the hidden part of the DP sync costs the backward and forward under it their SMs
  st.sync_sms = dp.sms;
  st.compute += dp.sms;
  st.parts.comm_sms += dp.sms;
  // Adam over this device's (sharded) parameters, memory-bound; or on the host (ZeRO-Offload):
  // the gradients down and the bf16 weights up over the host link, the update at its rate.
  const double shard_dense = l.zero >= 1 ? static_cast<double>(l.dp * l.cp) : 1.0;
  const double shard_exp = l.zero >= 1 ? static_cast<double>(expert_dp(l)) : 1.0;
  const double updated = sp.dense / shard_dense + sp.experts / shard_exp;
  st.optimizer = l.offload_optimizer
                     ? updated * (state_widths(w).grads + kWeightBytes) / c.cluster.host_bw +
                           updated / c.cluster.host_adam_rate
                     : updated * adam_bytes_per_param(state_widths(w)) / achieved_hbm_bw(hw);
  // Per-layer and pipeline exposure, per micro-batch on the slowest stage, over the step.
  const StageLayerCount &n = mix[static_cast<std::size_t>(st.slowest_stage)];
  // FP8/FP4: the stage's layer weights quantised once a step (Transformer Engine caches them
  // across the micro-batches); BF16 layers have none.
  const double nd = static_cast<double>(n.dense - n.dense_bf16),
               nm = static_cast<double>(n.moe - n.moe_bf16);
  const QuantizeFormat qf = quantize_format(w.precision, w.fp8_recipe);
  if (qf.copies > 0) {
    const ModelSpec &m = c.model;
    const double params = nd * layer_params_per_device(m, false, l.tp, l.ep, l.moe_tp).total() +
                          nm * layer_params_per_device(m, true, l.tp, l.ep, l.moe_tp).total();
    const double matrices = nd * linear_weights_per_layer(m, false, l.ep) +
                            nm * linear_weights_per_layer(m, true, l.ep);
    const double wq0 = weight_quantize_time(hw, qf, params, matrices, w.fp8_params);
    st.compute += wq0 * (1 + hw.compute_overhead);
    st.parts.memory += wq0;
  }
  st.comm_exposed =
      dp_exposed +
      mb * share * over_layers(n, t, [](const LayerTimes &x) { return x.fwd + x.bwd; }) +
      md.zero3_edges(n.dense == 0, nullptr) + 2 * mb * v * send.exposed +
      mb * (worst_off.fwd + worst_off.bwd);
  st.host = mb * share * over_layers(n, t, [](const LayerTimes &x) { return x.host; });
  st.step = st.compute + st.comm_exposed + st.host + st.bubble + st.optimizer;
  return st;
}

StepTime training_step_time(const Config &c, const Layout &l) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  const Model md(c, l);
  const LayerSet ts = layer_set(c, l);
  const std::vector<StageLayerCount> mix = stage_layer_mix(m, l, bf16_layers(w));
  const ModelParams mp = model_params(m);
  StepTime st = step_time_from(c, mp, l, ts, mix);
  // one dense layer's operators, in the workload's precision
  st.ops = trained_layer_ops(c, false, l, md.s, w.precision, md.load);

  // The communication list of the slowest stage: the same collectives, recorded.
  CommAcc acc;
  const StageLayerCount &n = mix[static_cast<std::size_t>(st.slowest_stage)];
  const std::pair<const LayerTimes *, i64> kinds[] = {{&ts.dense, n.dense - n.dense_bf16},
                                                      {&ts.dense_bf16, n.dense_bf16},
                                                      {&ts.moe, n.moe - n.moe_bf16},
                                                      {&ts.moe_bf16, n.moe_bf16}};
  for (std::size_t k = 0; k < 4; ++k) {
    const auto &[t, layers] = kinds[k];
    if (layers <= 0)
      continue;
    const bool is_moe = k >= 2;
    // the layers one micro-batch passes (DualPipe: one copy's of the two)
    const double passed = static_cast<double>(layers) * pass_share(l);
    md.layer_comm(is_moe, *t, passed, &acc);
    md.zero3(is_moe, t->f, passed, &acc);
  }
  md.zero3_edges(n.dense == 0, &acc);
  md.pp_send(&acc);
  md.dp_sync(trained_stage_params(c, mp, l, st.slowest_stage, n), st.t_fwd, st.t_bwd, &acc);
  if (const Model::Offload off = md.offload(ts, n); off.bytes > 0) {
    CommCost o; // the host link, both ways, every micro-batch
    o.kind = "offload";
    o.collective = "d2h+h2d";
    o.bytes_per_device = 2 * off.bytes * md.mb * pass_share(l);
    o.time = o.bytes_per_device / c.cluster.host_bw;
    o.exposed = md.mb * pass_share(l) * (off.fwd + off.bwd);
    st.comm.push_back(o);
  }
  for (auto &[k, cc] : acc.by_kind) {
    if (k != "dp" && k != "dp_experts" && k != "pp") {
      // bytes and times were recorded per micro-batch: scale them to the whole step
      cc.bytes_per_device *= md.mb;
      cc.time *= md.mb;
    }
    st.comm.push_back(cc);
  }
  return st;
}

} // namespace rl
