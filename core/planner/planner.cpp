#include "core/planner/planner.hpp"

#include "core/error.hpp"
#include "core/model/params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl {

namespace {

std::vector<i64> powers_of_two_upto(i64 n) {
  std::vector<i64> out;
  for (i64 v = 1; v <= n; v *= 2)
    out.push_back(v);
  return out;
}

template <class T> std::vector<T> one_or(const std::optional<T> &fixed, std::vector<T> free) {
  if (fixed)
    return {*fixed};
  return free;
}

// Which class of failure a ConfigError from the layout check is.
std::string failure_kind(const ConfigError &e) {
  const std::string &m = e.message();
  if (m.find("heads") != std::string::npos)
    return "heads";
  if (e.path() == "parallel.microbatch" || m.find("batch") != std::string::npos)
    return "batch";
  return "divisibility";
}

// The layout in a line; inference leaves out the training knobs (vpp, ZeRO, micro-batch,
// recompute).
std::string describe(const Layout &l, bool train) {
  char buf[200];
  if (!train) {
    std::snprintf(buf, sizeof buf, "dp%lld tp%lld pp%lld cp%lld ep%lld",
                  static_cast<long long>(l.dp), static_cast<long long>(l.tp),
                  static_cast<long long>(l.pp), static_cast<long long>(l.cp),
                  static_cast<long long>(l.ep));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "dp%lld tp%lld pp%lld%s cp%lld ep%lld z%lld mb%lld %s",
                static_cast<long long>(l.dp), static_cast<long long>(l.tp),
                static_cast<long long>(l.pp),
                l.vpp > 1 ? ("v" + std::to_string(l.vpp)).c_str() : "",
                static_cast<long long>(l.cp), static_cast<long long>(l.ep),
                static_cast<long long>(l.zero), static_cast<long long>(l.microbatch),
                l.recompute == Recompute::none        ? "no-rc"
                : l.recompute == Recompute::selective ? "sel-rc"
                                                      : "full-rc");
  return buf;
}

ParallelSpec spec_of(const Layout &l) {
  ParallelSpec p;
  p.dp = l.dp;
  p.tp = l.tp;
  p.pp = l.pp;
  p.vpp = l.vpp;
  p.cp = l.cp;
  p.cp_kind = l.cp_kind;
  if (l.cp_kind == CpKind::usp)
    p.ulysses = l.ulysses;
  p.ep = l.ep;
  p.sp = l.sp;
  p.zero = l.zero;
  p.microbatch = l.microbatch;
  p.recompute = l.recompute;
  p.flash_attention = l.flash;
  p.pp_schedule = l.schedule;
  p.overlap_tp = l.overlap_tp;
  p.overlap_dp = l.overlap_dp;
  p.overlap_pp = l.overlap_pp;
  if (l.uneven_pp)
    p.uneven_pp = true;
  if (l.order != std::vector<std::string>{"tp", "cp", "dp", "pp"})
    p.order = l.order;
  return p;
}

// The value plans are ranked by (lower is better).
double objective_of(const Estimate &e, Objective o) {
  if (e.mode != Mode::train)
    return e.serving.tpot;
  switch (o) {
  case Objective::tokens:
    return 1 / e.throughput.tokens_per_s; // s per token: the same order as tokens/s, reversed
  case Objective::time_to_train:
    return e.time_to_train;
  case Objective::cost:
    return e.cost_to_train > 0 ? e.cost_to_train
                               : e.cost_per_hour / 3600 / e.throughput.tokens_per_s;
  case Objective::step:
    break;
  }
  return e.time.step;
}

// The largest time component by which plan a beats plan b.
std::string why_better(const Plan &a, const Plan &b, Objective o) {
  const char *better = o == Objective::cost ? "cheaper" : "faster";
  if (a.estimate.has_time && b.estimate.has_time) {
    const StepTime &x = a.estimate.time, &y = b.estimate.time;
    const std::pair<const char *, double> parts[] = {
        {"compute", y.compute - x.compute},
        {"exposed communication", y.comm_exposed - x.comm_exposed},
        {"pipeline bubble", y.bubble - x.bubble},
        {"optimizer", y.optimizer - x.optimizer}};
    const auto best = std::max_element(
        parts, parts + 4, [](const auto &p, const auto &q) { return p.second < q.second; });
    char buf[200];
    std::snprintf(buf, sizeof buf, "%.1f%% %s than the next plan: %.0f ms less %s per step",
                  100 * (b.objective / a.objective - 1), better, best->second * 1e3, best->first);
    return buf;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.1f%% lower time per token than the next plan",
                100 * (b.objective / a.objective - 1));
  return buf;
}

} // namespace

