#include "core/planner/planner.hpp"

#include "core/estimate/energy.hpp"

#include "core/parallel/knobs.hpp"

#include "core/error.hpp"
#include "core/estimate/step_band.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/lora.hpp"
#include "core/model/params.hpp"
#include "core/schema/choices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <unordered_map>

namespace rl {

std::vector<std::pair<i64, i64>> stage_splits(i64 layers, i64 pp) {
  if (pp < 1 || pp > layers)
    return {};
  if (layers % pp == 0)
    return {{0, 0}};
  if (pp < 2)
    return {};
  const i64 share = (layers + pp - 1) / pp; // the largest stage: ceil(L / pp)
  const i64 rest = layers - share * (pp - 2);
  if (rest < 2 || rest > 2 * share)
    return {};
  const i64 lo = rest / 2, hi = rest - lo;
  if (lo == hi)
    return {{lo, hi}};
  return {{lo, hi}, {hi, lo}};
}

namespace {

// Whether the search tries DeepSeek-V3's DualPipe and DualPipeV: training on pp >= 2, a MoE
// model with the schedule free, or any model with one of them pinned.
bool searches_dualpipe(const Config &c, i64 pp) {
  const auto &s = c.parallel.pp_schedule;
  return c.workload.mode == Mode::train && pp >= 2 &&
         (s ? is_dualpipe(*s) : c.model.moe.has_value());
}

// The pipeline schedules searched at a vpp and stage split (`split`: Megatron's first/last
// counts; `uneven`: the front-loaded split). Free: interleaved above vpp 1; at 1, 1F1B and
// (searches_dualpipe) DualPipe on an even pp and DualPipeV where its 2p stages split as the
// group splits (evenly, or front-loaded); `v_only`: the split added for DualPipeV alone.
// Pinned: the pinned one where it can run, none elsewhere, unless vpp is pinned too (then its
// legality error is the plan's answer).
std::vector<PpSchedule> searched_schedules(const Config &c, i64 vpp, i64 pp, bool split,
                                           bool uneven, bool v_only) {
  const i64 layers = c.model.layers;
  const bool v_fits = vpp == 1 && pp >= 2 && 2 * pp <= layers &&
                      (v_only || (!split && (uneven || layers % (2 * pp) == 0)));
  const auto runs = [&](PpSchedule s) {
    switch (s) {
    case PpSchedule::interleaved:
      return vpp > 1 && !v_only;
    case PpSchedule::dualpipe:
      return vpp == 1 && pp >= 2 && pp % 2 == 0 && !v_only;
    case PpSchedule::dualpipev:
      return v_fits;
    case PpSchedule::one_f_one_b:
    case PpSchedule::gpipe:
      break;
    }
    return vpp == 1 && !v_only;
  };
  if (const auto &pin = c.parallel.pp_schedule) {
    if (runs(*pin) || (c.parallel.vpp && !v_only))
      return {*pin};
    return {};
  }
  if (v_only)
    return {PpSchedule::dualpipev};
  if (vpp > 1)
    return {PpSchedule::interleaved};
  std::vector<PpSchedule> out{PpSchedule::one_f_one_b};
  if (searches_dualpipe(c, pp) && runs(PpSchedule::dualpipe))
    out.push_back(PpSchedule::dualpipe);
  if (searches_dualpipe(c, pp) && v_fits)
    out.push_back(PpSchedule::dualpipev);
  return out;
}

std::vector<i64> divisors(i64 n) {
  std::vector<i64> lo, hi;
  for (i64 d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      lo.push_back(d);
      if (d != n / d)
        hi.push_back(n / d);
    }
  lo.insert(lo.end(), hi.rbegin(), hi.rend());
  return lo;
}

template <class T> std::vector<T> one_or(const std::optional<T> &fixed, std::vector<T> free) {
  if (fixed)
    return {*fixed};
  return free;
}

const std::vector<std::string> kDefaultOrder{"tp", "cp", "dp", "pp"};
// Megatron's --use-tp-pp-dp-mapping: pipeline stages inside the data-parallel replicas.
const std::vector<std::string> kPpInsideDp{"tp", "cp", "pp", "dp"};

// The layout in a line; inference leaves out the training knobs (vpp, ZeRO, micro-batch,
// recompute).
std::string describe(const Layout &l, bool train) {
  char buf[240];
  if (!train) {
    std::snprintf(buf, sizeof buf, "dp%lld tp%lld pp%lld cp%lld ep%lld",
                  static_cast<long long>(l.dp), static_cast<long long>(l.tp),
                  static_cast<long long>(l.pp), static_cast<long long>(l.cp),
                  static_cast<long long>(l.ep));
    return buf;
  }
  std::string pp = "pp";
  pp += std::to_string(l.pp);
  if (l.first_layers > 0 || l.last_layers > 0) {
    pp += '[';
    pp += std::to_string(l.first_layers);
    pp += "..";
    pp += std::to_string(l.last_layers);
    pp += ']';
  } else if (l.uneven_pp) {
    pp += "[uneven]";
  }
  if (l.vpp > 1) {
    pp += 'v';
    pp += std::to_string(l.vpp);
  }
  if (is_dualpipe(l.schedule)) {
    pp += '-';
    pp += schema::choice_name(l.schedule);
  }
  std::snprintf(buf, sizeof buf, "dp%lld tp%lld %s cp%lld ep%lld z%lld mb%lld %s%s%s",
                static_cast<long long>(l.dp), static_cast<long long>(l.tp), pp.c_str(),
                static_cast<long long>(l.cp), static_cast<long long>(l.ep),
                static_cast<long long>(l.zero), static_cast<long long>(l.microbatch),
                l.recompute == Recompute::none        ? "no-rc"
                : l.recompute == Recompute::selective ? "sel-rc"
                                                      : "full-rc",
                recompute_modules_label(l).c_str(),
                l.order == kDefaultOrder ? "" : " pp-inside-dp");
  return buf;
}

// The value plans are ranked by (lower is better), from a training step of `step` seconds.
double train_objective(const Config &c, double tokens_per_step, double step, double devices,
                       double trained_params, Objective o) {
  const TrainTotals t = train_totals(c, tokens_per_step, step, devices, trained_params);
  switch (o) {
  case Objective::tokens:
    return 1 / t.tokens_per_s; // s per token: the same order as tokens/s, reversed
  case Objective::time_to_train:
    return t.time_to_train;
  case Objective::cost:
    return t.cost_to_train > 0 ? t.cost_to_train : t.cost_per_hour / 3600 / t.tokens_per_s;
  case Objective::energy: // over the run with a token budget: its restarts draw power too
    return t.energy.mwh_to_train > 0 ? t.energy.mwh_to_train : t.energy.joules_per_token;
  case Objective::step:
    break;
  }
  return step;
}

double objective_of(const Config &c, const Estimate &e, Objective o) {
  if (e.mode != Mode::train)
    return e.serving.tpot;
  return train_objective(c, e.tokens_per_step, e.time.step, static_cast<double>(e.layout.devices()),
                         e.trained_params, o);
}

} // namespace

std::string over_limit_text(double need_bytes, double limit_bytes) {
  char n[64], m[64];
  int digits = 1; // GB to 0.1, 0.01, then 0.001 (1 MB) until the two differ
  for (;; ++digits) {
    std::snprintf(n, sizeof n, "%.*f", digits, need_bytes / 1e9);
    std::snprintf(m, sizeof m, "%.*f", digits, limit_bytes / 1e9);
    if (std::string(n) != m || digits == 3)
      break;
  }
  std::string out = std::string("needs ") + n + " GB per device > " + m + " GB";
  if (std::string(n) == m) { // within 1 MB
    char by[48];
    std::snprintf(by, sizeof by, " by %.0f kB", std::ceil((need_bytes - limit_bytes) / 1e3));
    out += by;
  }
  return out;
}

std::string margin_text(double relative, const char *better) {
  const double pct = 100 * relative;
  const std::string b = better;
  char buf[120];
  if (pct < 0.005) // rounds to nothing even at 2 decimals
    std::snprintf(buf, sizeof buf, "as %s as the next plan (within 0.01%%)",
                  b == "faster"    ? "fast"
                  : b == "cheaper" ? "cheap"
                                   : "good");
  else
    std::snprintf(buf, sizeof buf,
                  pct < 0.1 ? "%.2f%% %s than the next plan" : "%.1f%% %s than the next plan", pct,
                  better);
  return buf;
}

namespace {

// The largest time component by which plan a beats plan b, and whether the difference is
// beyond the components' bands (core/estimate/step_band).
std::string why_better(Plan &a, const Plan &b, Objective o, const ComponentBands &u) {
  const char *better = o == Objective::cost     ? "cheaper"
                       : o == Objective::energy ? "less energy"
                                                : "faster";
  if (a.estimate.has_time && b.estimate.has_time) {
    // each plan at its own chip's band (hardware options may differ), the cluster's links
    const StepDifference d =
        step_difference(a.estimate.time, b.estimate.time,
                        wider({a.estimate.uncertainty, u.comm}, {b.estimate.uncertainty, u.comm}));
    a.vs_next = d;
    char buf[200];
    std::snprintf(buf, sizeof buf, ": %.0f ms less %s per step, %s the band (+/-%.*f ms)",
                  d.deciding_delta * 1e3, d.deciding, d.beyond_band() ? "beyond" : "within",
                  d.band < 0.01 ? 1 : 0, d.band * 1e3);
    return margin_text(b.objective / a.objective - 1, better) + buf;
  }
  return margin_text(b.objective / a.objective - 1, "lower time per token");
}

// Everything the per-layer costs (LayerTimes) depend on besides the configuration.
struct TimesKey {
  i64 tp, cp, ulysses, ring, ep, mb, dp3, s_tp, s_cp, s_dp, moe_tp;
  int rc;
  bool sp, flash, overlap_tp, overlap_ep;
  bool operator==(const TimesKey &o) const {
    return tp == o.tp && cp == o.cp && ulysses == o.ulysses && ring == o.ring && ep == o.ep &&
           mb == o.mb && dp3 == o.dp3 && s_tp == o.s_tp && s_cp == o.s_cp && s_dp == o.s_dp &&
           moe_tp == o.moe_tp && rc == o.rc && sp == o.sp && flash == o.flash &&
           overlap_tp == o.overlap_tp && overlap_ep == o.overlap_ep;
  }
};
struct TimesKeyHash {
  std::size_t operator()(const TimesKey &k) const {
    std::uint64_t h = 1469598103934665603ull; // FNV-1a, 64-bit on every target
    for (const i64 v :
         {k.tp, k.cp, k.ulysses, k.ring, k.ep, k.mb, k.dp3, k.s_tp, k.s_cp, k.s_dp, k.moe_tp,
          static_cast<i64>(k.rc), static_cast<i64>(k.sp), static_cast<i64>(k.flash),
          static_cast<i64>(k.overlap_tp), static_cast<i64>(k.overlap_ep)})
      h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
  }
};

} // namespace

struct PlanSearch::Group {
  i64 tp, cp;
  CpKind kind;
  i64 ulysses, ep, moe_tp, pp, first, last; // moe_tp 0: the experts split like the attention
  bool uneven;
  bool v_only; // a split for DualPipeV alone (2p stages the Megatron split does not cover)
  bool pp_inside_dp;
  i64 dp;
  std::vector<i64> vpps, mbs;
};

struct PlanSearch::Kept {
  Layout l;
  double objective = 0, step = 0, memory = 0;
};

struct PlanSearch::Cache {
  std::unordered_map<TimesKey, LayerSet, TimesKeyHash> times;
  std::vector<std::pair<double, Layout>> misses; // closest to fitting, by overflow
};

PlanSearch::PlanSearch(const Config &c, const PlanOptions &o)
    : c_(at_power_cap(c)), o_(o), cache_(std::make_unique<Cache>()) {
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
  if (o.objective == Objective::energy && c.hardware.power_w <= 0)
    throw ConfigError("hardware.power_w", "is required to rank by energy (the board power, W)");
  if (c.model.family == ModelFamily::stdit3 || c.hardware.kind == HardwareKind::tx8)
    estimate(c, false); // its own ConfigError: tx8 and video are `ridgeline tx8`'s
  r_.objective = o.objective;
  r_.headroom = o.headroom >= 0 ? o.headroom : memory_reserve(c.hardware);
  PlanResult &r = r_;
  const bool train = train_;
  const i64 devices = c.cluster.devices;
  for (const KnobInfo &k : knobs()) // the knobs the search chooses (core/parallel/knobs)
    if (!k.derived && knob_applies(k, c) && !knob_pinned(k, fixed))
      r.free_knobs.push_back(k.name);

  // The model must be countable at all (ConfigError otherwise), once, before the search.
  mp_ = model_params(m);
  trained_ = trainable_params(m, mp_, c.workload.finetune);
  const auto tps = one_or(fixed.tp, tp_candidates(c.cluster, devices));
  const i64 seq = train ? c.workload.seq_len : c.workload.prompt_len;
  std::vector<i64> cp_free{1};
  if (seq >= 16384) // context parallelism pays only for long sequences
    for (i64 v = 2; v <= (seq >= 65536 ? 32 : 16); v *= 2)
      cp_free.push_back(v);
  const auto cps = one_or(fixed.cp, cp_free);
  const auto kinds =
      one_or(fixed.cp_kind, std::vector<CpKind>{CpKind::ring, CpKind::ulysses, CpKind::usp});
  std::vector<i64> ep_free{1};
  if (m.moe)
    for (i64 v = 2; v <= m.moe->experts; v *= 2)
      if (m.moe->experts % v == 0)
        ep_free.push_back(v);
  const auto eps = one_or(fixed.ep, ep_free);
  // Folded experts are searched for MoE training when moe_tp is free (a pinned moe_tp
  // reaches every candidate through the configuration).
  const bool fold = train && m.moe && !fixed.moe_tp;
  zeros_ = one_or(fixed.zero, train ? std::vector<i64>{0, 1, 2, 3} : std::vector<i64>{0});
  // the modules as a second selective choice while the recompute knob is free (a pinned
  // recompute keeps the modules as given) and any module applies and is not pinned
  const bool free_modules =
      !fixed.recompute && ((!fixed.recompute_norm) || (m.mla && !fixed.recompute_mla_up) ||
                           (m.moe && !fixed.recompute_moe_act));
  rcs_.clear();
  for (const Recompute rc :
       one_or(fixed.recompute,
              train ? std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full}
                    : std::vector<Recompute>{Recompute::none})) {
    rcs_.push_back({rc, false});
    if (rc == Recompute::selective && free_modules)
      rcs_.push_back({rc, true});
  }
  const i64 batch = train ? c.workload.global_batch : c.workload.batch;

