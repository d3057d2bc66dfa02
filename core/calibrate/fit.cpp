#include "core/calibrate/fit.hpp"

#include "core/calibrate/replay.hpp"

#include "core/estimate/estimate.hpp"

#include "core/error.hpp"
#include "core/parallel/layout.hpp"
#include "core/schema/fields.hpp"
#include "core/schema/suggest.hpp"
#include "core/serve/simulate.hpp"
#include "core/serve/speculative.hpp"
#include "core/time/layer_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <tuple>

namespace rl {

namespace {

// A number for a note, 4 significant digits.
std::string shown(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// [SECTION] one-dimensional least squares on log(predicted / measured)

// Summed squared log-ratio of the rows' predictions (non-positive predictions: infinite).
double log_cost(const std::vector<ComponentRow> &rows) {
  double c = 0;
  for (const ComponentRow &r : rows) {
    if (!(r.predicted > 0) || !std::isfinite(r.predicted))
      return INFINITY;
    const double l = std::log(r.predicted / r.measured);
    c += l * l;
  }
  return c;
}

// The work of one evaluation of these points' predictions, in replay units (core/calibrate/
// replay.hpp): one a component prediction.
double units_of(const std::vector<ComponentPoint> &pts) {
  return static_cast<double>(pts.size());
}

// The x in [lo, hi] minimising cost: a grid of 121 points (geometric when `geometric`), then a
// golden-section search between the best point's neighbours. Costs need not be unimodal over
// the whole range, only near the best grid point.
constexpr int kGrid = 120, kGolden = 40;
// The cost evaluations of one minimize_1d.
constexpr i64 kMinimizeEvaluations = kGrid + 1 + 2 + kGolden + 1;
// gemm_k_half's grid: 0..kKHalfMax by kKHalfCoarse, then by kKHalfFine around the best.
constexpr int kKHalfMax = 2048, kKHalfCoarse = 64, kKHalfFine = 8;
constexpr i64 kKHalfPoints = kKHalfMax / kKHalfCoarse + 1 + 2 * (kKHalfCoarse / kKHalfFine - 1);

double minimize_1d(const std::function<double(double)> &cost, double lo, double hi,
                   bool geometric) {
  auto at = [&](double t) { return geometric ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t; };
  int best = 0;
  double best_cost = INFINITY;
  for (int i = 0; i <= kGrid; ++i) {
    const double c = cost(at(static_cast<double>(i) / kGrid));
    if (c < best_cost) {
      best_cost = c;
      best = i;
    }
  }
  double a = static_cast<double>(std::max(best - 1, 0)) / kGrid;
  double b = static_cast<double>(std::min(best + 1, kGrid)) / kGrid;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double c1 = cost(at(x1)), c2 = cost(at(x2));
  for (int it = 0; it < kGolden; ++it) {
    if (c1 < c2) {
      b = x2;
      x2 = x1;
      c2 = c1;
      x1 = b - g * (b - a);
      c1 = cost(at(x1));
    } else {
      a = x1;
      x1 = x2;
      c1 = c2;
      x2 = a + g * (b - a);
      c2 = cost(at(x2));
    }
  }
  const double t = (a + b) / 2;
  return cost(at(t)) <= best_cost ? at(t) : at(static_cast<double>(best) / kGrid);
}

// The residual statistics of a fitted parameter over its rows.
FittedParameter summarize_fit(std::string path, std::string label, std::string unit, double before,
                              double value, std::vector<ComponentRow> rows) {
  FittedParameter f;
  f.path = std::move(path);
  f.label = std::move(label);
  f.unit = std::move(unit);
  f.before = before;
  f.value = value;
  f.count = static_cast<i64>(rows.size());
  double sq = 0;
  for (const ComponentRow &r : rows) {
    sq += r.error * r.error;
    f.max_abs_error = std::max(f.max_abs_error, std::fabs(r.error));
  }
  f.rms_error = rows.empty() ? 0 : std::sqrt(sq / static_cast<double>(rows.size()));
  // The band of a prediction resting on this parameter: the largest fitted residual, at
  // least 2% (a measurement's own repeatability).
  f.band = std::max(f.max_abs_error, 0.02);
  f.residuals = std::move(rows);
  return f;
}

// The points of one kind that a parameter may be fitted to, with `hw` / `cluster` filled.
std::vector<ComponentPoint> select(const std::vector<ComponentPoint> &all, ComponentKind kind,
                                   const std::function<bool(const ComponentPoint &)> &keep) {
  std::vector<ComponentPoint> out;
  for (const ComponentPoint &p : all)
    if (p.kind == kind && p.fitted && p.measured > 0 && keep(p))
      out.push_back(p);
  return out;
}

// [SECTION] the components

// A one-parameter hardware fit: `field` of every point's hardware (and of hw) set to the x in
// [lo, 1] that fits them best.
void fit_hardware_field(std::vector<ComponentPoint> &pts, HardwareSpec &hw,
                        double HardwareSpec::*field, double lo, Replay *replay) {
  auto cost = [&](double x) {
    return replayed(replay, units_of(pts), [&] {
      for (ComponentPoint &p : pts)
        p.hardware.*field = x;
      return log_cost(check_components(pts));
    });
  };
  const double x = minimize_1d(cost, lo, 1.0, false);
  for (ComponentPoint &p : pts)
    p.hardware.*field = x;
  hw.*field = x;
}

// GEMM: the large-GEMM efficiency per precision and, when the shapes' reduction lengths span
// a factor of 4 or more, the half-efficiency reduction length gemm_k_half (shared: given for
// bf16 and scaled by the tensor-core rate for FP8, core/time/gemm_efficiency.cpp).
void fit_gemm(const std::vector<ComponentPoint> &all, const CalibrateOptions &opt,
              CalibrationResult &out) {
  HardwareSpec &hw = out.hardware;
  struct Group {
    const char *label;
    double HardwareSpec::*field;
    std::function<bool(const ComponentPoint &)> keep;
  };
  const Group groups[] = {
      {"bf16", &HardwareSpec::gemm_efficiency,
       [](const ComponentPoint &p) {
         return p.precision == Dtype::bf16 || p.precision == Dtype::fp16;
       }},
      {"fp8", &HardwareSpec::gemm_efficiency_fp8,
       [](const ComponentPoint &p) { return p.precision == Dtype::fp8; }},
  };
  bool k_half_fitted = false;
  for (const Group &g : groups) {
    std::vector<ComponentPoint> pts = select(all, ComponentKind::gemm, g.keep);
    if (pts.empty())
      continue;
    for (ComponentPoint &p : pts)
      p.hardware = hw;
    const double before_eff = hw.*(g.field) > 0 ? hw.*(g.field) : hw.gemm_efficiency;
    const double before_k = hw.gemm_k_half;
    double kmin = INFINITY, kmax = 0;
    for (const ComponentPoint &p : pts) {
      kmin = std::min(kmin, p.k);
      kmax = std::max(kmax, p.k);
    }
    const std::string eff_path =
        std::string("hardware.") +
        (g.field == &HardwareSpec::gemm_efficiency ? "gemm_efficiency" : "gemm_efficiency_fp8");
    if (opt.is_fixed(eff_path))
      continue;
    if (!k_half_fitted && !opt.is_fixed("hardware.gemm_k_half") && pts.size() >= 3 &&
        kmax >= 4 * kmin) {
      // Two parameters: the efficiency for each k_half on a grid of 0..2048, by 64 and then
      // by 8 around the best.
      double best_cost = INFINITY, best_k = before_k;
      auto try_k = [&](double kh) {
        for (ComponentPoint &p : pts)
          p.hardware.gemm_k_half = kh;
        fit_hardware_field(pts, hw, g.field, 0.02, opt.replay);
        const double c =
            replayed(opt.replay, units_of(pts), [&] { return log_cost(check_components(pts)); });
        if (c < best_cost) {
          best_cost = c;
          best_k = kh;
        }
      };
      for (int kh = 0; kh <= kKHalfMax; kh += kKHalfCoarse)
        try_k(kh);
      const double coarse = best_k;
      for (int d = -kKHalfCoarse + kKHalfFine; d < kKHalfCoarse; d += kKHalfFine)
        if (d != 0 && coarse + d >= 0 && coarse + d <= kKHalfMax)
          try_k(coarse + d);
      for (ComponentPoint &p : pts)
        p.hardware.gemm_k_half = best_k;
      hw.gemm_k_half = best_k;
      k_half_fitted = true;
      fit_hardware_field(pts, hw, g.field, 0.02, opt.replay);
      out.params.push_back(
          summarize_fit("hardware.gemm_k_half",
                        std::string("GEMM half-efficiency K (bf16 units, from ") + g.label + ")",
                        "", before_k, best_k, check_components(pts)));
      out.params.back().range = {0, kKHalfMax};
    } else {
      fit_hardware_field(pts, hw, g.field, 0.02, opt.replay);
    }
    out.params.push_back(summarize_fit(eff_path, std::string("GEMM efficiency (") + g.label + ")",
                                       "", before_eff, hw.*(g.field), check_components(pts)));
    out.params.back().range = {0.02, 1.0};
  }
}

// One efficiency from the rows of one kind: `field` fitted on [lo, 1]; `before` is what the
// base predicts with (attention: gemm_efficiency when attention_efficiency is not set).
void fit_efficiency(const std::vector<ComponentPoint> &all, const CalibrateOptions &opt,
                    ComponentKind kind, const char *path, const char *label,
                    double HardwareSpec::*field, double lo, double before, CalibrationResult &out) {
  std::vector<ComponentPoint> pts = select(all, kind, [](const ComponentPoint &) { return true; });
  if (pts.empty() || opt.is_fixed(path))
    return;
  HardwareSpec &hw = out.hardware;
  for (ComponentPoint &p : pts)
    p.hardware = hw;
  fit_hardware_field(pts, hw, field, lo, opt.replay);
  out.params.push_back(summarize_fit(path, label, "", before, hw.*field, check_components(pts)));
  out.params.back().range = {lo, 1.0};
}

// The cluster a collective point ran on: the base's links, its ranks over its nodes.
ClusterSpec point_cluster(const ClusterSpec &base, const ComponentPoint &p) {
  ClusterSpec c = base;
  c.topology = Topology::switched;
  c.devices = std::max<i64>(p.group, 1);
  c.devices_per_node = std::max<i64>(c.devices / std::max<i64>(p.nodes, 1), 1);
  return c;
}

// One link tier: its efficiency and, when the sizes span 64x down to 1 MB or less, its step
// latency (alpha) on a geometric grid of 0.1 us .. 100 us.
void fit_link(std::vector<ComponentPoint> pts, Link ClusterSpec::*tier, const char *name,
              const CalibrateOptions &opt, CalibrationResult &out) {
  if (pts.empty())
    return;
  ClusterSpec &cl = out.cluster;
  if ((cl.*tier).bw <= 0) {
    out.notes.push_back(std::string("cluster.") + name +
                        ": the base cluster has no such link; its collectives are not fitted");
    return;
  }
  double smin = INFINITY, smax = 0;
  for (ComponentPoint &p : pts) {
    p.cluster = point_cluster(cl, p);
    smin = std::min(smin, p.bytes);
    smax = std::max(smax, p.bytes);
  }
  const Link before = cl.*tier;
  auto set = [&](double lat, double eff) {
    for (ComponentPoint &p : pts) {
      (p.cluster.*tier).latency = lat;
      (p.cluster.*tier).efficiency = eff;
    }
  };
  const std::string base = std::string("cluster.") + name;
  const bool eff_held = opt.is_fixed(base + ".efficiency");
  double lat = before.latency;
  auto eff_for = [&](double l) {
    if (eff_held)
      return before.efficiency;
    return minimize_1d(
        [&](double e) {
          return replayed(opt.replay, units_of(pts), [&] {
            set(l, e);
            return log_cost(check_components(pts));
          });
        },
        schema::kMinLinkEfficiency, 1.0, false);
  };
  // The latency is fitted unless held, and alone (the efficiency held) or with the efficiency
  // when the sizes reach down to the latency regime and span 64x.
  const bool fit_latency =
      !opt.is_fixed(base + ".latency") && (eff_held || (smax >= 64 * smin && smin <= 1 << 20));
  if (fit_latency) {
    lat = minimize_1d(
        [&](double l) {
          set(l, eff_for(l)); // (its evaluations replayed one by one, never nested)
          return replayed(opt.replay, units_of(pts),
                          [&] { return log_cost(check_components(pts)); });
        },
        1e-7, 1e-4, true);
  }
  const double eff = eff_for(lat);
  set(lat, eff);
  (cl.*tier).latency = lat;
  (cl.*tier).efficiency = eff;
  const auto rows = check_components(pts);
  if (!eff_held) {
    out.params.push_back(summarize_fit(
        base + ".efficiency", std::string(name) + " collective efficiency (busbw / line rate)", "",
        before.efficiency, eff, rows));
    out.params.back().range = {schema::kMinLinkEfficiency, 1.0};
  }
  if (fit_latency) {
    out.params.push_back(summarize_fit(base + ".latency", std::string(name) + " step latency", "s",
                                       before.latency, lat, rows));
    out.params.back().range = {1e-7, 1e-4};
  } else
    out.notes.push_back(base + ".latency: kept (held, or the sizes do not span 64x down to 1 MiB)");
}

void fit_collectives(const std::vector<ComponentPoint> &all, const CalibrateOptions &opt,
                     CalibrationResult &out) {
  const auto one = [](const ComponentPoint &p) { return p.nodes <= 1 && p.group > 1; };
  const auto many = [](const ComponentPoint &p) { return p.nodes > 1; };
  fit_link(select(all, ComponentKind::collective, one), &ClusterSpec::intra_node, "intra_node", opt,
           out);
  fit_link(select(all, ComponentKind::collective, many), &ClusterSpec::inter_node, "inter_node",
           opt, out);
}

// [SECTION] the work a fit costs, counted before it starts

// Component predictions the fits make for these points: each point's share of its fit's grid
// (minimize_1d's evaluations; gemm_k_half's grid of them; a link's latency grid of efficiency
// searches).
double component_evaluations(const std::vector<ComponentPoint> &points) {
  constexpr double one = kMinimizeEvaluations + 1;
  double n = 0;
  for (const ComponentPoint &p : points) {
    switch (p.kind) {
    case ComponentKind::gemm:
      n += kKHalfPoints * (one + 1) + 2 * one;
      break;
    case ComponentKind::collective:
      n += one * one + 2 * one;
      break;
    default:
      n += 2 * one;
    }
  }
  return n;
}

// Kernel-model evaluations: each row over the largest of the kernel fits' grids (41 x 41 x 4,
// fit_engine_allreduce).
double kernel_evaluations(const std::vector<KernelTiming> &kernels) {
  return static_cast<double>(kernels.size()) * 41 * 41 * 4;
}

} // namespace

void check_fit_work(const Measurements &m) {
  const double n = component_evaluations(m.components) + kernel_evaluations(m.kernels);
  if (n > kMaxFitEvaluations) {
    const double per_row = n / static_cast<double>(m.components.size() + m.kernels.size());
    throw ConfigError("files", "the fits would make " + std::to_string(std::llround(n / 1e6)) +
                                   " million model evaluations for " +
                                   std::to_string(m.components.size() + m.kernels.size()) +
                                   " rows; the limit is " +
                                   std::to_string(std::llround(kMaxFitEvaluations / 1e6)) +
                                   " million (a few seconds): give at most about " +
                                   std::to_string(std::llround(kMaxFitEvaluations / per_row)) +
                                   " rows of these kinds");
  }
}

namespace {

// The output tokens a serving run's simulation produces: its requests x output length.
double simulated_tokens(const Config &c) {
  return static_cast<double>(simulated_requests(c.workload.serve)) *
         static_cast<double>(c.workload.gen_len);
}

// The serving fit's simulations, counted before the first: every run's simulated requests x
// output tokens, times the simulations the fit makes of each.
void check_serving_fit_work(const std::vector<Config> &runs) {
  double tokens = 0;
  for (const Config &c : runs)
    tokens += simulated_tokens(c);
  if (tokens * kServingFitSimulations > kMaxFitSimulatedTokens)
    throw ConfigError("files", std::to_string(runs.size()) + " serving runs of " +
                                   std::to_string(std::llround(tokens)) +
                                   " simulated output tokens in all, each simulated " +
                                   std::to_string(kServingFitSimulations) +
                                   " times by the fit; the limit is " +
                                   std::to_string(std::llround(kMaxFitSimulatedTokens / 1e6)) +
                                   " million simulated tokens: give fewer or shorter runs");
}

} // namespace

// [SECTION] serving benchmarks

Config serving_run_config(const Config &base, const ServingSample &s) {
  Config c = base;
  ServeSpec &sv = c.workload.serve;
  sv.trace.clear();
  // the benchmark's lengths: fixed, or drawn on [length_low, 1] x isl / osl
  sv.length_dist = s.length_low < 1 ? LengthDist::uniform : LengthDist::fixed;
  sv.range_ratio = s.length_low < 1 ? s.length_low : 0;
  c.workload.prompt_len = std::max<i64>(1, std::llround(s.input_len));
  c.workload.gen_len = std::max<i64>(1, std::llround(s.output_len));
  if (s.concurrency > 0) {
    sv.concurrency = s.concurrency;
    sv.request_rate = 0;
    // The run as the tool ran it: its own request count where the file gives it, and the
    // opening burst counted where its statistics count it (each client's first request).
    sv.requests =
        s.requests >= s.concurrency ? s.requests : std::clamp<i64>(4 * s.concurrency, 64, 4096);
    if (s.counts_warmup) // else as the base says (a benchmark's own convention)
      sv.count_warmup = true;
  } else if (s.request_rate > 0) {
    sv.concurrency = 0;
    sv.request_rate = s.request_rate;
  }
  if (s.tp > 0)
    c.parallel.tp = s.tp;
  // the run's own settings where the file gives them
  const auto set_ways = [](std::optional<i64> &field, i64 v) {
    if (v > 0)
      field = v;
  };
  set_ways(c.parallel.pp, s.pp);
  set_ways(c.parallel.attention_dp, s.attention_dp);
  set_ways(c.parallel.moe_tp, s.moe_tp);
  set_ways(c.parallel.ep, s.ep);
  if (s.precision) {
    c.workload.precision = *s.precision;
    c.workload.weight_dtype = *s.precision;
  }
  if (s.kv_dtype)
    c.workload.kv_dtype = *s.kv_dtype;
  if (s.requests_per_client > 0 && s.concurrency > 0) {
    sv.requests_per_client = s.requests_per_client;
    sv.requests = s.requests_per_client * s.concurrency;
    sv.count_warmup = true; // InferenceMAX's client: every request, no warm-up phase
  }
  if (s.max_tokens > 0)
    sv.max_tokens = s.max_tokens;
  if (s.max_batch > 0)
    sv.max_batch = s.max_batch;
  if (s.memory_fraction > 0)
    sv.memory_fraction = s.memory_fraction;
  if (s.recv_interval > 0)
    sv.recv_interval = s.recv_interval;
  if (s.batch_wait_iters > 0) {
    sv.batch_wait_iters = s.batch_wait_iters;
    sv.batch_wait_tokens_ratio = s.batch_wait_tokens_ratio;
  }
  if (s.adp_balance_iters > 0)
    sv.adp_balance_iters = s.adp_balance_iters; // InferenceX sets batching_wait_iters 0
  if (s.draft_tokens > 0) {
    SpeculativeSpec spec;
    spec.method = SpecMethod::mtp;
    spec.draft_tokens = s.draft_tokens;
    spec.acceptance = {default_acceptance(SpecMethod::mtp)}; // as the parser sets it
    sv.speculative = spec;
  }
  const i64 tp = c.parallel.tp.value_or(1), pp = c.parallel.pp.value_or(1);
  const i64 ep = c.parallel.ep.value_or(1);
  const i64 adp = c.parallel.attention_dp.value_or(1);
  // One instance. With moe_tp or attention DP given (SGLang's and TensorRT-LLM's layouts) it
  // is tp x attention_dp x pp GPUs and the experts span it (moe_tp x ep = tp x attention_dp);
  // otherwise EP lives in dp (core/parallel/layout).
  const bool ep_inside = c.parallel.moe_tp.has_value() || adp > 1;
  c.parallel.dp = ep_inside ? 1 : ep;
  c.cluster.devices = tp * pp * (ep_inside ? adp : ep);
  c.cluster.devices_per_node = std::min(base.cluster.devices_per_node, c.cluster.devices);
  return c;
}

namespace {

// A measured time against its prediction, seconds.
ComponentRow seconds_row(std::string name, ComponentKind kind, double measured, double predicted,
                         bool fitted) {
  ComponentRow r;
  r.name = std::move(name);
  r.unit = "s";
  r.kind = kind;
  r.measured = measured;
  r.predicted = predicted;
  r.error = measured > 0 ? predicted / measured - 1 : 0;
  r.fitted = fitted;
  return r;
}

ComponentRow serving_row(const std::string &name, const char *what, double measured,
                         double predicted) {
  return seconds_row(name + " " + what, ComponentKind::gemm, measured, predicted, true);
}

} // namespace

ServingRuns serving_runs(const Config &base, const std::vector<ServingSample> &samples) {
  ServingRuns out;
  for (const ServingSample &s : samples) {
    const double tpot = s.tpot.mean > 0 ? s.tpot.mean : s.itl.mean;
    if (tpot <= 0 || s.output_len < 2 || (s.concurrency <= 0 && s.request_rate <= 0)) {
      out.notes.push_back(s.name + ": no TPOT, output length or load; not fitted");
      continue;
    }
    // Bounded work: a run of more than 5e7 simulated output tokens (or prompts beyond 1M
    // tokens) is reported, not simulated.
    Config c = serving_run_config(base, s);
    const i64 n = simulated_requests(c.workload.serve);
    if (s.input_len > 1e6 || s.output_len > 1e6 || n > 1'000'000 ||
        static_cast<double>(n) * s.output_len > 5e7) {
      out.notes.push_back(s.name + ": too long to simulate (over 5e7 output tokens); not fitted");
      continue;
    }
    Layout layout;
    try { // a run's own tp (or lengths) the base's model cannot take: the file's row is named
      layout = resolve_layout(c);
    } catch (const ConfigError &e) {
      throw ConfigError(s.file + ": " + s.name,
                        "this run cannot be set on the base configuration: " +
                            (e.path().empty() ? "" : e.path() + ": ") + e.message());
    }
    if (!serve_memory(c, layout).fits) {
      out.notes.push_back(s.name + ": the weights leave no room for the KV cache at tp " +
                          std::to_string(c.parallel.tp.value_or(1)) + "; not fitted");
      continue;
    }
    out.runs.push_back(c);
    out.used.push_back(&s);
  }
  return out;
}

double measured_tpot(const ServingSample &s) {
  return s.tpot.mean > 0 ? s.tpot.mean : s.itl.mean;
}

ServingPrediction predict_serving(const std::vector<Config> &runs, Replay *replay, double overhead,
                                  double request_overhead) {
  ServingPrediction p;
  for (Config c : runs) {
    c.workload.serve.engine.iteration_overhead = overhead;
    c.workload.serve.engine.request_overhead = request_overhead;
    double v[2];
    const auto simulate = [&](double *out) {
      const ServeResult r = simulate_serving(c);
      out[0] = r.tpot.mean;
      out[1] = r.ttft.mean;
    };
    if (replay)
      replay->values(kUnitsPerSimulatedToken * simulated_tokens(c), 2, v, simulate);
    else
      simulate(v);
    p.tpot.push_back(v[0]);
    p.ttft.push_back(v[1]);
  }
  return p;
}

EngineOverheads fit_engine_overheads(const std::vector<const ServingSample *> &used,
                                     const ServingPrediction &p0, const ServingPrediction &p1,
                                     const std::function<ServingPrediction(double)> &at) {
  EngineOverheads f;
  const std::size_t n = used.size();
  // TPOT is affine in the iteration overhead (every decode iteration pays it once): the two
  // simulations at 0 and kOverheadProbe give each run's line, the least-squares log-ratio
  // picks the value on [0, kMaxIterationOverhead].
  f.iteration = minimize_1d(
      [&](double x) {
        double c = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const double pred = p0.tpot[i] + (p1.tpot[i] - p0.tpot[i]) / kOverheadProbe * x;
          if (!(pred > 0))
            return static_cast<double>(INFINITY);
          const double l = std::log(pred / measured_tpot(*used[i]));
          c += l * l;
        }
        return c;
      },
      0, kMaxIterationOverhead, false);
  // The per-request front-end time from TTFT, with the iteration overhead fitted: a request's
  // TTFT moves by it one for one, so the runs' TTFT at the fitted iteration overhead are
  // shifted and the shift whose median |relative error| is least is taken (a median: TTFT
  // holds queueing regimes the model does not reach, which a least-squares fit would chase),
  // on [0, kMaxRequestOverhead] by 0.1 ms.
  const ServingPrediction at_o = at(f.iteration);
  std::vector<std::size_t> with_ttft;
  for (std::size_t i = 0; i < n; ++i)
    if (used[i]->ttft.mean > 0)
      with_ttft.push_back(i);
  if (!with_ttft.empty()) {
    double best = INFINITY;
    std::vector<double> e(with_ttft.size());
    for (int k = 0; k <= kRequestOverheadSteps; ++k) {
      const double shift = kMaxRequestOverhead / kRequestOverheadSteps * k;
      for (std::size_t j = 0; j < with_ttft.size(); ++j) {
        const std::size_t i = with_ttft[j];
        e[j] = std::fabs((at_o.ttft[i] + shift) / used[i]->ttft.mean - 1);
      }
      if (const double m = median(e); m < best - 1e-12) {
        best = m;
        f.request = shift;
      }
    }
  }
  return f;
}

namespace {

// The engine's per-iteration host time from the runs' mean TPOT and its per-request front-end
// time from their TTFT (fit_engine_overheads), then a simulation of every run at both for the
// residuals.
void fit_engine(const Config &base, const std::vector<ServingSample> &samples,
                const CalibrateOptions &opt, CalibrationResult &out) {
  if (samples.empty())
    return;
  if (base.workload.mode != Mode::serve)
    throw ConfigError("base", "serving results need a serving configuration (workload.mode "
                              "\"serve\": its model, dtypes, engine and scheduler)");
  Config b = base; // with the hardware and links fitted before
  b.hardware = out.hardware;
  b.cluster.intra_node = out.cluster.intra_node;
  b.cluster.inter_node = out.cluster.inter_node;
  ServingRuns sr = serving_runs(b, samples);
  out.notes.insert(out.notes.end(), sr.notes.begin(), sr.notes.end());
  const std::vector<Config> &runs = sr.runs;
  const std::vector<const ServingSample *> &used = sr.used;
  if (runs.empty())
    return;
  check_serving_fit_work(runs);
  const ServingPrediction p0 = predict_serving(runs, opt.replay, 0),
                          p1 = predict_serving(runs, opt.replay, kOverheadProbe);
  const EngineOverheads f = fit_engine_overheads(
      used, p0, p1, [&](double o) { return predict_serving(runs, opt.replay, o); });
  const ServingPrediction fit = predict_serving(runs, opt.replay, f.iteration, f.request);
  std::vector<ComponentRow> rows, ttft_rows;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    rows.push_back(serving_row(used[i]->name, "TPOT", measured_tpot(*used[i]), fit.tpot[i]));
    if (used[i]->ttft.mean > 0)
      ttft_rows.push_back(serving_row(used[i]->name, "TTFT", used[i]->ttft.mean, fit.ttft[i]));
  }
  const double before = out.engine.iteration_overhead; // out.engine starts as the base's
  const double before_d = out.engine.request_overhead;
  out.engine.iteration_overhead = f.iteration;
  out.engine.request_overhead = f.request;
  if (out.engine.name == "none")
    out.engine.name = "custom";
  // One run fixes a one-parameter fit exactly: its residual says nothing of the spread, so
  // the band stays the base engine's (said in a note).
  const EngineSpec &was = base.workload.serve.engine;
  FittedParameter p =
      summarize_fit("workload.engine.iteration_overhead",
                    "engine host time per iteration (from TPOT)", "s", before, f.iteration, rows);
  if (p.count < 2) {
    p.band = std::max(p.band, was.tpot_uncertainty);
    out.notes.push_back("one serving run: the TPOT fit matches it by construction; its band "
                        "stays the base engine's");
  }
  p.range = {0, kMaxIterationOverhead};
  out.engine.tpot_uncertainty = p.band;
  out.params.push_back(p);
  if (!ttft_rows.empty()) {
    FittedParameter q =
        summarize_fit("workload.engine.request_overhead", "front-end time per request (from TTFT)",
                      "s", before_d, f.request, ttft_rows);
    if (q.count < 2)
      q.band = std::max(q.band, was.ttft_uncertainty);
    q.range = {0, kMaxRequestOverhead};
    out.engine.ttft_uncertainty = q.band;
    out.params.push_back(q);
  }
}

// [SECTION] per-operation kernel tables (AIConfigurator systems/data; docs/data/aic/)

// Two parameters minimising a cost on a grid of n x n points over [lo, hi] (each axis linear,
// or logarithmic where `log_axis`), the grid shrunk around the best point `rounds` times, by
// `shrink` of its width on either side (the search the shipped fits were first made with).
struct GridAxis {
  double lo, hi;
  bool log_axis = false;
  double floor = 0;          // a linear axis never goes below this
  double ceiling = INFINITY; // nor is a point tried above this (an efficiency: 1)
};
std::pair<double, double> grid_fit_2d(const std::function<double(double, double)> &cost, GridAxis a,
                                      GridAxis b, int n, int rounds) {
  double best = INFINITY, x = a.lo, y = b.lo;
  const auto at = [n](const GridAxis &g, int i) {
    const double t = static_cast<double>(i) / (n - 1);
    return std::min(g.ceiling,
                    g.log_axis ? g.lo * std::pow(g.hi / g.lo, t) : g.lo + (g.hi - g.lo) * t);
  };
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const double u = at(a, i), v = at(b, j), c = cost(u, v);
        if (c < best) {
          best = c;
          x = u;
          y = v;
        }
      }
    const auto narrow = [](GridAxis &g, double centre) {
      if (g.log_axis) {
        const double w = std::pow(g.hi / g.lo, 0.1);
        g.lo = centre / w;
        g.hi = centre * w;
      } else {
        const double w = (g.hi - g.lo) / 8;
        g.lo = std::max(g.floor, centre - w);
        g.hi = centre + w;
      }
    };
    narrow(a, x);
    narrow(b, y);
  }
  return {x, y};
}