struct PlanSearch::Group {
  i64 tp, pp, cp;
  CpKind kind;
  i64 ep, vpp, mb;
};

PlanSearch::PlanSearch(const Config &c, const PlanOptions &o) : c_(c), o_(o) {
  const ModelSpec &m = c.model;
  const ParallelSpec &fixed = c.parallel;
  train_ = c.workload.mode == Mode::train;
  if (c.workload.mode != Mode::train && c.workload.mode != Mode::infer)
    throw ConfigError("workload.mode",
                      "the planner handles train and infer; video uses `ridgeline tx8`");
  if (o.objective != Objective::step && !train_)
    throw ConfigError("--objective", "inference plans rank by time per output token");
  if (o.objective == Objective::time_to_train && c.workload.train_tokens <= 0)
    throw ConfigError("workload.train_tokens",
                      "is required to rank by time to train (the tokens of the run)");
  if (o.objective == Objective::cost && c.hardware.price_per_hour <= 0)
    throw ConfigError("hardware.price_per_hour", "is required to rank by cost ($ per device-hour)");
  r_.objective = o.objective;
  PlanResult &r = r_;
  const bool train = train_;
  const i64 devices = c.cluster.devices;
  const i64 tp_cap = c.cluster.topology == Topology::switched
                         ? std::min(devices, std::max<i64>(c.cluster.devices_per_node, 1))
                         : std::min<i64>(devices, 16);
  auto note_free = [&](const char *k, bool free) {
    if (free)
      r.free_knobs.push_back(k);
  };
  note_free("tp", !fixed.tp);
  note_free("pp", !fixed.pp);
  note_free("vpp", !fixed.vpp && train);
  note_free("cp", !fixed.cp);
  note_free("cp_kind", !fixed.cp_kind);
  note_free("ep", !fixed.ep && m.moe.has_value());
  note_free("zero", !fixed.zero && train);
  note_free("microbatch", !fixed.microbatch && train);
  note_free("recompute", !fixed.recompute && train);

  const auto tps = one_or(fixed.tp, powers_of_two_upto(tp_cap));
  std::vector<i64> pp_free;
  for (i64 p = 1; p <= std::min<i64>(m.layers, 64); ++p)
    if (m.layers % p == 0 && devices % p == 0)
      pp_free.push_back(p);
  const auto pps = one_or(fixed.pp, pp_free);
  const i64 seq = train ? c.workload.seq_len : c.workload.prompt_len;
  std::vector<i64> cp_free{1};
  if (seq >= 16384) // context parallelism pays only for long sequences
    for (i64 v = 2; v <= 16; v *= 2)
      cp_free.push_back(v);
  const auto cps = one_or(fixed.cp, cp_free);
  const auto kinds = one_or(fixed.cp_kind, std::vector<CpKind>{CpKind::ring, CpKind::ulysses});
  std::vector<i64> ep_free{1};
  if (m.moe)
    for (i64 v = 2; v <= m.moe->experts; v *= 2)
      if (m.moe->experts % v == 0)
        ep_free.push_back(v);
  const auto eps = one_or(fixed.ep, ep_free);
  // Interleaving is a training schedule: inference runs one chunk per stage.
  const auto vpps = one_or(fixed.vpp, train ? std::vector<i64>{1, 2, 4} : std::vector<i64>{1});
  zeros_ = one_or(fixed.zero, train ? std::vector<i64>{0, 1, 2, 3} : std::vector<i64>{0});
  const auto mbs =
      one_or(fixed.microbatch, train ? std::vector<i64>{1, 2, 4, 8} : std::vector<i64>{1});
  rcs_ =
      one_or(fixed.recompute,
             train ? std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full}
                   : std::vector<Recompute>{Recompute::none});

  // The model must be countable at all (ConfigError otherwise), once, before the search.
  model_params(m);
  unit_ = 1 + m.layers;
  // Every (tp, pp, cp, kind, ep, vpp, micro-batch) in search order, before any estimate, so a
  // cut search can say what it skipped; ZeRO and recompute vary inside each.
  for (const i64 tp : tps)
    for (const i64 pp : pps)
      for (const i64 cp : cps)
        for (const CpKind kind : kinds) {
          if (cp == 1 && kind != kinds.front())
            continue; // the kind does not matter without context parallelism
          for (const i64 ep : eps)
            for (const i64 vpp : vpps) {
              if (pp == 1 && vpp > 1)
                continue;
              for (const i64 mb : mbs)
                groups_.push_back({tp, pp, cp, kind, ep, vpp, mb});
            }
        }
  r.space = static_cast<i64>(groups_.size() * zeros_.size() * rcs_.size());
}

