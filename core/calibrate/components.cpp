#include "core/calibrate/components.hpp"

#include "core/time/gemm_efficiency.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>

namespace rl {

const char *name_of_component(ComponentKind k) {
  switch (k) {
  case ComponentKind::gemm:
    return "gemm";
  case ComponentKind::attention:
    return "attention";
  case ComponentKind::collective:
    return "collective";
  case ComponentKind::hbm:
    return "hbm";
  case ComponentKind::moe:
    return "moe";
  }
  return "?";
}

double flash_attention_flops(double batch, double heads, double seq, double head_dim, bool causal) {
  return 3.5 * 4 * batch * seq * seq * heads * head_dim / (causal ? 2.0 : 1.0);
}

double bus_bandwidth_factor(Collective op, i64 n) {
  const double nd = static_cast<double>(n);
  switch (op) {
  case Collective::allreduce:
    return 2 * (nd - 1) / nd;
  case Collective::allgather:
  case Collective::reduce_scatter:
  case Collective::alltoall:
    return (nd - 1) / nd;
  case Collective::p2p:
    return 1;
  }
  return 1;
}

double moe_experts_flops(const ComponentPoint &p) {
  return 6 * p.tokens * static_cast<double>(p.top_k) * static_cast<double>(p.hidden) *
         static_cast<double>(p.expert_ffn);
}

namespace {
// The step-time model's attention: a FlashAttention forward at attention_efficiency (or the
// memory bound), the backward twice it (step_time.cpp: a layer's backward is 2 x forward).
double attention_rate(const ComponentPoint &p) {
  const HardwareSpec &hw = p.hardware;
  const double fwd = flash_attention_flops(p.batch, p.heads, p.seq, p.head_dim, p.causal) / 3.5;
  const double bytes = 2 * 4 * p.batch * p.seq * p.heads * p.head_dim; // Q, K, V, O
  const double eff =
      hw.attention_efficiency > 0 ? hw.attention_efficiency : base_gemm_efficiency(hw, p.precision);
  const double t_fwd =
      std::max(fwd / (peak_flops(hw, p.precision) * eff), bytes / achieved_hbm_bw(hw));
  return 3.5 * fwd / (3 * t_fwd);
}
} // namespace

ComponentRow predict_component(const ComponentPoint &p) {
  ComponentRow r;
  r.name = p.name;
  r.source = p.source;
  r.kind = p.kind;
  r.measured = p.measured;
  r.fitted = p.fitted;
  switch (p.kind) {
  case ComponentKind::gemm: {
    const HardwareSpec &hw = p.hardware;
    const OpCost o = gemm_cost("gemm", p.m, p.k, p.n, 1, peak_flops(hw, p.precision),
                               gemm_shape_efficiency(hw, p.precision, p.m, p.k, p.n),
                               achieved_hbm_bw(hw), gemm_operand_bytes(p.precision));
    r.predicted = o.flops / o.time;
    r.unit = "TFLOP/s";
    break;
  }
  case ComponentKind::attention:
    r.predicted = attention_rate(p);
    r.unit = "TFLOP/s";
    break;
  case ComponentKind::collective: {
    const CollectiveTime t = collective_time(p.cluster, p.op, p.bytes, Group{p.group, 1});
    r.predicted = p.bytes / t.time * bus_bandwidth_factor(p.op, p.group);
    r.unit = "GB/s";
    break;
  }
  case ComponentKind::hbm:
    r.predicted = achieved_hbm_bw(p.hardware);
    r.unit = "GB/s";
    break;
  case ComponentKind::moe:
    r.predicted =
        moe_experts_flops(p) / moe_experts_time(p.hardware, p.precision, p.hidden, p.expert_ffn,
                                                p.experts, p.top_k, p.tokens);
    r.unit = "TFLOP/s";
    break;
  }
  r.error = r.predicted / r.measured - 1;
  return r;
}

std::vector<ComponentRow> check_components(const std::vector<ComponentPoint> &points) {
  std::vector<ComponentRow> out;
  out.reserve(points.size());
  for (const ComponentPoint &p : points)
    out.push_back(predict_component(p));
  return out;
}

} // namespace rl
