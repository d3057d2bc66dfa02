#include "core/tx8/pipeline.hpp"

#include <algorithm>

namespace rl::tx8 {

namespace {
// docs/formulas.md (tx8): the slot where round a computes while the DMA stores a and loads b.
double pair_s(const Round &a, const Round &b) {
  return std::max(b.load + a.store, a.compute);
}
} // namespace

Seq seq_of(const Round &r) {
  Seq s;
  s.count = 1;
  s.first = s.last = r;
  s.load = r.load;
  s.compute = r.compute;
  s.store = r.store;
  s.busy = r.busy;
  s.noc = r.noc;
  s.bytes = r.bytes;
  return s;
}

Seq then(const Seq &a, const Seq &b) {
  if (a.count == 0)
    return b;
  if (b.count == 0)
    return a;
  Seq s;
  s.count = a.count + b.count;
  s.first = a.first;
  s.last = b.last;
  s.pairs = a.pairs + b.pairs + pair_s(a.last, b.first);
  s.load = a.load + b.load;
  s.compute = a.compute + b.compute;
  s.store = a.store + b.store;
  s.busy = a.busy + b.busy;
  s.noc = a.noc + b.noc;
  s.bytes = a.bytes + b.bytes;
  return s;
}

Seq repeat(const Seq &x, double n) {
  if (n <= 0 || x.count == 0)
    return Seq{};
  Seq s = x;
  s.count = x.count * n;
  s.pairs = x.pairs * n + pair_s(x.last, x.first) * (n - 1);
  s.load = x.load * n;
  s.compute = x.compute * n;
  s.store = x.store * n;
  s.busy = x.busy * n;
  s.noc = x.noc * n;
  s.bytes = x.bytes * n;
  return s;
}

// docs/formulas.md (tx8): T = l_1 + sum_{i>=2} max(l_i + s_{i-1}, c_{i-1}) + c_n + s_n.
double double_buffered_s(const Seq &s) {
  if (s.count == 0)
    return 0;
  return s.first.load + s.pairs + s.last.compute + s.last.store;
}

// docs/formulas.md (tx8): T = sum(l + c + s).
double serial_s(const Seq &s) {
  return s.load + s.compute + s.store;
}

double double_buffered_s(const std::vector<Round> &r) {
  if (r.empty())
    return 0;
  double t = r.front().load;
  for (std::size_t i = 1; i < r.size(); ++i)
    t += pair_s(r[i - 1], r[i]);
  return t + r.back().compute + r.back().store;
}

double serial_s(const std::vector<Round> &r) {
  double t = 0;
  for (const Round &x : r)
    t += x.load + x.compute + x.store;
  return t;
}

} // namespace rl::tx8
