#include "core/report/plan_table.hpp"

#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/schema/fields.hpp"

#include <algorithm>

namespace rl {

namespace {
// A layout degree as its cell (text and sort value).
template <i64 Layout::*M> ReportCell degree(const Plan &p, std::size_t, i64) {
  const i64 v = p.estimate.layout.*M;
  return ReportCell{std::to_string(v), static_cast<double>(v)};
}
// A layout column's key: the parallel.* field it shows (core/schema/fields).
using P = ParallelSpec;
template <auto M> const char *key() {
  return schema::parallel_key<M>();
}
} // namespace

ReportTable plan_table(const Config &c, const PlanResult &r) {
  const bool train = c.workload.mode == Mode::train;
  const bool to_train = train && c.workload.train_tokens > 0;
  const bool cost = to_train && c.hardware.price_per_hour > 0;
  const bool energy = train && c.hardware.power_w > 0;
  const bool orders = std::any_of(r.plans.begin(), r.plans.end(), [](const Plan &p) {
    return !order_label(p.estimate.layout).empty();
  });
  ReportTable t;
  // Each column with the cell it gives a plan of rank i (from 0).
  struct Def {
    ReportColumn col;
    ReportCell (*cell)(const Plan &, std::size_t, i64);
  };
  std::vector<Def> defs;
  auto add = [&](ReportColumn col, ReportCell (*cell)(const Plan &, std::size_t, i64)) {
    defs.push_back({std::move(col), cell});
  };
  using U = Unit;
  using B = Better;
  add({"rank", "#", U::plain, B::neither}, [](const Plan &, std::size_t i, i64) {
    return ReportCell{std::to_string(i + 1), static_cast<double>(i + 1)};
  });
  // What each plan gives first (step or TPOT, MFU, time and cost to train, memory), then the
  // layout that gives it: the outcome stays in view in a narrow window.
  const std::size_t outcomes_at = defs.size();
  add({key<&P::dp>(), "dp"}, degree<&Layout::dp>);
  add({key<&P::tp>(), "tp"}, degree<&Layout::tp>);
  add({key<&P::pp>(), "pp"}, [](const Plan &p, std::size_t, i64 layers) {
    const Layout &l = p.estimate.layout;
    return ReportCell{pp_label(l, layers), static_cast<double>(l.pp)};
  });
  if (train)
    add({key<&P::vpp>(), "vpp"}, degree<&Layout::vpp>);
  add({key<&P::cp>(), "cp"}, [](const Plan &p, std::size_t, i64) {
    const Layout &l = p.estimate.layout;
    std::string text = std::to_string(l.cp);
    if (l.cp > 1) {
      text += " ";
      text += io::name_of(l.cp_kind);
    }
    return ReportCell{text, static_cast<double>(l.cp)};
  });
  add({key<&P::ep>(), "ep"}, degree<&Layout::ep>);
  if (train && c.model.moe) // the experts' TP degree (below tp: folded)
    add({key<&P::moe_tp>(), "etp"}, degree<&Layout::moe_tp>);
  if (train) {
    add({key<&P::zero>(), "ZeRO"}, degree<&Layout::zero>);
    add({key<&P::microbatch>(), "mb"}, degree<&Layout::microbatch>);
    add({key<&P::recompute>(), "recompute"}, [](const Plan &p, std::size_t, i64) {
      const Layout &l = p.estimate.layout;
      return ReportCell{io::name_of(l.recompute) + recompute_modules_label(l),
                        static_cast<double>(l.recompute)};
    });
  }
  if (orders)
    add({key<&P::order>(), "order"}, [](const Plan &p, std::size_t i, i64) {
      const std::string o = order_label(p.estimate.layout);
      return ReportCell{o.empty() ? "tp-cp-dp-pp" : o, static_cast<double>(i + 1)};
    });
  const std::size_t layout_end = defs.size();
  if (train) {
    add({"step", "step", U::seconds, B::lower}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.has_time ? p.estimate.time.step : p.objective;
      return ReportCell{format_value(v, Unit::seconds), v};
    });
    add({"mfu", "MFU", U::percent, B::higher}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.throughput.mfu;
      return ReportCell{format_value(v, Unit::percent), v};
    });
  } else {
    add({"tpot", "TPOT", U::seconds, B::lower}, [](const Plan &p, std::size_t, i64) {
      return ReportCell{format_value(p.objective, Unit::seconds), p.objective};
    });
    add({"tokens_per_s", "tokens/s", U::count, B::higher}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.serving.decode.tokens_per_s;
      return ReportCell{format_value(v, Unit::count), v};
    });
  }
  if (to_train)
    add({"to_train", "to train", U::duration, B::lower}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.time_to_train;
      return ReportCell{format_value(v, Unit::duration), v};
    });
  if (cost)
    add({"cost", "cost", U::dollars, B::lower}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.cost_to_train;
      return ReportCell{format_value(v, Unit::dollars), v};
    });
  // energy: to train the token budget, else per token (docs/formulas.md "Energy")
  if (energy && to_train)
    add({"energy", "MWh", U::plain, B::lower}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.energy.mwh_to_train;
      return ReportCell{units::format(v >= 100 ? "%.0f" : "%.3g", v), v};
    });
  else if (energy)
    add({"energy", "J/token", U::plain, B::lower}, [](const Plan &p, std::size_t, i64) {
      const double v = p.estimate.energy.joules_per_token;
      return ReportCell{units::format("%.3g", v), v};
    });
  add({"memory", "memory", U::bytes, B::lower}, [](const Plan &p, std::size_t, i64) {
    const double v = p.estimate.memory.total;
    return ReportCell{format_value(v, Unit::bytes), v};
  });
  std::rotate(defs.begin() + static_cast<std::ptrdiff_t>(outcomes_at),
              defs.begin() + static_cast<std::ptrdiff_t>(layout_end), defs.end());
  add({"why", "why"}, [](const Plan &p, std::size_t i, i64) {
    return ReportCell{p.why, static_cast<double>(i + 1)};
  });
  for (const Def &d : defs)
    t.columns.push_back(d.col);
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    ReportLine row;
    for (const Def &d : defs)
      row.cells.push_back(d.cell(r.plans[i], i, c.model.layers));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string layout_label(const Layout &l, i64 layers) {
  std::string out = "dp" + std::to_string(l.dp);
  out += " tp" + std::to_string(l.tp);
  out += " pp" + pp_label(l, layers);
  if (l.vpp > 1)
    out += " v" + std::to_string(l.vpp);
  if (l.ep > 1)
    out += " ep" + std::to_string(l.ep);
  out += " z" + std::to_string(l.zero);
  return out;
}

