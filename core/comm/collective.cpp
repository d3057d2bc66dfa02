#include "core/comm/collective.hpp"

#include "core/comm/volumes.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

const char *name_of_collective(Collective c) {
  switch (c) {
  case Collective::allreduce:
    return "allreduce";
  case Collective::allgather:
    return "allgather";
  case Collective::reduce_scatter:
    return "reduce_scatter";
  case Collective::alltoall:
    return "alltoall";
  case Collective::p2p:
    return "p2p";
  }
  return "?";
}

std::optional<Collective> collective_of(const std::string &name) {
  for (const Collective c : {Collective::allreduce, Collective::allgather,
                             Collective::reduce_scatter, Collective::alltoall, Collective::p2p})
    if (name == name_of_collective(c))
      return c;
  return std::nullopt;
}

namespace {
CollectiveTime make(Collective op, const char *algo, i64 n, i64 steps, double bytes,
                    const Link &l) {
  CollectiveTime t;
  t.op = op;
  t.algorithm = algo;
  t.n = n;
  t.steps = steps;
  t.bytes_per_device = bytes;
  const bool none = n <= 1 && op != Collective::p2p;
  t.latency = none ? 0.0 : static_cast<double>(steps) * l.latency;
  t.time = none ? 0.0 : t.latency + bytes / l.rate();
  return t;
}
i64 log2_ceil(i64 n) {
  i64 k = 0;
  while ((i64{1} << k) < n)
    ++k;
  return k;
}
} // namespace

// docs/formulas.md: ring AllReduce 2(n-1) steps, 2M(n-1)/n per device.
CollectiveTime ring_allreduce(double M, i64 n, const Link &l) {
  return make(Collective::allreduce, "ring", n, 2 * (n - 1), ring_allreduce_bytes(M, n), l);
}

// docs/formulas.md: double binary tree, 2 log2 n steps, 2M per device (pipelined).
CollectiveTime tree_allreduce(double M, i64 n, const Link &l) {
  return make(Collective::allreduce, "tree", n, 2 * log2_ceil(n), n <= 1 ? 0.0 : 2 * M, l);
}

CollectiveTime ring_allgather(double M, i64 n, const Link &l) {
  return make(Collective::allgather, "ring", n, n - 1, allgather_bytes(M, n), l);
}

CollectiveTime ring_reduce_scatter(double M, i64 n, const Link &l) {
  return make(Collective::reduce_scatter, "ring", n, n - 1, reduce_scatter_bytes(M, n), l);
}

CollectiveTime pairwise_alltoall(double M, i64 n, const Link &l) {
  return make(Collective::alltoall, "pairwise", n, n - 1, alltoall_pairwise_bytes(M, n), l);
}

// Bruck et al. 1997: log2 n steps, M/2 log2 n per device.
CollectiveTime bruck_alltoall(double M, i64 n, const Link &l) {
  return make(Collective::alltoall, "bruck", n, log2_ceil(n), alltoall_bruck_bytes(M, n), l);
}

CollectiveTime p2p_send(double M, const Link &l) {
  return make(Collective::p2p, "direct", 2, 1, M, l);
}

CollectiveTime flat_collective(Collective op, double M, i64 n, const Link &l) {
  switch (op) {
  case Collective::allreduce: {
    const CollectiveTime r = ring_allreduce(M, n, l), t = tree_allreduce(M, n, l);
    return t.time < r.time ? t : r;
  }
  case Collective::allgather:
    return ring_allgather(M, n, l);
  case Collective::reduce_scatter:
    return ring_reduce_scatter(M, n, l);
  case Collective::alltoall: {
    const CollectiveTime p = pairwise_alltoall(M, n, l);
    if ((n & (n - 1)) != 0)
      return p;
    const CollectiveTime b = bruck_alltoall(M, n, l);
    return b.time < p.time ? b : p;
  }
  case Collective::p2p:
    return p2p_send(M, l);
  }
  return {};
}

