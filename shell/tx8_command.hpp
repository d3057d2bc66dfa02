// ridgeline shell: `ridgeline tx8 CFG [--json] [--presets]`, the tx8 mapping of one operator
// or a whole STDiT3 video request on a die mesh, as tables or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

namespace rl::shell {

// Maps `config` (mode tx8-op or video) and prints the per-operator table, the totals, the
// communication table, the scheme comparison (video) and, with compare_presets,
// LLMPerf-for-TiledArch's preset tilings next to the searched ones; json_out prints the JSON of
// core/io/tx8_json. Returns 0; bad input throws rl::ConfigError (the caller prints it and exits 2).
int run_tx8(const nlohmann::json &config, bool json_out, bool compare_presets, std::ostream &out);

// The command's --help text.
extern const char *const kTx8Help;

} // namespace rl::shell