// grid_fit_2d's result through `replay` (one value pair: the fit is the piece), `rows` the
// rows each cost evaluation goes over.
std::pair<double, double> replayed_grid_fit(Replay *replay, double rows,
                                            const std::function<double(double, double)> &cost,
                                            GridAxis a, GridAxis b, int n, int rounds) {
  if (!replay)
    return grid_fit_2d(cost, a, b, n, rounds);
  double v[2];
  replay->values(kUnitsPerKernelEvaluation * rows * n * n * rounds, 2, v, [&](double *out) {
    std::tie(out[0], out[1]) = grid_fit_2d(cost, a, b, n, rounds);
  });
  return {v[0], v[1]};
}

double log_sq(double predicted, double measured) {
  const double l = std::log(predicted / measured);
  return l * l;
}

// A kernel model's two parameters fitted on log t over the kernel timings (grid_fit_2d).
using KernelModel = std::function<double(double, double, const KernelTiming &)>;
std::pair<double, double> fit_kernel_model(const std::vector<const KernelTiming *> &rows,
                                           const KernelModel &model, GridAxis a, GridAxis b, int n,
                                           int rounds, Replay *replay) {
  return replayed_grid_fit(
      replay, static_cast<double>(rows.size()),
      [&](double x, double y) {
        double c = 0;
        for (const KernelTiming *t : rows)
          c += log_sq(model(x, y, *t), t->seconds);
        return c;
      },
      a, b, n, rounds);
}

