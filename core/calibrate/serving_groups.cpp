// Leave one group out over the serving calibration groups (serving_groups.hpp).
#include "core/calibrate/serving_groups.hpp"

#include "core/calibrate/calibration.hpp"
#include "core/calibrate/fit.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

namespace {

// One group's runs and their simulations at no host time and at the probe.
struct GroupRuns {
  const ServingGroup *group = nullptr;
  ServingRuns runs;
  ServingPrediction p0, p1;
  const std::string &engine() const { return group->base.workload.serve.engine.name; }
};

// The engine's host times fitted to the groups `fit_to` together.
EngineOverheads fit_groups(const std::vector<const GroupRuns *> &fit_to) {
  std::vector<const ServingSample *> used;
  ServingPrediction p0, p1;
  for (const GroupRuns *g : fit_to) {
    used.insert(used.end(), g->runs.used.begin(), g->runs.used.end());
    p0.tpot.insert(p0.tpot.end(), g->p0.tpot.begin(), g->p0.tpot.end());
    p0.ttft.insert(p0.ttft.end(), g->p0.ttft.begin(), g->p0.ttft.end());
    p1.tpot.insert(p1.tpot.end(), g->p1.tpot.begin(), g->p1.tpot.end());
    p1.ttft.insert(p1.ttft.end(), g->p1.ttft.begin(), g->p1.ttft.end());
  }
  return fit_engine_overheads(used, p0, p1, [&](double o) {
    ServingPrediction p;
    for (const GroupRuns *g : fit_to) {
      const ServingPrediction q = predict_serving(g->runs.runs, nullptr, o);
      p.tpot.insert(p.tpot.end(), q.tpot.begin(), q.tpot.end());
      p.ttft.insert(p.ttft.end(), q.ttft.begin(), q.ttft.end());
    }
    return p;
  });
}

GroupErrors errors_at(const GroupRuns &g, const EngineOverheads &f,
                      const std::vector<const GroupRuns *> &fit_to) {
  GroupErrors e;
  e.name = g.group->name;
  e.engine = g.engine();
  e.iteration_overhead = f.iteration;
  e.request_overhead = f.request;
  for (const GroupRuns *x : fit_to)
    e.fitted_to.push_back(x->group->name);
  const ServingPrediction p = predict_serving(g.runs.runs, nullptr, f.iteration, f.request);
  for (std::size_t i = 0; i < g.runs.used.size(); ++i) {
    const ServingSample &s = *g.runs.used[i];
    e.tpot.push_back(p.tpot[i] / measured_tpot(s) - 1);
    if (s.ttft.mean > 0)
      e.ttft.push_back(p.ttft[i] / s.ttft.mean - 1);
  }
  return e;
}

} // namespace

double median_abs_error(const std::vector<double> &e) {
  std::vector<double> a(e.size());
  std::transform(e.begin(), e.end(), a.begin(), [](double x) { return std::fabs(x); });
  return median(std::move(a));
}
double median_error(const std::vector<double> &e) {
  return median(e);
}

double abs_error_quantile(const std::vector<double> &e, double q) {
  if (e.empty())
    return 0;
  std::vector<double> a(e.size());
  std::transform(e.begin(), e.end(), a.begin(), [](double x) { return std::fabs(x); });
  std::sort(a.begin(), a.end());
  const double at = q * static_cast<double>(a.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(at));
  const std::size_t j = std::min(i + 1, a.size() - 1);
  return a[i] + (a[j] - a[i]) * (at - static_cast<double>(i));
}

std::vector<double> ServingGroupsReport::all_tpot(bool held) const {
  std::vector<double> v;
  for (const GroupErrors &g : held ? held_out : in_sample)
    v.insert(v.end(), g.tpot.begin(), g.tpot.end());
  return v;
}
std::vector<double> ServingGroupsReport::all_ttft(bool held) const {
  std::vector<double> v;
  for (const GroupErrors &g : held ? held_out : in_sample)
    v.insert(v.end(), g.ttft.begin(), g.ttft.end());
  return v;
}

