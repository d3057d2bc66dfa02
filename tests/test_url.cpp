// The URL codec shared by `ridgeline url` and the page.
#include "helpers.hpp"

#include "core/io/presets.hpp"
#include "core/io/url_codec.hpp"

using namespace rl;
using nlohmann::json;

TEST_CASE("Every scenario round-trips through the URL", "[url]") {
  for (const auto &n : io::preset_names("scenario")) {
    INFO(n);
    json j = io::expand_scenario(json(n));
    j.erase("source");
    j.erase("notes");
    const std::string q = io::encode_url_query(j);
    CHECK(io::decode_url_query(q) == j);
    CHECK(io::decode_url_query("http://127.0.0.1:8080/?" + q) == j);
    CHECK(io::decode_url_query("#" + q) == j);
    // and the resolved form (presets expanded) round-trips too
    const json r = io::to_json(io::parse_config(j));
    CHECK(io::decode_url_query(io::encode_url_query(r)) == r);
  }
}

TEST_CASE("Readable keys: preset names and overrides", "[url]") {
  const json j = json::parse(R"({"model": {"base": "llama3-70b", "layers": 40},
    "hardware": "h100-sxm", "workload": {"mode": "train", "global_batch": 1024,
    "seq_len": 8192}, "parallel": {"tp": 8, "sp": true}})");
  const std::string q = io::encode_url_query(j);
  CHECK(q == "model=llama3-70b&model.layers=40&hardware=h100-sxm&workload.global_batch=1024&"
             "workload.mode=train&workload.seq_len=8192&parallel.sp=true&parallel.tp=8");
  CHECK(io::decode_url_query(q) == j);
  // the override may come before the preset name too
  CHECK(io::decode_url_query("model.layers=40&model=llama3-70b") ==
        json::parse(R"({"model": {"layers": 40, "base": "llama3-70b"}})"));
}

TEST_CASE("Values keep their types", "[url]") {
  const json j = json::parse(R"({"name": "8", "model": {"name": "true", "vocab": 32000,
    "layers": 2}, "cluster": {"torus": [8], "wraparound": [true, false],
    "ici": {"bw": 4.5e10, "latency": 1e-6}}, "x": "a b&c=d,e%"})");
  const std::string q = io::encode_url_query(j);
  CHECK(q.find("ici.bw=4.5e10") != std::string::npos);
  CHECK(q.find("torus=8,") != std::string::npos);
  CHECK(io::decode_url_query(q) == j);
}

TEST_CASE("Hand-edited URLs give clear errors", "[url][errors]") {
  CHECK(test::error_of([] { io::decode_url_query("?parallel.tp=8&parallel.tp=4"); }) ==
        "parallel.tp: given twice in the URL");
  CHECK(test::error_of([] { io::decode_url_query("?model=%zz"); }) ==
        "model: broken percent-escape in the URL");
  CHECK(test::error_of([] { io::decode_url_query("?model"); }) ==
        "model: URL parameter without a value");
  CHECK(test::error_of([] { io::decode_url_query("?parallel..tp=1"); }) ==
        "parallel..tp: empty key in the URL");
  CHECK(test::error_of([] { io::decode_url_query("?parallel.tp=8&parallel.tp.x=1"); }) ==
        "parallel.tp.x: conflicts with an earlier value in the URL");
  // decoding succeeds; validation then names the field
  CHECK(test::error_of([] {
          io::parse_config(io::decode_url_query("?model=llama3-70b&hardware=h100-sxm&"
                                                "workload.mode=train&workload.global_batch=8&"
                                                "workload.seq_len=1024&parallel.tp=abc"));
        }) == "parallel.tp: expected an integer, got a string");
  CHECK(io::decode_url_query("http://127.0.0.1:8080/") == json::object());
  // bytes that are not UTF-8 are refused, never passed on to crash a JSON dump later
  CHECK(test::error_of([] { io::decode_url_query("?model.name=%B2"); }) ==
        "model.name: is not valid UTF-8 text in the URL");
}
