#include "core/tx8/mapping.hpp"

#include "core/tx8/arch.hpp"

#include <algorithm>

namespace rl::tx8 {

OpCost cost_of(const Seq &s) {
  OpCost c;
  c.latency = double_buffered_s(s);
  c.serial_latency = serial_s(s);
  c.compute_time = s.busy;
  c.dram_time = s.load + s.store;
  c.noc_time = s.noc;
  c.dram_bytes = s.bytes;
  c.rounds = s.count;
  return c;
}

std::vector<Part> split_blocks(i64 total, i64 tile, i64 tiles) {
  const i64 super = tile * tiles;
  const i64 n = ceil_div(total, super);
  const i64 rem = total - (n - 1) * super;
  std::vector<Part> out;
  if (rem < super)
    out.push_back({rem, ceil_div(rem, tiles), 1});
  if (n - (rem < super ? 1 : 0) > 0)
    out.push_back({super, tile, static_cast<double>(n - (rem < super ? 1 : 0))});
  return out;
}

i64 block_count(const std::vector<Part> &parts) {
  double n = 0;
  for (const Part &p : parts)
    n += p.count;
  return static_cast<i64>(n);
}

i64 max_per_tile(const std::vector<Part> &parts) {
  i64 m = 0;
  for (const Part &p : parts)
    m = std::max(m, p.per_tile);
  return m;
}

std::vector<Run> with_ends(const std::vector<Part> &parts) {
  std::vector<Run> runs;
  const double total = static_cast<double>(block_count(parts));
  double seen = 0;
  for (const Part &p : parts) {
    double left = p.count;
    if (seen == 0 && left > 0) { // the first block
      runs.push_back({p, 1, true, total == 1});
      left -= 1;
      seen += 1;
    }
    const bool holds_last = seen + left == total && left > 0;
    const double middle = holds_last ? left - 1 : left;
    if (middle > 0)
      runs.push_back({p, middle, false, false});
    seen += middle;
    if (holds_last) {
      runs.push_back({p, 1, false, true});
      seen += 1;
    }
  }
  return runs;
}

std::vector<i64> tile_candidates(i64 full, i64 granule) {
  std::vector<i64> out;
  for (i64 t = granule; t < full; t += granule)
    out.push_back(t);
  out.push_back(full);
  return out;
}

} // namespace rl::tx8