// An engine's kernels are fitted for the engine a serving base names.
void need_engine_base(const Config &base, const char *what) {
  if (base.workload.mode != Mode::serve)
    throw ConfigError("base", std::string("an engine's ") + what +
                                  " a serving configuration naming the engine "
                                  "(workload.engine)");
}

// The cast and amax kernels of an FP8 recipe on the base's chip (docs/calibration.md "FP8
// quantisation kernels"): each a fixed time per kernel plus its bytes (cast: read bf16, write
// FP8, 3 B an element; amax: read, 2 B) over a share of HBM bandwidth, fitted on log t over the
// tensors outside the L2's reach (up to 1 MB, where the fixed time shows, and from 256 MB,
// where the bandwidth does); the tensors between are reported, not fitted.
void fit_quantize_kernels(const std::vector<KernelTiming> &rows, const CalibrateOptions &opt,
                          CalibrationResult &out) {
  using Kind = KernelTiming::Kind;
  const double bw = out.hardware.hbm_bw;
  struct Op {
    Kind kind;
    double bytes_per_element;
    double HardwareSpec::*latency, HardwareSpec::*efficiency;
    const char *path, *label;
  };
  const Op ops[] = {{Kind::cast, 3, &HardwareSpec::quantize_latency,
                     &HardwareSpec::quantize_bw_efficiency, "hardware.quantize",
                     "FP8 cast kernel (bf16 in, fp8 out)"},
                    {Kind::amax, 2, &HardwareSpec::amax_latency, &HardwareSpec::amax_bw_efficiency,
                     "hardware.amax", "amax kernel (bf16 in)"}};
  for (const Op &op : ops) {
    std::vector<std::pair<double, const KernelTiming *>> fitted, between; // (bytes, row)
    for (const KernelTiming &t : rows)
      if (t.kind == op.kind && t.gpu == out.hardware.name) {
        const double bytes = op.bytes_per_element * t.m * t.k;
        (bytes <= 1e6 || bytes >= 256e6 ? fitted : between).push_back({bytes, &t});
      }
    const std::string lat = std::string(op.path) + "_latency",
                      eff = std::string(op.path) + "_bw_efficiency";
    if (fitted.empty() || opt.is_fixed(lat) || opt.is_fixed(eff))
      continue;
    const auto model = [bw](double a, double e, double bytes) { return a + bytes / (e * bw); };
    const auto [a, e] = replayed_grid_fit(
        opt.replay, static_cast<double>(fitted.size()),
        [&](double x, double y) {
          double c = 0;
          for (const auto &[b, t] : fitted)
            c += log_sq(model(x, y, b), t->seconds);
          return c;
        },
        {0.0, 20e-6, false, 0.0}, {0.1, 1.2, false, 0.05, 1.0}, 21, 6);
    std::vector<ComponentRow> res;
    for (const auto &[b, t] : fitted)
      res.push_back(seconds_row(t->name, ComponentKind::hbm, t->seconds, model(a, e, b), true));
    for (const auto &[b, t] : between)
      res.push_back(seconds_row(t->name + " (1-256 MB, in L2: not fitted)", ComponentKind::hbm,
                                t->seconds, model(a, e, b), false));
    std::vector<ComponentRow> used;
    for (const ComponentRow &r : res)
      if (r.fitted)
        used.push_back(r);
    FittedParameter pl = summarize_fit(lat, std::string(op.label) + ": time per kernel", "s",
                                       out.hardware.*op.latency, a, used);
    FittedParameter pe = summarize_fit(eff, std::string(op.label) + ": share of HBM bandwidth", "",
                                       out.hardware.*op.efficiency, e, used);
    pl.residuals = res; // every row, the unfitted ones marked
    out.hardware.*op.latency = a;
    out.hardware.*op.efficiency = e;
    out.params.push_back(pl);
    out.params.push_back(pe);
  }
}

