#include "core/tx8/gemm.hpp"

#include "core/error.hpp"
#include "core/tx8/arch.hpp"

#include <algorithm>

namespace rl::tx8 {

const char *name_of(Stationary s) {
  return s == Stationary::input ? "input-stationary" : "weight-stationary";
}

// docs/formulas.md (tx8): SiLU ~ exp + 2.
double silu_ops(const Tx8Spec &a) {
  return a.exp_ops + 2;
}

namespace {

// The op in the model's orientation: the stationary operand A is rows x K, the streamed
// operand B is K x cols (weight-stationary: rows = N, cols = M).
struct Model {
  i64 rows, k, cols;
  i64 tr, tc, tk; // Tm, Tn, Tk in the model's orientation
  bool a_sram, b_sram, out_sram;
  double epilogue; // vector ops per output element on the last K chunk
};

Model model_of(const Tx8Spec &a, const GemmOp &op, const GemmTiling &t) {
  const bool in = t.stationary == Stationary::input;
  Model m{};
  m.rows = in ? op.m : op.n;
  m.cols = in ? op.n : op.m;
  m.k = op.k;
  m.tr = in ? t.tm : t.tn;
  m.tc = in ? t.tn : t.tm;
  m.tk = std::min(t.tk, op.k);
  m.a_sram = in && op.in_sram;
  m.b_sram = !in && op.in_sram;
  m.out_sram = op.out_sram;
  m.epilogue = op.silu ? silu_ops(a) : 0.0;
  return m;
}

// One round: the T tiles each hold `tm` rows of an A block of `rows` x `kk`; T shards of
// `kk` x `tn` (a B block of `cols` columns) visit every tile (docs/formulas.md (tx8)).
Round gemm_round(const Tx8Spec &a, const Model &g, i64 rows, i64 tm, i64 kk, i64 cols, i64 tn,
                 bool load_a, bool first_k, bool last_k) {
  const double e = a.elem_bytes, ea = a.acc_bytes, T = static_cast<double>(a.tiles);
  const double R = static_cast<double>(rows), C = static_cast<double>(cols),
               K = static_cast<double>(kk);
  // docs/formulas.md (tx8): c = 2*Tm*Tk*Tn/(F_g*eta) (+ kappa_f*Tm*Tn/F_v on the last K chunk)
  const double c = gemm_block_s(a, tm, kk, tn) +
                   (last_k ? g.epilogue * static_cast<double>(tm * tn) / a.vector_ops : 0.0);
  // docs/formulas.md (tx8): n = L_h + Tk*Tn*e/B_n; t_r = c + (T-1)*max(c, n)
  const double n = noc_s(a, K * static_cast<double>(tn) * e, 1);
  Round r;
  r.compute = c + (T - 1) * std::max(c, n);
  r.busy = T * c;
  r.noc = (T - 1) * n;
  // docs/formulas.md (tx8): T*Tk*Tn*e weights per round, A blocks, partial sums in fp32 when K is
  // split, outputs on the last K chunk.
  const double load = (g.b_sram ? 0.0 : K * C * e) + (load_a && !g.a_sram ? R * K * e : 0.0) +
                      (first_k ? 0.0 : R * C * ea);
  const double store = last_k ? (g.out_sram ? 0.0 : R * C * e) : R * C * ea;
  r.load = dma_s(a, load);
  r.store = dma_s(a, store);
  r.bytes = load + store;
  return r;
}

double sram_of(const Tx8Spec &a, i64 tr, i64 tc, i64 tk, bool split_k) {
  const double e = a.elem_bytes, ea = a.acc_bytes;
  const double R = static_cast<double>(tr), C = static_cast<double>(tc),
               K = static_cast<double>(tk);
  // docs/formulas.md (tx8) "2-3-2": 2*Tm*Tk*e + 3*Tk*Tn*e + 2*Tm*Tn*e_out (+ Tm*Tn*e_a when K is
  // split)
  return 2 * R * K * e + 3 * K * C * e + 2 * R * C * e + (split_k ? R * C * ea : 0.0);
}

// Bytes every tiling with these M blocks and K chunks moves (independent of Tn): A once,
// B once per M block, the output once, fp32 partial sums written and read back per extra
// K chunk. Exact, so a valid lower bound on the DRAM time.
double model_bytes(const Tx8Spec &a, const Model &g, i64 m_blocks, i64 k_chunks) {
  const double e = a.elem_bytes, ea = a.acc_bytes;
  const double R = static_cast<double>(g.rows), C = static_cast<double>(g.cols),
               K = static_cast<double>(g.k);
  return (g.a_sram ? 0.0 : R * K * e) + (g.b_sram ? 0.0 : K * C * e * m_blocks) +
         (g.out_sram ? 0.0 : R * C * e) + 2.0 * static_cast<double>(k_chunks - 1) * R * C * ea;
}

} // namespace

double gemm_sram_bytes(const Tx8Spec &a, const GemmOp &op, const GemmTiling &t) {
  const Model g = model_of(a, op, t);
  const auto mp = split_blocks(g.rows, g.tr, a.tiles);
  const auto np = split_blocks(g.cols, g.tc, a.tiles);
  return sram_of(a, max_per_tile(mp), max_per_tile(np), g.tk, g.tk < g.k);
}

OpCost evaluate_gemm(const Tx8Spec &a, const GemmOp &op, const GemmTiling &t) {
  const Model g = model_of(a, op, t);
  const auto m_parts = split_blocks(g.rows, g.tr, a.tiles);
  const auto n_runs = with_ends(split_blocks(g.cols, g.tc, a.tiles));
  const auto k_runs = with_ends(split_blocks(g.k, g.tk, 1));
  Seq total;
  for (const Part &mp : m_parts) {
    Seq per_m;
    for (const Run &kr : k_runs) {
      Seq per_k;
      for (const Run &nr : n_runs) {
        const Round r = gemm_round(a, g, mp.size, mp.per_tile, kr.part.size, nr.part.size,
                                   nr.part.per_tile, nr.first, kr.first, kr.last);
        per_k = then(per_k, repeat(seq_of(r), nr.count));
      }
      per_m = then(per_m, repeat(per_k, kr.count));
    }
    total = then(total, repeat(per_m, mp.count));
  }
  OpCost c = cost_of(total);
  const double M = static_cast<double>(op.m), K = static_cast<double>(op.k),
               N = static_cast<double>(op.n), e = a.elem_bytes;
  c.flops = 2 * M * K * N;
  c.vector_ops = g.epilogue * M * N;
  c.utilization = c.flops / (c.latency * die_gemm_flops(a));
  c.compulsory_bytes = (op.in_sram ? 0.0 : M * K * e) + K * N * e + (op.out_sram ? 0.0 : M * N * e);
  c.sram_bytes = sram_of(a, max_per_tile(m_parts),
                         max_per_tile(split_blocks(g.cols, g.tc, a.tiles)), g.tk, g.tk < g.k);
  return c;
}

GemmMapping map_gemm(const Tx8Spec &a, const GemmOp &op, const GemmChoice &ch,
                     const std::string &path) {
  if (op.m < 1 || op.k < 1 || op.n < 1)
    throw ConfigError(path, "GEMM dimensions must be >= 1");
  const double cap = a.sram_usable_bytes;
  const double flops_bound = 2.0 * static_cast<double>(op.m) * static_cast<double>(op.k) *
                             static_cast<double>(op.n) / die_gemm_flops(a);
  GemmMapping best;
  bool found = false;
  double best_lat = 0, best_bytes = 0;
  double smallest_sram = -1;
  GemmTiling smallest;
  const i64 g = a.granule, T = a.tiles;
  std::vector<Stationary> sts;
  if (ch.stationary)
    sts = {*ch.stationary};
  else
    sts = {Stationary::input, Stationary::weight};
  // Bounded work: thin each free dimension to kMaxTileCandidates sizes, and to 64 when
  // the three together would pass the candidate budget (2 x 64^3 < kMaxSearchCandidates).
  double space = 0;
  const i64 per_stationary = ch.budget.candidates / static_cast<i64>(sts.size());
  for (const Stationary st : sts) {
    const bool in = st == Stationary::input;
    const i64 rows = in ? op.m : op.n, cols = in ? op.n : op.m;
    const auto fixed_r = in ? ch.tm : ch.tn, fixed_c = in ? ch.tn : ch.tm;
    auto sizes = [&](std::optional<i64> fixed, i64 full, i64 cap) {
      return fixed ? std::vector<i64>{std::min(*fixed, full)} : tile_candidates(full, g, cap);
    };
    const i64 k_full = op.k, r_full = ceil_div(rows, T), c_full = ceil_div(cols, T);
    space += (ch.tk ? 1 : tile_candidate_space(k_full, g)) *
             (fixed_r ? 1 : tile_candidate_space(r_full, g)) *
             (fixed_c ? 1 : tile_candidate_space(c_full, g));
    std::vector<i64> tks = sizes(ch.tk, k_full, kMaxTileCandidates);
    std::vector<i64> trs = sizes(fixed_r, r_full, kMaxTileCandidates);
    std::vector<i64> tcs = sizes(fixed_c, c_full, kMaxTileCandidates);
    if (static_cast<double>(tks.size()) * static_cast<double>(trs.size()) *
            static_cast<double>(tcs.size()) >
        static_cast<double>(per_stationary)) {
      tks = sizes(ch.tk, k_full, 64);
      trs = sizes(fixed_r, r_full, 64);
      tcs = sizes(fixed_c, c_full, 64);
    }
    if (fixed_r)
      trs = {*fixed_r}; // a preset tile is taken as given (even past the dimension)
    if (fixed_c)
      tcs = {*fixed_c};
    for (const i64 tr : trs) {
      for (const i64 tk : tks) {
        GemmTiling t0t{st, in ? tr : tcs.front(), in ? tcs.front() : tr, tk};
        const Model model = model_of(a, op, t0t);
        const i64 mb = block_count(split_blocks(rows, tr, T));
        const i64 kb = ceil_div(op.k, std::min(tk, op.k));
        const double bound = std::max(model_bytes(a, model, mb, kb) / a.dram_bw, flops_bound);
        for (const i64 tc : tcs) {
          if (best.search.evaluated >= ch.budget.evaluations ||
              best.search.candidates >= ch.budget.candidates)
            break; // the budget is spent: the rest is counted as skipped
          const GemmTiling t{st, in ? tr : tc, in ? tc : tr, tk};
          ++best.search.candidates;
          const double sram = gemm_sram_bytes(a, op, t);
          if (smallest_sram < 0 || sram < smallest_sram) {
            smallest_sram = sram;
            smallest = t;
          }
          if (ch.prune && sram > cap) {
            ++best.search.pruned_sram;
            continue;
          }
          if (ch.prune && found && bound > best_lat * (1 + 1e-12)) {
            ++best.search.pruned_bound;
            continue;
          }
          ++best.search.evaluated;
          const OpCost c = evaluate_gemm(a, op, t);
          if (c.sram_bytes > cap)
            continue; // brute force evaluates first, then rejects
          const bool better = !found || c.latency < best_lat * (1 - 1e-12) ||
                              (c.latency <= best_lat * (1 + 1e-12) && c.dram_bytes < best_bytes);
          if (better) {
            found = true;
            best_lat = c.latency;
            best_bytes = c.dram_bytes;
            best.tiling = t;
            best.cost = c;
          }
        }
      }
    }
  }
  best.search.skipped = std::max(0.0, space - static_cast<double>(best.search.candidates));
  if (!found)
    throw ConfigError(path, "does not fit in SRAM: the smallest GEMM tiling (" +
                                std::string(name_of(smallest.stationary)) + " Tm " +
                                std::to_string(smallest.tm) + " Tn " + std::to_string(smallest.tn) +
                                " Tk " + std::to_string(smallest.tk) + ") needs " +
                                bytes_mib(smallest_sram) + " > " + bytes_mib(cap) +
                                " usable per tile");
  return best;
}

OpMapping describe(const GemmOp &op, const GemmMapping &m) {
  OpMapping o;
  o.type = "gemm";
  o.shape = "M " + std::to_string(op.m) + " K " + std::to_string(op.k) + " N " +
            std::to_string(op.n) + (op.silu ? " +SiLU" : "");
  o.dims = {{"m", op.m}, {"k", op.k}, {"n", op.n}};
  o.variant = name_of(m.tiling.stationary);
  o.tile = {{"tm", m.tiling.tm}, {"tn", m.tiling.tn}, {"tk", m.tiling.tk}};
  o.tiling = o.variant + " Tm " + std::to_string(m.tiling.tm) + " Tn " +
             std::to_string(m.tiling.tn) + " Tk " + std::to_string(m.tiling.tk);
  o.cost = m.cost;
  o.search = m.search;
  return o;
}

} // namespace rl::tx8
