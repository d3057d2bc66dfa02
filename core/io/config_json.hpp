// ridgeline io: the JSON configuration (the README's schema) <-> core::Config.
// Every error is a ConfigError naming the JSON path; unknown fields and wrong types are
// errors. Preset names are resolved here; an object may start from a preset with
// "base": "<name>" and override fields.
#pragma once

#include "core/config.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace rl::io {

using json = nlohmann::json;

// Parses text; a syntax error becomes ConfigError with path "" and the byte position.
json parse_json_text(const std::string &text);

Config parse_config(const json &j);
ModelSpec parse_model(const json &j, const std::string &path);
ModelSpec model_from_hf_config(const json &hf, const std::string &path);
// The part of a config.json that model_from_hf_config reads (the rest, such as token ids or
// transformers_version, left out), so a pasted config travels in a short URL.
json hf_config_used(const json &hf);
HardwareSpec parse_hardware(const json &j, const std::string &path);
ClusterSpec parse_cluster(const json &j, const std::string &path);
// A serving engine (workload.engine): a preset of presets/engines ("vllm", "vllm@VERSION") or
// an object that may start from one ("base"). Its "scheduler" object (the engine's own
// defaults: max_batch, max_tokens, chunk, ...) is read into *scheduler when given, before the
// configuration's workload.scheduler, which therefore wins.
EngineSpec parse_engine(const json &j, const std::string &path, ServeSpec *scheduler = nullptr);
WorkloadSpec parse_workload(const json &j, const std::string &path);
ParallelSpec parse_parallel(const json &j, const std::string &path);

// A scenario preset name (string) or a config object -> the config object.
json expand_scenario(const json &j);
// A serving workload is driven by one load: the key just given (concurrency or request_rate)
// replaces the other, so an override of a scenario's load, or a page edit, never leaves both.
void keep_one_load(json &workload, const std::string &given);
// A workload patch over a scenario: the other load's null beside the one given dropped (the
// given one replaces it by itself, keep_one_load), so a link holds concurrency=64 alone.
void drop_replaced_load(json &workload_patch);
// workload.mode as a configuration object writes it ("" when it names none or is malformed).
std::string workload_mode_of(const json &config);

// The fully resolved configuration (presets expanded, defaults filled): what the core sees.
json to_json(const Config &c);
json to_json(const ModelSpec &m);
json to_json(const HardwareSpec &h);
json to_json(const ClusterSpec &c);
json to_json(const WorkloadSpec &w);
json to_json(const ParallelSpec &p);

// Enum names, shared by the parser, the printer and the UI.
const char *name_of(Mode m);
const char *name_of(Dtype d);
const char *name_of(CpKind k);
const char *name_of(Recompute r);
const char *name_of(PpSchedule s);
const char *name_of(SpKind s);
const char *name_of(Norm n);
const char *name_of(HardwareKind k);
const char *name_of(Topology t);
const char *name_of(ModelFamily f);
const char *name_of(ServingBound b);
const char *name_of(KvSharding k);
const char *name_of(LengthDist d);
const char *name_of(SchedulerPolicy p);

} // namespace rl::io
