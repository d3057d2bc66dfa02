#include "core/estimate/step_band.hpp"

#include "core/estimate/estimate.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

ComponentBands component_bands(const Config &c) {
  ComponentBands u;
  u.compute = time_band(c);
  const ClusterSpec &k = c.cluster;
  switch (k.topology) {
  case Topology::switched:
    u.comm = k.inter_node.bw > 0 ? std::max(k.intra_node.uncertainty, k.inter_node.uncertainty)
                                 : k.intra_node.uncertainty;
    break;
  case Topology::torus:
    u.comm = k.slices > 1 ? std::max(k.ici.uncertainty, k.dcn.uncertainty) : k.ici.uncertainty;
    break;
  case Topology::mesh:
    u.comm = k.d2d.uncertainty;
    break;
  }
  return u;
}

ComponentBands wider(const ComponentBands &a, const ComponentBands &b) {
  return {std::max(a.compute, b.compute), std::max(a.comm, b.comm)};
}

double step_band(const StepTime &t, const ComponentBands &u) {
  const double compute = u.compute * (t.compute + t.host + t.bubble + t.optimizer);
  const double comm = u.comm * t.comm_exposed;
  return std::sqrt(compute * compute + comm * comm);
}

StepDifference step_difference(const StepTime &a, const StepTime &b, const ComponentBands &u) {
  struct Part {
    const char *name;
    double delta, band;
  };
  const Part parts[] = {{"compute", b.compute - a.compute, u.compute},
                        {"exposed communication", b.comm_exposed - a.comm_exposed, u.comm},
                        {"waiting for the host", b.host - a.host, u.compute},
                        {"pipeline bubble", b.bubble - a.bubble, u.compute},
                        {"optimizer", b.optimizer - a.optimizer, u.compute}};
  StepDifference d;
  d.delta = b.step - a.step;
  // the deciding component: the largest difference in the direction of the total
  const double sign = d.delta < 0 ? -1.0 : 1.0;
  double var = 0;
  for (const Part &p : parts) {
    var += (p.band * p.delta) * (p.band * p.delta);
    if (sign * p.delta > sign * d.deciding_delta) {
      d.deciding = p.name;
      d.deciding_delta = p.delta;
    }
  }
  d.band = std::sqrt(var);
  return d;
}

} // namespace rl
