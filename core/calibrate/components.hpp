// ridgeline calibrate: the step-time model's components against published microbenchmarks
// (docs/calibration.md): one GEMM, one FlashAttention forward+backward, one collective's bus
// bandwidth, a streaming HBM kernel, one MoE layer's routed experts. Each point is predicted by the
// same functions the step time uses, with no end-to-end parameter (compute_overhead does not apply
// to a lone kernel).
#pragma once

#include "core/comm/collective.hpp"
#include "core/config.hpp"

#include <string>
#include <vector>

namespace rl {

enum class ComponentKind { gemm, attention, collective, hbm, moe };
const char *name_of_component(ComponentKind k);

struct ComponentPoint {
  std::string name, source;
  ComponentKind kind = ComponentKind::gemm;
  HardwareSpec hardware; // gemm, attention, hbm
  ClusterSpec cluster;   // collective
  Dtype precision = Dtype::bf16;
  double m = 0, n = 0, k = 0;                         // gemm [m x k] x [k x n]
  double batch = 0, heads = 0, seq = 0, head_dim = 0; // attention
  bool causal = false;
  i64 hidden = 0, expert_ffn = 0, experts = 0, top_k = 0; // moe: one layer's routed experts
  double tokens = 0;                                      // moe: tokens into the layer
  Collective op = Collective::allreduce;                  // collective
  i64 group = 0;
  i64 nodes = 1;    // collective: the nodes its ranks spread over (group / nodes per node)
  double bytes = 0; // collective: nccl-tests' size S
  // TFLOP/s (FLOP/s; moe: the experts' 6 tokens top_k hidden expert_ffn), bus bandwidth or
  // HBM bandwidth (B/s)
  double measured = 0;
  bool fitted = false; // one of the points a parameter was fitted to
};

struct ComponentRow {
  std::string name, source, unit;
  ComponentKind kind = ComponentKind::gemm;
  double measured = 0, predicted = 0, error = 0; // predicted / measured - 1
  bool fitted = false;
};

// FlashAttention's FLOP convention (Dao 2023, sec. 4.1): forward 4 b s^2 heads d, halved when
// causal; forward + backward 3.5 times that.
double flash_attention_flops(double batch, double heads, double seq, double head_dim, bool causal);

// nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): AllReduce 2(n-1)/n, AllGather,
// ReduceScatter and AlltoAll (n-1)/n, p2p 1.
double bus_bandwidth_factor(Collective op, i64 n);

// The FLOPs of an MoE layer's routed experts (gated: three h x f matrices a routed token).
double moe_experts_flops(const ComponentPoint &p);

ComponentRow predict_component(const ComponentPoint &p);
std::vector<ComponentRow> check_components(const std::vector<ComponentPoint> &points);

} // namespace rl
