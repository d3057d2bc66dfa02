// ridgeline io: the presets compiled into the library (presets/<kind>/<name>.json,
// embedded by cmake/embed_presets.cmake), so the CLI and the page resolve the same names
// without touching the file system.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rl::io {

struct PresetEntry {
  std::string kind; // model | hardware | cluster | scenario
  std::string name; // file stem: "llama3-70b"
  std::string text; // the JSON text
};

const std::vector<PresetEntry> &preset_entries();

// The parsed preset; throws ConfigError at `path` naming the known presets when missing.
nlohmann::json preset_json(const std::string &kind, const std::string &name,
                           const std::string &path);

// Names of one kind, sorted.
std::vector<std::string> preset_names(const std::string &kind);
// Is there a preset of this kind and name?
bool is_preset(const std::string &kind, const std::string &name);

} // namespace rl::io
