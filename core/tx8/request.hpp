// ridgeline tx8: `ridgeline tx8` in the core. One operator (mode tx8-op) or a whole
// STDiT3 video request (mode video) on a die or a mesh of dies: every operator mapped by
// its mapper, per-layer, per-step and whole-request totals, the die-to-die communication,
// the reference preset tilings next to the searched ones, and the sequence-parallel schemes
// and mesh splits compared (the best one picked when parallel.sp_kind is not given).
#pragma once

#include "core/config.hpp"
#include "core/tx8/mapping.hpp"
#include "core/tx8/sp.hpp"
#include "core/tx8/stdit3.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rl::tx8 {

struct Tx8Options {
  bool compare_presets = false; // also map with the reference preset tilings
  bool plan = true;             // video: compare schemes and mesh splits
  SearchBudget budget;          // each operator's search
};

struct OpRow {
  std::string name, block;
  i64 stage = 0;
  double count = 1;    // times per step on one die of the stage (all micro-batches)
  OpMapping map;       // the searched optimum
  bool cached = false; // the same shape was searched earlier in this request
  bool has_preset = false;
  OpMapping preset;         // LLMPerf-for-TiledArch's preset tiling, when it fits
  std::string preset_error; // why it does not
};

struct CommRow {
  std::string kind;
  i64 stage = 0;
  double bytes_per_die = 0; // per occurrence
  double time = 0;          // s per occurrence
  double per_step = 0;      // occurrences per step
  double exposed = 0;       // s per step on the critical path
};

struct StageRow {
  SubMesh mesh;
  i64 first = 0, last = 0; // blocks (layers)
  double compute = 0;      // s per micro-batch: the operators
  double comm = 0;         // s per micro-batch: exposed die-to-die communication
  double p2p = 0;          // s to send one micro-batch's activations to the next stage
  double time() const { return compute + comm; }
};

struct SchemeRow {
  std::string name; // "dsp", "usp 2x2"
  SpScheme scheme;
  i64 stages = 1;
  std::vector<SubMesh> meshes;
  bool feasible = true;
  std::string why; // when not
  double per_step = 0, compute = 0, comm_exposed = 0, comm_bytes_per_die = 0, latency = 0;
};

struct Tx8Result {
  bool video = false;
  std::string model, hardware, cluster;
  // video
  VideoShape shape;
  SpScheme scheme;
  std::vector<StageRow> stages;
  i64 micro_batches = 1;
  std::vector<OpRow> ops;
  std::vector<CommRow> comm;
  double latency = 0;   // s: the whole request (one operator: its latency)
  double per_step = 0;  // s per sampling step
  double per_layer = 0; // s: one spatial + temporal block pair on a die of stage 0
  double spatial_block = 0, temporal_block = 0, embed = 0, final = 0; // s per step
  double compute_per_step = 0, comm_exposed_per_step = 0, comm_bytes_per_die_per_step = 0;
  double once = 0;           // s per request outside the steps (latent gather)
  double flops_per_step = 0; // useful model FLOPs of one step (all dies)
  double utilization = 0;    // flops / (per_step x dies x die peak)
  i64 dies = 1;
  // reference presets
  bool presets = false;
  double preset_per_step = 0, preset_latency = 0;
  std::string preset_error;
  // planner
  std::vector<SchemeRow> schemes; // best first
  std::string chosen_by;          // "parallel.sp_kind" or "planner"
  // search
  i64 searches = 0; // operator searches run (cache misses)
  i64 cache_hits = 0;
};

// Memo of operator searches within one run (no globals): equal shapes map once, all with
// the run's search budget.
struct MapCache {
  std::map<std::string, OpMapping> done;
  i64 hits = 0, misses = 0;
  SearchBudget budget;
};

// One operator of the workload mapped (searched, or with the reference preset tiling).
OpMapping map_spec(const Tx8Spec &a, const OpSpec &op, bool seed_preset, MapCache &cache,
                   const std::string &path);
// One operator given as a config (mode tx8-op), honouring its fixed choices.
OpMapping map_config_op(const Tx8Spec &a, const Tx8OpSpec &op, const std::string &path,
                        const SearchBudget &budget = {});
// The same operator with LLMPerf-for-TiledArch's preset tiling for its type.
OpMapping map_config_op_preset(const Tx8Spec &a, const Tx8OpSpec &op, const std::string &path,
                               const SearchBudget &budget = {});

// The schemes a sub-mesh of `dies` dies allows for the model: DSP, Ulysses, Ring,
// Megatron-SP, USP u x c (heads permitting); one entry on a single die.
std::vector<SpScheme> schemes_for(const ModelSpec &m, i64 dies);

// A video request under one scheme and stage split.
Tx8Result evaluate_video(const Config &c, const SpScheme &s, const std::vector<SubMesh> &meshes,
                         const std::vector<std::pair<i64, i64>> &layers, bool presets,
                         MapCache &cache);

// The whole `ridgeline tx8` answer for a configuration (mode tx8-op or video).
Tx8Result solve(const Config &c, const Tx8Options &o);

// The same in steps, so a page can spread a video request over frames: step(n) evaluates up
// to n of the planner's (scheme, mesh split) candidates and, after the last, maps the chosen
// one; result() is then what solve() returns (tested equal).
class Tx8Solve {
public:
  Tx8Solve(const Config &c, const Tx8Options &o); // ConfigError as solve()
  ~Tx8Solve();
  Tx8Solve(Tx8Solve &&) noexcept;
  Tx8Solve &operator=(Tx8Solve &&) noexcept;
  bool step(i64 evaluations);
  bool done() const;
  double progress() const;
  const Tx8Result &result() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace rl::tx8
