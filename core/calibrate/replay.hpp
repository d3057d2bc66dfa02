// ridgeline calibrate: a long computation done in pieces by replay, so that a page can keep
// drawing while it runs (no threads in the page's WebAssembly). The computation is run again
// from its start at each piece: the values its earlier runs computed come back from a record
// in the same order, and a run stops (Replay::Suspend) once it has done `budget` units of new
// work. It must be deterministic and compute the same values in the same order each time;
// what it computes outside value() is redone each piece, so only the costly parts go in.
#pragma once

#include <cstddef>
#include <vector>

namespace rl {

class Replay {
public:
  struct Suspend {}; // thrown by value() when the piece's budget is spent

  // Starts a piece: the record is read from its beginning, `budget` units of new work allowed.
  void begin(double budget) {
    pos_ = 0;
    left_ = budget;
  }
  // f()'s value (n doubles written to out), computed once: recorded the first time (costing
  // `units` of the piece's budget), read back on every later run.
  template <class F> void values(double units, std::size_t n, double *out, F &&f) {
    if (pos_ + n <= record_.size()) {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = record_[pos_ + i];
      pos_ += n;
      return;
    }
    if (left_ <= 0)
      throw Suspend{};
    f(out);
    record_.insert(record_.end(), out, out + n);
    pos_ += n;
    left_ -= units;
    done_ += units;
  }
  // The work recorded so far, in units.
  double done() const { return done_; }

private:
  std::vector<double> record_;
  std::size_t pos_ = 0;
  double left_ = 0, done_ = 0;
};

// f()'s one value through `replay` (computed directly when there is none).
template <class F> double replayed(Replay *replay, double units, F &&f) {
  double v = 0;
  if (!replay)
    return f();
  replay->values(units, 1, &v, [&](double *out) { *out = f(); });
  return v;
}

} // namespace rl
