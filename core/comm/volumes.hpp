// ridgeline comm: bytes each device sends in one collective (docs/formulas.md "Collectives";
// Shoeybi et al. 2019; Korthikanti et al. 2022). M is the full buffer (AllToAll: the per-device
// buffer); n the group size.
#pragma once

#include "core/config.hpp"

namespace rl {

// Ring AllReduce: 2(n-1) steps, 2M(n-1)/n per device.
double ring_allreduce_bytes(double M, i64 n);
// Ring AllGather or ReduceScatter: n-1 steps, M(n-1)/n per device.
double allgather_bytes(double M, i64 n);
double reduce_scatter_bytes(double M, i64 n);
// Pairwise AllToAll: n-1 steps, M(n-1)/n per device.
double alltoall_pairwise_bytes(double M, i64 n);
// Bruck AllToAll (n = 2^j): log2 n steps, M/2 * log2 n per device (Bruck et al. 1997).
double alltoall_bruck_bytes(double M, i64 n);

// Per-layer activation traffic, forward + backward, bytes per device (docs/formulas.md
// "Communication per layer"); b sequences of s tokens, bf16.
struct SeqShape {
  double b = 1, s = 1;
  i64 h = 1, heads = 1, kv_heads = 1, head_dim = 1;
};
// TP t: 2 AllReduce of 2bsh forward, 2 backward.
double tp_layer_bytes(const SeqShape &x, i64 t);
// Megatron-SP t: 6 AllGather + 4 ReduceScatter of 2bsh (DSP paper table).
double megatron_sp_layer_bytes(const SeqShape &x, i64 t);
// Ulysses u: AllToAll of Q, K, V and O forward, and their gradients backward; per-device
// buffers are 1/u of the sequence; GQA shrinks K and V.
double ulysses_layer_bytes(const SeqShape &x, i64 u);
// Ring CP c: K,V chunks passed c-1 times forward; K,V and dK,dV backward.
double ring_layer_bytes(const SeqShape &x, i64 c);
// USP u x c: Ulysses over u inside, ring over c (on the Ulysses-sharded heads) across.
double usp_layer_bytes(const SeqShape &x, i64 u, i64 c);

} // namespace rl
