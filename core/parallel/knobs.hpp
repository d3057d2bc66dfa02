// ridgeline parallel: the layout's knobs, once. Each knob has the name the planner reports it
// by, the page's label, when it applies (training only, MoE only), the parallel.* keys that pin
// it (the stage split: any of three) and the keys a search that frees it resets: the knob and
// what follows it (dp follows tp, pp and cp; Megatron-SP follows tp; the schedule follows pp
// and vpp; the Ulysses degree follows cp and its kind). The planner's free-knob list, the
// page's search toggles and its layout repair all read this table.
#pragma once

#include "core/config.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rl {

struct KnobInfo {
  const char *name;  // the planner's name (PlanResult::free_knobs, `ridgeline plan`)
  const char *label; // the page's
  bool train_only = false, moe_only = false;
  bool derived = false;           // dp: follows the others, never searched on its own
  std::vector<const char *> pins; // parallel keys that pin it; the first holds its value
  std::vector<const char *> frees;
};

// In the order the planner and the page list them.
const std::vector<KnobInfo> &knobs();

// The tensor-parallel degrees a search tries on a cluster, for at most `devices` devices:
// powers of two within one NVLink domain (a node, or a rack's domain such as NVL72), on a
// torus up to 16 chips. The layout planner and the serving planner both take them from here.
std::vector<i64> tp_candidates(const ClusterSpec &c, i64 devices);
const KnobInfo *knob_named(std::string_view name);

// Whether a knob means anything for this configuration (vpp and ZeRO only when training,
// ep only for an MoE model).
bool knob_applies(const KnobInfo &k, const Config &c);

// Whether p sets parallel.<key> (a row of core/schema/fields parallel_fields()).
bool parallel_has(const ParallelSpec &p, std::string_view key);
// Whether the configuration pins the knob.
bool knob_pinned(const KnobInfo &k, const ParallelSpec &p);
// Resets the knob and what follows it, for a search that should choose them.
void free_knob(const KnobInfo &k, ParallelSpec &p);

// The knobs a list names: "all" (every knob that applies to c, dp aside: it follows the
// others) or comma-separated knob names ("tp,pp,stage split"). A name that is no knob is a
// ConfigError at `path` listing the names; a named knob that does not apply to c (ep on a
// dense model, vpp when serving) is left out, as the page's free= link does.
std::vector<const KnobInfo *> knobs_in_list(std::string_view list, const Config &c,
                                            const std::string &path);
// Frees the knobs `list` names in c.parallel (free_knob on each): what `ridgeline plan
// --free` and the page's "free all" search. Returns the knobs freed.
std::vector<const KnobInfo *> free_knobs(Config &c, std::string_view list,
                                         const std::string &path = "--free");

} // namespace rl