  // Every (tp, cp, kind, ulysses, ep, pp, split, order) in search order, each with the vpp
  // and micro-batch values its stages and batch allow, before any evaluation, so a cut
  // search can say what it skipped; ZeRO and recompute vary inside each.
  const i64 inner = static_cast<i64>(zeros_.size() * rcs_.size());
  for (const i64 tp : tps)
    for (const i64 cp : cps)
      for (const CpKind kind : kinds) {
        if (cp == 1 && kind != kinds.front())
          continue; // the kind does not matter without context parallelism
        std::vector<i64> ulys{1};
        if (kind == CpKind::usp) {
          if (fixed.ulysses)
            ulys = {*fixed.ulysses};
          else if (cp >= 4) {
            ulys.clear();
            for (i64 u = 2; u < cp; u *= 2)
              ulys.push_back(u);
          } else {
            continue; // USP needs both parts
          }
        }
        for (const i64 u : ulys)
          for (const i64 ep : eps) {
            std::vector<i64> pps;
            if (fixed.pp)
              pps = {*fixed.pp};
            else
              for (i64 p = 1; p <= std::min(m.layers, devices); ++p)
                if (devices % (tp * cp * p) == 0)
                  pps.push_back(p);
            for (const i64 pp : pps) {
              const i64 dp = derived_dp(devices, tp, pp, cp);
              if (dp == 0)
                continue;
              if (fixed.dp && *fixed.dp != dp)
                continue;
              std::vector<std::pair<i64, i64>> splits;
              bool uneven = false;
              if (fixed.first_stage_layers || fixed.last_stage_layers)
                splits = {
                    {fixed.first_stage_layers.value_or(0), fixed.last_stage_layers.value_or(0)}};
              else if (fixed.uneven_pp && *fixed.uneven_pp) {
                splits = {{0, 0}};
                uneven = true;
              } else {
                splits = stage_splits(m.layers, pp);
                if (splits.empty() && pp <= m.layers) { // no Megatron split: the front-loaded one
                  splits = {{0, 0}};
                  uneven = m.layers % pp != 0;
                }
              }
              // DualPipeV splits its 2p stages evenly, or front-loaded where 2p does not divide
              // the layers: a split of its own beside Megatron's first/last ones
              const bool v_split = searches_dualpipe(c, pp) && 2 * pp <= m.layers &&
                                   !fixed.first_stage_layers && !fixed.last_stage_layers &&
                                   (splits.empty() || splits.front() != std::pair<i64, i64>{0, 0} ||
                                    (!uneven && m.layers % (2 * pp) != 0));
              if (v_split)
                splits.emplace_back(-1, -1);
              std::vector<i64> mbs;
              if (fixed.microbatch)
                mbs = {*fixed.microbatch};
              else if (train && batch % dp == 0)
                mbs = divisors(batch / dp);
              else
                mbs = {1};
              for (const auto &[first0, last0] : splits) {
                const bool v_only = first0 < 0;
                const i64 first = v_only ? 0 : first0, last = v_only ? 0 : last0;
                const bool uneven_here = v_only ? m.layers % (2 * pp) != 0 : uneven;
                std::vector<i64> vpps;
                if (v_only)
                  vpps = {1};
                else if (fixed.vpp)
                  vpps = {*fixed.vpp};
                else if (!train || pp == 1)
                  vpps = {1};
                else if (first == 0 && last == 0 && !uneven)
                  vpps = divisors(m.layers / pp);
                else if (first == 0 && last == 0) // front-loaded uneven chunks
                  for (i64 v = 1; v * pp <= m.layers; ++v)
                    vpps.push_back(v);
                else {
                  const i64 share = (m.layers - first - last) / std::max<i64>(pp - 2, 1);
                  const i64 fewest = std::min(
                      {first > 0 ? first : share, last > 0 ? last : share, pp > 2 ? share : first});
                  for (i64 v = 1; v <= fewest; ++v)
                    vpps.push_back(v);
                }
                for (const bool inside : {false, true}) {
                  if (inside && (fixed.order || pp == 1 || dp == 1))
                    continue;
                  // MoE training: the experts split like the attention (0), or folded to an
                  // expert tp below tp, each divisor of it, over the stage's ranks
                  // (Megatron's MoE parallel folding)
                  std::vector<i64> mts{0};
                  for (i64 d = 1; fold && d < tp; ++d)
                    if (tp % d == 0)
                      mts.push_back(d);
                  for (const i64 mt : mts) {
                    Group g{tp,   cp,          kind,   u,      ep, mt,   pp, first,
                            last, uneven_here, v_only, inside, dp, vpps, mbs};
                    i64 pipes = 0;
                    for (const i64 v : vpps)
                      pipes += static_cast<i64>(
                          searched_schedules(c, v, pp, first > 0 || last > 0, uneven_here, v_only)
                              .size());
                    r.space += pipes * static_cast<i64>(mbs.size()) * inner;
                    groups_.push_back(std::move(g));
                  }
                }
              }
            }
          }
      }
}

