// ridgeline time: the memory-bound kernels around the output layer and an MoE layer's experts:
// the vocabulary-parallel cross-entropy over the logits, and the token permutation and
// routing of an MoE token dispatcher (docs/formulas.md "Loss and routing kernels").
#pragma once

#include "core/config.hpp"

namespace rl {

// HBM bytes of the cross-entropy over `logits` logit elements (tokens x vocab / tp on one
// device), forward and backward.
// Megatron-LM's vocab_parallel_cross_entropy (megatron/core/tensor_parallel/cross_entropy.py),
// per element: forward, the upcast to fp32 (read 2, write 4), the max (read 4), the max
// subtracted (read 4, write 4), exp (read 4, write 4), its sum (read 4), the division (read 4,
// write 4): 38 B, the fp32 softmax kept for backward; backward, the softmax scaled by the
// loss gradient (read 4, write 4) and cast back to bf16 (read 4, write 2): 14 B.
// Fused (Megatron-LM --cross-entropy-loss-fusion, Transformer Engine's parallel cross-entropy):
// one pass reads the bf16 logits and writes their bf16 gradient in the forward (4 B), the
// backward scales it in place (4 B).
struct LossBytes {
  double forward = 0, backward = 0;
};
LossBytes cross_entropy_bytes(double logits, bool fused);

// HBM bytes of an MoE layer's token routing on one device for `tok` tokens of width `h`,
// `routed` = tokens x top_k (times the busiest rank's imbalance) arriving at its experts,
// `experts` the router's outputs: the router's fp32 scores (softmax or sigmoid, top-k, the
// auxiliary loss: 16 B per score), the permutation of the tokens into expert order before
// the dispatch (read and write routed x h in bf16) and its inverse after the combine (read
// routed x h, write tok x h over a zeroed buffer), and under expert parallelism with several
// local experts the sort of the received chunks by expert, each way (Megatron-LM's
// MoEAlltoAllTokenDispatcher: permute, sort_chunks_by_idxs, unpermute). The backward moves
// the same bytes the other way.
double moe_routing_bytes(double tok, double h, double routed, double experts, bool chunk_sort);

// Bytes per element of the dispatch's forward payload and the combine's backward gradient on
// the wire: bf16's 2, or with workload.moe_fp8_dispatch 1 and a scale: an fp32 per 128 under
// the blockwise recipe (DeepSeek-V3 sec. 3.3.2, DeepEP), else MXFP8's E8M0 per 32 (Megatron-LM
// --moe-dispatch-fwd-dtype mxfp8). The combine and the dispatch's gradient stay bf16.
double dispatch_wire_bytes(const WorkloadSpec &w);

} // namespace rl
