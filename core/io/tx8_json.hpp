// ridgeline io: a tx8 result (`ridgeline tx8 --json`, the page's tx8(json)) as JSON.
// Seconds, bytes, FLOPs. Keys: ops[] {name, type, shape, tiling, latency, compute_time,
// dram_time, noc_time, dram_bytes, flops, utilization, ...}, total.{latency, per_step, ...},
// comm[] {kind, bytes_per_die, time, ...}, and for a video request video, parallel,
// schemes[], presets, search.
#pragma once

#include "core/tx8/request.hpp"

#include <nlohmann/json.hpp>

namespace rl::io {

nlohmann::json to_json(const tx8::OpMapping &m);
nlohmann::json to_json(const tx8::Tx8Result &r);

} // namespace rl::io