// The engine's own all-reduce kernel under CUDA graphs (vLLM's and SGLang's custom
// all-reduce, TensorRT-LLM's AUTO strategy), as latency plus bus bytes over a bandwidth,
//   t(M, n) = latency + 2 (n - 1) / n x M / bw          (nccl-tests' bus-bandwidth convention),
// fitted on log t over messages up to allreduce_max_bytes (8 MiB: vLLM's custom all-reduce
// limit, vllm/distributed/device_communicators/custom_all_reduce.py max_size) on 2-8 GPUs.
void fit_engine_allreduce(const Config &base, const std::vector<KernelTiming> &rows,
                          const CalibrateOptions &opt, CalibrationResult &out) {
  EngineSpec &e = out.engine;
  std::vector<const KernelTiming *> mine;
  i64 others = 0;
  const double max_bytes = e.allreduce_max_bytes > 0 ? e.allreduce_max_bytes : 8.0 * (1 << 20);
  for (const KernelTiming &t : rows)
    if (t.kind == KernelTiming::Kind::allreduce) {
      if (t.engine != e.name)
        ++others;
      else if (t.m <= max_bytes)
        mine.push_back(&t);
    }
  if (others > 0)
    out.notes.push_back(std::to_string(others) +
                        " all-reduce rows of other engines than the "
                        "base's (" +
                        e.name + ") left out");
  if (mine.empty() || opt.is_fixed("workload.engine.allreduce_latency") ||
      opt.is_fixed("workload.engine.allreduce_bw"))
    return;
  need_engine_base(base, "all-reduce needs");
  const auto model = [](double a, double b, const KernelTiming &t) {
    return a + 2 * (t.n - 1) / t.n * t.m / b;
  };
  const auto [a, b] =
      fit_kernel_model(mine, model, {1e-7, 1e-4, true}, {1e9, 2e12, true}, 41, 4, opt.replay);
  std::vector<ComponentRow> res;
  for (const KernelTiming *t : mine)
    res.push_back(seconds_row(t->name + " n=" + std::to_string(static_cast<i64>(t->n)) + " " +
                                  std::to_string(static_cast<i64>(t->m)) + " B",
                              ComponentKind::collective, t->seconds, model(a, b, *t), true));
  FittedParameter pl =
      summarize_fit("workload.engine.allreduce_latency", "engine all-reduce: time per call", "s",
                    e.allreduce_latency, a, res);
  FittedParameter pb =
      summarize_fit("workload.engine.allreduce_bw", "engine all-reduce: bus bandwidth", "B/s",
                    e.allreduce_bw, b, res);
  pb.residuals.clear(); // the rows once, under the latency
  e.allreduce_latency = a;
  e.allreduce_bw = b;
  if (e.allreduce_max_bytes <= 0)
    e.allreduce_max_bytes = max_bytes;
  out.params.push_back(pl);
  out.params.push_back(pb);
}

