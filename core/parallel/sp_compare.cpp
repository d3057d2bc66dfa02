#include "core/parallel/sp_compare.hpp"

#include "core/comm/volumes.hpp"
#include "core/error.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/params.hpp"

namespace rl {

namespace {
// USP: the largest Ulysses degree that divides both N and the heads; the rest is ring.
i64 usp_ulysses(const ModelSpec &m, i64 n) {
  for (i64 u = n; u >= 1; --u)
    if (n % u == 0 && m.heads % u == 0)
      return u;
  return 1;
}
} // namespace

SpComparison compare_sp(const ModelSpec &m, double b, double s, i64 n) {
  if (n < 1)
    throw ConfigError("parallel.cp", "degree must be >= 1");
  SpComparison out;
  out.degree = n;
  out.b = b;
  out.s = s;
  out.ulysses = usp_ulysses(m, n);
  out.ring = n / out.ulysses;
  const double P = static_cast<double>(model_params(m).layers_total());
  out.params = P;
  const double N = static_cast<double>(n);
  const double PG = (kWeightBytes + kGradBytes) * P;
  const double W = kWeightBytes * P, G = kGradBytes * P, OS = kAdamBytes * P;
  const SeqShape x{b, s, m.hidden, m.heads, m.kv_heads, m.head_dim};
  const double grad_ar = ring_allreduce_bytes(G, n);                           // AllReduce
  const double zero12 = reduce_scatter_bytes(G, n) + allgather_bytes(W, n);    // RS + AG
  const double zero3 = 2 * allgather_bytes(W, n) + reduce_scatter_bytes(G, n); // 1.5x DP

  const bool moe = false;
  auto act = [&](double bb, double ss, ActLayout l) {
    return layer_activations(m, moe, bb, ss, l).total();
  };
  const double seq_split = act(b, s, {1, false, n, false});       // A/N (sequence)
  const double batch_split = act(b / N, s, {1, false, 1, false}); // A/N (batch)
  const double tp_plain = act(b, s, {n, false, 1, false});        // alpha A
  const double tp_sp = act(b, s, {n, true, 1, false});            // A/N

  const double uly = ulysses_layer_bytes(x, n);
  const double ring = ring_layer_bytes(x, n);
  const double usp = usp_layer_bytes(x, out.ulysses, out.ring);
  out.rows = {
      {"DS-SP", "a/s", "AllReduce", grad_ar, "8 AllToAll", uly, PG, OS, seq_split},
      {"Ring-SP", "L/L", "AllReduce", grad_ar, "P2P", ring, PG, OS, seq_split},
      {"DP", "b/b", "AllReduce", grad_ar, "-", 0, PG, OS, batch_split},
      {"ZeRO1", "a/s", "AllGather + ReduceScatter", zero12, "-", 0, PG, OS / N, batch_split},
      {"USP + ZeRO1", "a/s", "AllGather + ReduceScatter", zero12, "P2P + 8 AllToAll", usp, PG,
       OS / N, seq_split},
      {"USP + ZeRO2", "a/s", "AllGather + ReduceScatter", zero12, "P2P + 8 AllToAll", usp,
       W + G / N, OS / N, seq_split},
      {"USP + ZeRO3", "a/s", "2 AllGather + ReduceScatter", zero3, "P2P + 8 AllToAll", usp, PG / N,
       OS / N, seq_split},
      {"TP", "a/h", "-", 0, "4 AllReduce", tp_layer_bytes(x, n), PG / N, OS / N, tp_plain},
      {"Megatron-SP", "a/h", "-", 0, "6 AllGather + 4 ReduceScatter", megatron_sp_layer_bytes(x, n),
       PG / N, OS / N, tp_sp},
  };
  return out;
}

SpComparison compare_sp(const Config &c) {
  const i64 cp = c.parallel.cp.value_or(1), tp = c.parallel.tp.value_or(1);
  const i64 n = cp > 1 ? cp : (tp > 1 ? tp : 8);
  const double b = static_cast<double>(c.parallel.microbatch.value_or(1));
  const double s = static_cast<double>(c.workload.mode == Mode::train ? c.workload.seq_len
                                                                      : c.workload.prompt_len);
  return compare_sp(c.model, b, s, n);
}

} // namespace rl