ServingGroupsReport serving_groups_report(const std::vector<ServingGroup> &groups) {
  ServingGroupsReport out;
  std::vector<GroupRuns> gr(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const ServingGroup &g = groups[i];
    if (g.base.workload.mode != Mode::serve)
      throw ConfigError(g.name + ": base", "is not a serving configuration (workload.mode "
                                           "\"serve\")");
    gr[i].group = &g;
    gr[i].runs = serving_runs(g.base, g.samples);
    for (const std::string &n : gr[i].runs.notes)
      out.notes.push_back(g.name + ": " + n);
  }
  // the work, counted before any simulation: each run is simulated at 0 and the probe, at its
  // engine's in-sample fit (twice), at each fit that leaves one of the engine's other groups
  // out, and once predicted from the others
  double tokens = 0, work = 0;
  for (const GroupRuns &g : gr) {
    const auto same = std::count_if(gr.begin(), gr.end(),
                                    [&](const GroupRuns &h) { return h.engine() == g.engine(); });
    for (const Config &c : g.runs.runs) {
      const double t = static_cast<double>(simulated_requests(c.workload.serve)) *
                       static_cast<double>(c.workload.gen_len);
      tokens += t;
      work += t * static_cast<double>(4 + same);
    }
  }
  if (work > kMaxGroupsSimulatedTokens)
    throw ConfigError("groups", "the groups' runs hold " + std::to_string(std::llround(tokens)) +
                                    " simulated output tokens, each simulated 4 + (the groups of "
                                    "its engine) times: " +
                                    std::to_string(std::llround(work / 1e6)) +
                                    " million in all, over the limit of " +
                                    std::to_string(std::llround(kMaxGroupsSimulatedTokens / 1e6)) +
                                    " million: give fewer or shorter runs");
  for (GroupRuns &g : gr) {
    g.p0 = predict_serving(g.runs.runs, nullptr, 0);
    g.p1 = predict_serving(g.runs.runs, nullptr, kOverheadProbe);
  }
  std::vector<std::string> engines;
  for (const GroupRuns &g : gr)
    if (std::find(engines.begin(), engines.end(), g.engine()) == engines.end())
      engines.push_back(g.engine());
  // in sample: each engine fitted to all its groups
  for (const std::string &e : engines) {
    std::vector<const GroupRuns *> all;
    for (const GroupRuns &g : gr)
      if (g.engine() == e && !g.runs.runs.empty())
        all.push_back(&g);
    if (all.empty())
      continue;
    const EngineOverheads f = fit_groups(all);
    std::vector<double> tpot, ttft;
    for (const GroupRuns *g : all) {
      out.in_sample.push_back(errors_at(*g, f, all));
      tpot.insert(tpot.end(), out.in_sample.back().tpot.begin(), out.in_sample.back().tpot.end());
      ttft.insert(ttft.end(), out.in_sample.back().ttft.begin(), out.in_sample.back().ttft.end());
    }
    // a band of at least 2% (a measurement's own repeatability, as summarize_fit's)
    out.engines.push_back({e, f.iteration, f.request,
                           std::max(0.02, abs_error_quantile(tpot, kEngineBandQuantile)),
                           std::max(0.02, abs_error_quantile(ttft, kEngineBandQuantile)),
                           static_cast<i64>(tpot.size())});
  }
  // held out: each group at its engine fitted to the engine's other groups
  for (const GroupRuns &g : gr) {
    if (g.runs.runs.empty())
      continue;
    std::vector<const GroupRuns *> others;
    for (const GroupRuns &h : gr)
      if (&h != &g && h.engine() == g.engine() && !h.runs.runs.empty())
        others.push_back(&h);
    if (others.empty()) {
      out.notes.push_back(g.group->name + ": no other group of engine " + g.engine() +
                          ", so nothing to predict it from");
      continue;
    }
    const EngineOverheads f = fit_groups(others);
    if (f.iteration <= 0 || f.iteration >= kMaxIterationOverhead)
      out.notes.push_back(g.group->name + ": predicted at the iteration overhead's bound (" +
                          (f.iteration <= 0 ? "0" : "50 ms") +
                          "): the engine's other groups ask for " +
                          (f.iteration <= 0 ? "less host time than none" : "more than the bound") +
                          " (a component the model misses)");
    out.held_out.push_back(errors_at(g, f, others));
  }
  return out;
}

} // namespace rl
