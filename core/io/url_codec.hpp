// ridgeline io: the shareable URL state, one codec for the CLI (`ridgeline url`) and the page.
//
// A configuration object is flattened into readable dotted keys in a fixed order:
//   model=llama3-70b&hardware=h100-sxm&cluster.base=dgx-h100&cluster.devices=1024&
//   workload.mode=train&workload.seq_len=8192&parallel.tp=8
// A preset with overrides reads "model=llama3-70b&model.layers=40" (= {"base": ..., ...}).
// Values: true/false/null and number literals are typed; anything else is a string
// (a string that looks like a number is sent percent-encoded, so it stays a string);
// arrays are comma-separated ("resolution=720,1280", one element: "torus=8,").
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace rl::io {

std::string encode_url_query(const nlohmann::json &config);
// Accepts a full URL, "?query", "#fragment" or a bare query.
nlohmann::json decode_url_query(const std::string &url);

} // namespace rl::io
