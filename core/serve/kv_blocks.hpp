// ridgeline serve: the paged KV blocks of one engine instance, with prefix reuse and tiers below
// HBM. A finished request's full blocks stay cached, unreferenced, until an allocation needs
// their room (least recently used first: vLLM v1 kv_cache_manager / block_pool.py, SGLang's
// radix cache); a later prompt that begins with the same tokens takes a reference on them and
// prefills only the rest. An evicted block goes to host memory, and from there to disk, when
// those tiers exist (vLLM's CPU offloading connector, SGLang HiCache, LMCache).
//
// A block is named by what it holds: block j of a prompt lies on lineage 0 (the workload's
// shared prefix) while it is inside the shared tokens, else on the request's own lineage (its
// session's conversation, or the request alone). Equal names hold equal tokens.
#pragma once

#include "core/config.hpp"

#include <cstdint>
#include <list>
#include <unordered_map>

namespace rl {

// Where a prompt's blocks lie: its first `shared_blocks` on lineage 0, the others on `lineage`.
struct BlockName {
  std::uint64_t lineage = 0;
  i64 shared_blocks = 0;
  std::uint64_t key(i64 j) const;
};

// The leading blocks of a prompt found cached, by tier, in order: hbm, then lower tiers. `hbm`
// counts every HBM hit in the run; `unreferenced` those of them no running request holds.
struct BlockMatch {
  i64 hbm = 0, host = 0, disk = 0;
  i64 unreferenced = 0;
  i64 lead = 0; // HBM blocks before the first lower-tier one
  i64 blocks() const { return hbm + host + disk; }
};

class KvBlocks {
public:
  // `blocks` in HBM; reuse: keep finished blocks for prefix reuse (off: a block is free once
  // given back); host_blocks / disk_blocks: the tiers' capacities in blocks (0: none).
  KvBlocks(i64 blocks, bool reuse, i64 host_blocks = 0, i64 disk_blocks = 0);

  i64 total() const { return total_; }
  // Blocks an allocation may take: never used, and cached ones no request references.
  i64 free() const { return raw_ + static_cast<i64>(lru_.size()); }
  i64 used() const { return total_ - free(); }
  bool reuse() const { return reuse_; }

  // n blocks taken by a request (evicting the least recently used cached blocks, down a tier).
  void take(i64 n);
  // n blocks a request held privately, given back.
  void give(i64 n) { raw_ += n; }

  // The leading blocks of `name` found, at most `limit`: each block in the first tier that
  // holds it, up to the first block none holds. Lower-tier blocks are counted only after
  // every block before them was found.
  BlockMatch match(const BlockName &name, i64 limit) const;
  // A request takes blocks [0, n) of `name`: references the HBM ones and brings the others
  // up (an HBM block each, taken first).
  void acquire(const BlockName &name, i64 n);
  // Blocks [from, to) of a running request, now full, join the cache referenced by it (a
  // block already cached under that name is referenced instead and the request's copy given
  // back).
  void publish(const BlockName &name, i64 from, i64 to);
  // A request lets go of its blocks: `referenced` leading ones it holds in the cache, `full`
  // full ones in all (those past `referenced` join the cache unreferenced, or are given back
  // as duplicates), `held` in all (the rest, partly filled, given back). The tail goes first
  // when room is needed (vLLM frees a request's blocks in reverse order).
  void release(const BlockName &name, i64 referenced, i64 full, i64 held);

private:
  struct Node {
    i64 refs = 0;
    std::list<std::uint64_t>::iterator at; // in lru_ while refs == 0
  };
  // A lower tier: its blocks by name, least recently used first.
  struct Tier {
    i64 capacity = 0;
    std::list<std::uint64_t> order;
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> at;
    bool has(std::uint64_t k) const { return at.count(k) > 0; }
    // Stores k (refreshing it when held); returns the block pushed out, if any.
    bool put(std::uint64_t k, std::uint64_t &out);
  };
  void unreference(std::uint64_t k);
  void evict_one();

  i64 total_ = 0, raw_ = 0;
  bool reuse_ = false;
  std::unordered_map<std::uint64_t, Node> hbm_;
  std::list<std::uint64_t> lru_; // unreferenced cached blocks, least recently used first
  Tier host_, disk_;
};

} // namespace rl