PlanSearch::~PlanSearch() = default;
PlanSearch::PlanSearch(PlanSearch &&) noexcept = default;
PlanSearch &PlanSearch::operator=(PlanSearch &&) noexcept = default;

double PlanSearch::progress() const {
  return r_.space > 0 ? static_cast<double>(r_.candidates) / static_cast<double>(r_.space) : 1.0;
}

void PlanSearch::keep(const Layout &l, double objective, double step, double memory) {
  // The best `top` by the objective (the first found wins a tie).
  const std::size_t top = static_cast<std::size_t>(std::max<i64>(o_.top, 0));
  // A layout that times and fits exactly as one already kept (e.g. another axis order on
  // links of the same speed) is the same plan to the model: the first found stays.
  const bool tie = std::any_of(kept_.begin(), kept_.end(), [&](const Kept &k) {
    return k.objective == objective && k.memory == memory;
  });
  if (!tie && (kept_.size() < top || (top > 0 && objective < kept_.back().objective))) {
    const auto at = std::upper_bound(kept_.begin(), kept_.end(), objective,
                                     [](double v, const Kept &k) { return v < k.objective; });
    kept_.insert(at, Kept{l, objective, step, memory});
    if (kept_.size() > top)
      kept_.pop_back();
  }
  // The time/memory front.
  for (const Kept &k : front_)
    if (k.objective <= objective && k.memory <= memory)
      return;
  front_.erase(
      std::remove_if(front_.begin(), front_.end(),
                     [&](const Kept &k) { return objective <= k.objective && memory <= k.memory; }),
      front_.end());
  front_.push_back(Kept{l, objective, step, memory});
}

