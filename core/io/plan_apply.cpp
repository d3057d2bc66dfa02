#include "core/io/plan_apply.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/parallel/layout.hpp"
#include "core/schema/fields.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace rl::io {

using json = nlohmann::json;

json applied_parallel(const Config &c, const Plan &plan, const json &current) {
  const json full = to_json(plan.parallel);
  const Layout &l = plan.estimate.layout;
  const json cur = current.is_object() ? current : json::object();
  using P = ParallelSpec;
  using schema::parallel_key;
  std::vector<std::string> keep = {parallel_key<&P::tp>(), parallel_key<&P::pp>(),
                                   parallel_key<&P::cp>()};
  if (l.pp > 1)
    keep.push_back(parallel_key<&P::vpp>());
  if (l.cp > 1) {
    keep.push_back(parallel_key<&P::cp_kind>());
    keep.push_back(parallel_key<&P::ulysses>());
  }
  if (c.model.moe)
    keep.push_back(parallel_key<&P::ep>());
  if (c.workload.mode == Mode::train)
    for (const char *k :
         {parallel_key<&P::zero>(), parallel_key<&P::microbatch>(), parallel_key<&P::recompute>()})
      keep.push_back(k);
  json out = json::object();
  for (const auto &[k, v] : full.items())
    if (cur.contains(k) || std::find(keep.begin(), keep.end(), k) != keep.end())
      out[k] = v;
  const auto layout_of = [&](const json &par) {
    Config x = c;
    x.parallel = parse_parallel(par, "parallel");
    return to_json(resolve_layout(x));
  };
  try {
    // the other knobs the plan set that make its layout (a rank order, a stage split, the
    // recomputed modules), each only where it changes what the short form resolves to
    const json target = layout_of(full);
    for (const auto &[k, v] : full.items()) {
      if (out.contains(k))
        continue;
      const json before = layout_of(out);
      if (before == target)
        break;
      json with = out;
      with[k] = v;
      if (layout_of(with) != before)
        out = std::move(with);
    }
    if (layout_of(out) != target)
      out = full;
  } catch (const ConfigError &) {
    out = full; // the short form is not a legal layout on its own
  }
  return out;
}

} // namespace rl::io
