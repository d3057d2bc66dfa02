#include "core/tx8/request.hpp"

#include "core/error.hpp"
#include "core/tx8/arch.hpp"
#include "core/tx8/flash.hpp"
#include "core/tx8/gemm.hpp"
#include "core/tx8/vector.hpp"

#include <algorithm>
#include <memory>

namespace rl::tx8 {

// [SECTION] one operator
namespace {
std::string key_of(const OpSpec &o, bool preset) {
  std::string k = std::string(name_of(o.kind)) + (preset ? "/p" : "/s");
  auto add = [&](double x) { k += "/" + std::to_string(x); };
  switch (o.kind) {
  case OpKind::gemm:
    for (const double x : {double(o.gemm.m), double(o.gemm.k), double(o.gemm.n),
                           double(o.gemm.silu), double(o.gemm.in_sram), double(o.gemm.out_sram)})
      add(x);
    if (preset)
      add(static_cast<double>(o.preset));
    break;
  case OpKind::vector:
    for (const double x :
         {double(o.vec.rows), double(o.vec.width), double(o.vec.inputs), double(o.vec.params),
          o.vec.ops_per_element, o.vec.ops_per_row, double(o.vec.in_sram), double(o.vec.out_sram)})
      add(x);
    break;
  case OpKind::flash:
    for (const double x :
         {double(o.flash.groups), double(o.flash.seq_q), double(o.flash.seq_kv),
          double(o.flash.head_dim), double(o.flash.in_sram), double(o.flash.out_sram)})
      add(x);
    break;
  }
  return k;
}

// LLMPerf-for-TiledArch: projections TmTn (256, 32), FFN-down (4, 128); LLMPerf-for-TiledArch's
// ring is input-stationary and searches K.
GemmChoice seed_gemm_choice(SeedPreset p) {
  GemmChoice c;
  c.stationary = Stationary::input;
  c.tm = p == SeedPreset::ffn_down ? 4 : 256;
  c.tn = p == SeedPreset::ffn_down ? 128 : 32;
  return c;
}
// LLMPerf-for-TiledArch: Tx_Ty (256, 256), outer loop over K/V.
FlashChoice seed_flash_choice() {
  FlashChoice c;
  c.order = LoopOrder::b;
  c.tx = 256;
  c.ty = 256;
  return c;
}
} // namespace

OpMapping map_spec(const Tx8Spec &a, const OpSpec &op, bool preset, MapCache &cache,
                   const std::string &path) {
  const bool use_preset = preset && op.preset != SeedPreset::none;
  const std::string key = key_of(op, use_preset);
  if (const auto it = cache.done.find(key); it != cache.done.end()) {
    ++cache.hits;
    return it->second;
  }
  ++cache.misses;
  const std::string at = path + " (" + op.name + ")";
  OpMapping m;
  switch (op.kind) {
  case OpKind::gemm: {
    GemmChoice ch = use_preset ? seed_gemm_choice(op.preset) : GemmChoice{};
    ch.budget = cache.budget;
    m = describe(op.gemm, map_gemm(a, op.gemm, ch, at));
    break;
  }
  case OpKind::vector:
    m = describe(op.vec, map_vector(a, op.vec, std::nullopt, at));
    break;
  case OpKind::flash: {
    FlashChoice ch = use_preset ? seed_flash_choice() : FlashChoice{};
    ch.budget = cache.budget;
    m = describe(op.flash, map_flash(a, op.flash, ch, at));
    break;
  }
  }
  cache.done.emplace(key, m);
  return m;
}

namespace {
GemmOp gemm_of(const Tx8OpSpec &o) {
  return {o.m, o.k, o.n, o.fuse == "silu", o.in_sram, o.out_sram};
}
VectorOp vector_of(const Tx8OpSpec &o) {
  VectorOp v;
  v.rows = o.rows, v.width = o.width, v.inputs = o.inputs, v.params = o.params;
  v.ops_per_element = o.ops_per_element, v.ops_per_row = o.ops_per_row;
  v.in_sram = o.in_sram, v.out_sram = o.out_sram;
  return v;
}
FlashOp flash_of(const Tx8OpSpec &o) {
  return {o.batch * o.heads, o.seq_q, o.seq_kv, o.head_dim, o.in_sram, o.out_sram};
}
} // namespace

OpMapping map_config_op(const Tx8Spec &a, const Tx8OpSpec &o, const std::string &path,
                        const SearchBudget &budget) {
  if (o.type == "gemm") {
    GemmChoice c;
    c.budget = budget;
    if (o.stationary == "input")
      c.stationary = Stationary::input;
    else if (o.stationary == "weight")
      c.stationary = Stationary::weight;
    if (!o.tiling.empty()) {
      c.tm = o.tiling[0];
      c.tn = o.tiling[1];
      if (o.tiling.size() > 2)
        c.tk = o.tiling[2];
      if (!c.stationary)
        c.stationary = Stationary::input;
    }
    return describe(gemm_of(o), map_gemm(a, gemm_of(o), c, path));
  }
  if (o.type == "vector") {
    std::optional<i64> s;
    if (!o.tiling.empty())
      s = o.tiling[0];
    return describe(vector_of(o), map_vector(a, vector_of(o), s, path));
  }
  FlashChoice c;
  c.budget = budget;
  c.order = loop_order_of(o.loop_order);
  if (o.heads_fused > 0)
    c.heads_fused = o.heads_fused;
  if (!o.tiling.empty()) {
    c.tx = o.tiling[0];
    c.ty = o.tiling[1];
  }
  return describe(flash_of(o), map_flash(a, flash_of(o), c, path));
}

OpMapping map_config_op_preset(const Tx8Spec &a, const Tx8OpSpec &o, const std::string &path,
                               const SearchBudget &budget) {
  if (o.type == "gemm") {
    GemmChoice c = seed_gemm_choice(SeedPreset::projection);
    c.budget = budget;
    return describe(gemm_of(o), map_gemm(a, gemm_of(o), c, path));
  }
  if (o.type == "vector")
    return describe(vector_of(o), map_vector(a, vector_of(o), std::nullopt, path));
  FlashChoice c = seed_flash_choice();
  c.budget = budget;
  return describe(flash_of(o), map_flash(a, flash_of(o), c, path));
}

// [SECTION] schemes
std::vector<SpScheme> schemes_for(const ModelSpec &m, i64 P) {
  if (P <= 1)
    return {SpScheme{SpKind::dsp, 1, 1, 1}};
  std::vector<SpScheme> out = {{SpKind::dsp, P, 1, 1}, {SpKind::ring, P, 1, 1}};
  if (m.heads % P == 0) {
    out.push_back({SpKind::ulysses, P, P, 1});
    out.push_back({SpKind::megatron_sp, P, 1, 1});
  }
  for (i64 u = 2; u < P; ++u)
    if (P % u == 0 && m.heads % u == 0)
      out.push_back({SpKind::usp, P, u, P / u});
  return out;
}

// [SECTION] video
namespace {
struct Stage {
  std::vector<OpSpec> ops;
  std::vector<CommItem> comm;
  double spatial_attention = 0; // s per layer, what ring passes hide behind
};

double layer_exposed(const std::vector<CommItem> &comm, double attention) {
  double hidden = 0, t = 0;
  for (const CommItem &c : comm) {
    if (c.overlaps_attention)
      hidden += c.per_layer * c.time;
    else
      t += c.per_layer * c.time;
  }
  return t + std::max(0.0, hidden - attention);
}
} // namespace

Tx8Result evaluate_video(const Config &c, const SpScheme &s0, const std::vector<SubMesh> &meshes,
                         const std::vector<std::pair<i64, i64>> &layers, bool presets,
                         MapCache &cache) {
  const Tx8Spec &a = arch_of(c.hardware, "hardware");
  const ModelSpec &m = c.model;
  const VideoShape v = video_shape(m, c.workload);
  const Link &l = c.cluster.d2d;
  Tx8Result r;
  r.video = true;
  r.model = m.name;
  r.hardware = c.hardware.name;
  r.cluster = c.cluster.name;
  r.shape = v;
  r.scheme = s0;
  r.presets = presets;
  const i64 pp = static_cast<i64>(meshes.size());
  r.micro_batches = pp > 1 ? v.batch : 1;
  const i64 b = pp > 1 ? 1 : v.batch; // samples per micro-batch
  for (const SubMesh &sm : meshes)
    r.dies += sm.dies();
  r.dies -= 1;
  bool preset_ok = presets;
  for (i64 si = 0; si < pp; ++si) {
    const SubMesh &sm = meshes[static_cast<std::size_t>(si)];
    SpScheme s = s0;
    s.dies = sm.dies();
    if (s.kind == SpKind::usp && s.ulysses * s.ring != s.dies) {
      s.ring = s.dies / std::max<i64>(1, s.ulysses);
    }
    check_scheme(s, m, "parallel.sp_kind");
    const i64 nl = layers[static_cast<std::size_t>(si)].second -
                   layers[static_cast<std::size_t>(si)].first + 1;
    const double L = static_cast<double>(nl);
    std::vector<OpSpec> ops;
    if (si == 0)
      ops = embed_ops(a, m, v, shard_rows(s, v, b), s.kind == SpKind::megatron_sp ? s.dies : 1);
    for (const char *blk : {"spatial", "temporal"}) {
      const auto bo = block_ops(a, m, blk, shard_block(s, m, v, b, blk), c.workload.fusion, L);
      ops.insert(ops.end(), bo.begin(), bo.end());
    }
    if (si == pp - 1) {
      const auto fo = final_ops(a, m, shard_rows(s, v, b));
      ops.insert(ops.end(), fo.begin(), fo.end());
    }
    StageRow st;
    st.mesh = sm;
    st.first = layers[static_cast<std::size_t>(si)].first;
    st.last = layers[static_cast<std::size_t>(si)].second;
    double spatial_attention = 0;
    for (const OpSpec &op : ops) {
      OpRow row;
      row.name = op.name;
      row.block = op.block;
      row.stage = si;
      row.count = op.count * static_cast<double>(r.micro_batches); // per step
      const i64 before = cache.hits;
      row.map = map_spec(a, op, false, cache, "workload");
      row.cached = cache.hits > before;
      st.compute += op.count * row.map.cost.latency;
      if (op.self_attention && op.block == "spatial")
        spatial_attention = row.map.cost.latency;
      if (si == 0 && op.block == "spatial")
        r.spatial_block += row.map.cost.latency;
      if (si == 0 && op.block == "temporal")
        r.temporal_block += row.map.cost.latency;
      if (op.block == "embed")
        r.embed += row.map.cost.latency;
      if (op.block == "final")
        r.final += row.map.cost.latency;
      if (presets) {
        row.has_preset = op.preset != SeedPreset::none;
        try {
          row.preset = map_spec(a, op, true, cache, "workload");
        } catch (const ConfigError &e) {
          row.preset_error = e.message();
          if (preset_ok)
            r.preset_error = op.name + ": " + e.message();
          preset_ok = false;
        }
      }
      r.ops.push_back(std::move(row));
    }
    const auto comm = layer_comm(s, m, v, b, sm, l);
    const double exposed = layer_exposed(comm, spatial_attention);
    st.comm = L * exposed;
    for (const CommItem &ci : comm) {
      CommRow cr;
      cr.kind = ci.kind;
      cr.stage = si;
      cr.bytes_per_die = ci.bytes_per_die;
      cr.time = ci.time;
      cr.per_step = ci.per_layer * L * static_cast<double>(r.micro_batches);
      cr.exposed = ci.overlaps_attention
                       ? L * std::max(0.0, ci.per_layer * ci.time - spatial_attention)
                       : L * ci.per_layer * ci.time;
      cr.exposed *= static_cast<double>(r.micro_batches);
      r.comm_bytes_per_die_per_step += cr.bytes_per_die * cr.per_step;
      r.comm.push_back(cr);
    }
    if (si == 0)
      r.per_layer = r.spatial_block + r.temporal_block + exposed;
    r.stages.push_back(st);
  }
  // Pipeline: stage times per micro-batch, activations sent across each stage boundary.
  const double act_bytes = static_cast<double>(b) * static_cast<double>(v.tokens()) *
                           static_cast<double>(m.hidden) * a.elem_bytes;
  double sum = 0, worst = 0;
  for (i64 si = 0; si < pp; ++si) {
    StageRow &st = r.stages[static_cast<std::size_t>(si)];
    if (si + 1 < pp) {
      const SubMesh &x = st.mesh, &y = r.stages[static_cast<std::size_t>(si + 1)].mesh;
      const double links = static_cast<double>(std::max<i64>(1, boundary_links(x, y)));
      st.p2p = static_cast<double>(mesh_distance(x, y)) * l.latency + act_bytes / (links * l.bw);
      CommRow cr{"pipeline p2p",
                 si,
                 act_bytes / static_cast<double>(x.dies()),
                 st.p2p,
                 static_cast<double>(r.micro_batches),
                 st.p2p * static_cast<double>(r.micro_batches)};
      r.comm_bytes_per_die_per_step += cr.bytes_per_die * cr.per_step;
      r.comm.push_back(cr);
    }
    sum += st.time() + st.p2p;
    worst = std::max({worst, st.time(), st.p2p});
    r.compute_per_step += st.compute * static_cast<double>(r.micro_batches);
    r.comm_exposed_per_step += (st.comm + st.p2p) * static_cast<double>(r.micro_batches);
  }
  const double extra = static_cast<double>(r.micro_batches - 1) * worst;
  r.per_step = sum + extra;
  // The sampled latent gathered once on the last stage for the VAE decoder.
  const DitSpec &d = *m.dit;
  const double latent =
      static_cast<double>(v.batch * d.in_channels * v.latent_t * v.latent_h * v.latent_w) *
      a.elem_bytes;
  r.once = allgather_mesh_s(latent, meshes.back().dies(), l);
  r.latency = static_cast<double>(v.steps) * r.per_step + r.once;
  // Useful FLOPs of one step: the operators of one die with the whole batch.
  {
    const SpScheme one{SpKind::dsp, 1, 1, 1};
    double f = 0;
    auto add = [&](const std::vector<OpSpec> &ops) {
      for (const OpSpec &op : ops) {
        if (op.kind == OpKind::gemm)
          f += op.count * 2.0 * static_cast<double>(op.gemm.m) * static_cast<double>(op.gemm.k) *
               static_cast<double>(op.gemm.n);
        else if (op.kind == OpKind::flash)
          f += op.count * 4.0 * static_cast<double>(op.flash.groups) *
               static_cast<double>(op.flash.seq_q) * static_cast<double>(op.flash.seq_kv) *
               static_cast<double>(op.flash.head_dim);
      }
    };
    add(embed_ops(a, m, v, shard_rows(one, v, v.batch), 1));
    for (const char *blk : {"spatial", "temporal"})
      add(block_ops(a, m, blk, shard_block(one, m, v, v.batch, blk), false,
                    static_cast<double>(m.layers)));
    add(final_ops(a, m, shard_rows(one, v, v.batch)));
    r.flops_per_step = f;
    r.utilization = f / (r.per_step * static_cast<double>(r.dies) * die_gemm_flops(a));
  }
  if (presets && preset_ok) {
    // The same step with every preset-tiled operator at its preset latency (communication
    // and pipeline terms unchanged).
    double ps = 0, pw = 0;
    for (i64 si = 0; si < pp; ++si) {
      double t = 0;
      for (const OpRow &row : r.ops)
        if (row.stage == si)
          t += row.count / static_cast<double>(r.micro_batches) * row.preset.cost.latency;
      const StageRow &st = r.stages[static_cast<std::size_t>(si)];
      t += st.comm;
      ps += t + st.p2p;
      pw = std::max({pw, t, st.p2p});
    }
    r.preset_per_step = ps + static_cast<double>(r.micro_batches - 1) * pw;
    r.preset_latency = static_cast<double>(v.steps) * r.preset_per_step + r.once;
  }
  return r;
}

// [SECTION] the answer
namespace {
std::vector<std::pair<std::vector<SubMesh>, std::vector<std::pair<i64, i64>>>>
mesh_splits(const Config &c) {
  const std::vector<i64> mesh = c.cluster.mesh.empty() ? std::vector<i64>{1, 1} : c.cluster.mesh;
  std::vector<std::pair<std::vector<SubMesh>, std::vector<std::pair<i64, i64>>>> out;
  for (i64 px = 1; px <= mesh[0]; ++px)
    for (i64 py = 1; py <= mesh[1]; ++py) {
      if (mesh[0] % px != 0 || mesh[1] % py != 0 || px * py > c.model.layers)
        continue;
      std::vector<SubMesh> ms;
      const i64 sx = mesh[0] / px, sy = mesh[1] / py;
      for (i64 j = 0; j < py; ++j)
        for (i64 i = 0; i < px; ++i)
          ms.push_back({sx, sy, (j % 2 == 0 ? i : px - 1 - i) * sx, j * sy});
      out.emplace_back(ms, stage_layers(c.model.layers, {}, px * py, "parallel.pp"));
    }
  return out;
}
} // namespace

struct Tx8Solve::Impl {
  Config c;
  Tx8Options o;
  MapCache cache;
  // The planner's candidates: every scheme on every split of the mesh into equal stage
  // sub-meshes, evaluated one per step unit.
  struct Candidate {
    std::vector<SubMesh> meshes;
    std::vector<std::pair<i64, i64>> layers;
    SpScheme scheme;
  };
  std::vector<Candidate> candidates;
  std::size_t next = 0;
  std::vector<SchemeRow> rows;
  bool finished = false;
  Tx8Result r;