void PlanSearch::evaluate(const std::vector<StageLayerCount> &mix, Layout &l) {
  ++r_.candidates;
  const LayoutCheck chk = complete_layout(c_, l, false);
  if (!chk.ok()) {
    ++r_.rejected[name_of(chk.fault)];
    return;
  }
  ++r_.evaluated;
  // Fits with the headroom free; otherwise counted, and kept among the closest misses.
  const auto fits = [&](double memory) {
    if (memory + r_.headroom <= c_.hardware.hbm_bytes)
      return true;
    ++r_.rejected["memory"];
    auto &miss = cache_->misses;
    const double over = memory + r_.headroom - c_.hardware.hbm_bytes;
    const std::size_t cap = static_cast<std::size_t>(std::max<i64>(o_.infeasible, 0));
    if (miss.size() < cap || (cap > 0 && over < miss.back().first)) {
      miss.insert(std::upper_bound(miss.begin(), miss.end(), over,
                                   [](double v, const auto &x) { return v < x.first; }),
                  {over, l});
      if (miss.size() > cap)
        miss.pop_back();
    }
    return false;
  };
  const ModelSpec &m = c_.model;
  double memory = 0, step = 0, objective = 0;
  if (train_) {
    const double s = static_cast<double>(c_.workload.seq_len);
    const Bf16Layers hp = bf16_layers(c_.workload);
    const LayerActivationBytes per =
        layer_activation_bytes(m, l, s, c_.workload.precision, hp.first > 0 || hp.last > 0);
    for (i64 j = 0; j < l.pp; ++j) {
      const StageLayerCount &n = mix[static_cast<std::size_t>(j)];
      const double total =
          stage_training_states(c_, mp_, l, stage_params(m, mp_, l, j, n), n).total() +
          stage_activations(m, l, j, s, n, per, c_.workload.ce_fusion).total();
      memory = std::max(memory, total);
    }
    if (!fits(memory))
      return;
    const i64 s_tp = axis_stride(l, "tp"), s_cp = axis_stride(l, "cp"), s_dp = axis_stride(l, "dp");
    const TimesKey key{l.tp,
                       l.cp,
                       l.ulysses,
                       l.ring,
                       l.ep,
                       l.microbatch,
                       l.zero >= 3 ? l.dp : 0,
                       s_tp,
                       s_cp,
                       s_dp,
                       l.expert_folding ? l.moe_tp : 0,
                       static_cast<int>(l.recompute) * 8 + l.recompute_norm * 4 +
                           l.recompute_mla_up * 2 + l.recompute_moe_act,
                       l.sp,
                       l.flash,
                       l.overlap_tp,
                       l.overlap_ep};
    auto it = cache_->times.find(key);
    if (it == cache_->times.end())
      it = cache_->times.emplace(key, layer_set(c_, l)).first;
    step = step_time_from(c_, mp_, l, it->second, mix).step;
    const double tokens =
        static_cast<double>(c_.workload.global_batch) * static_cast<double>(c_.workload.seq_len);
    objective =
        train_objective(c_, tokens, step, static_cast<double>(l.devices()), trained_, o_.objective);
  } else {
    Config x = c_;
    x.parallel = spec_of(l);
    const Estimate e = estimate(x, true);
    memory = e.memory.total;
    if (!fits(memory))
      return;
    objective = step = e.serving.tpot;
  }
  ++r_.feasible;
  ++r_.timed;
  keep(l, objective, step, memory);
}

