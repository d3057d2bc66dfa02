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
#include <vector>

namespace rl::io {

std::string encode_url_query(const nlohmann::json &config);
// Accepts a full URL, "?query", "#fragment" or a bare query. Page parameters are ignored.
nlohmann::json decode_url_query(const std::string &url);

// [SECTION] page parameters
// What a link carries besides the configuration: the page's open tab ("tab=planner") and a
// pinned configuration shown side by side with it ("pin=" + that configuration's own query,
// percent-encoded). They are not configuration fields: decode_url_query skips them.
struct UrlParts {
  std::string config; // the configuration's query (no '?', page parameters removed)
  std::string tab;    // "" when none
  std::string pin;    // the pinned configuration's query ("" when none)
  std::string free;   // the planner's freed knobs: "all" or names, comma-separated ("" none)
};
// Splits a full URL, "?query", "#fragment" or a bare query (a "#tab=NAME" fragment after a
// query names the tab too).
UrlParts split_url(const std::string &url);
// The query of a configuration query plus page parameters (the inverse of split_url).
std::string join_url(const UrlParts &parts);

// [SECTION] forgiving decode
// A link whose parameters partly fail: every parameter that does not decode or that the
// configuration schema rejects (an unknown or misspelled key, a value of the wrong type or
// out of range) is dropped and reported with the reason; the rest is kept. Errors that no
// single parameter causes (a layout that does not divide, a missing section) stay for the
// estimate to report.
struct DroppedParam {
  std::string param;   // "parallel.tpp=4", as written
  std::string path;    // the field the error names
  std::string message; // why
};
struct LenientUrl {
  nlohmann::json config = nlohmann::json::object();
  std::vector<DroppedParam> dropped;
};
// A link that names neither a scenario nor a model ("?parallel.tp=4") applies over the
// scenario `fallback_scenario` when one is given and the link keeps its workload.mode; a link
// of another mode ("?workload.mode=serve&...") applies over the first shipped scenario of that
// mode, and a tx8-op link (no scenario has that mode) stands alone.
LenientUrl decode_url_lenient(const std::string &config_query,
                              const std::string &fallback_scenario = "");

} // namespace rl::io
