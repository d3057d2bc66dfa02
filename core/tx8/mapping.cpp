#include "core/tx8/mapping.hpp"

#include "core/tx8/arch.hpp"

#include <algorithm>
#include <cmath>

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

Parts split_blocks(i64 total, i64 tile, i64 tiles) {
  const i64 super = tile * tiles;
  const i64 n = ceil_div(total, super);
  const i64 rem = total - (n - 1) * super;
  Parts out;
  if (rem < super)
    out.push_back({rem, ceil_div(rem, tiles), 1});
  if (n - (rem < super ? 1 : 0) > 0)
    out.push_back({super, tile, static_cast<double>(n - (rem < super ? 1 : 0))});
  return out;
}

i64 block_count(const Parts &parts) {
  double n = 0;
  for (const Part &p : parts)
    n += p.count;
  return static_cast<i64>(n);
}

i64 max_per_tile(const Parts &parts) {
  i64 m = 0;
  for (const Part &p : parts)
    m = std::max(m, p.per_tile);
  return m;
}

Runs with_ends(const Parts &parts) {
  Runs runs;
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

std::vector<i64> tile_candidates(i64 full, i64 granule, i64 cap) {
  std::vector<i64> out;
  if (tile_candidate_space(full, granule) <= static_cast<double>(cap)) {
    for (i64 t = granule; t < full; t += granule)
      out.push_back(t);
    out.push_back(full);
    return out;
  }
  const i64 dense = std::max<i64>(cap / 4, 1); // every multiple up to cap/4 granules
  for (i64 t = granule; t <= dense * granule; t += granule)
    out.push_back(t);
  // The rest of the budget as a geometric ladder from cap/4 granules to `full`.
  const i64 steps = std::max<i64>(cap - dense - 1, 1);
  const double lo = static_cast<double>(dense * granule), hi = static_cast<double>(full);
  const double ratio = std::pow(hi / lo, 1.0 / static_cast<double>(steps + 1));
  double x = lo;
  for (i64 k = 0; k < steps; ++k) {
    x *= ratio;
    const i64 t = static_cast<i64>(std::llround(x / static_cast<double>(granule))) * granule;
    if (t > out.back() && t < full)
      out.push_back(t);
  }
  out.push_back(full);
  return out;
}

double tile_candidate_space(i64 full, i64 granule) {
  return static_cast<double>(ceil_div(full, granule));
}

} // namespace rl::tx8
