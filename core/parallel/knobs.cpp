#include "core/parallel/knobs.hpp"

#include <algorithm>

namespace rl {

namespace {

// The optional layout keys, by name (parse_parallel reads them; absent = the planner's).
struct ParallelKey {
  const char *key;
  bool (*has)(const ParallelSpec &);
  void (*reset)(ParallelSpec &);
};
template <auto M> bool has(const ParallelSpec &p) {
  return (p.*M).has_value();
}
template <auto M> void reset(ParallelSpec &p) {
  (p.*M).reset();
}
template <auto M> ParallelKey key(const char *name) {
  return {name, has<M>, reset<M>};
}
using P = ParallelSpec;
const std::vector<ParallelKey> &parallel_keys() {
  static const std::vector<ParallelKey> t = {
      key<&P::dp>("dp"),
      key<&P::tp>("tp"),
      key<&P::pp>("pp"),
      key<&P::vpp>("vpp"),
      key<&P::cp>("cp"),
      key<&P::ulysses>("ulysses"),
      key<&P::ep>("ep"),
      key<&P::zero>("zero"),
      key<&P::microbatch>("microbatch"),
      key<&P::cp_kind>("cp_kind"),
      key<&P::sp>("sp"),
      key<&P::uneven_pp>("uneven_pp"),
      key<&P::first_stage_layers>("first_stage_layers"),
      key<&P::last_stage_layers>("last_stage_layers"),
      key<&P::order>("order"),
      key<&P::recompute>("recompute"),
      key<&P::pp_schedule>("pp_schedule"),
  };
  return t;
}

const ParallelKey *find_key(std::string_view k) {
  for (const ParallelKey &p : parallel_keys())
    if (k == p.key)
      return &p;
  return nullptr;
}

} // namespace

const std::vector<KnobInfo> &knobs() {
  static const std::vector<KnobInfo> t = {
      {"tp", "tp", false, false, false, {"tp"}, {"tp", "sp", "dp"}},
      {"pp",
       "pp",
       false,
       false,
       false,
       {"pp"},
       {"pp", "pp_schedule", "uneven_pp", "first_stage_layers", "last_stage_layers", "dp"}},
      {"stage split",
       "stage split",
       false,
       false,
       false,
       {"first_stage_layers", "last_stage_layers", "uneven_pp"},
       {"uneven_pp", "first_stage_layers", "last_stage_layers"}},
      {"vpp", "vpp", true, false, false, {"vpp"}, {"vpp", "pp_schedule"}},
      {"cp", "cp", false, false, false, {"cp"}, {"cp", "ulysses", "dp"}},
      {"cp_kind", "cp kind", false, false, false, {"cp_kind"}, {"cp_kind", "ulysses"}},
      {"ep", "ep", false, true, false, {"ep"}, {"ep"}},
      {"zero", "ZeRO", true, false, false, {"zero"}, {"zero"}},
      {"microbatch", "micro-batch", true, false, false, {"microbatch"}, {"microbatch"}},
      {"recompute", "recompute", true, false, false, {"recompute"}, {"recompute"}},
      {"order", "order", false, false, false, {"order"}, {"order"}},
      {"dp", "dp", false, false, true, {"dp"}, {"dp"}},
  };
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
  const ParallelKey *k = find_key(key);
  return k && k->has(p);
}

bool knob_pinned(const KnobInfo &k, const ParallelSpec &p) {
  return std::any_of(k.pins.begin(), k.pins.end(),
                     [&](const char *key) { return parallel_has(p, key); });
}

void free_knob(const KnobInfo &k, ParallelSpec &p) {
  for (const char *key : k.frees)
    if (const ParallelKey *pk = find_key(key))
      pk->reset(p);
}

} // namespace rl