ReportTable choice_table(const Config &c, const JointPlanResult &r) {
  ReportTable t;
  t.columns = {{"rank", "#"},
               {"hardware", "hardware"},
               {"cluster", "cluster"},
               {"devices", "devices", Unit::count},
               {"layout", "layout"},
               {"step", "step", Unit::seconds, Better::lower},
               {"mfu", "MFU", Unit::percent, Better::higher},
               {"to_train", "to train", Unit::duration, Better::lower},
               {"cost", "cost", Unit::dollars, Better::lower},
               {"energy", "MWh", Unit::plain, Better::lower},
               {"deadline", "deadline"}};
  for (std::size_t i = 0; i < r.choices.size(); ++i) {
    const ChoicePlan &x = r.choices[i];
    const auto rank = static_cast<double>(i + 1);
    ReportLine line;
    std::vector<ReportCell> &row = line.cells;
    row = {{std::to_string(i + 1), rank},
           {x.hardware, rank},
           {x.cluster, rank},
           {std::to_string(x.devices), static_cast<double>(x.devices)}};
    if (x.result.plans.empty()) {
      row.push_back({"no layout fits", rank});
      for (int k = 0; k < 6; ++k)
        row.push_back({"-", 0});
    } else {
      const Estimate &e = x.result.plans.front().estimate;
      row.push_back({layout_label(e.layout, c.model.layers), rank});
      row.push_back({format_value(e.time.step, Unit::seconds), e.time.step});
      row.push_back({format_value(e.throughput.mfu, Unit::percent), e.throughput.mfu});
      row.push_back({x.time_to_train > 0 ? format_value(x.time_to_train, Unit::duration) : "-",
                     x.time_to_train});
      const std::string cost = e.cost_to_train > 0 ? format_value(e.cost_to_train, Unit::dollars)
                               : e.cost_per_hour > 0
                                   ? format_value(e.cost_per_hour, Unit::dollars) + "/h"
                                   : "no price";
      row.push_back({cost, e.cost_to_train > 0 ? e.cost_to_train : e.cost_per_hour});
      const double mwh = e.energy.mwh_to_train;
      row.push_back({mwh > 0 ? units::format(mwh >= 100 ? "%.0f" : "%.3g", mwh) : "-", mwh});
      row.push_back({r.deadline <= 0 ? "" : x.meets_deadline ? "meets" : "misses", rank});
    }
    t.rows.push_back(std::move(line));
  }
  return t;
}

} // namespace rl
