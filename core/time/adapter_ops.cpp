#include "core/time/adapter_ops.hpp"

#include "core/memory/model_states.hpp"
#include "core/model/lora.hpp"
#include "core/time/gemm_efficiency.hpp"

#include <string_view>

namespace rl {

namespace {

// The adapted matrices a layer_ops GEMM holds under the targets (0: not targeted): the fused
// QKV projection holds three (HF PEFT adapts q_proj, k_proj and v_proj each), a gated MLP's
// up projection two (gate_proj, up_proj).
double adapted_matrices(std::string_view name, const ModelSpec &m, const FinetuneSpec &f) {
  if (f.qkv) {
    if (name == "qkv")
      return 3;
    if (name == "q" || name == "q_down" || name == "q_up" || name == "kv_down" || name == "kv_up")
      return 1;
  }
  if (f.o && name == "out proj")
    return 1;
  if (f.mlp) {
    if (name == "mlp up" || name == "experts up" || name == "shared up")
      return m.gated_mlp ? 2 : 1;
    if (name == "mlp down" || name == "experts down" || name == "shared down")
      return 1;
  }
  return 0;
}

bool frozen_gemm(const OpCost &o) {
  return o.count > 0 &&
         (o.kind == OpKind::column || o.kind == OpKind::row || o.kind == OpKind::other);
}

} // namespace

void adapt_for_finetune(std::vector<OpCost> &ops, const ModelSpec &m, const FinetuneSpec &f,
                        const HardwareSpec &hw, Dtype precision) {
  const double bw = achieved_hbm_bw(hw);
  const double bb = base_weight_bytes(f.base_dtype);
  const double dequant = bb < gemm_operand_bytes(precision) ? bb + 2 : 0.0;
  const double r = static_cast<double>(f.rank);
  std::vector<OpCost> added;
  double weights = 0;
  for (OpCost &o : ops) {
    if (!frozen_gemm(o))
      continue;
    o.bwd = o.time; // the input gradient only
    weights += o.k * o.n * o.count;
    const double pieces = adapted_matrices(o.name, m, f);
    if (pieces <= 0)
      continue;
    // x A: the input read once for every adapted matrix's A; (x A) B: each B to its share of n
    auto thin = [&](const std::string &name, double k, double n) {
      added.push_back(gemm_cost(name, o.m, k, n, o.count, peak_flops(hw, Dtype::bf16),
                                gemm_shape_efficiency(hw, Dtype::bf16, o.m, k, n, o.count), bw));
      added.back().kind = OpKind::other;
    };
    thin("lora A " + o.name, o.k, r * pieces);
    thin("lora B " + o.name, r, o.n);
  }
  for (OpCost &a : added)
    a.count = 0; // an adapter's own weights train: not a frozen GEMM
  ops.insert(ops.end(), added.begin(), added.end());
  if (dequant > 0 && weights > 0) {
    OpCost d;
    d.name = kDequantizeOp;
    d.kind = OpKind::memory;
    d.bytes = weights * dequant;
    d.time = d.bytes / bw;
    d.bwd = d.time; // dequantised again for the input gradient
    ops.push_back(d);
  }
}

} // namespace rl
