#include "core/serve/kv_blocks.hpp"

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

bool KvBlocks::Tier::put(std::uint64_t k, std::uint64_t &out) {
  if (const auto it = at.find(k); it != at.end()) {
    order.splice(order.end(), order, it->second); // refreshed
    return false;
  }
  if (capacity <= 0) {
    out = k; // passes through
    return true;
  }
  bool pushed = false;
  if (static_cast<i64>(order.size()) >= capacity) {
    out = order.front();
    at.erase(out);
    order.pop_front();
    pushed = true;
  }
  order.push_back(k);
  at[k] = std::prev(order.end());
  return pushed;
}

void KvBlocks::evict_one() {
  const std::uint64_t k = lru_.front();
  lru_.pop_front();
  hbm_.erase(k);
  std::uint64_t out = 0, gone = 0;
  if (host_.capacity > 0) {
    if (host_.put(k, out) && disk_.capacity > 0)
      disk_.put(out, gone);
  } else if (disk_.capacity > 0) {
    disk_.put(k, gone);
  }
}

void KvBlocks::take(i64 n) {
  if (raw_ >= n) {
    raw_ -= n;
    return;
  }
  n -= raw_;
  raw_ = 0;
  for (; n > 0 && !lru_.empty(); --n)
    evict_one(); // its room goes to the request
}

BlockMatch KvBlocks::match(const BlockName &name, i64 limit) const {
  BlockMatch m;
  if (!reuse_)
    return m;
  for (i64 j = 0; j < limit; ++j) {
    const std::uint64_t k = name.key(j);
    if (const auto it = hbm_.find(k); it != hbm_.end()) {
      ++m.hbm;
      m.lead += m.host + m.disk == 0 ? 1 : 0;
      m.unreferenced += it->second.refs == 0 ? 1 : 0;
    } else if (host_.has(k)) {
      ++m.host;
    } else if (disk_.has(k)) {
      ++m.disk;
    } else {
      break;
    }
  }
  return m;
}

void KvBlocks::acquire(const BlockName &name, i64 n) {
  for (i64 j = 0; j < n; ++j) // the HBM hits first, so bringing the others up cannot evict them
    if (const auto it = hbm_.find(name.key(j)); it != hbm_.end()) {
      if (it->second.refs++ == 0)
        lru_.erase(it->second.at);
    }
  for (i64 j = 0; j < n; ++j) {
    const std::uint64_t k = name.key(j);
    if (hbm_.count(k) == 0) {
      take(1);
      hbm_[k] = Node{1, {}};
    }
  }
}

void KvBlocks::publish(const BlockName &name, i64 from, i64 to) {
  if (!reuse_)
    return;
  for (i64 j = from; j < to; ++j) {
    const std::uint64_t k = name.key(j);
    if (const auto it = hbm_.find(k); it != hbm_.end()) {
      if (it->second.refs++ == 0)
        lru_.erase(it->second.at);
      raw_ += 1; // the request's own copy
    } else {
      hbm_[k] = Node{1, {}};
    }
  }
}

void KvBlocks::unreference(std::uint64_t k) {
  const auto it = hbm_.find(k);
  if (it == hbm_.end() || it->second.refs <= 0)
    return;
  if (--it->second.refs == 0)
    it->second.at = lru_.insert(lru_.end(), k);
}

void KvBlocks::release(const BlockName &name, i64 referenced, i64 full, i64 held) {
  if (!reuse_) {
    raw_ += held;
    return;
  }
  raw_ += held - full; // the partly filled block and any taken ahead
  for (i64 j = full - 1; j >= referenced; --j) {
    const std::uint64_t k = name.key(j);
    if (hbm_.count(k) > 0) {
      raw_ += 1; // a duplicate of a cached block
      continue;
    }
    hbm_[k] = Node{0, lru_.insert(lru_.end(), k)};
  }
  for (i64 j = referenced - 1; j >= 0; --j)
    unreference(name.key(j));
}

} // namespace rl