bool PlanSearch::step(i64 units) {
  const ParallelSpec &fixed = c_.parallel;
  const i64 stop_at = r_.work + std::max<i64>(units, 1);
  Layout base;
  base.flash = fixed.flash_attention.value_or(true);
  base.overlap_tp = fixed.overlap_tp.value_or(false);
  base.overlap_dp = fixed.overlap_dp.value_or(true);
  base.overlap_pp = fixed.overlap_pp.value_or(false);
  base.overlap_ep = fixed.overlap_ep.value_or(false);
  base.offload_layers = fixed.offload_layers.value_or(0);
  base.offload_optimizer = fixed.offload_optimizer.value_or(false);
  if (fixed.order)
    base.order = *fixed.order;
  while (!done_ && next_ < groups_.size()) {
    if (r_.work >= stop_at)
      return false;
    const Group &g = groups_[next_];
    const i64 unit = 1 + (train_ ? g.pp : c_.model.layers);
    Layout l = base;
    if (g.pp_inside_dp)
      l.order = kPpInsideDp;
    for (const i64 vpp : g.vpps)
      for (const PpSchedule sched :
           searched_schedules(c_, vpp, g.pp, g.first > 0 || g.last > 0, g.uneven, g.v_only)) {
        // The stages' layer mix depends on pp, the split, vpp and the schedule only.
        l.pp = g.pp;
        l.vpp = vpp;
        l.schedule = sched;
        l.first_layers = g.first;
        l.last_layers = g.last;
        const std::vector<StageLayerCount> mix =
            g.pp <= c_.model.layers ? stage_layer_mix(c_.model, l, bf16_layers(c_.workload))
                                    : std::vector<StageLayerCount>{};
        for (const i64 mb : g.mbs)
          for (const i64 z : zeros_)
            for (const RecomputeChoice &rc : rcs_) {
              if (r_.work + unit > o_.budget) {
                done_ = true; // the budget ran out: what is left is reported as skipped
                return true;
              }
              r_.work += unit;
              l.tp = g.tp;
              l.cp = g.cp;
              l.cp_kind = g.kind;
              l.ulysses = g.ulysses;
              l.ep = g.ep;
              l.moe_tp = g.moe_tp;
              l.pp = g.pp;
              l.first_layers = g.first;
              l.last_layers = g.last;
              l.uneven_pp = g.uneven;
              l.vpp = vpp;
              l.microbatch = mb;
              l.zero = z;
              l.recompute = rc.rc;
              l.recompute_norm = fixed.recompute_norm.value_or(rc.modules);
              l.recompute_mla_up = fixed.recompute_mla_up.value_or(rc.modules && c_.model.mla);
              l.recompute_moe_act =
                  fixed.recompute_moe_act.value_or(rc.modules && c_.model.moe.has_value());
              l.sp = fixed.sp.value_or(g.tp > 1);
              l.schedule = sched;
              l.dp = fixed.dp.value_or(0);
              evaluate(mix, l);
            }
      }
    ++next_;
  }
  done_ = true;
  return true;
}