// The engine's dense GEMMs at decode's small M (M <= 64: weight streaming) on the base's chip,
// per dtype: a fixed time per call plus the operands' bytes over a share of HBM bandwidth,
//   t(M, N, K) = latency + (N K w + M K w + 2 M N) / (bw_efficiency x hbm_bw)
// (w: 2 bytes for bf16, 1 for fp8 with its per-tensor activation quantisation, 0.5625 for
// NVFP4 with its scales), fitted on log t (docs/serving.md "GEMMs at small M"). Written under
// workload.engine.gemm.on.<chip>, which the engine uses on that chip.
void fit_engine_small_gemm(const Config &base, const std::vector<KernelTiming> &rows,
                           const CalibrateOptions &opt, CalibrationResult &out) {
  const std::string &chip = out.hardware.name;
  struct Kind {
    Dtype dtype;
    const char *key;
    double bytes;
    EngineSpec::SmallGemm EngineSpec::GemmFits::*slot;
  };
  const Kind kinds[] = {{Dtype::bf16, "bf16", 2, &EngineSpec::GemmFits::bf16},
                        {Dtype::fp8, "fp8", 1, &EngineSpec::GemmFits::fp8},
                        {Dtype::nvfp4, "fp4", 0.5625, &EngineSpec::GemmFits::fp4}};
  for (const Kind &k : kinds) {
    std::vector<const KernelTiming *> mine;
    for (const KernelTiming &t : rows)
      if (t.kind == KernelTiming::Kind::gemm && t.m <= 64 && t.dtype == k.dtype && t.gpu == chip &&
          t.engine == out.engine.name)
        mine.push_back(&t);
    const std::string path = "workload.engine.gemm.on." + chip + "." + k.key;
    if (mine.empty() || opt.is_fixed(path + ".latency") || opt.is_fixed(path + ".bw_efficiency"))
      continue;
    need_engine_base(base, "GEMMs need");
    const double bw = out.hardware.hbm_bw, w = k.bytes;
    const auto model = [bw, w](double a, double e, const KernelTiming &t) {
      return a + (t.n * t.k * w + t.m * t.k * w + 2 * t.m * t.n) / (e * bw);
    };
    const auto [a, e] = fit_kernel_model(mine, model, {0.0, 30e-6, false, 0.0},
                                         {0.2, 1.2, false, 0.05}, 21, 5, opt.replay);
    std::vector<ComponentRow> res;
    for (const KernelTiming *t : mine)
      res.push_back(seconds_row(t->name, ComponentKind::gemm, t->seconds, model(a, e, *t), true));
    EngineSpec::SmallGemm &g = out.engine.gemm_on[chip].*k.slot;
    const std::string what = "engine " + std::string(k.key) + " GEMM at M <= 64 on " + chip;
    FittedParameter pl =
        summarize_fit(path + ".latency", what + ": time per call", "s", g.latency, a, res);
    FittedParameter pe = summarize_fit(path + ".bw_efficiency", what + ": share of HBM bandwidth",
                                       "", g.bw_efficiency, e, res);
    pe.residuals.clear(); // the rows once, under the latency
    g = {a, e};
    out.params.push_back(pl);
    out.params.push_back(pe);
  }
}

