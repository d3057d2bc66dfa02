#include "core/tx8/flash.hpp"

#include "core/error.hpp"
#include "core/tx8/arch.hpp"

#include <algorithm>
#include <cmath>

namespace rl::tx8 {

const char *name_of(LoopOrder o) {
  switch (o) {
  case LoopOrder::a:
    return "order A (Q stays, K/V rotate)";
  case LoopOrder::b:
    return "order B (K/V stay, Q/O stream)";
  case LoopOrder::broadcast:
    return "broadcast K/V";
  case LoopOrder::packed:
    return "packed sequences";
  }
  return "?";
}

std::optional<LoopOrder> loop_order_of(const std::string &s) {
  if (s == "a")
    return LoopOrder::a;
  if (s == "b")
    return LoopOrder::b;
  if (s == "broadcast")
    return LoopOrder::broadcast;
  if (s == "packed")
    return LoopOrder::packed;
  return std::nullopt;
}

namespace {
const char *key_of(LoopOrder o) {
  switch (o) {
  case LoopOrder::a:
    return "a";
  case LoopOrder::b:
    return "b";
  case LoopOrder::broadcast:
    return "broadcast";
  case LoopOrder::packed:
    return "packed";
  }
  return "?";
}
double d_(i64 x) {
  return static_cast<double>(x);
}
} // namespace

// docs/formulas.md (tx8): QK^T and PV, each 2*Tx*Ty*d on the padded dims, for h_f heads.
double flash_block_gemm_s(const Tx8Spec &a, i64 tx, i64 ty, i64 d, i64 hf) {
  return 2.0 * gemm_block_s(a, tx, d, ty) * d_(hf);
}

// docs/formulas.md (tx8): h_f*(5*Tx*Ty + Tx*d + Tx)/F_v with the exp cost a parameter (5 = 4 +
// exp).
double flash_block_vector_s(const Tx8Spec &a, i64 tx, i64 ty, i64 d, i64 hf) {
  return d_(hf) * ((4 + a.exp_ops) * d_(tx) * d_(ty) + d_(tx) * d_(d) + d_(tx)) / a.vector_ops;
}

// docs/formulas.md (tx8): order A DRAM bytes.
double flash_bytes_order_a(const Tx8Spec &a, const FlashOp &op, i64 tx) {
  const double h = d_(op.groups), d = d_(op.head_dim), e = a.elem_bytes;
  const double nq = d_(ceil_div(op.seq_q, a.tiles * std::min(tx, ceil_div(op.seq_q, a.tiles))));
  return d_(op.seq_q) * d * h * ((op.in_sram ? 0.0 : e) + (op.out_sram ? 0.0 : e)) +
         2 * d_(op.seq_kv) * d * h * e * nq;
}

// docs/formulas.md (tx8): order B DRAM bytes.
double flash_bytes_order_b(const Tx8Spec &a, const FlashOp &op, i64 ty) {
  const double h = d_(op.groups), d = d_(op.head_dim), e = a.elem_bytes, ea = a.acc_bytes;
  const double Sq = d_(op.seq_q);
  const double nkv = d_(ceil_div(op.seq_kv, a.tiles * std::min(ty, ceil_div(op.seq_kv, a.tiles))));
  return 2 * d_(op.seq_kv) * d * h * e + Sq * d * h * e * nkv -
         (op.in_sram ? Sq * d * h * e : 0.0) + (2 * Sq * d * h * ea + 4 * ea * Sq * h) * (nkv - 1) +
         (op.out_sram ? 0.0 : Sq * d * h * e);
}

namespace {

struct Ctx {
  const Tx8Spec &a;
  const FlashOp &op;
  double e, ea, d, T;
  double step(i64 tx, i64 ty, i64 hf) const {
    const double g = flash_block_gemm_s(a, tx, ty, op.head_dim, hf);
    const double v = flash_block_vector_s(a, tx, ty, op.head_dim, hf);
    return a.overlap_units ? std::max(g, v) : g + v;
  }
  // The final O / l normalisation of a Q block, once, on the last KV block.
  double finish(i64 tx, i64 hf) const { return d_(hf) * d_(tx) * d / a.vector_ops; }
};

// The busiest tile's packing: `gt` sequences, packs of min(p, gt).
struct Packing {
  i64 pk, packs;
};
Packing packing(i64 gt, i64 p) {
  const i64 pk = std::max<i64>(1, std::min(p, gt));
  return {pk, ceil_div(gt, pk)};
}

double sram_a(const Ctx &c, i64 tx, i64 ty, i64 hf) {
  // Q double-buffered, K/V "2-3-2" (computing, receiving, loading), fp32 scores, O
  // accumulator and statistics, O staging for the store.
  return d_(hf) * (2 * d_(tx) * c.d * c.e + 3 * 2 * d_(ty) * c.d * c.e + d_(tx) * d_(ty) * c.ea +
                   d_(tx) * c.d * c.ea + 2 * d_(tx) * c.ea + d_(tx) * c.d * c.e);
}
double sram_b(const Ctx &c, i64 tx, i64 ty, i64 hf) {
  // K/V stationary double-buffered; Q, O accumulator and statistics rotate (3 buffers).
  return d_(hf) * (2 * 2 * d_(ty) * c.d * c.e + 3 * d_(tx) * c.d * c.e + 3 * d_(tx) * c.d * c.ea +
                   3 * 2 * d_(tx) * c.ea + d_(tx) * d_(ty) * c.ea);
}
double sram_broadcast(const Ctx &c, i64 tx, i64 hf) {
  const double skv = d_(c.op.seq_kv);
  // the whole K/V double-buffered (the next head group arrives), Q double-buffered,
  // scores over all keys, O accumulator, statistics, O staging.
  return d_(hf) * (2 * 2 * skv * c.d * c.e + 2 * d_(tx) * c.d * c.e + d_(tx) * skv * c.ea +
                   d_(tx) * c.d * c.ea + 2 * d_(tx) * c.ea + d_(tx) * c.d * c.e);
}
double sram_packed(const Ctx &c, i64 packs, i64 pk) {
  const double sq = d_(pk * c.op.seq_q), skv = d_(pk * c.op.seq_kv);
  // inputs double-buffered, block-diagonal scores, O accumulator, statistics, O double-
  // buffered.
  return d_(packs) * (2 * (sq * c.d * c.e + 2 * skv * c.d * c.e) + sq * skv * c.ea +
                      sq * c.d * c.ea + 2 * sq * c.ea + 2 * sq * c.d * c.e);
}

Seq order_a(const Ctx &c, const FlashTiling &t) {
  const auto &a = c.a;
  Seq total;
  for (const Part &hp : split_blocks(c.op.groups, t.heads_fused, 1)) {
    const i64 h = hp.size;
    Seq per_h;
    for (const Part &qp : split_blocks(c.op.seq_q, t.tx, a.tiles)) {
      Seq per_q;
      for (const Run &kr : with_ends(split_blocks(c.op.seq_kv, t.ty, a.tiles))) {
        const i64 tx = qp.per_tile, ty = kr.part.per_tile;
        const double step = c.step(tx, ty, h);
        const double noc = noc_s(a, 2 * d_(ty) * c.d * d_(h) * c.e, 1);
        const double fin = kr.last ? c.finish(tx, h) : 0.0;
        Round r;
        r.compute = step + (c.T - 1) * std::max(step, noc) + fin;
        r.busy = c.T * step + fin;
        r.noc = (c.T - 1) * noc;
        const double rq = d_(qp.size), rkv = d_(kr.part.size);
        const double load = 2 * rkv * c.d * d_(h) * c.e +
                            (kr.first && !c.op.in_sram ? rq * c.d * d_(h) * c.e : 0.0);
        const double store = kr.last && !c.op.out_sram ? rq * c.d * d_(h) * c.e : 0.0;
        r.load = dma_s(a, load);
        r.store = dma_s(a, store);
        r.bytes = load + store;
        per_q = then(per_q, repeat(seq_of(r), kr.count));
      }
      per_h = then(per_h, repeat(per_q, qp.count));
    }
    total = then(total, repeat(per_h, hp.count));
  }
  return total;
}

Seq order_b(const Ctx &c, const FlashTiling &t) {
  const auto &a = c.a;
  Seq total;
  for (const Part &hp : split_blocks(c.op.groups, t.heads_fused, 1)) {
    const i64 h = hp.size;
    Seq per_h;
    for (const Run &kr : with_ends(split_blocks(c.op.seq_kv, t.ty, a.tiles))) {
      Seq per_kv;
      for (const Run &qr : with_ends(split_blocks(c.op.seq_q, t.tx, a.tiles))) {
        const i64 tx = qr.part.per_tile, ty = kr.part.per_tile;
        const double step = c.step(tx, ty, h);
        // Q, the fp32 O accumulator and the two statistics rotate together.
        const double noc = noc_s(a, d_(h) * d_(tx) * (c.d * c.e + c.d * c.ea + 2 * c.ea), 1);
        const double fin = kr.last ? c.finish(tx, h) : 0.0;
        Round r;
        r.compute = step + (c.T - 1) * std::max(step, noc) + fin;
        r.busy = c.T * step + fin;
        r.noc = (c.T - 1) * noc;
        const double rq = d_(qr.part.size), rkv = d_(kr.part.size);
        const double partial = rq * d_(h) * (c.d * c.ea + 2 * c.ea);
        const double load = (kr.first && c.op.in_sram ? 0.0 : rq * c.d * d_(h) * c.e) +
                            (kr.first ? 0.0 : partial) +
                            (qr.first ? 2 * rkv * c.d * d_(h) * c.e : 0.0);
        const double store = kr.last ? (c.op.out_sram ? 0.0 : rq * c.d * d_(h) * c.e) : partial;
        r.load = dma_s(a, load);
        r.store = dma_s(a, store);
        r.bytes = load + store;
        per_kv = then(per_kv, repeat(seq_of(r), qr.count));
      }
      per_h = then(per_h, repeat(per_kv, kr.count));
    }
    total = then(total, repeat(per_h, hp.count));
  }
  return total;
}

Seq order_broadcast(const Ctx &c, const FlashTiling &t) {
  const auto &a = c.a;
  Seq total;
  const i64 skv = c.op.seq_kv;
  for (const Part &hp : split_blocks(c.op.groups, t.heads_fused, 1)) {
    const i64 h = hp.size;
    Seq per_h;
    for (const Run &qr : with_ends(split_blocks(c.op.seq_q, t.tx, a.tiles))) {
      const i64 tx = qr.part.per_tile;
      const double step = c.step(tx, skv, h) + c.finish(tx, h);
      // docs/formulas.md (tx8): broadcast K/V instead of rotating: one DRAM read, a chain over the
      // T-1 other tiles (pipelined: T-1 hops of latency + the bytes once per link).
      const double kv = 2 * d_(skv) * c.d * d_(h) * c.e;
      const double bcast = qr.first ? noc_s(a, kv, a.tiles - 1) : 0.0;
      Round r;
      r.compute = bcast + step;
      r.busy = step;
      r.noc = bcast;
      const double rq = d_(qr.part.size);
      const double load = (c.op.in_sram ? 0.0 : rq * c.d * d_(h) * c.e) + (qr.first ? kv : 0.0);
      const double store = c.op.out_sram ? 0.0 : rq * c.d * d_(h) * c.e;
      r.load = dma_s(a, load);
      r.store = dma_s(a, store);
      r.bytes = load + store;
      per_h = then(per_h, repeat(seq_of(r), qr.count));
    }
    total = then(total, repeat(per_h, hp.count));
  }
  return total;
}

Seq order_packed(const Ctx &c, const FlashTiling &t) {
  const auto &a = c.a;
  Seq total;
  const i64 sq = c.op.seq_q, skv = c.op.seq_kv;
  for (const Run &gr : with_ends(split_blocks(c.op.groups, t.heads_fused * t.pack, a.tiles))) {
    const i64 gt = gr.part.per_tile;
    const Packing pk = packing(gt, t.pack);
    // Block-diagonal: the matmuls run on pk*S x pk*S (masked), the vector unit only on the
    // pk diagonal blocks.
    const double g =
        d_(pk.packs) * flash_block_gemm_s(a, pk.pk * sq, pk.pk * skv, c.op.head_dim, 1);
    const double v =
        d_(gt) * ((4 + a.exp_ops) * d_(sq) * d_(skv) + 2 * d_(sq) * c.d + d_(sq)) / a.vector_ops;
    Round r;
    r.compute = a.overlap_units ? std::max(g, v) : g + v;
    r.busy = r.compute;
    const double rg = d_(gr.part.size);
    const double load = rg * ((c.op.in_sram ? 0.0 : d_(sq) * c.d * c.e) + 2 * d_(skv) * c.d * c.e);
    const double store = c.op.out_sram ? 0.0 : rg * d_(sq) * c.d * c.e;
    r.load = dma_s(a, load);
    r.store = dma_s(a, store);
    r.bytes = load + store;
    total = then(total, repeat(seq_of(r), gr.count));
  }
  return total;
}

// Per-tile block sizes actually used (a block larger than the per-tile share is clamped).
FlashTiling clamp(const Tx8Spec &a, const FlashOp &op, FlashTiling t) {
  t.tx = std::min(t.tx, ceil_div(op.seq_q, a.tiles));
  t.ty = std::min(t.ty, ceil_div(op.seq_kv, a.tiles));
  if (t.order == LoopOrder::broadcast)
    t.ty = op.seq_kv;
  if (t.order == LoopOrder::packed) {
    t.tx = op.seq_q;
    t.ty = op.seq_kv;
  }
  t.heads_fused = std::max<i64>(1, std::min(t.heads_fused, op.groups));
  return t;
}

} // namespace

double flash_sram_bytes(const Tx8Spec &a, const FlashOp &op, const FlashTiling &t0) {
  const FlashTiling t = clamp(a, op, t0);
  const Ctx c{a, op, a.elem_bytes, a.acc_bytes, d_(op.head_dim), d_(a.tiles)};
  const i64 hf = std::min(t.heads_fused, op.groups);
  switch (t.order) {
  case LoopOrder::a:
    return sram_a(c, t.tx, t.ty, hf);
  case LoopOrder::b:
    return sram_b(c, t.tx, t.ty, hf);
  case LoopOrder::broadcast:
    return sram_broadcast(c, t.tx, hf);
  case LoopOrder::packed: {
    const i64 gt = max_per_tile(split_blocks(op.groups, t.heads_fused * t.pack, a.tiles));
    const Packing pk = packing(gt, t.pack);
    return sram_packed(c, pk.packs, pk.pk);
  }
  }
  return 0;
}

OpCost evaluate_flash(const Tx8Spec &a, const FlashOp &op, const FlashTiling &t0) {
  const FlashTiling t = clamp(a, op, t0);
  const Ctx c{a, op, a.elem_bytes, a.acc_bytes, d_(op.head_dim), d_(a.tiles)};
  Seq s;
  switch (t.order) {
  case LoopOrder::a:
    s = order_a(c, t);
    break;
  case LoopOrder::b:
    s = order_b(c, t);
    break;
  case LoopOrder::broadcast:
    s = order_broadcast(c, t);
    break;
  case LoopOrder::packed:
    s = order_packed(c, t);
    break;
  }
  OpCost cost = cost_of(s);
  const double G = d_(op.groups), Sq = d_(op.seq_q), Skv = d_(op.seq_kv), d = c.d, e = c.e;
  cost.flops = 4 * G * Sq * Skv * d;
  // the vector work every order does: the softmax over all scores and the final O / l
  cost.vector_ops = G * ((4 + a.exp_ops) * Sq * Skv + Sq * d);
  cost.utilization = cost.flops / (cost.latency * die_gemm_flops(a));
  cost.compulsory_bytes =
      G * d * e * ((op.in_sram ? 0.0 : Sq) + 2 * Skv + (op.out_sram ? 0.0 : Sq));
  cost.sram_bytes = flash_sram_bytes(a, op, t);
  return cost;
}

FlashMapping map_flash(const Tx8Spec &a, const FlashOp &op, const FlashChoice &ch,
                       const std::string &path) {
  if (op.groups < 1 || op.seq_q < 1 || op.seq_kv < 1 || op.head_dim < 1)
    throw ConfigError(path, "flash-attention dimensions must be >= 1");
  const double cap = a.sram_usable_bytes;
  const Ctx c{a, op, a.elem_bytes, a.acc_bytes, d_(op.head_dim), d_(a.tiles)};
  const double G = d_(op.groups), Sq = d_(op.seq_q), Skv = d_(op.seq_kv);
  // Every order does at least the useful FLOPs and the softmax work, and moves the
  // compulsory bytes.
  const double floor_s = std::max(4 * G * Sq * Skv * c.d / die_gemm_flops(a),
                                  G * ((4 + a.exp_ops) * Sq * Skv + Sq * c.d) / die_vector_ops(a));
  const double compulsory =
      G * c.d * c.e * ((op.in_sram ? 0.0 : Sq) + 2 * Skv + (op.out_sram ? 0.0 : Sq));
  const i64 g = a.granule, T = a.tiles;
  std::vector<LoopOrder> orders;
  if (ch.order)
    orders = {*ch.order};
  else
    orders = {LoopOrder::a, LoopOrder::b, LoopOrder::broadcast, LoopOrder::packed};
  FlashMapping best;
  bool found = false;
  double smallest_sram = -1;
  FlashTiling smallest;
  auto consider = [&](const FlashTiling &t, double sram, double bound) {
    ++best.search.candidates;
    if (smallest_sram < 0 || sram < smallest_sram) {
      smallest_sram = sram;
      smallest = t;
    }
    if (ch.prune && sram > cap) {
      ++best.search.pruned_sram;
      return;
    }
    if (ch.prune && found && bound > best.cost.latency * (1 + 1e-12)) {
      ++best.search.pruned_bound;
      return;
    }
    ++best.search.evaluated;
    if (sram > cap)
      return;
    const OpCost cost = evaluate_flash(a, op, t);
    if (!found || cost.latency < best.cost.latency * (1 - 1e-12) ||
        (cost.latency <= best.cost.latency * (1 + 1e-12) &&
         cost.dram_bytes < best.cost.dram_bytes)) {
      found = true;
      best.tiling = clamp(a, op, t);
      best.cost = cost;
    }
  };
  // h_f from 1 up: SRAM grows with h_f, so the pruned search stops at the first that does
  // not fit (counting the rest as pruned); brute force tries them all.
  auto heads = [&](LoopOrder o, i64 tx, i64 ty, i64 pack, i64 hf_all, double bound) {
    // Every h_f up to 256, a ladder beyond (groups may number 2^50).
    const std::vector<i64> hfs = ch.heads_fused
                                     ? std::vector<i64>{std::min(*ch.heads_fused, hf_all)}
                                     : tile_candidates(hf_all, 1, 1024);
    for (std::size_t i = 0; i < hfs.size(); ++i) {
      if (best.search.candidates >= ch.budget.candidates ||
          best.search.evaluated >= ch.budget.evaluations)
        return; // the budget is spent: the rest is counted as skipped
      const FlashTiling t{o, tx, ty, hfs[i], pack};
      const double sram = flash_sram_bytes(a, op, t);
      if (ch.prune && sram > cap && i > 0) {
        const auto rest = static_cast<i64>(hfs.size() - i);
        best.search.candidates += rest;
        best.search.pruned_sram += rest;
        return;
      }
      consider(t, sram, bound);
    }
  };

  const std::vector<i64> txs =
      ch.tx ? std::vector<i64>{*ch.tx} : tile_candidates(ceil_div(op.seq_q, T), g);
  const std::vector<i64> tys =
      ch.ty ? std::vector<i64>{*ch.ty} : tile_candidates(ceil_div(op.seq_kv, T), g);
  // The full space (unthinned sizes, every h_f), for the skipped count.
  const double G_hf = ch.heads_fused ? 1.0 : G;
  const double n_tx = ch.tx ? 1.0 : tile_candidate_space(ceil_div(op.seq_q, T), g);
  const double n_ty = ch.ty ? 1.0 : tile_candidate_space(ceil_div(op.seq_kv, T), g);
  double space = 0;
  for (const LoopOrder o : orders) {
    if (o == LoopOrder::a || o == LoopOrder::b) {
      space += n_tx * n_ty * G_hf;
      for (const i64 tx : txs)
        for (const i64 ty : tys) {
          const double bytes =
              o == LoopOrder::a ? flash_bytes_order_a(a, op, tx) : flash_bytes_order_b(a, op, ty);
          heads(o, tx, ty, 1, op.groups, std::max(floor_s, bytes / a.dram_bw));
        }
    } else if (o == LoopOrder::broadcast) {
      if (ch.ty)
        continue; // a fixed Ty means a rotating order
      space += n_tx * G_hf;
      for (const i64 tx : txs)
        heads(o, tx, op.seq_kv, 1, op.groups, std::max(floor_s, compulsory / a.dram_bw));
    } else {
      if (ch.tx || ch.ty)
        continue;
      // Packs up to a few granules of rows: beyond that packing only adds masked work.
      const i64 p_max = std::max<i64>(1, 4 * g / std::max(op.seq_q, op.seq_kv));
      const i64 per_tile = ceil_div(op.groups, T);
      space += static_cast<double>(std::min(p_max, per_tile)) * static_cast<double>(per_tile);
      for (i64 p = 1; p <= std::min(p_max, per_tile); ++p)
        heads(o, op.seq_q, op.seq_kv, p, ceil_div(per_tile, p),
              std::max(floor_s, compulsory / a.dram_bw));
    }
  }
  best.search.skipped = std::max(0.0, space - static_cast<double>(best.search.candidates));
  if (!found)
    throw ConfigError(path, "does not fit in SRAM: the smallest flash-attention tiling (" +
                                std::string(name_of(smallest.order)) + ", Tx " +
                                std::to_string(smallest.tx) + " Ty " + std::to_string(smallest.ty) +
                                " h_f " + std::to_string(smallest.heads_fused) + ") needs " +
                                bytes_mib(smallest_sram) + " > " + bytes_mib(cap) +
                                " usable per tile");
  return best;
}

OpMapping describe(const FlashOp &op, const FlashMapping &m) {
  OpMapping o;
  o.type = "flash_attention";
  o.shape = "G " + std::to_string(op.groups) + " Sq " + std::to_string(op.seq_q) + " Skv " +
            std::to_string(op.seq_kv) + " d " + std::to_string(op.head_dim);
  o.dims = {
      {"groups", op.groups}, {"seq_q", op.seq_q}, {"seq_kv", op.seq_kv}, {"head_dim", op.head_dim}};
  const FlashTiling &t = m.tiling;
  o.variant = key_of(t.order);
  o.tile = {{"tx", t.tx}, {"ty", t.ty}, {"heads_fused", t.heads_fused}, {"pack", t.pack}};
  if (t.order == LoopOrder::packed)
    o.tiling =
        "packed p " + std::to_string(t.pack) + " x " + std::to_string(t.heads_fused) + " per tile";
  else if (t.order == LoopOrder::broadcast)
    o.tiling = "broadcast Tx " + std::to_string(t.tx) + " h_f " + std::to_string(t.heads_fused);
  else
    o.tiling = std::string(t.order == LoopOrder::a ? "A" : "B") + " Tx " + std::to_string(t.tx) +
               " Ty " + std::to_string(t.ty) + " h_f " + std::to_string(t.heads_fused);
  o.cost = m.cost;
  o.search = m.search;
  return o;
}

} // namespace rl::tx8
