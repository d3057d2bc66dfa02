// ridgeline comm: time of one collective on a cluster (docs/formulas.md "Collectives": alpha-beta
// costs; How to Scale Your Model ch. 3 for TPU torus axes). Bandwidths are per device, one
// direction.
#pragma once

#include "core/config.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rl {

enum class Collective { allreduce, allgather, reduce_scatter, alltoall, p2p };
const char *name_of_collective(Collective c);
// The collective named `name` (name_of_collective's names); nullopt when there is none.
std::optional<Collective> collective_of(const std::string &name);

struct CollectiveTime {
  Collective op = Collective::allreduce;
  // ring, tree, pairwise, bruck, hierarchical, torus, direct: a literal (no allocation on the
  // planner's hot path)
  const char *algorithm = "";
  i64 n = 1;
  i64 steps = 0;
  double bytes_per_device = 0; // sent by each device
  double time = 0;             // seconds
  double latency = 0;          // of which the per-step latency (alpha) terms
};

// One link class (a flat group). M is the full buffer (AllToAll: the per-device buffer).
CollectiveTime ring_allreduce(double M, i64 n, const Link &l);
CollectiveTime tree_allreduce(double M, i64 n, const Link &l); // double binary tree
CollectiveTime ring_allgather(double M, i64 n, const Link &l);
CollectiveTime ring_reduce_scatter(double M, i64 n, const Link &l);
CollectiveTime pairwise_alltoall(double M, i64 n, const Link &l);
CollectiveTime bruck_alltoall(double M, i64 n, const Link &l); // n a power of two
CollectiveTime p2p_send(double M, const Link &l);
// The cheaper algorithm, as NCCL picks (ring for large AllReduce, tree for small).
CollectiveTime flat_collective(Collective op, double M, i64 n, const Link &l);

// A communication group: n devices, `stride` apart in the cluster's device order (the
// layout's axis order decides it: TP innermost, then CP, DP, PP outermost).
struct Group {
  i64 n = 1;
  i64 stride = 1;
};

// Devices of the group that share an NVLink domain (switched clusters: the node, or
// cluster.nvlink_domain when that spans several nodes).
i64 group_devices_per_node(const ClusterSpec &c, const Group &g);

// Time on the cluster: switched clusters go hierarchical (NVLink inside a node, the
// network across nodes); TPU tori use the axes the group spans (How to Scale Your Model ch. 3).
CollectiveTime collective_time(const ClusterSpec &c, Collective op, double M, const Group &g);

// Torus axes a group spans: (extent used, that axis' full size, wraps around).
struct TorusSpan {
  i64 extent = 1;
  i64 size = 1;
  bool wrap = false;
};
std::vector<TorusSpan> torus_spans(const ClusterSpec &c, const Group &g);
// How to Scale Your Model ch. 3: AllGather over torus axes: max(T_hop * hops, V / W) with W the
// summed link bandwidth of the axes (bidirectional when an axis wraps around and is used whole).
CollectiveTime torus_allgather(double V, const std::vector<TorusSpan> &spans, const Link &ici);

} // namespace rl
