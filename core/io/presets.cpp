#include "core/io/presets.hpp"

#include "core/schema/suggest.hpp"

#include "core/error.hpp"
#include "core/io/json_reader.hpp"

#include <algorithm>

namespace rl::io {

// Defined in the generated presets_data.cpp.
extern const std::vector<PresetEntry> &embedded_presets();

const std::vector<PresetEntry> &preset_entries() {
  return embedded_presets();
}

std::vector<std::string> preset_names(const std::string &kind) {
  std::vector<std::string> out;
  for (const auto &e : preset_entries())
    if (e.kind == kind)
      out.push_back(e.name);
  std::sort(out.begin(), out.end());
  return out;
}

bool is_preset(const std::string &kind, const std::string &name) {
  for (const auto &e : preset_entries())
    if (e.kind == kind && e.name == name)
      return true;
  return false;
}

nlohmann::json preset_json(const std::string &kind, const std::string &name,
                           const std::string &path) {
  for (const auto &e : preset_entries())
    if (e.kind == kind && e.name == name) {
      try {
        return nlohmann::json::parse(e.text);
      } catch (const nlohmann::json::parse_error &err) {
        throw ConfigError(path, "preset " + kind + " \"" + name +
                                    "\" is malformed: " + plain_json_message(err.what()));
      }
    }
  std::string known;
  for (const auto &n : preset_names(kind))
    known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(path, "unknown " + kind + " preset \"" + name + "\"" +
                              schema::did_you_mean(name, preset_names(kind)) + " (known: " + known +
                              ")");
}

} // namespace rl::io
