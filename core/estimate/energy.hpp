// ridgeline estimate: power drawn and energy used (docs/formulas.md "Energy"). Each device
// draws hardware.load_power_fraction of its board power and of its share of the server
// (cluster.host_power_w), capped by workload.power_cap_w; the facility adds cluster.pue.
#pragma once

#include "core/config.hpp"

namespace rl {

// A power cap's effect on one GPU: its draw and its clock relative to the uncapped one.
struct PowerState {
  double device_w = 0; // the accelerator's average draw (W)
  double host_w = 0;   // its share of the server's other parts (W)
  double clock = 1;    // relative clock (1: uncapped)
  bool capped = false;
  double it_w() const { return device_w + host_w; }
};
// hardware.power_w x load_power_fraction, or the cap when below it: the clock falls as
// (cap / load power)^(1 / power_clock_exponent). power_w 0: nothing known (zeros, clock 1).
PowerState power_state(const HardwareSpec &hw, const ClusterSpec &cl, double cap_w);

// The configuration as it runs under workload.power_cap_w: the chip's compute peaks scaled by
// the capped clock (HBM and links unchanged), once (hardware.capped_clock records it).
Config at_power_cap(const Config &c);

// Energy of a workload that keeps `devices` busy for `seconds` and produces `tokens`.
struct EnergyUse {
  double facility_w = 0;       // the job's draw at the facility meter (IT x PUE), W
  double joules_per_token = 0; // at the facility meter
  double kwh = 0;              // of those seconds
  double cost = 0;             // at cluster.energy_price_per_kwh
};
EnergyUse energy_use(const PowerState &p, const ClusterSpec &cl, double devices, double seconds,
                     double tokens);

} // namespace rl