i64 group_devices_per_node(const ClusterSpec &c, const Group &g) {
  const i64 dpn = std::max<i64>(c.nvlink_devices(), 1);
  if (g.stride >= dpn)
    return 1;
  return std::max<i64>(1, std::min(g.n, dpn / g.stride));
}

std::vector<TorusSpan> torus_spans(const ClusterSpec &c, const Group &g) {
  std::vector<TorusSpan> out;
  i64 below = 1; // product of the axes before this one
  const i64 lo = g.stride, hi = g.stride * g.n;
  for (std::size_t i = 0; i < c.torus_axes.size(); ++i) {
    const i64 size = c.torus_axes[i];
    const i64 above = below * size;
    if (hi > below && lo < above) {
      const i64 extent = std::max<i64>(1, std::min(above, hi) / std::max(below, lo));
      if (extent > 1)
        out.push_back({extent, size, extent == size && i < c.wraparound.size() && c.wraparound[i]});
    }
    below = above;
  }
  return out;
}

CollectiveTime torus_allgather(double V, const std::vector<TorusSpan> &spans, const Link &ici) {
  CollectiveTime t;
  t.op = Collective::allgather;
  t.algorithm = "torus";
  double bw = 0, frac = 1;
  i64 hops = 0, n = 1;
  for (const TorusSpan &s : spans) {
    n *= s.extent;
    if (s.wrap) {
      bw += 2 * ici.rate(); // bidirectional ring: V / W_bidir (How to Scale Your Model ch. 3)
      hops += s.extent / 2;
    } else {
      bw += ici.rate(); // one direction, edge to edge: (X-1)/X * V / W
      hops += s.extent - 1;
      frac = std::min(frac, static_cast<double>(s.extent - 1) / static_cast<double>(s.extent));
    }
  }
  t.n = n;
  t.steps = hops;
  if (n <= 1)
    return t;
  const bool any_wrap =
      std::any_of(spans.begin(), spans.end(), [](const TorusSpan &s) { return s.wrap; });
  const double volume = any_wrap ? V : V * frac;
  t.bytes_per_device = volume * static_cast<double>(n - 1) / static_cast<double>(n);
  t.time = std::max(ici.latency * static_cast<double>(hops), volume / bw);
  return t;
}

namespace {
CollectiveTime torus_collective(const ClusterSpec &c, Collective op, double M, const Group &g) {
  const auto spans = torus_spans(c, g);
  if (op == Collective::p2p)
    return p2p_send(M, c.ici);
  CollectiveTime ag =
      torus_allgather(op == Collective::alltoall ? M * static_cast<double>(g.n) : M, spans, c.ici);
  const bool wrap =
      std::any_of(spans.begin(), spans.end(), [](const TorusSpan &s) { return s.wrap; });
  switch (op) {
  case Collective::allgather:
    break;
  case Collective::reduce_scatter:
    ag.op = op;
    break;
  case Collective::allreduce: // How to Scale Your Model ch. 3: ReduceScatter + AllGather = 2 x
                              // AllGather
    ag.op = op;
    ag.time *= 2;
    ag.steps *= 2;
    ag.bytes_per_device *= 2;
    break;
  case Collective::alltoall: // How to Scale Your Model ch. 3: 1/4 of an AllGather on a
                             // bidirectional ring
    ag.op = op;
    ag.time /= wrap ? 4 : 2;
    ag.bytes_per_device = alltoall_pairwise_bytes(M, g.n);
    break;
  case Collective::p2p:
    break;
  }
  return ag;
}
} // namespace

