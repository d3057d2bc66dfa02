#include "core/parallel/knobs.hpp"

#include "core/error.hpp"
#include "core/schema/fields.hpp"

#include <algorithm>

namespace rl {

const std::vector<KnobInfo> &knobs() {
  static const std::vector<KnobInfo> t = [] {
    using P = ParallelSpec;
    using schema::parallel_key;
    // Each key is the schema row's (core/schema/fields), named here by its member.
    const char *tp = parallel_key<&P::tp>(), *pp = parallel_key<&P::pp>(),
               *vpp = parallel_key<&P::vpp>(), *cp = parallel_key<&P::cp>(),
               *dp = parallel_key<&P::dp>(), *ep = parallel_key<&P::ep>();
    const char *first = parallel_key<&P::first_stage_layers>(),
               *last = parallel_key<&P::last_stage_layers>(),
               *uneven = parallel_key<&P::uneven_pp>(), *sched = parallel_key<&P::pp_schedule>(),
               *kind = parallel_key<&P::cp_kind>(), *ulysses = parallel_key<&P::ulysses>();
    const char *moe_tp = parallel_key<&P::moe_tp>(), *zero = parallel_key<&P::zero>(),
               *mb = parallel_key<&P::microbatch>(), *rc = parallel_key<&P::recompute>(),
               *order = parallel_key<&P::order>(), *sp = parallel_key<&P::sp>();
    const char *rc_norm = parallel_key<&P::recompute_norm>(),
               *rc_mla = parallel_key<&P::recompute_mla_up>(),
               *rc_moe = parallel_key<&P::recompute_moe_act>();
    return std::vector<KnobInfo>{
        {tp, "tp", false, false, false, {tp}, {tp, sp, dp}},
        {pp, "pp", false, false, false, {pp}, {pp, sched, uneven, first, last, dp}},
        {"stage split",
         "stage split",
         false,
         false,
         false,
         {first, last, uneven},
         {uneven, first, last}},
        {vpp, "vpp", true, false, false, {vpp}, {vpp, sched}},
        {cp, "cp", false, false, false, {cp}, {cp, ulysses, dp}},
        {kind, "cp kind", false, false, false, {kind}, {kind, ulysses}},
        {ep, "ep", false, true, false, {ep}, {ep}},
        {moe_tp, "expert tp", true, true, false, {moe_tp}, {moe_tp}},
        {zero, "ZeRO", true, false, false, {zero}, {zero}},
        {mb, "micro-batch", true, false, false, {mb}, {mb}},
        // freeing recompute frees its modules too: the search picks them with it
        {rc, "recompute", true, false, false, {rc}, {rc, rc_norm, rc_mla, rc_moe}},
        {order, "order", false, false, false, {order}, {order}},
        {dp, "dp", false, false, true, {dp}, {dp}},
    };
  }();
  return t;
}

const KnobInfo *knob_named(std::string_view name) {
  for (const KnobInfo &k : knobs())
    if (name == k.name)
      return &k;
  return nullptr;
}

bool knob_applies(const KnobInfo &k, const Config &c) {
  return (!k.train_only || c.workload.mode == Mode::train) && (!k.moe_only || c.model.moe);
}

bool parallel_has(const ParallelSpec &p, std::string_view key) {
  const auto *f = schema::parallel_field(key);
  return f && f->has(p);
}

bool knob_pinned(const KnobInfo &k, const ParallelSpec &p) {
  return std::any_of(k.pins.begin(), k.pins.end(),
                     [&](const char *key) { return parallel_has(p, key); });
}

void free_knob(const KnobInfo &k, ParallelSpec &p) {
  for (const char *key : k.frees)
    if (const auto *f = schema::parallel_field(key))
      f->reset(p);
}

std::vector<const KnobInfo *> knobs_in_list(std::string_view list, const Config &c,
                                            const std::string &path) {
  std::vector<const KnobInfo *> out;
  if (list == "all") {
    for (const KnobInfo &k : knobs())
      if (!k.derived && knob_applies(k, c))
        out.push_back(&k);
    return out;
  }
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string_view name = list.substr(at, end - at);
    at = end + 1;
    const KnobInfo *k = knob_named(name);
    if (!k) {
      std::string names = "all";
      for (const KnobInfo &x : knobs())
        names += std::string(", ") + x.name;
      throw ConfigError(path, "\"" + std::string(name) + "\" is not a knob (" + names + ")");
    }
    if (knob_applies(*k, c) && std::find(out.begin(), out.end(), k) == out.end())
      out.push_back(k);
  }
  return out;
}

std::vector<const KnobInfo *> free_knobs(Config &c, std::string_view list,
                                         const std::string &path) {
  const std::vector<const KnobInfo *> freed = knobs_in_list(list, c, path);
  for (const KnobInfo *k : freed)
    free_knob(*k, c.parallel);
  return freed;
}

std::vector<i64> tp_candidates(const ClusterSpec &c, i64 devices) {
  const i64 cap = c.topology == Topology::switched ? std::max<i64>(c.nvlink_devices(), 1) : 16;
  std::vector<i64> out;
  for (i64 t = 1; t <= std::min(devices, cap); t *= 2)
    out.push_back(t);
  return out;
}

} // namespace rl
