#include "core/io/api.hpp"

#include "core/error.hpp"
#include "core/estimate/estimate.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/url_codec.hpp"
#include "core/planner/planner.hpp"

namespace rl::api {

using nlohmann::json;

namespace {
// Runs f, turning every expected failure into {"error": {...}}.
template <class F> std::string guarded(F &&f) {
  try {
    return f().dump();
  } catch (const ConfigError &e) {
    return io::error_json(e.path(), e.message()).dump();
  } catch (const json::exception &e) {
    return io::error_json("", e.what()).dump();
  } catch (const std::exception &e) {
    return io::error_json("", std::string("internal error: ") + e.what()).dump();
  }
}
} // namespace

std::string estimate(const std::string &config_json) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    return io::to_json(rl::estimate(c));
  });
}

std::string plan(const std::string &config_json, int top) {
  return guarded([&] {
    const Config c = io::parse_config(io::parse_json_text(config_json));
    PlanOptions o;
    o.top = top;
    return io::to_json(rl::plan(c, o));
  });
}

std::string resolve(const std::string &config_json) {
  return guarded([&] { return io::to_json(io::parse_config(io::parse_json_text(config_json))); });
}

std::string encode_url(const std::string &config_json) {
  return guarded([&] {
    const json j = io::parse_json_text(config_json);
    io::parse_config(j); // only valid configurations get a URL
    return json(io::encode_url_query(j));
  });
}

std::string decode_url(const std::string &url) {
  return guarded([&] {
    const json j = io::decode_url_query(url);
    io::parse_config(j);
    return j;
  });
}

std::string presets() {
  return guarded([&] {
    json j = json::object();
    for (const char *kind : {"model", "hardware", "cluster", "scenario"})
      j[kind] = io::preset_names(kind);
    return j;
  });
}

std::string preset(const std::string &kind, const std::string &name) {
  return guarded([&] { return io::preset_json(kind, name, kind); });
}

} // namespace rl::api
