#include "core/serve/kv_blocks.hpp"

#include <algorithm>

namespace rl {

namespace {
constexpr int kIndexBits = 26; // blocks of one stream: 2^26 (a 10M-token prompt at block 1)
}

std::uint64_t BlockName::key(i64 j) const {
  const std::uint64_t line = j < shared_blocks ? 0 : lineage;
  return (line << kIndexBits) | static_cast<std::uint64_t>(j);
}

KvBlocks::KvBlocks(i64 blocks, bool reuse, i64 host_blocks, i64 disk_blocks)
    : total_(blocks), raw_(blocks), reuse_(reuse) {
  host_.capacity = reuse ? host_blocks : 0;
  disk_.capacity = reuse ? disk_blocks : 0;
}

std::vector<KvBlocks::Segment> KvBlocks::segments(const BlockName &name, i64 n) {
  std::vector<Segment> out;
  if (name.chunks && name.chunk_blocks > 0) { // content-hashed chunks, then the request's own
    const std::vector<std::uint64_t> &h = *name.chunks;
    i64 lo = 0;
    for (std::size_t k = 0; k < h.size() && lo < n; ++k, lo += name.chunk_blocks)
      out.push_back(
          {(h[k] << 1) | (std::uint64_t{1} << 63), lo, std::min(n, lo + name.chunk_blocks)});
    if (lo < n)
      out.push_back({name.lineage, lo, n});
    return out;
  }
  const i64 s = std::min(name.shared_blocks, n);
  if (s > 0)
    out.push_back({0, 0, s});
  // a stream's own blocks start after the shared prefix; a request of it whose prompt is
  // shorter than the prefix starts them elsewhere: another lineage
  if (n > name.shared_blocks)
    out.push_back({name.lineage ^ (static_cast<std::uint64_t>(name.shared_blocks) << 40),
                   name.shared_blocks, n});
  return out;
}

KvBlocks::Line &KvBlocks::line(std::uint64_t id, i64 start) {
  auto [it, fresh] = lines_.try_emplace(id);
  Line &l = it->second;
  if (fresh) {
    l.start = l.hend = l.tier[0].lo = l.tier[0].hi = l.tier[1].lo = l.tier[1].hi = start;
    l.id = id;
  }
  return l;
}

i64 KvBlocks::max_ref(const Line &l) {
  return l.refs.empty() ? l.start : l.refs.rbegin()->first;
}

void KvBlocks::relist(Line &l) {
  const i64 e = l.hend - max_ref(l);
  evictable_ += e - l.evictable;
  l.evictable = e;
  if (l.in_lru)
    lru_.erase(l.at);
  l.in_lru = e > 0;
  if (l.in_lru)
    l.at = lru_.insert(lru_.end(), l.id); // most recently used
}

void KvBlocks::tier_put(int t, Line &l, i64 lo, i64 hi) {
  Tier &tier = t == 0 ? host_ : disk_;
  Line::Range &r = l.tier[t];
  if (tier.capacity <= 0) {
    if (t == 0)
      tier_put(1, l, lo, hi); // no host memory: straight to disk
    return;
  }
  // the range joins the lineage's (they meet: HBM's tail lands right below what it evicted
  // before); a range apart replaces it, the old one lost
  if (r.hi > r.lo && (hi < r.lo || lo > r.hi)) {
    tier.used -= r.hi - r.lo;
    r.lo = r.hi = lo;
  }
  const i64 nlo = r.hi > r.lo ? std::min(r.lo, lo) : lo,
            nhi = r.hi > r.lo ? std::max(r.hi, hi) : hi;
  tier.used += (nhi - nlo) - (r.hi - r.lo);
  written_[t] += (nhi - nlo) - (r.hi - r.lo);
  r.lo = nlo;
  r.hi = nhi;
  if (r.in_list)
    tier.order.erase(r.at);
  r.in_list = true;
  r.at = tier.order.insert(tier.order.end(), l.id);
  while (tier.used > tier.capacity && !tier.order.empty()) { // the least recently used tails
    Line &v = lines_.at(tier.order.front());
    Line::Range &vr = v.tier[t];
    const i64 k = std::min(tier.used - tier.capacity, vr.hi - vr.lo);
    vr.hi -= k;
    tier.used -= k;
    if (t == 0 && disk_.capacity > 0)
      tier_put(1, v, vr.hi, vr.hi + k);
    if (vr.hi <= vr.lo) {
      tier.order.erase(vr.at);
      vr.in_list = false;
      vr.lo = vr.hi = v.start;
      if (&v != &l)
        prune(v.id);
    }
  }
}

void KvBlocks::take(i64 n) {
  const i64 direct = std::min(raw_, n);
  raw_ -= direct;
  n -= direct;
  while (n > 0 && !lru_.empty()) { // the least recently used lineage's tail
    const std::uint64_t id = lru_.front();
    Line &l = lines_.at(id);
    const i64 k = std::min(n, l.evictable);
    l.hend -= k;
    l.evictable -= k;
    evictable_ -= k;
    n -= k;
    if (l.evictable == 0) {
      lru_.erase(l.at);
      l.in_lru = false;
    }
    if (host_.capacity > 0 || disk_.capacity > 0)
      tier_put(0, l, l.hend, l.hend + k);
    prune(id);
  }
}

void KvBlocks::prune(std::uint64_t id) {
  const auto it = lines_.find(id);
  if (it == lines_.end())
    return;
  const Line &l = it->second;
  if (l.hend == l.start && l.refs.empty() && !l.in_lru && !l.tier[0].in_list && !l.tier[1].in_list)
    lines_.erase(it);
}

BlockMatch KvBlocks::match(const BlockName &name, i64 limit) const {
  BlockMatch m;
  if (!reuse_)
    return m;
  for (const Segment &g : segments(name, limit)) {
    const auto it = lines_.find(g.lineage);
    if (it == lines_.end() || it->second.start != g.lo)
      break;
    const Line &l = it->second;
    i64 pos = g.lo;
    const i64 h = std::max<i64>(0, std::min(g.hi, l.hend) - pos);
    m.hbm += h;
    m.unreferenced += std::max<i64>(0, pos + h - std::max(pos, max_ref(l)));
    if (m.host + m.disk == 0)
      m.lead += h;
    pos += h;
    for (int t = 0; t < 2; ++t) {
      const Line::Range &r = l.tier[t];
      if (pos < g.hi && r.lo <= pos && pos < r.hi) {
        const i64 k = std::min(g.hi, r.hi) - pos;
        (t == 0 ? m.host : m.disk) += k;
        pos += k;
      }
    }
    if (pos < g.hi)
      break;
  }
  return m;
}

void KvBlocks::acquire(const BlockName &name, i64 n) {
  const std::vector<Segment> gs = segments(name, n);
  for (const Segment &g : gs) { // references first, so bringing blocks up evicts none of these
    Line &l = line(g.lineage, g.lo);
    l.refs[g.hi] += 1;
    relist(l);
  }
  for (const Segment &g : gs) {
    Line &l = lines_.at(g.lineage);
    if (l.hend < g.hi) { // brought up from a lower tier: an HBM block each
      take(g.hi - l.hend);
      l.hend = g.hi;
    }
    relist(l);
  }
}

void KvBlocks::reference(Line &l, i64 from, i64 to) {
  if (from > l.start) {
    const auto it = l.refs.find(from);
    if (it != l.refs.end() && --it->second == 0)
      l.refs.erase(it);
  }
  if (to > l.start)
    l.refs[to] += 1;
}

void KvBlocks::extend(Line &l, i64 from, i64 to) {
  raw_ += std::max<i64>(0, std::min(l.hend, to) - from); // duplicates of cached blocks
  l.hend = std::max(l.hend, to);
}

void KvBlocks::publish(const BlockName &name, i64 from, i64 to) {
  if (!reuse_ || to <= from)
    return;
  for (const Segment &g : segments(name, to)) {
    const i64 a = std::clamp(from, g.lo, g.hi);
    if (a >= g.hi)
      continue;
    Line &l = line(g.lineage, g.lo);
    if (l.start != g.lo) // the stream began elsewhere (a prompt shorter than the shared
      continue;          // prefix): these stay the request's own
    extend(l, a, g.hi);
    reference(l, a, g.hi);
    relist(l);
  }
}

void KvBlocks::release(const BlockName &name, i64 referenced, i64 full, i64 held) {
  if (!reuse_) {
    raw_ += held;
    return;
  }
  raw_ += held - full; // the partly filled block and any taken ahead
  for (const Segment &g : segments(name, std::max(referenced, full))) {
    Line &l = line(g.lineage, g.lo);
    const i64 r = std::clamp(referenced, g.lo, g.hi);
    if (l.start != g.lo) { // not the stream's own start: the request's blocks go back
      raw_ += std::max<i64>(0, std::min(full, g.hi) - r);
      continue;
    }
    if (full > r)
      extend(l, r, std::min(full, g.hi));
    reference(l, r, g.lo);
    relist(l);
  }
}

} // namespace rl