PlanSearch::~PlanSearch() = default;
PlanSearch::PlanSearch(PlanSearch &&) noexcept = default;
PlanSearch &PlanSearch::operator=(PlanSearch &&) noexcept = default;

double PlanSearch::progress() const {
  return r_.space > 0 ? static_cast<double>(r_.candidates) / static_cast<double>(r_.space) : 1.0;
}

bool PlanSearch::step(i64 units) {
  const ParallelSpec &fixed = c_.parallel;
  const i64 stop_at = r_.work + std::max<i64>(units, unit_);
  while (!done_ && next_ < groups_.size()) {
    if (r_.work >= stop_at)
      return false;
    const Group &g = groups_[next_];
    // Recompute only adds time, and ZeRO-2 times exactly as ZeRO-1 (the same reduce-scatter +
    // all-gather): time a fitting combination only when no fitting one with less recompute
    // and the same ZeRO time class exists.
    std::vector<std::pair<i64, Recompute>> fitting;
    for (const i64 z : zeros_)
      for (const Recompute rc : rcs_) {
        if (r_.work + unit_ > o_.budget) {
          done_ = true; // the budget ran out: what is left is reported as skipped
          return true;
        }
        r_.work += unit_;
        ++r_.candidates;
        Config x = c_;
        ParallelSpec &p = x.parallel;
        if (!fixed.dp)
          p.dp.reset();
        p.tp = g.tp;
        p.pp = g.pp;
        p.cp = g.cp;
        p.cp_kind = g.kind;
        p.ep = g.ep;
        p.vpp = g.vpp;
        p.zero = z;
        p.microbatch = g.mb;
        p.recompute = rc;
        if (!fixed.sp)
          p.sp = g.tp > 1;
        if (!fixed.pp_schedule)
          p.pp_schedule.reset();
        Estimate e;
        try {
          e = estimate(x, false);
        } catch (const ConfigError &err) {
          ++r_.rejected[failure_kind(err)];
          continue;
        }
        if (!e.memory.fits) {
          ++r_.rejected["memory"];
          Infeasible inf;
          inf.parallel = spec_of(e.layout);
          inf.kind = "memory";
          inf.path = "memory";
          inf.overflow = e.memory.total - e.memory.capacity;
          char buf[200];
          std::snprintf(buf, sizeof buf, "%s needs %.1f GB per device > %.1f GB",
                        describe(e.layout, train_).c_str(), e.memory.total / 1e9,
                        e.memory.capacity / 1e9);
          inf.message = buf;
          infeasible_.push_back(inf);
          continue;
        }
        ++r_.feasible;
        bool dominated = false;
        auto time_class = [](i64 zero) { return zero == 2 ? i64{1} : zero; };
        for (const auto &[fz, frc] : fitting)
          dominated = dominated || (time_class(fz) == time_class(z) && frc <= rc);
        if (dominated) {
          ++r_.rejected["dominated"];
          continue;
        }
        fitting.push_back({z, rc});
        ++r_.timed;
        Plan pl;
        pl.estimate = estimate(x, true);
        pl.parallel = spec_of(pl.estimate.layout);
        pl.objective = objective_of(pl.estimate, o_.objective);
        plans_.push_back(std::move(pl));
      }
    ++next_;
  }
  done_ = true;
  return true;
}

PlanResult PlanSearch::result() const {
  PlanResult r = r_;
  r.skipped = r.space - r.candidates;
  std::vector<Plan> plans = plans_;
  std::sort(plans.begin(), plans.end(),
            [](const Plan &a, const Plan &b) { return a.objective < b.objective; });
  if (static_cast<i64>(plans.size()) > o_.top)
    plans.resize(static_cast<std::size_t>(o_.top));
  for (std::size_t i = 0; i < plans.size(); ++i)
    plans[i].why = i + 1 < plans.size() ? why_better(plans[i], plans[i + 1], o_.objective)
                                        : std::string("the last plan shown");
  std::vector<Infeasible> infeasible = infeasible_;
  std::sort(infeasible.begin(), infeasible.end(),
            [](const Infeasible &a, const Infeasible &b) { return a.overflow < b.overflow; });
  if (static_cast<i64>(infeasible.size()) > o_.infeasible)
    infeasible.resize(static_cast<std::size_t>(o_.infeasible));
  r.plans = std::move(plans);
  r.infeasible = std::move(infeasible);
  return r;
}

PlanResult plan(const Config &c, const PlanOptions &o) {
  PlanSearch s(c, o);
  while (!s.step(o.budget)) {
  }
  return s.result();
}

} // namespace rl
