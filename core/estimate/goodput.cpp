#include "core/estimate/goodput.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

double young_interval(double delta, double mtbf) {
  return std::sqrt(2 * delta * mtbf);
}

double daly_interval(double delta, double mtbf) {
  if (delta >= 2 * mtbf)
    return mtbf;
  const double x = delta / (2 * mtbf);
  return std::sqrt(2 * delta * mtbf) * (1 + std::sqrt(x) / 3 + x / 9) - delta;
}

double daly_wall_time(double work, double tau, double delta, double restart, double mtbf) {
  if (tau <= 0)
    return work;
  if (mtbf <= 0)
    return work * (tau + delta) / tau;
  // in logs: e^{(tau + delta)/M} overflows long before the ratio stops meaning something
  const double log_wall = std::log(mtbf) + restart / mtbf +
                          std::log(std::expm1((tau + delta) / mtbf)) + std::log(work / tau);
  // capped at e^600 (1e260): a run that never progresses stays a finite, printable number
  return std::exp(std::min(log_wall, 600.0));
}

Resilience resilience(const Config &c, double devices, double trained_params, double work_s) {
  const CheckpointSpec &k = c.workload.checkpoint;
  Resilience r;
  r.checkpoint_bytes = trained_params * kCheckpointBytesPerParam;
  const double shard = r.checkpoint_bytes / devices;
  r.write_s = shard / k.write_bw;
  if (k.async) {
    if (c.cluster.host_bw <= 0)
      throw ConfigError("workload.checkpoint.async",
                        "copies the checkpoint to host memory first: it needs cluster.host_bw");
    r.blocking_s = shard / c.cluster.host_bw;
  } else {
    r.blocking_s = r.write_s;
  }
  // an interruption during an async write loses that checkpoint: the one before it restarts
  r.restart_s = k.restart_s + (k.async ? r.write_s : 0.0);
  const double rate = c.cluster.interruptions_per_gpu_hour * devices / 3600; // per second
  r.mtbf_s = rate > 0 ? 1 / rate : 0;
  if (k.interval_s > 0)
    r.interval_s = k.interval_s;
  else if (r.mtbf_s > 0)
    r.interval_s = daly_interval(r.blocking_s, r.mtbf_s);
  // an async save waits for the previous one's write
  if (r.interval_s > 0 && k.async)
    r.interval_s = std::max(r.interval_s, r.write_s);
  r.wall_s = r.interval_s > 0
                 ? daly_wall_time(work_s, r.interval_s, r.blocking_s, r.restart_s, r.mtbf_s)
                 : work_s;
  r.goodput = r.wall_s > 0 ? std::max(1e-12, work_s / r.wall_s) : 1;
  r.interruptions = rate * r.wall_s;
  return r;
}

} // namespace rl
