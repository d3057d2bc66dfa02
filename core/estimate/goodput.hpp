// ridgeline estimate: interruptions and checkpoints of a training run (docs/formulas.md
// "Failures and checkpoints"): the checkpoint's size and write time, Young's and Daly's
// optimal intervals, and the expected wall time of the work under exponential interruptions.
#pragma once

#include "core/config.hpp"

namespace rl {

// Young 1974 (CACM 17(9)): tau = sqrt(2 delta M), delta the checkpoint's cost, M the mean time
// between interruptions.
double young_interval(double delta, double mtbf);
// Daly 2006 (FGCS 22(3)) eq. 37: sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + delta / 18M] -
// delta for delta < 2M, else M.
double daly_interval(double delta, double mtbf);
// Daly 2006 (its complete model): the expected wall time of `work` seconds of steps checkpointed
// every tau (each costing delta), restarting in R after each interruption, interruptions
// exponential with mean M: M e^{R/M} (e^{(tau + delta)/M} - 1) work / tau. M <= 0: none (work (tau
// + delta) / tau).
double daly_wall_time(double work, double tau, double delta, double restart, double mtbf);

// Bytes a checkpoint holds per trained parameter: its bf16 weight and the fp32 master and Adam
// moments (Megatron-LM's torch_dist save of the model and the distributed optimizer).
constexpr double kCheckpointBytesPerParam = 2 + 12;

struct Resilience {
  double checkpoint_bytes = 0; // the whole job's
  double write_s = 0;          // one checkpoint's write, every device its shard in parallel
  double blocking_s = 0;       // what one costs the steps (sync: the write; async: the copy)
  double interval_s = 0;       // between checkpoints (0: none taken)
  double mtbf_s = 0;           // the job's mean time between interruptions (0: none)
  double restart_s = 0;        // after an interruption, with the lost write of an async save
  double goodput = 1;          // the share of wall time spent on steps that count
  double wall_s = 0;           // the expected wall time of `work_s` of steps
  double interruptions = 0;    // expected over that wall time
};
// `work_s` of steps on `devices` that train `trained_params` parameters (workload.checkpoint,
// cluster.interruptions_per_gpu_hour). ConfigError at workload.checkpoint.async when an async
// save has no cluster.host_bw to copy at.
Resilience resilience(const Config &c, double devices, double trained_params, double work_s);

} // namespace rl