// A chip's FP8 and FP4 GEMM efficiency from a table's compute-bound shapes: the median over
// shapes of (t_bf16 / t_dtype) x (peak_bf16 / peak_dtype) on the base's chip, times the
// table's bias on the reference chip (its fitted fp8/bf16 efficiency over the table's own
// median there), times the chip's bf16 efficiency:
//   gemm_efficiency_<dtype> = gemm_efficiency x ratio x bias
// (docs/calibration.md "FP8 and FP4 GEMMs on B200"). The residuals are each shape's ratio
// against the median, as the dtype's time that ratio predicts from the shape's bf16 time.
void fit_gemm_ratio(const std::vector<KernelTiming> &rows, const CalibrateOptions &opt,
                    CalibrationResult &out) {
  if (!opt.ratio_reference || opt.ratio_reference->name == out.hardware.name)
    return;
  const HardwareSpec &ref = *opt.ratio_reference;
  // seconds by (m, n, k) then dtype, on one chip
  using Shape = std::tuple<double, double, double>;
  const auto table = [&](const std::string &chip) {
    std::map<Shape, std::map<Dtype, const KernelTiming *>> t;
    for (const KernelTiming &r : rows)
      if (is_large_gemm(r) && r.gpu == chip)
        t[{r.m, r.n, r.k}][r.dtype] = &r;
    return t;
  };
  const auto peak = [](const HardwareSpec &h, Dtype d) {
    return d == Dtype::fp8 ? h.peak.fp8 : d == Dtype::nvfp4 ? h.peak.fp4 : h.peak.bf16;
  };
  const auto ratios =
      [&](const HardwareSpec &h, Dtype d,
          std::vector<std::pair<const KernelTiming *, const KernelTiming *>> *pairs) {
        std::vector<double> out_r;
        if (peak(h, d) <= 0)
          return out_r;
        for (const auto &[shape, by] : table(h.name)) {
          const auto b = by.find(Dtype::bf16), x = by.find(d);
          if (b == by.end() || x == by.end())
            continue;
          out_r.push_back(b->second->seconds / x->second->seconds * h.peak.bf16 / peak(h, d));
          if (pairs)
            pairs->push_back({b->second, x->second});
        }
        return out_r;
      };
  const std::vector<double> ref_fp8 = ratios(ref, Dtype::fp8, nullptr);
  if (ref_fp8.empty() || ref.gemm_efficiency <= 0 || ref.gemm_efficiency_fp8 <= 0)
    return;
  const double bias = ref.gemm_efficiency_fp8 / ref.gemm_efficiency / median(ref_fp8);
  const struct {
    Dtype d;
    const char *path;
    double HardwareSpec::*field;
  } fits[] = {{Dtype::fp8, "hardware.gemm_efficiency_fp8", &HardwareSpec::gemm_efficiency_fp8},
              {Dtype::nvfp4, "hardware.gemm_efficiency_fp4", &HardwareSpec::gemm_efficiency_fp4}};
  for (const auto &f : fits) {
    std::vector<std::pair<const KernelTiming *, const KernelTiming *>> pairs;
    const std::vector<double> r = ratios(out.hardware, f.d, &pairs);
    if (r.empty() || opt.is_fixed(f.path))
      continue;
    const double ratio = median(r);
    const double value = out.hardware.gemm_efficiency * ratio * bias;
    std::vector<ComponentRow> res;
    for (const auto &[b, x] : pairs)
      res.push_back(
          seconds_row(x->name, ComponentKind::gemm, x->seconds,
                      b->seconds * out.hardware.peak.bf16 / peak(out.hardware, f.d) / ratio, true));
    FittedParameter p = summarize_fit(
        f.path,
        std::string(f.d == Dtype::fp8 ? "FP8" : "FP4") + " GEMM efficiency (bf16's x the " +
            "table's median rate ratio x its bias on " + ref.name + ")",
        "", out.hardware.*f.field, value, res);
    out.hardware.*f.field = value;
    out.params.push_back(p);
  }
}

} // namespace

// [SECTION] layer profiles (tools/measure/layer_profile.py)

// A profile's kernel classes as the model's components: GEMMs, attention, and every other
// kernel (norms, rotary, activation, adds, reductions, copies) as element-wise work; `gap`
// is the time between kernels, which the components do not have.
LayerBudget measured_budget(const LayerProfile &p, double &gap) {
  LayerBudget b;
  gap = 0;
  for (const auto &[cls, s] : p.seconds) {
    if (cls == "gemm")
      b.gemm += s;
    else if (cls == "attention")
      b.attention += s;
    else if (cls == "gap")
      gap += s;
    else
      b.elementwise += s;
  }
  return b;
}