// A group spread over two levels: `local` members share the fast level, whose collective
// times `inner` gives; the n / local sets of them are joined by the `outer` link. docs/formulas.md:
// AllReduce = ReduceScatter(in) + AllReduce(out, M/local) + AllGather(in). The phases are
// pipelined in chunks (NCCL's rings and trees span both levels, each chunk moving over NVLink
// and the network at once): the bandwidth term is the slower level's, the latencies add.
template <class Inner>
CollectiveTime two_level(Collective op, double M, i64 n, i64 local, Inner inner, const Link &outer,
                         const char *algorithm) {
  const i64 across = n / local;
  CollectiveTime t;
  t.op = op;
  t.algorithm = algorithm;
  t.n = n;
  double in_bw = 0, out_bw = 0; // bandwidth terms of the two levels
  auto add = [&](const CollectiveTime &x, double &level) {
    t.steps += x.steps;
    t.bytes_per_device += x.bytes_per_device;
    t.latency += x.latency;
    level += x.time - x.latency;
  };
  switch (op) {
  case Collective::allreduce:
    add(inner(Collective::reduce_scatter, M), in_bw);
    add(flat_collective(Collective::allreduce, M / static_cast<double>(local), across, outer),
        out_bw);
    add(inner(Collective::allgather, M), in_bw);
    break;
  case Collective::allgather:
  case Collective::reduce_scatter:
    add(flat_collective(op, M / static_cast<double>(local), across, outer), out_bw);
    add(inner(op, M), in_bw);
    break;
  case Collective::alltoall: {
    // pairwise: (local-1)/n of the buffer stays inside, (n-local)/n crosses the outer link;
    // the two parts run at once
    const double nd = static_cast<double>(n);
    const CollectiveTime a = inner(op, M * static_cast<double>(local) / nd);
    const double out_bytes = M * static_cast<double>(n - local) / nd;
    const double out_time =
        static_cast<double>(n - local) * outer.latency + out_bytes / outer.rate();
    t.steps = a.steps + (n - local);
    t.bytes_per_device = a.bytes_per_device + out_bytes;
    t.time = std::max(a.time, out_time);
    t.latency = std::max(a.latency, static_cast<double>(n - local) * outer.latency);
    return t;
  }
  case Collective::p2p:
    break;
  }
  t.time = t.latency + std::max(in_bw, out_bw);
  return t;
}

// Several TPU slices joined by the data-centre network: the part of the group inside a
// slice runs on the torus, the part across slices on the DCN.
CollectiveTime multislice_collective(const ClusterSpec &c, Collective op, double M,
                                     const Group &g) {
  const i64 slice = c.devices / c.slices;
  if (g.stride * g.n <= slice)
    return torus_collective(c, op, M, g);
  const i64 local = g.stride >= slice ? 1 : std::max<i64>(1, slice / g.stride);
  if (op == Collective::p2p)
    return p2p_send(M, c.dcn);
  if (local <= 1)
    return flat_collective(op, M, g.n, c.dcn);
  const Group in{local, g.stride};
  return two_level(
      op, M, g.n, local, [&](Collective o, double m) { return torus_collective(c, o, m, in); },
      c.dcn, "ici+dcn");
}

CollectiveTime collective_time(const ClusterSpec &c, Collective op, double M, const Group &g) {
  if (c.topology == Topology::torus)
    return c.slices > 1 ? multislice_collective(c, op, M, g) : torus_collective(c, op, M, g);
  if (c.topology == Topology::mesh)
    return flat_collective(op, M, g.n, c.d2d);
  const Link &in = c.intra_node;
  const Link &out = c.inter_node.bw > 0 ? c.inter_node : c.intra_node;
  const i64 local = group_devices_per_node(c, g);
  if (op == Collective::p2p)
    return p2p_send(M, g.stride >= c.nvlink_devices() ? out : in);
  if (local >= g.n)
    return flat_collective(op, M, g.n, in);
  if (local <= 1)
    return flat_collective(op, M, g.n, out);
  return two_level(
      op, M, g.n, local, [&](Collective o, double m) { return flat_collective(o, m, local, in); },
      out, "hierarchical");
}

} // namespace rl