  void evaluate_next();
  void choose();
};

void Tx8Solve::Impl::evaluate_next() {
  const Candidate &k = candidates[next++];
  SchemeRow row;
  row.scheme = k.scheme;
  row.name = scheme_name(k.scheme);
  row.stages = static_cast<i64>(k.meshes.size());
  row.meshes = k.meshes;
  try {
    const Tx8Result e = evaluate_video(c, k.scheme, k.meshes, k.layers, false, cache);
    row.per_step = e.per_step;
    row.compute = e.compute_per_step;
    row.comm_exposed = e.comm_exposed_per_step;
    row.comm_bytes_per_die = e.comm_bytes_per_die_per_step;
    row.latency = e.latency;
  } catch (const ConfigError &err) {
    row.feasible = false;
    row.why = err.message();
  }
  rows.push_back(row);
}

// The chosen scheme (the config's, or the planner's best) mapped in full.
void Tx8Solve::Impl::choose() {
  std::stable_sort(rows.begin(), rows.end(), [](const SchemeRow &x, const SchemeRow &y) {
    if (x.feasible != y.feasible)
      return x.feasible;
    return x.per_step < y.per_step;
  });
  const ParallelSpec &p = c.parallel;
  const std::vector<i64> mesh = c.cluster.mesh.empty() ? std::vector<i64>{1, 1} : c.cluster.mesh;
  SpScheme s;
  std::vector<SubMesh> meshes;
  std::vector<std::pair<i64, i64>> layers;
  if (p.sp_kind || !p.stage_ids.empty() || !p.submeshes.empty() || p.pp) {
    const i64 pp = p.pp.value_or(
        p.stage_ids.empty() ? (p.submeshes.empty() ? 1 : static_cast<i64>(p.submeshes.size() / 4))
                            : static_cast<i64>(p.stage_ids.size() / 2));
    meshes = stage_meshes(mesh, p.submeshes, pp,
                          p.submeshes.empty() ? "parallel.pp" : "parallel.submeshes");
    layers = stage_layers(c.model.layers, p.stage_ids, static_cast<i64>(meshes.size()),
                          p.stage_ids.empty() ? "parallel.pp" : "parallel.stage_ids");
    if (layers.size() != meshes.size())
      throw ConfigError("parallel.stage_ids", std::to_string(layers.size()) + " stages but " +
                                                  std::to_string(meshes.size()) + " sub-meshes");
    for (std::size_t i = 1; i < meshes.size(); ++i)
      if (meshes[i].dies() != meshes[0].dies() && p.sp_kind == SpKind::usp)
        throw ConfigError("parallel.submeshes", "usp needs equal sub-meshes");
    s.kind = p.sp_kind.value_or(SpKind::dsp);
    s.dies = meshes.front().dies();
    if (s.kind == SpKind::usp) {
      s.ulysses = p.ulysses.value_or(0);
      if (s.ulysses == 0) { // the largest Ulysses part the heads allow, below all dies
        for (i64 u = s.dies / 2; u >= 2; --u)
          if (s.dies % u == 0 && c.model.heads % u == 0) {
            s.ulysses = u;
            break;
          }
        if (s.ulysses == 0)
          throw ConfigError("parallel.ulysses",
                            "usp over " + std::to_string(s.dies) +
                                " dies needs a Ulysses degree that divides both it and the heads");
      }
      if (s.dies % s.ulysses != 0)
        throw ConfigError("parallel.ulysses", std::to_string(s.ulysses) + " does not divide " +
                                                  std::to_string(s.dies) + " dies");
      s.ring = s.dies / s.ulysses;
    } else if (s.kind == SpKind::ulysses) {
      s.ulysses = s.dies;
    }
    r = evaluate_video(c, s, meshes, layers, o.compare_presets, cache);
    r.chosen_by = "parallel";
  } else if (!rows.empty() && rows.front().feasible) {
    const SchemeRow &best = rows.front();
    s = best.scheme;
    meshes = best.meshes;
    layers = stage_layers(c.model.layers, {}, static_cast<i64>(meshes.size()), "parallel.pp");
    r = evaluate_video(c, s, meshes, layers, o.compare_presets, cache);
    r.chosen_by = "planner";
  } else {
    meshes = stage_meshes(mesh, {}, 1, "parallel.pp");
    layers = stage_layers(c.model.layers, {}, 1, "parallel.pp");
    s.dies = meshes.front().dies();
    r = evaluate_video(c, s, meshes, layers, o.compare_presets, cache);
    r.chosen_by = "default";
  }
  r.schemes = std::move(rows);
  r.searches = cache.misses;
  r.cache_hits = cache.hits;
}

Tx8Solve::Tx8Solve(const Config &c, const Tx8Options &o) : impl_(std::make_unique<Impl>()) {
  Impl &m = *impl_;
  m.c = c;
  m.o = o;
  m.cache.budget = o.budget;
  Tx8Result &r = m.r;
  const Tx8Spec &a = arch_of(c.hardware, "hardware");
  if (c.workload.mode == Mode::tx8_op) {
    const Tx8OpSpec &op = *c.workload.op;
    OpRow row;
    row.name = op.name.empty() ? op.type : op.name;
    row.block = "op";
    row.map = map_config_op(a, op, "workload.op", o.budget);
    if (o.compare_presets) {
      row.has_preset = op.type != "vector";
      try {
        row.preset = map_config_op_preset(a, op, "workload.op", o.budget);
      } catch (const ConfigError &e) {
        row.preset_error = e.message();
        r.preset_error = e.message();
      }
      r.presets = true;
      if (r.preset_error.empty())
        r.preset_per_step = r.preset_latency = row.preset.cost.latency;
    }
    r.hardware = c.hardware.name;
    r.model = c.model.name;
    r.cluster = c.cluster.name;
    r.latency = r.per_step = row.map.cost.latency;
    r.compute_per_step = row.map.cost.latency;
    r.flops_per_step = row.map.cost.flops;
    r.utilization = row.map.cost.utilization;
    r.searches = 1;
    r.ops.push_back(std::move(row));
    m.finished = true;
    return;
  }
  if (c.workload.mode != Mode::video)
    throw ConfigError("workload.mode",
                      "ridgeline tx8 maps mode tx8-op or video, got \"" +
                          std::string(c.workload.mode == Mode::train ? "train" : "infer") + "\"");
  if (c.model.family != ModelFamily::stdit3)
    throw ConfigError("model.family",
                      "a video request needs an stdit3 model, got \"" + c.model.name + "\"");
  if (c.cluster.mesh.empty() && c.cluster.devices > 1)
    throw ConfigError("cluster.mesh", "is required for a video request on several dies");
  if (o.plan)
    for (const auto &[meshes, layers] : mesh_splits(c))
      for (const SpScheme &s : schemes_for(c.model, meshes.front().dies()))
        m.candidates.push_back({meshes, layers, s});
}

Tx8Solve::~Tx8Solve() = default;
Tx8Solve::Tx8Solve(Tx8Solve &&) noexcept = default;
Tx8Solve &Tx8Solve::operator=(Tx8Solve &&) noexcept = default;

bool Tx8Solve::step(i64 evaluations) {
  Impl &m = *impl_;
  if (m.finished)
    return true;
  for (i64 k = 0; k < evaluations && m.next < m.candidates.size(); ++k)
    m.evaluate_next();
  if (m.next >= m.candidates.size()) {
    m.choose();
    m.finished = true;
  }
  return m.finished;
}

bool Tx8Solve::done() const {
  return impl_->finished;
}

double Tx8Solve::progress() const {
  const Impl &m = *impl_;
  if (m.finished)
    return 1;
  return static_cast<double>(m.next) / static_cast<double>(m.candidates.size() + 1);
}

const Tx8Result &Tx8Solve::result() const {
  return impl_->r;
}

Tx8Result solve(const Config &c, const Tx8Options &o) {
  Tx8Solve s(c, o);
  while (!s.step(1 << 20)) {
  }
  return s.result();
}

} // namespace rl::tx8
