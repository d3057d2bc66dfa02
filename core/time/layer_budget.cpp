#include "core/time/layer_budget.hpp"

namespace rl {

LayerBudget layer_budget(const std::vector<OpCost> &ops) {
  LayerBudget b;
  for (const OpCost &o : ops) {
    const double t = o.time + o.backward();
    if (o.name == kQuantizeOp)
      b.quantize += t;
    else if (o.kind == OpKind::attention)
      b.attention += t;
    else if (o.kind == OpKind::memory)
      b.elementwise += t;
    else
      b.gemm += t;
  }
  return b;
}

LayerBudget llama_layer_budget(const HardwareSpec &hw, i64 hidden, i64 heads, i64 kv_heads, i64 ffn,
                               i64 seq, i64 micro_batch, Dtype dtype) {
  ModelSpec m;
  m.layers = 1;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.head_dim = hidden / heads;
  m.ffn = ffn;
  m.gated_mlp = true;
  m.norm = Norm::rmsnorm;
  Layout l;
  l.microbatch = micro_batch;
  l.flash = true;
  return layer_budget(
      layer_ops(m, false, l, static_cast<double>(seq), hw, dtype, true, 1.0, std::nullopt));
}

} // namespace rl
