// Shared helpers for the Catch2 suite: build configurations from JSON text.
#pragma once

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/io/config_json.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace rl::test {

inline ModelSpec model(const std::string &preset) {
  return io::parse_model(nlohmann::json(preset), "model");
}
inline ModelSpec model_json(const char *text) {
  return io::parse_model(nlohmann::json::parse(text), "model");
}
inline Config config(const char *text) {
  return io::parse_config(nlohmann::json::parse(text));
}

// A serving configuration of Llama-3 8B on H100 with the given workload, layout and cluster
// (one instance of tp 2 on two GPUs by default).
inline Config serve_config(const std::string &workload,
                           const std::string &parallel = R"({"tp": 2})",
                           const std::string &cluster = R"({"base": "dgx-h100", "devices": 2})",
                           const std::string &model = "llama3-8b") {
  return io::parse_config(nlohmann::json::parse(
      R"({"model": ")" + model + R"(", "hardware": "h100-sxm", "cluster": )" + cluster +
      R"(, "workload": )" + workload + R"(, "parallel": )" + parallel + "}"));
}

// The ConfigError a callable throws, as "path: message" ("" when it does not throw).
template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const ConfigError &e) {
    return e.path() + ": " + e.message();
  }
  return "";
}

// A GPT-style block (Korthikanti et al. 2022): bias, layernorm, plain GeLU MLP with f = 4h, MHA,
// dropout.
inline ModelSpec gpt(i64 L, i64 h, i64 a, i64 v) {
  ModelSpec m;
  m.name = "gpt";
  m.layers = L;
  m.hidden = h;
  m.ffn = 4 * h;
  m.heads = a;
  m.kv_heads = a;
  m.head_dim = h / a;
  m.vocab = v;
  m.gated_mlp = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.norm = Norm::layernorm;
  m.dropout = true;
  return m;
}

#ifndef __EMSCRIPTEN__ // (the WASM suite has no file system)
// The rows of a CSV file of the repository (a path from its root), header left out, each
// split at its commas (the measured-data files of docs/data have no quoted fields).
inline std::vector<std::vector<std::string>> csv_rows(const std::string &rel) {
  std::ifstream f(std::string(RIDGELINE_SOURCE_DIR) + "/" + rel);
  REQUIRE(f.good());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(f, line); // the header
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(ss, cell, ',');)
      cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// A file of the repository (a path from its root), whole.
inline std::string source_text(const std::string &rel) {
  std::ifstream f(std::string(RIDGELINE_SOURCE_DIR) + "/" + rel, std::ios::binary);
  REQUIRE(f.good());
  std::ostringstream o;
  o << f.rdbuf();
  return o.str();
}
#endif

} // namespace rl::test
