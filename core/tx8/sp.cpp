#include "core/tx8/sp.hpp"

#include "core/error.hpp"
#include "core/tx8/arch.hpp"

#include <algorithm>
#include <cstdlib>

namespace rl::tx8 {

std::string scheme_name(const SpScheme &s) {
  switch (s.kind) {
  case SpKind::dsp:
    return "dsp";
  case SpKind::ulysses:
    return "ulysses";
  case SpKind::ring:
    return "ring";
  case SpKind::megatron_sp:
    return "megatron-sp";
  case SpKind::usp:
    return "usp " + std::to_string(s.ulysses) + "x" + std::to_string(s.ring);
  }
  return "?";
}

// the DSP paper (Zhao et al. 2024) "Communication Analysis".
double seed004_layer_bytes(SpKind kind, double M, i64 N) {
  const double n = static_cast<double>(N);
  switch (kind) {
  case SpKind::dsp:
    return 2 * M / n; // two all-to-alls per layer
  case SpKind::ulysses:
    return 4 * M / n; // Q, K, V, O all-to-alls
  case SpKind::ring:
    return 2 * M; // the whole K and V pass every device
  case SpKind::megatron_sp:
    return 8 * M; // 2 all-gathers + 2 reduce-scatters per block
  case SpKind::usp:
    return 4 * M / n; // the DSP paper (Zhao et al. 2024) has no USP row: Ulysses over all N
  }
  return 0;
}

double layer_bytes_per_die(const SpScheme &s, double M, bool cross) {
  const double P = static_cast<double>(s.dies);
  if (s.dies <= 1)
    return 0;
  const double f = (P - 1) / P;
  switch (s.kind) {
  case SpKind::dsp:
    return 2 * (M / P) * f;
  case SpKind::ulysses:
    return 4 * (M / P) * f;
  case SpKind::ring:
    return 2 * M * f;
  case SpKind::megatron_sp:
    return (cross ? 12 : 8) * M * f;
  case SpKind::usp: {
    const double u = static_cast<double>(s.ulysses), c = static_cast<double>(s.ring);
    return 4 * (M / P) * (u - 1) / u + 2 * (M / P) * (c - 1);
  }
  }
  return 0;
}

namespace {
// The links crossing the middle cut of the longer side, and the dies on each side.
void cut(i64 nx, i64 ny, double &p1, double &p2, double &links) {
  const i64 L = std::max(nx, ny), W = std::min(nx, ny);
  p1 = static_cast<double>((L / 2) * W);
  p2 = static_cast<double>((L - L / 2) * W);
  links = static_cast<double>(W);
}
} // namespace

// docs/formulas.md (tx8): all-to-all between dies >= the bisection bound.
double alltoall_bisection_s(double A, i64 nx, i64 ny, const Link &l) {
  const i64 P = nx * ny;
  if (P <= 1)
    return 0;
  double p1, p2, links;
  cut(nx, ny, p1, p2, links);
  // p1*p2 pairs exchange A/P each way across `links` links.
  return p1 * p2 * (A / static_cast<double>(P)) / (links * l.bw);
}

// docs/formulas.md (tx8): ~ sqrt(P)*A/(4*d2d bandwidth) + hops*d2d latency on a k x k mesh.
double alltoall_mesh_s(double A, i64 nx, i64 ny, const Link &l) {
  const i64 P = nx * ny;
  if (P <= 1)
    return 0;
  const double degree = static_cast<double>((nx > 1 ? 1 : 0) + (ny > 1 ? 1 : 0)); // a corner
  const double inject = A * static_cast<double>(P - 1) / static_cast<double>(P) / (degree * l.bw);
  const double hops = static_cast<double>(nx - 1 + ny - 1);
  return std::max(alltoall_bisection_s(A, nx, ny, l), inject) + hops * l.latency;
}

// docs/formulas.md: ring AllGather, n-1 steps, M(n-1)/n per device.
double allgather_mesh_s(double M, i64 P, const Link &l) {
  if (P <= 1)
    return 0;
  const double p = static_cast<double>(P);
  return (p - 1) * l.latency + M * (p - 1) / p / l.bw;
}

// docs/formulas.md: ring CP passes each device's K,V chunk c-1 times.
double ring_pass_s(double M, i64 P, const Link &l) {
  if (P <= 1)
    return 0;
  const double p = static_cast<double>(P);
  return (p - 1) * (l.latency + 2 * M / p / l.bw);
}

void check_scheme(const SpScheme &s, const ModelSpec &m, const std::string &path) {
  auto need = [&](i64 n, const char *what) {
    if (m.heads % n != 0)
      throw ConfigError(path, std::string(what) + " over " + std::to_string(n) +
                                  " dies needs heads divisible by " + std::to_string(n) + ", got " +
                                  std::to_string(m.heads));
  };
  if (s.kind == SpKind::usp && s.ulysses * s.ring != s.dies)
    throw ConfigError(path, "usp " + std::to_string(s.ulysses) + " x " + std::to_string(s.ring) +
                                " != " + std::to_string(s.dies) + " dies");
  if (s.kind == SpKind::ulysses)
    need(s.dies, "ulysses");
  if (s.kind == SpKind::megatron_sp)
    need(s.dies, "megatron-sp");
  if (s.kind == SpKind::usp)
    need(s.ulysses, "usp's ulysses part");
}

Shard shard_block(const SpScheme &s, const ModelSpec &m, const VideoShape &v, i64 b,
                  const std::string &block) {
  const i64 P = s.dies, a = m.heads, d = m.head_dim;
  const i64 T = v.grid_t, S = v.spatial();
  const bool spatial = block == "spatial";
  Shard sh;
  sh.heads = a;
  sh.text_rows = b * v.text;
  auto self = [&](i64 groups, i64 sq, i64 skv) {
    sh.self_attn = {groups, sq, skv, d, false, false};
  };
  auto cross = [&](i64 groups, i64 sq) { sh.cross_attn = {groups, sq, v.text, d, false, false}; };
  if (P <= 1) {
    sh.vec_rows = sh.gemm_rows = b * T * S;
    spatial ? self(b * T * a, S, S) : self(b * S * a, T, T);
    cross(b * a, T * S);
    return sh;
  }
  switch (s.kind) {
  case SpKind::dsp: {
    // the DSP paper (Zhao et al. 2024): the spatial block is split along time, the temporal block
    // along space; attention stays local, a switch (all-to-all) between the two.
    if (spatial) {
      const i64 t = ceil_div(T, P);
      sh.vec_rows = sh.gemm_rows = b * t * S;
      self(b * t * a, S, S);
      cross(b * a, t * S);
    } else {
      const i64 sp = ceil_div(S, P);
      sh.vec_rows = sh.gemm_rows = b * T * sp;
      self(b * sp * a, T, T);
      cross(b * a, T * sp);
    }
    break;
  }
  case SpKind::ulysses:
  case SpKind::ring:
  case SpKind::usp: {
    // The sequence split along space on every block; the spatial attention needs the whole
    // frame: Ulysses trades tokens for heads, Ring passes K/V, USP does both.
    const i64 sp = ceil_div(S, P);
    sh.vec_rows = sh.gemm_rows = b * T * sp;
    cross(b * a, T * sp);
    if (!spatial)
      self(b * sp * a, T, T);
    else if (s.kind == SpKind::ulysses)
      self(b * T * (a / P), S, S);
    else if (s.kind == SpKind::ring)
      self(b * T * a, sp, S);
    else
      self(b * T * (a / s.ulysses), ceil_div(S, s.ring), S);
    break;
  }
  case SpKind::megatron_sp: {
    // Tensor parallel with sequence-parallel norms: weights and heads split P ways, the
    // whole sequence through the GEMMs, 1/P of the rows through the vector ops.
    const i64 rows = b * T * S;
    sh.gemm_rows = rows;
    sh.vec_rows = ceil_div(rows, P);
    sh.tp = P;
    sh.heads = a / P;
    spatial ? self(b * T * (a / P), S, S) : self(b * S * (a / P), T, T);
    cross(b * (a / P), T * S);
    break;
  }
  }
  return sh;
}

i64 shard_rows(const SpScheme &s, const VideoShape &v, i64 b) {
  const i64 P = s.dies, T = v.grid_t, S = v.spatial();
  if (P <= 1)
    return b * T * S;
  switch (s.kind) {
  case SpKind::dsp:
    return b * ceil_div(T, P) * S;
  case SpKind::megatron_sp:
    return ceil_div(b * T * S, P);
  default:
    return b * T * ceil_div(S, P);
  }
}

std::vector<CommItem> layer_comm(const SpScheme &s, const ModelSpec &m, const VideoShape &v, i64 b,
                                 const SubMesh &sub, const Link &l) {
  std::vector<CommItem> out;
  const i64 P = s.dies;
  if (P <= 1)
    return out;
  const double Pd = static_cast<double>(P);
  // the DSP paper (Zhao et al. 2024): M = the activation of one block, all dies together.
  const double M = static_cast<double>(b) * static_cast<double>(v.tokens()) *
                   static_cast<double>(m.hidden) * 2.0;
  const double f = (Pd - 1) / Pd;
  switch (s.kind) {
  case SpKind::dsp:
    // the DSP paper (Zhao et al. 2024): 2 all-to-alls per layer, M/N each.
    out.push_back({"dsp switch all-to-all", M / Pd * f, alltoall_mesh_s(M / Pd, sub.nx, sub.ny, l),
                   2, false});
    break;
  case SpKind::ulysses:
    // the DSP paper (Zhao et al. 2024): Q, K, V and O all-to-alls around the split attention, M/N
    // each.
    out.push_back({"ulysses all-to-all (q, k, v, o)", M / Pd * f,
                   alltoall_mesh_s(M / Pd, sub.nx, sub.ny, l), 4, false});
    break;
  case SpKind::ring:
    // the DSP paper (Zhao et al. 2024): the whole K and V pass every die; overlapped with the
    // attention.
    out.push_back({"ring k/v pass", 2 * M * f, ring_pass_s(M, P, l), 1, true});
    break;
  case SpKind::megatron_sp: {
    // the DSP paper (Zhao et al. 2024): all-gather before, reduce-scatter after each of self
    // attention, cross attention and the MLP of both blocks.
    const double t = allgather_mesh_s(M, P, l);
    out.push_back({"megatron-sp all-gather", M * f, t, 6, false});
    out.push_back({"megatron-sp reduce-scatter", M * f, t, 6, false});
    break;
  }
  case SpKind::usp: {
    const i64 u = s.ulysses, c = s.ring;
    // A Ulysses group: u dies along x first (a row of the sub-mesh).
    const i64 ux = std::min(u, sub.nx), uy = ceil_div(u, ux);
    const double ud = static_cast<double>(u);
    out.push_back({"usp all-to-all (q, k, v, o)", M / Pd * (ud - 1) / ud,
                   alltoall_mesh_s(M / Pd, ux, uy, l), 4, false});
    // K, V of S/c tokens x a/u heads = 2M/P per die, passed c-1 times.
    const double cd = static_cast<double>(c);
    out.push_back({"usp ring k/v pass", 2 * M / Pd * (cd - 1),
                   (cd - 1) * (l.latency + 2 * M / Pd / l.bw), 1, true});
    break;
  }
  }
  return out;
}

std::vector<SubMesh> stage_meshes(const std::vector<i64> &mesh, const std::vector<i64> &flat,
                                  i64 pp, const std::string &path) {
  const i64 X = mesh.empty() ? 1 : mesh[0], Y = mesh.empty() ? 1 : mesh[1];
  std::vector<SubMesh> out;
  if (!flat.empty()) {
    std::vector<int> used(static_cast<std::size_t>(X * Y), -1);
    for (std::size_t i = 0; i + 3 < flat.size(); i += 4) {
      const SubMesh s{flat[i], flat[i + 1], flat[i + 2], flat[i + 3]};
      const std::string at = path + "[" + std::to_string(i / 4) + "]";
      if (s.nx < 1 || s.ny < 1 || s.x0 + s.nx > X || s.y0 + s.ny > Y)
        throw ConfigError(at, std::to_string(s.nx) + "x" + std::to_string(s.ny) + " at (" +
                                  std::to_string(s.x0) + ", " + std::to_string(s.y0) +
                                  ") leaves the " + std::to_string(X) + "x" + std::to_string(Y) +
                                  " die mesh");
      for (i64 x = s.x0; x < s.x0 + s.nx; ++x)
        for (i64 y = s.y0; y < s.y0 + s.ny; ++y) {
          int &u = used[static_cast<std::size_t>(y * X + x)];
          if (u >= 0)
            throw ConfigError(at, "overlaps sub-mesh " + std::to_string(u) + " at die (" +
                                      std::to_string(x) + ", " + std::to_string(y) + ")");
          u = static_cast<int>(i / 4);
        }
      out.push_back(s);
    }
    return out;
  }
  // pp equal parts: split x first, then y.
  i64 px = 1, py = 1;
  if (pp <= X && X % pp == 0)
    px = pp;
  else if (pp <= Y && Y % pp == 0)
    py = pp;
  else if (pp % X == 0 && Y % (pp / X) == 0)
    px = X, py = pp / X;
  else
    throw ConfigError(path, std::to_string(pp) + " stages do not split the " + std::to_string(X) +
                                "x" + std::to_string(Y) + " die mesh into equal sub-meshes");
  const i64 sx = X / px, sy = Y / py;
  for (i64 j = 0; j < py; ++j)
    for (i64 i = 0; i < px; ++i) {
      const i64 x = j % 2 == 0 ? i : px - 1 - i; // snake: consecutive stages are neighbours
      out.push_back({sx, sy, x * sx, j * sy});
    }
  return out;
}

std::vector<std::pair<i64, i64>> stage_layers(i64 L, const std::vector<i64> &flat, i64 pp,
                                              const std::string &path) {
  std::vector<std::pair<i64, i64>> out;
  if (!flat.empty()) {
    i64 next = 0;
    for (std::size_t i = 0; i + 1 < flat.size(); i += 2) {
      const std::string at = path + "[" + std::to_string(i / 2) + "]";
      if (flat[i] != next || flat[i + 1] < flat[i] || flat[i + 1] >= L)
        throw ConfigError(at, "(" + std::to_string(flat[i]) + ", " + std::to_string(flat[i + 1]) +
                                  ") must start at block " + std::to_string(next) +
                                  " and end before " + std::to_string(L));
      out.emplace_back(flat[i], flat[i + 1]);
      next = flat[i + 1] + 1;
    }
    if (next != L)
      throw ConfigError(path, "the stages cover blocks 0.." + std::to_string(next - 1) + " of " +
                                  std::to_string(L));
    return out;
  }
  if (pp > L)
    throw ConfigError(path, std::to_string(pp) + " stages for " + std::to_string(L) + " blocks");
  i64 first = 0;
  for (i64 s = 0; s < pp; ++s) {
    const i64 n = L / pp + (s < L % pp ? 1 : 0);
    out.emplace_back(first, first + n - 1);
    first += n;
  }
  return out;
}

i64 boundary_links(const SubMesh &a, const SubMesh &b) {
  auto overlap = [](i64 a0, i64 an, i64 b0, i64 bn) {
    return std::max<i64>(0, std::min(a0 + an, b0 + bn) - std::max(a0, b0));
  };
  if (a.x0 + a.nx == b.x0 || b.x0 + b.nx == a.x0)
    return overlap(a.y0, a.ny, b.y0, b.ny);
  if (a.y0 + a.ny == b.y0 || b.y0 + b.ny == a.y0)
    return overlap(a.x0, a.nx, b.x0, b.nx);
  return 0;
}

i64 mesh_distance(const SubMesh &a, const SubMesh &b) {
  auto gap = [](i64 a0, i64 an, i64 b0, i64 bn) {
    if (a0 + an <= b0)
      return b0 - (a0 + an) + 1;
    if (b0 + bn <= a0)
      return a0 - (b0 + bn) + 1;
    return i64{0};
  };
  return std::max<i64>(1, gap(a.x0, a.nx, b.x0, b.nx) + gap(a.y0, a.ny, b.y0, b.ny));
}

} // namespace rl::tx8