PlanResult PlanSearch::result() const {
  PlanResult r = r_;
  r.skipped = r.space - r.candidates;
  // The plans shown get the full, explaining estimate (the same numbers as the fast path).
  auto full = [&](const Layout &l) {
    Config x = c_;
    x.parallel = spec_of(l);
    return estimate(x, true);
  };
  for (const Kept &k : kept_) {
    Plan pl;
    pl.estimate = full(k.l);
    pl.parallel = spec_of(pl.estimate.layout);
    pl.objective = objective_of(c_, pl.estimate, o_.objective);
    pl.searched_step = k.step;
    pl.searched_memory = k.memory;
    r.plans.push_back(std::move(pl));
  }
  const ComponentBands bands = component_bands(c_);
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    Plan &p = r.plans[i];
    if (p.estimate.has_time) {
      ComponentBands own = bands;
      own.compute = p.estimate.uncertainty;
      p.step_band = step_band(p.estimate.time, own);
    }
    p.why = i + 1 < r.plans.size() ? why_better(p, r.plans[i + 1], o_.objective, bands)
                                   : std::string("the last plan shown");
  }
  for (const auto &[over, l] : cache_->misses) {
    Infeasible inf;
    inf.parallel = spec_of(l);
    inf.kind = "memory";
    inf.path = "memory";
    inf.overflow = over;
    const double need = over + c_.hardware.hbm_bytes - r_.headroom;
    char buf[120];
    std::snprintf(buf, sizeof buf, " (%.1f GB less %.1f GB headroom)", c_.hardware.hbm_bytes / 1e9,
                  r_.headroom / 1e9);
    inf.message = describe(l, train_) + " " +
                  over_limit_text(need, c_.hardware.hbm_bytes - r_.headroom) + buf;
    r.infeasible.push_back(std::move(inf));
  }
  std::vector<Kept> front = front_;
  std::sort(front.begin(), front.end(),
            [](const Kept &a, const Kept &b) { return a.objective < b.objective; });
  for (const Kept &k : front)
    r.pareto.push_back({spec_of(k.l), describe(k.l, train_), k.objective, k.step, k.memory});
  return r;
}

