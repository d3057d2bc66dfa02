// ridgeline tx8: several dies (docs/formulas.md (tx8) "Multi-die (video DiT)", the DSP paper, Zhao
// et al. 2024). A die mesh (x by y dies, die-to-die links), sub-meshes for pipeline stages
// (LLMPerf-for-TiledArch: submesh (num_x, num_y, loc_x, loc_y) and stage_ids), and the
// sequence-parallel schemes across the dies of a sub-mesh: which share of a block each die
// computes, and what it sends. Activation size M = batch x tokens x hidden x e bytes (one block's
// input, all dies).
#pragma once

#include "core/config.hpp"
#include "core/tx8/stdit3.hpp"

#include <string>
#include <vector>

namespace rl::tx8 {

struct SubMesh {
  i64 nx = 1, ny = 1, x0 = 0, y0 = 0;
  i64 dies() const { return nx * ny; }
};

// A sequence-parallel scheme over `dies` dies; USP = Ulysses over `ulysses` dies inside,
// ring over `ring` groups across (ulysses x ring = dies).
struct SpScheme {
  SpKind kind = SpKind::dsp;
  i64 dies = 1, ulysses = 1, ring = 1;
};
std::string scheme_name(const SpScheme &s); // "dsp", "usp 2x2"

// the DSP paper (Zhao et al. 2024): per device per layer (a spatial + a temporal block),
// asymptotic: DSP 2M/N, Ulysses 4M/N, Ring 2M, Megatron-SP 8M (no cross attention: the DSP paper
// drops it).
double seed004_layer_bytes(SpKind kind, double M, i64 N);
// The exact bytes each die sends per layer: every collective's (N-1)/N factor kept, USP
// as Ulysses inside (4 all-to-alls over u) plus the ring across (K, V over c), and
// Megatron-SP with 12 collectives when each block also has cross attention (8 without).
double layer_bytes_per_die(const SpScheme &s, double M, bool cross_attention);

// docs/formulas.md (tx8): all-to-all across an nx x ny die mesh, `A` bytes per die: each die sends
// A*(P-1)/P; bisection bound (P1*P2*A/P over the links crossing the middle cut; k x k:
// sqrt(P)*A/(4*bw)) or the per-die injection bound, whichever is larger, + diameter hops x
// latency.
double alltoall_mesh_s(double A, i64 nx, i64 ny, const Link &l);
// The bisection bound alone (a floor no all-to-all beats).
double alltoall_bisection_s(double A, i64 nx, i64 ny, const Link &l);
// AllGather / ReduceScatter of a full buffer M on a ring embedded in the mesh:
// (P-1)*latency + M*(P-1)/P / bw (docs/formulas.md "Collectives").
double allgather_mesh_s(double M, i64 dies, const Link &l);
// Ring attention: the local K and V (2*M/P bytes) passed P-1 times to the next die.
double ring_pass_s(double M, i64 dies, const Link &l);

// What one die computes of a block under a scheme. `frames` x `spatial` tokens per
// sample, `batch` samples on this sub-mesh. ConfigError when the scheme cannot split the
// heads (Ulysses, USP, Megatron-SP).
Shard shard_block(const SpScheme &s, const ModelSpec &m, const VideoShape &v, i64 batch,
                  const std::string &block);
// Tokens per die outside the blocks (embedding, final layer): the spatial block's layout.
i64 shard_rows(const SpScheme &s, const VideoShape &v, i64 batch);

// One communication of a layer on a sub-mesh: what it is, bytes each die sends, time,
// how many per layer, whether it overlaps the spatial attention (ring).
struct CommItem {
  std::string kind;
  double bytes_per_die = 0; // per occurrence
  double time = 0;          // s per occurrence
  double per_layer = 0;
  bool overlaps_attention = false;
};
std::vector<CommItem> layer_comm(const SpScheme &s, const ModelSpec &m, const VideoShape &v,
                                 i64 batch, const SubMesh &sub, const Link &d2d);

// Checks a scheme against the model: heads divisible where the scheme splits them.
void check_scheme(const SpScheme &s, const ModelSpec &m, const std::string &path);

// The sub-meshes of the stages: explicit (parallel.submeshes) or `pp` equal parts along the
// mesh axes; ConfigError with the numbers when they leave the mesh or overlap.
std::vector<SubMesh> stage_meshes(const std::vector<i64> &mesh, const std::vector<i64> &flat,
                                  i64 pp, const std::string &path);
// The blocks of each stage as (first, last) pairs: explicit (parallel.stage_ids) or equal.
std::vector<std::pair<i64, i64>> stage_layers(i64 layers, const std::vector<i64> &flat, i64 pp,
                                              const std::string &path);
// Links between two sub-meshes (shared edge length) and the hops between them.
i64 boundary_links(const SubMesh &a, const SubMesh &b);
i64 mesh_distance(const SubMesh &a, const SubMesh &b);

} // namespace rl::tx8
