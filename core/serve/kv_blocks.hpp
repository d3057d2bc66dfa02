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
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace rl {

// Where a prompt's blocks lie: its first `shared_blocks` on lineage 0, the others on `lineage`.
struct BlockName {
  std::uint64_t lineage = 0;
  i64 shared_blocks = 0;
  std::uint64_t key(i64 j) const;
  // Named by content hashes instead (a Mooncake trace row): block j lies in chunk j /
  // chunk_blocks, whose lineage is its hash; blocks past the hashes on `lineage`.
  std::shared_ptr<const std::vector<std::uint64_t>> chunks = nullptr;
  i64 chunk_blocks = 0;
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

  // Blocks an allocation may take: never used, and cached ones no request references.
  i64 free() const { return raw_ + evictable_; }
  i64 used() const { return total_ - free(); }
  bool reuse() const { return reuse_; }
  // Blocks written to tier t (0 host memory, 1 disk) so far: what eviction stored there.
  i64 written(int t) const { return written_[t]; }

  // n blocks taken by a request (evicting the least recently used cached blocks, down a tier).
  void take(i64 n);

  // The leading blocks of `name` found, at most `limit`: each block in the first tier that
  // holds it, up to the first block none holds.
  BlockMatch match(const BlockName &name, i64 limit) const;
  // A request takes blocks [0, n) of `name`: references the HBM ones and brings the others
  // up (an HBM block each, taken after the references).
  void acquire(const BlockName &name, i64 n);
  // Blocks [from, to) of a running request that references [0, from), now full, join the
  // cache referenced by it (blocks already cached are referenced instead and the request's
  // copies given back).
  void publish(const BlockName &name, i64 from, i64 to);
  // A request lets go of its blocks: `referenced` leading ones it holds in the cache, `full`
  // full ones in all (those past `referenced` join the cache unreferenced, or are given back
  // as duplicates), `held` in all (the rest, partly filled, given back).
  void release(const BlockName &name, i64 referenced, i64 full, i64 held);

private:
  // The cache is kept by lineage, as ranges: what a lineage holds in HBM is always a prefix
  // [start, hend) (blocks are evicted from its tail, vLLM freeing a request's blocks in reverse
  // order), references hold prefixes of it, and each lower tier holds one range below or
  // beside it. Recency is the lineage's: its blocks were last used together (a request
  // references them all). Evicting a block is O(1), matching a prompt O(log refs).
  struct Line {
    std::uint64_t id = 0;
    i64 start = 0, hend = 0; // HBM holds [start, hend)
    std::map<i64, i64> refs; // a running request's reference: the end of its prefix (count)
    i64 evictable = 0;       // hend - the longest reference
    bool in_lru = false;
    std::list<std::uint64_t>::iterator at;
    struct Range {
      i64 lo = 0, hi = 0;
      bool in_list = false;
      std::list<std::uint64_t>::iterator at;
    } tier[2]; // host memory, disk
  };
  struct Segment {
    std::uint64_t lineage;
    i64 lo, hi;
  };
  struct Tier {
    i64 capacity = 0, used = 0;
    std::list<std::uint64_t> order; // lineages by last use, least recent first
  };
  // The lineages blocks [0, n) of `name` lie on: the shared prefix's, then its own.
  static std::vector<Segment> segments(const BlockName &name, i64 n);
  static i64 max_ref(const Line &l);
  Line &line(std::uint64_t id, i64 start);
  // After a change to l: its evictable count and its place as the most recently used.
  void relist(Line &l);
  // Blocks [lo, hi) of l stored in tier t (0 host, 1 disk), pushing out the least recently
  // used lineages' tails (host memory's to disk).
  void tier_put(int t, Line &l, i64 lo, i64 hi);
  // Blocks [from, to) of l computed by a request: cached, the duplicates given back.
  void extend(Line &l, i64 from, i64 to);
  // A request's reference on l moves from the end `from` to `to`.
  static void reference(Line &l, i64 from, i64 to);
  // Forgets l when it holds nothing anywhere (a request's own lineage, evicted).
  void prune(std::uint64_t id);

  i64 total_ = 0, raw_ = 0, evictable_ = 0;
  i64 written_[2] = {0, 0};
  bool reuse_ = false;
  std::unordered_map<std::uint64_t, Line> lines_;
  std::list<std::uint64_t> lru_; // lineages with evictable blocks, least recently used first
  Tier host_, disk_;
};

} // namespace rl