PlanResult plan(const Config &c, const PlanOptions &o) {
  PlanSearch s(c, o);
  while (!s.step(o.budget)) {
  }
  return s.result();
}

JointPlanSearch::JointPlanSearch(std::vector<Config> choices, const PlanOptions &o)
    : choices_(std::move(choices)), o_(o) {
  if (choices_.empty())
    throw ConfigError("workload.hardware_options", "no hardware to plan on");
  for (const Config &c : choices_)
    PlanSearch(c, o_); // every choice's preconditions first (ConfigError naming the field)
}

double JointPlanSearch::progress() const {
  const double per = 1.0 / static_cast<double>(choices_.size());
  return per * (static_cast<double>(next_) + (running_ ? running_->progress() : 0.0));
}

bool JointPlanSearch::step(i64 units) {
  if (done())
    return true;
  if (!running_)
    running_.emplace(choices_[next_], o_);
  if (running_->step(units)) {
    results_.push_back(running_->result());
    running_.reset();
    ++next_;
  }
  return done();
}

JointPlanResult JointPlanSearch::result() const {
  JointPlanResult out;
  out.deadline = choices_.front().workload.deadline_days * 86400;
  for (std::size_t i = 0; i < results_.size(); ++i) {
    const Config &c = choices_[i];
    ChoicePlan cp;
    cp.hardware = c.hardware.name;
    cp.cluster = c.cluster.name;
    cp.devices = c.cluster.devices;
    cp.result = results_[i];
    if (!cp.result.plans.empty()) {
      const Estimate &e = cp.result.plans.front().estimate;
      cp.time_to_train = e.time_to_train;
      cp.cost = e.cost_to_train > 0 ? e.cost_to_train
                : e.cost_per_hour > 0 && e.throughput.tokens_per_s > 0
                    ? e.cost_per_hour / 3600 / e.throughput.tokens_per_s
                    : 0.0;
      cp.meets_deadline = out.deadline <= 0 || e.time_to_train <= out.deadline;
    }
    out.choices.push_back(std::move(cp));
  }
  // Time: to train the budget, else the step (the same global batch on every choice).
  auto time_of = [&](const ChoicePlan &x) {
    return x.time_to_train > 0 ? x.time_to_train : x.result.plans.front().estimate.time.step;
  };
  for (std::size_t i = 0; i < out.choices.size(); ++i) {
    const ChoicePlan &x = out.choices[i];
    if (x.result.plans.empty() || !x.meets_deadline)
      continue;
    const i64 k = static_cast<i64>(i);
    if (out.fastest < 0 || time_of(x) < time_of(out.choices[static_cast<std::size_t>(out.fastest)]))
      out.fastest = k;
    if (x.cost > 0 &&
        (out.cheapest < 0 || x.cost < out.choices[static_cast<std::size_t>(out.cheapest)].cost))
      out.cheapest = k;
  }
  // The time/cost front over the choices with a plan and a price.
  for (std::size_t i = 0; i < out.choices.size(); ++i) {
    const ChoicePlan &x = out.choices[i];
    if (x.result.plans.empty() || x.cost <= 0)
      continue;
    bool dominated = false;
    for (std::size_t j = 0; j < out.choices.size() && !dominated; ++j) {
      const ChoicePlan &y = out.choices[j];
      if (j == i || y.result.plans.empty() || y.cost <= 0)
        continue;
      dominated = time_of(y) <= time_of(x) && y.cost <= x.cost &&
                  (time_of(y) < time_of(x) || y.cost < x.cost || j < i);
    }
    if (!dominated)
      out.front.push_back(static_cast<i64>(i));
  }
  std::sort(out.front.begin(), out.front.end(), [&](i64 a, i64 b) {
    return time_of(out.choices[static_cast<std::size_t>(a)]) <
           time_of(out.choices[static_cast<std::size_t>(b)]);
  });
  return out;
}

JointPlanResult plan_choices(const std::vector<Config> &choices, const PlanOptions &o) {
  JointPlanSearch s(choices, o);
  while (!s.step(o.budget)) {
  }
  return s.result();
}

} // namespace rl