// One layer's forward + backward measured alone on one GPU against the model's components
// (CalibrationResult::layers, class by class): the compute overhead is what the kernels and the
// gaps between them take beyond the components, so a profile sets hardware.compute_overhead
// (fitted on log(predicted / measured) over the profiles, as the training logs' fit) unless a
// training log is given, whose end-to-end fit then sets it and leaves the profile a check.
void fit_layer_profiles(const std::vector<LayerProfile> &profiles, bool training_logs,
                        const CalibrateOptions &opt, CalibrationResult &out) {
  if (profiles.empty())
    return;
  std::vector<LayerBudget> predicted;
  for (const LayerProfile &p : profiles) {
    const LayerBudget model = llama_layer_budget(out.hardware, p.hidden, p.heads, p.kv_heads, p.ffn,
                                                 p.seq, p.micro_batch, p.dtype);
    predicted.push_back(model);
    LayerCheck check;
    check.file = p.file;
    check.measured = measured_budget(p, check.gap);
    check.predicted = model;
    check.kernels = p.kernels;
    out.layers.push_back(check);
  }
  auto rows_at = [&](double o, bool fitted) {
    std::vector<ComponentRow> rows;
    for (std::size_t i = 0; i < profiles.size(); ++i)
      rows.push_back(seconds_row("layer " + profiles[i].file + ": forward + backward",
                                 ComponentKind::gemm, profiles[i].total(),
                                 predicted[i].total() * (1 + o), fitted));
    return rows;
  };
  if (training_logs || opt.is_fixed("hardware.compute_overhead")) {
    for (const ComponentRow &r : rows_at(out.hardware.compute_overhead, false))
      out.unfitted.push_back(r);
    out.notes.push_back(training_logs ? "layer profiles: checked, not fitted (a training log "
                                        "sets hardware.compute_overhead end to end)"
                                      : "layer profiles: checked, not fitted "
                                        "(hardware.compute_overhead is held)");
    return;
  }
  const double before = out.hardware.compute_overhead;
  const double units = static_cast<double>(profiles.size());
  const double o = minimize_1d(
      [&](double x) {
        return replayed(opt.replay, units, [&] { return log_cost(rows_at(x, true)); });
      },
      0, kMaxFittedOverhead, false);
  out.hardware.compute_overhead = o;
  out.params.push_back(summarize_fit("hardware.compute_overhead",
                                     "compute overhead (one layer alone, layer profiles)", "",
                                     before, o, rows_at(o, true)));
  out.params.back().range = {0, kMaxFittedOverhead};
}

// [SECTION] training logs

TrainingRun training_run(const std::vector<TrainingSample> &rows, const Config &base) {
  TrainingRun r;
  r.name = rows.empty() ? "" : rows.front().file;
  const std::size_t skip = std::max<std::size_t>(kTrainingWarmup, rows.size() / 10);
  std::vector<double> step, tps, tflops;
  for (std::size_t i = skip; i < rows.size(); ++i) {
    if (rows[i].step_s > 0)
      step.push_back(rows[i].step_s);
    if (rows[i].tokens_per_s > 0)
      tps.push_back(rows[i].tokens_per_s);
    if (rows[i].tflops_per_gpu > 0)
      tflops.push_back(rows[i].tflops_per_gpu);
  }
  if (!step.empty()) {
    r.metric = Metric::step_time;
    r.measured = median(step);
    r.iterations = static_cast<i64>(step.size());
  } else if (!tps.empty()) {
    // torchtitan's tps is per GPU; the estimate's tokens/s is the whole run's.
    r.metric = Metric::tokens_per_s;
    r.measured = median(tps) * static_cast<double>(base.cluster.devices);
    r.iterations = static_cast<i64>(tps.size());
  } else if (!tflops.empty()) {
    r.metric = Metric::tflops_per_device;
    r.measured = median(tflops);
    r.iterations = static_cast<i64>(tflops.size());
  }
  return r;
}

// [SECTION] calibrate

std::vector<std::string> fittable_parameters() {
  return {"hardware.gemm_efficiency",         "hardware.gemm_efficiency_fp8",
          "hardware.gemm_efficiency_fp4",     "hardware.gemm_k_half",
          "hardware.attention_efficiency",    "hardware.hbm_efficiency",
          "hardware.compute_overhead",        "hardware.quantize_latency",
          "hardware.quantize_bw_efficiency",  "hardware.amax_latency",
          "hardware.amax_bw_efficiency",      "cluster.intra_node.efficiency",
          "cluster.intra_node.latency",       "cluster.inter_node.efficiency",
          "cluster.inter_node.latency",       "workload.engine.iteration_overhead",
          "workload.engine.request_overhead", "workload.engine.allreduce_latency",
          "workload.engine.allreduce_bw"};
}

