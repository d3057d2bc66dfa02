// ridgeline: how sure a predicted step time, and a predicted difference between two layouts,
// is. Each step-time component carries its own band: compute, the pipeline bubble and the
// optimizer the chip's (hardware.time_uncertainty, widened to fp8_uncertainty for FP8/FP4),
// exposed communication the links' (Link::uncertainty). A difference between two layouts
// carries each component's band on that component's difference only (a model error common
// to both layouts moves both alike), added in quadrature (docs/formulas.md "Bands of a
// plan").
#pragma once

#include "core/config.hpp"
#include "core/time/step_time.hpp"

namespace rl {

struct ComponentBands {
  double compute = 0; // relative, on compute, recompute, bubble and optimizer time
  double comm = 0;    // relative, on exposed communication
};
ComponentBands component_bands(const Config &c);
// Two layouts compared: each component at the wider of their two bands.
ComponentBands wider(const ComponentBands &a, const ComponentBands &b);

// The band of one step time (s): sqrt((u_c (compute + bubble + optimizer))^2 + (u_comm
// comm_exposed)^2).
double step_band(const StepTime &t, const ComponentBands &u);

// b's step time less a's, with its band and the component that decides it.
struct StepDifference {
  double delta = 0;          // s; > 0: a is faster
  double band = 0;           // s
  const char *deciding = ""; // the component whose difference is largest
  double deciding_delta = 0; // s, that component's b - a
  bool beyond_band() const { return delta > band || -delta > band; }
};
StepDifference step_difference(const StepTime &a, const StepTime &b, const ComponentBands &u);

} // namespace rl
