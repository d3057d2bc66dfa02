#include "core/comm/volumes.hpp"

#include <cmath>

namespace rl {

namespace {
double frac(i64 n) {
  return n <= 1 ? 0.0 : static_cast<double>(n - 1) / static_cast<double>(n);
}
} // namespace

double ring_allreduce_bytes(double M, i64 n) {
  return 2 * M * frac(n);
}
double allgather_bytes(double M, i64 n) {
  return M * frac(n);
}
double reduce_scatter_bytes(double M, i64 n) {
  return M * frac(n);
}
double alltoall_pairwise_bytes(double M, i64 n) {
  return M * frac(n);
}
double alltoall_bruck_bytes(double M, i64 n) {
  return n <= 1 ? 0.0 : M / 2 * std::log2(static_cast<double>(n));
}

double tp_layer_bytes(const SeqShape &x, i64 t) {
  const double M = 2 * x.b * x.s * static_cast<double>(x.h); // bf16 activation b x s x h
  return 4 * ring_allreduce_bytes(M, t);
}

double megatron_sp_layer_bytes(const SeqShape &x, i64 t) {
  const double M = 2 * x.b * x.s * static_cast<double>(x.h);
  return 6 * allgather_bytes(M, t) + 4 * reduce_scatter_bytes(M, t);
}

double ulysses_layer_bytes(const SeqShape &x, i64 u) {
  const double n = static_cast<double>(u);
  const double q = 2 * x.b * x.s * static_cast<double>(x.heads * x.head_dim) / n;
  const double kv = 2 * x.b * x.s * static_cast<double>(x.kv_heads * x.head_dim) / n;
  const double o = q;
  // forward Q, K, V, O; backward dQ, dK, dV, dO: the same buffers again
  return 2 * (alltoall_pairwise_bytes(q, u) + 2 * alltoall_pairwise_bytes(kv, u) +
              alltoall_pairwise_bytes(o, u));
}

double ring_layer_bytes(const SeqShape &x, i64 c) {
  if (c <= 1)
    return 0;
  const double chunk = 2 * x.b * x.s * static_cast<double>(x.kv_heads * x.head_dim) /
                       static_cast<double>(c); // one of K or V, bf16
  const double steps = static_cast<double>(c - 1);
  return 2 * chunk * steps /* fwd K,V */ + 4 * chunk * steps /* bwd K,V,dK,dV */;
}

double usp_layer_bytes(const SeqShape &x, i64 u, i64 c) {
  SeqShape inner = x; // after the Ulysses AllToAll each device holds 1/u of the heads
  inner.heads = x.heads / u;
  inner.kv_heads = x.kv_heads >= u ? x.kv_heads / u : 1;
  inner.s = x.s; // full sequence of the ring group's share
  SeqShape ulysses_part = x;
  ulysses_part.s = x.s / static_cast<double>(c);
  return ulysses_layer_bytes(ulysses_part, u) + ring_layer_bytes(inner, c);
}

} // namespace rl