bool is_fittable(const std::string &path) {
  const auto ends = [&](const std::string &tail) {
    return path.size() > tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (path.rfind("workload.engine.gemm.on.", 0) == 0)
    return ends(".latency") || ends(".bw_efficiency");
  const auto all = fittable_parameters();
  return std::find(all.begin(), all.end(), path) != all.end();
}

bool FittedParameter::at_bound() const {
  if (!(range.second > range.first))
    return false;
  const double tol = 1e-6 * (range.second - range.first);
  return value <= range.first + tol || value >= range.second - tol;
}

// [SECTION] in pieces

CalibrationSteps::CalibrationSteps(Config base, Measurements m, CalibrateOptions opt, double budget)
    : base_(std::move(base)), m_(std::move(m)), opt_(std::move(opt)), budget_(budget), total_(0),
      replay_(std::make_unique<Replay>()) {
  opt_.replay = replay_.get();
  // the work as check_fit_work counts it; a serving run's requests as a benchmark's (at least
  // 64): for the progress bar only
  total_ = component_evaluations(m_.components) +
           kUnitsPerKernelEvaluation * kernel_evaluations(m_.kernels);
  for (const ServingSample &s : m_.serving)
    total_ += kServingFitSimulations * kUnitsPerSimulatedToken * std::max(0.0, s.output_len) *
              static_cast<double>(std::max<i64>(s.requests, 64));
}

CalibrationSteps::~CalibrationSteps() = default;
CalibrationSteps::CalibrationSteps(CalibrationSteps &&) noexcept = default;
CalibrationSteps &CalibrationSteps::operator=(CalibrationSteps &&) noexcept = default;

bool CalibrationSteps::step() {
  if (done_)
    return false;
  replay_->begin(budget_);
  try {
    result_ = calibrate(base_, m_, opt_);
    done_ = true;
  } catch (const Replay::Suspend &) {
    return true;
  } catch (const ConfigError &e) {
    error_ = {e.path(), e.message()};
    done_ = true;
  }
  return false;
}

double CalibrationSteps::progress() const {
  if (done_)
    return 1;
  return total_ > 0 ? std::min(0.99, replay_->done() / total_) : 0;
}

CalibrationResult CalibrationSteps::result() const {
  if (error_)
    throw ConfigError(error_->first, error_->second);
  if (!result_)
    throw ConfigError("", "the fit has not finished");
  return *result_;
}

bool CalibrateOptions::is_fixed(const std::string &path) const {
  return std::find(fixed.begin(), fixed.end(), path) != fixed.end();
}

CalibrationResult calibrate(const Config &base, const Measurements &m,
                            const CalibrateOptions &opt) {
  CalibrationResult out;
  out.hardware = base.hardware;
  out.cluster = base.cluster;
  out.engine = base.workload.serve.engine;
  if (m.empty())
    throw ConfigError("files", "no measurement rows were read: nothing to fit");
  check_fit_work(m);
  for (const std::string &f : opt.fixed)
    if (!is_fittable(f))
      throw ConfigError("--fix", "\"" + f + "\" is not a parameter calibrate fits" +
                                     schema::did_you_mean(f, fittable_parameters()));
  // A file of several chips (components.json) calibrates the base's: rows naming another
  // hardware (or, for collectives, another cluster) are left out and counted.
  std::vector<ComponentPoint> mine;
  i64 other = 0;
  for (const ComponentPoint &p : m.components) {
    const std::string &own = p.kind == ComponentKind::collective ? p.cluster.name : p.hardware.name;
    const std::string &want =
        p.kind == ComponentKind::collective ? base.cluster.name : base.hardware.name;
    if (own.empty() || own == want)
      mine.push_back(p);
    else
      ++other;
  }
  if (other > 0)
    out.notes.push_back(std::to_string(other) + " rows of other hardware or clusters left out");
  for (const ComponentPoint &p : mine)
    if (!p.fitted) {
      ComponentPoint q = p;
      q.hardware = out.hardware;
      q.cluster = q.kind == ComponentKind::collective ? point_cluster(out.cluster, q) : out.cluster;
      out.unfitted.push_back(predict_component(q));
    }
  fit_gemm(mine, opt, out);
  const HardwareSpec &hw0 = out.hardware;
  fit_efficiency(
      mine, opt, ComponentKind::attention, "hardware.attention_efficiency",
      "FlashAttention efficiency (forward + backward)", &HardwareSpec::attention_efficiency, 0.02,
      hw0.attention_efficiency > 0 ? hw0.attention_efficiency : hw0.gemm_efficiency, out);
  fit_efficiency(mine, opt, ComponentKind::hbm, "hardware.hbm_efficiency",
                 "HBM bandwidth reached by element-wise kernels", &HardwareSpec::hbm_efficiency,
                 0.05, out.hardware.hbm_efficiency, out);
  fit_collectives(mine, opt, out);
  fit_quantize_kernels(m.kernels, opt, out);
  fit_engine_allreduce(base, m.kernels, opt, out);
  fit_engine_small_gemm(base, m.kernels, opt, out);
  fit_gemm_ratio(m.kernels, opt, out);
  if (!opt.is_fixed("workload.engine.iteration_overhead"))
    fit_engine(base, m.serving, opt, out);

  fit_layer_profiles(m.layers, !m.training.empty(), opt, out);

  // The end-to-end overhead last, from training logs only, every component already fitted.
  std::map<std::string, std::vector<TrainingSample>> by_file;
  for (const TrainingSample &t : m.training)
    by_file[t.file].push_back(t);
  std::vector<ValidationRun> runs;
  for (const auto &[file, rows] : by_file) {
    const TrainingRun t = training_run(rows, base);
    if (t.iterations == 0) {
      out.notes.push_back(file + ": no steady-state iteration after the first " +
                          std::to_string(kTrainingWarmup) + " (warm-up); not fitted");
      continue;
    }
    ValidationRun v;
    v.name = file + " (median of " + std::to_string(t.iterations) + " iterations)";
    v.config = base;
    v.config.hardware = out.hardware;
    v.config.cluster = out.cluster;
    v.metric = t.metric;
    v.measured = t.measured;
    runs.push_back(v);
  }
  if (!runs.empty() && !opt.is_fixed("hardware.compute_overhead")) {
    if (base.workload.mode != Mode::train)
      throw ConfigError("base", "training logs need a training configuration (workload.mode "
                                "\"train\") to compare against");
    // A layout that does not fit could not have run: the base is not what the log ran.
    if (const MemorySummary mem = estimate(runs.front().config).memory; !mem.fits)
      out.notes.push_back(
          "the base configuration needs " + std::to_string(std::llround(mem.total / 1e9)) +
          " GB a device of " + std::to_string(std::llround(mem.capacity / 1e9)) +
          " GB: the logged run cannot have used this layout; set parallel (tp, pp, ZeRO, "
          "recompute, micro-batch) as the log's run did");
    const std::vector<FitResult> fits = fit_compute_overhead(runs);
    const FitResult &f = fits.front(); // one hardware: the base's
    const double before = out.hardware.compute_overhead;
    out.hardware.compute_overhead = f.overhead;
    // docs/calibration.md "The uncertainty band": the larger of the in-sample and
    // leave-one-out errors, at least 5%.
    out.hardware.time_uncertainty = std::max({f.max_abs_error, f.loo_max_error, 0.05});
    for (ValidationRun &v : runs)
      v.config.hardware = out.hardware;
    out.runs = validate(runs);
    std::vector<ComponentRow> rows;
    for (const ValidationRow &v : out.runs) {
      ComponentRow r;
      r.name = v.name;
      r.unit = name_of_metric(v.metric);
      r.measured = v.measured;
      r.predicted = v.predicted;
      r.error = v.error;
      r.fitted = true;
      rows.push_back(r);
    }
    FittedParameter p =
        summarize_fit("hardware.compute_overhead", "compute overhead (end to end, training logs)",
                      "", before, f.overhead, rows);
    p.range = {0, kMaxFittedOverhead};
    p.band = out.hardware.time_uncertainty;
    out.params.push_back(p);
  }
  if (out.params.empty()) {
    // what was read and why none of it is fitted
    std::string why;
    for (const std::string &n : out.notes)
      why += "; " + n;
    if (!mine.empty() &&
        std::none_of(mine.begin(), mine.end(), [](const ComponentPoint &p) { return p.fitted; }))
      why += "; no component point is marked \"fitted\": true";
    throw ConfigError("files", "the " + std::to_string(m.rows()) +
                                   " rows read inform no parameter (components need a measured "
                                   "value and, for collectives, more than one rank)" +
                                   why);
  }
  i64 moe_fitted = 0;
  for (const ComponentPoint &p : mine)
    moe_fitted += p.kind == ComponentKind::moe && p.fitted;
  if (moe_fitted > 0)
    out.notes.push_back(std::to_string(moe_fitted) +
                        " MoE points marked fitted: no parameter is fitted to MoE layers; "
                        "they are checked (shown with the unfitted rows)");
  for (const FittedParameter &p : out.params)
    if (p.at_bound())
      out.notes.push_back(p.path + ": the fit stopped at the end of its range (" + shown(p.value) +
                          " in [" + shown(p.range.first) + ", " + shown(p.range.second) +
                          "]): the rows would take it further; its residuals say how far "
                          "the model is from them");
  // A band wider than a preset may hold (schema: a hardware time band at most kMaxUncertainty,
  // so that every band's lower bound stays positive; an engine's at most kMaxEngineUncertainty)
  // is written at that limit, with a note.
  const auto cap = [&](double &band, const char *fitted, const char *path, double limit) {
    const bool was_fitted = std::any_of(out.params.begin(), out.params.end(),
                                        [&](const FittedParameter &p) { return p.path == fitted; });
    if (!was_fitted || band <= limit)
      return;
    out.notes.push_back(std::string(path) + ": the fit's band " + shown(100 * band) +
                        "% is over the " + shown(100 * limit) + "% a preset holds; written as " +
                        shown(100 * limit) + "%: the model does not describe these rows");
    band = limit;
  };
  cap(out.hardware.time_uncertainty, "hardware.compute_overhead", "hardware.time_uncertainty",
      schema::kMaxUncertainty);
  cap(out.engine.tpot_uncertainty, "workload.engine.iteration_overhead",
      "workload.engine.tpot_uncertainty", schema::kMaxEngineUncertainty);
  cap(out.engine.ttft_uncertainty, "workload.engine.request_overhead",
      "workload.engine.ttft_uncertainty", schema::kMaxEngineUncertainty);
  return out;
}

} // namespace rl
