#include "core/estimate/energy.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

PowerState power_state(const HardwareSpec &hw, const ClusterSpec &cl, double cap_w) {
  PowerState p;
  if (hw.power_w <= 0)
    return p;
  const double load = hw.power_w * hw.load_power_fraction;
  p.device_w = load;
  p.host_w = cl.host_power_w * hw.load_power_fraction;
  if (cap_w > 0 && cap_w < load) {
    // dynamic power ~ f V^2, V ~ f in the DVFS range: P ~ f^k (docs/formulas.md "Energy")
    p.clock = std::pow(cap_w / load, 1 / hw.power_clock_exponent);
    p.device_w = cap_w;
    p.capped = true;
  }
  return p;
}

Config at_power_cap(const Config &c) {
  Config out = c;
  const PowerState p = power_state(c.hardware, c.cluster, c.workload.power_cap_w);
  if (!p.capped || c.hardware.capped_clock != 1)
    return out;
  HardwareSpec &hw = out.hardware;
  for (double *peak :
       {&hw.peak.bf16, &hw.peak.fp8, &hw.peak.int8, &hw.peak.int4, &hw.peak.fp32, &hw.peak.fp4})
    *peak *= p.clock;
  hw.capped_clock = p.clock;
  return out;
}

EnergyUse energy_use(const PowerState &p, const ClusterSpec &cl, double devices, double seconds,
                     double tokens) {
  EnergyUse e;
  e.facility_w = p.it_w() * devices * cl.pue;
  const double joules = e.facility_w * seconds;
  e.kwh = joules / 3.6e6;
  e.joules_per_token = tokens > 0 ? joules / tokens : 0;
  e.cost = e.kwh * cl.energy_price_per_kwh;
  return e;
}

} // namespace rl
