#include "core/io/url_codec.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace rl::io {

using json = nlohmann::json;

namespace {

bool unreserved(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '~';
}

// Percent-encodes everything but unreserved characters (and '.' when keep_dot).
std::string pct(std::string_view s, bool keep_dot) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (unreserved(ch) || (keep_dot && ch == '.')) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::string unpct(std::string_view s, const std::string &where) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      const int hi = i + 2 < s.size() ? hexval(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? hexval(s[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        throw ConfigError(where, "broken percent-escape in the URL");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  if (!valid_utf8(out))
    throw ConfigError(where, "is not valid UTF-8 text in the URL");
  return out;
}

// Shortest decimal that reads back to the same double, without '+' (which a URL reads as space);
// plain digits (10, 0.25) from 1e-4 up to 1e6, where an exponent ("1e1") reads as a typo.
std::string fmt_double(double v) {
  char buf[40];
  if (const double a = std::fabs(v); a >= 1e-4 && a < 1e6) {
    for (int d = 0; d <= 17; ++d) {
      std::snprintf(buf, sizeof buf, "%.*f", d, v);
      if (std::strtod(buf, nullptr) == v)
        return buf;
    }
  }
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s;
  for (const char *c = buf; *c; ++c)
    if (*c != '+')
      s += *c;
  // drop leading zeros of the exponent: 4.5e011 -> 4.5e11
  if (const auto e = s.find('e'); e != std::string::npos) {
    std::size_t k = e + 1;
    if (k < s.size() && s[k] == '-')
      ++k;
    while (k + 1 < s.size() && s[k] == '0')
      s.erase(k, 1);
  }
  return s;
}

bool is_number_literal(std::string_view s) {
  if (s.empty())
    return false;
  std::size_t i = 0;
  if (s[i] == '-')
    ++i;
  bool digits = false, dot = false, exp = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot && !exp) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && digits && !exp) {
      exp = true;
      digits = false;
      if (i + 1 < s.size() && s[i + 1] == '-')
        ++i;
    } else {
      return false;
    }
  }
  return digits;
}

bool looks_typed(std::string_view s) {
  return s == "true" || s == "false" || s == "null" || is_number_literal(s);
}

std::string encode_scalar(const json &v, const std::string &path) {
  switch (v.type()) {
  case json::value_t::boolean:
    return v.get<bool>() ? "true" : "false";
  case json::value_t::null:
    return "null";
  case json::value_t::number_integer:
    return std::to_string(v.get<std::int64_t>());
  case json::value_t::number_unsigned:
    return std::to_string(v.get<std::uint64_t>());
  case json::value_t::number_float:
    return fmt_double(v.get<double>());
  case json::value_t::string: {
    const std::string s = v.get<std::string>();
    std::string e = pct(s, true);
    if (looks_typed(e)) { // keep it a string: escape its first character
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(s[0]));
      e.replace(0, 1, buf); // s[0] is unreserved here, so e[0] == s[0]
    }
    return e;
  }
  default:
    throw ConfigError(path, "cannot be put in a URL");
  }
}

void flatten(const json &j, const std::string &key, const std::string &path,
             std::vector<std::string> &out) {
  if (j.is_object()) {
    // "base" first: "model=llama3-70b" then the overrides.
    if (const auto b = j.find("base"); b != j.end()) {
      if (!b->is_string())
        throw ConfigError(join_path(path, "base"), "expected a preset name");
      // alone, {"base": X} stays an object ("key.base=X"): "key=X" would decode to the
      // string X, which next to a scenario means something else
      out.push_back(key + (j.size() == 1 ? ".base=" : "=") + encode_scalar(*b, path));
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "base")
        continue;
      const std::string k = pct(it.key(), false);
      flatten(it.value(), key.empty() ? k : key + "." + k, join_path(path, it.key()), out);
    }
  } else if (j.is_array()) {
    std::string s;
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (j[i].is_structured())
        throw ConfigError(path + "[" + std::to_string(i) + "]",
                          "nested arrays and objects inside arrays cannot be put in a URL");
      if (i > 0)
        s += ',';
      s += encode_scalar(j[i], path);
    }
    if (j.size() == 1)
      s += ",";
    out.push_back(key + "=" + s);
  } else {
    out.push_back(key + "=" + encode_scalar(j, path));
  }
}

json decode_scalar(std::string_view raw, const std::string &path) {
  if (raw == "true")
    return true;
  if (raw == "false")
    return false;
  if (raw == "null")
    return nullptr;
  if (is_number_literal(raw)) {
    const std::string s(raw);
    if (s.find_first_of(".eE") == std::string::npos && s.size() < 19)
      return std::stoll(s);
    const double d = std::strtod(s.c_str(), nullptr);
    if (!std::isfinite(d))
      throw ConfigError(path, "number out of range in the URL");
    return d;
  }
  return unpct(raw, path);
}

} // namespace

std::string encode_url_query(const json &config) {
  if (!config.is_object())
    throw ConfigError("", "expected a configuration object");
  std::vector<std::string> parts;
  // A fixed order of sections, so that equal configurations give equal URLs.
  static const char *order[] = {"scenario", "name",     "model",   "hardware",
                                "cluster",  "workload", "parallel"};
  for (const char *k : order)
    if (const auto it = config.find(k); it != config.end())
      flatten(*it, k, k, parts);
  for (auto it = config.begin(); it != config.end(); ++it) {
    bool known = false;
    for (const char *k : order)
      known = known || it.key() == k;
    if (!known)
      flatten(it.value(), pct(it.key(), false), it.key(), parts);
  }
  std::string out;
  for (const auto &p : parts)
    out += (out.empty() ? "" : "&") + p;
  return out;
}

namespace {

void check_url_size(const std::string &url) {
  if (url.size() > kMaxInputBytes)
    throw ConfigError("url", "is " + std::to_string(url.size()) + " bytes; the limit is " +
                                 std::to_string(kMaxInputBytes) + " bytes (4 MiB)");
}

// The parameters of a query ("a=1&&b=2" -> {"a=1", "b=2"}).
std::vector<std::string_view> params_of(std::string_view q) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < q.size()) {
    const std::size_t amp = std::min(q.find('&', pos), q.size());
    if (amp > pos)
      out.push_back(q.substr(pos, amp - pos));
    pos = amp + 1;
  }
  return out;
}

// The scenario a link that names neither a scenario nor a model applies over: `fallback` when
// the link keeps the fallback's mode, else the first shipped scenario of the link's mode, else
// none (one tx8 operator needs no scenario; the link must then be complete).
std::string base_scenario(const json &link, const std::string &fallback) {
  const std::string mode = workload_mode_of(link);
  if (fallback.empty() || mode.empty() ||
      workload_mode_of(preset_json("scenario", fallback, "scenario")) == mode)
    return fallback;
  // a serve link starts from the dense serving scenario (the MoE one is for its planner)
  if (mode == "serve" && is_preset("scenario", "llama3-70b-h100-serve"))
    return "llama3-70b-h100-serve";
  for (const auto &name : preset_names("scenario"))
    if (workload_mode_of(preset_json("scenario", name, "scenario")) == mode)
      return name;
  return "";
}

// "tab=x" -> ("tab", "x") when the parameter is a page parameter.
bool page_param(std::string_view part, std::string_view name, std::string &value) {
  if (part.size() <= name.size() || part.substr(0, name.size()) != name || part[name.size()] != '=')
    return false;
  value = unpct(part.substr(name.size() + 1), std::string(name));
  return true;
}

} // namespace

UrlParts split_url(const std::string &url) {
  check_url_size(url);
  std::string_view q = url;
  std::string_view fragment;
  bool from_fragment = false; // the state is the fragment itself (no query)
  if (const auto i = q.find('?'); i != std::string_view::npos) {
    q = q.substr(i + 1);
  } else if (const auto h = q.find('#'); h != std::string_view::npos) {
    q = q.substr(h + 1);
    from_fragment = true;
  } else if (q.find("://") != std::string_view::npos)
    q = {};
  if (const auto h = q.find('#'); h != std::string_view::npos) {
    fragment = q.substr(h + 1);
    q = q.substr(0, h);
  }
  UrlParts out;
  for (const std::string_view part : params_of(q)) {
    if (page_param(part, "tab", out.tab) || page_param(part, "pin", out.pin) ||
        page_param(part, "free", out.free))
      continue;
    if (from_fragment && part.find('=') == std::string_view::npos)
      continue; // a page flag such as "#e2e", not configuration
    if (!out.config.empty())
      out.config += '&';
    out.config += part;
  }
  for (const std::string_view part : params_of(fragment))
    if (!page_param(part, "tab", out.tab))
      page_param(part, "free", out.free);
  return out;
}

std::string join_url(const UrlParts &parts) {
  std::string out = parts.config;
  const auto add = [&](const char *name, const std::string &value) {
    if (value.empty())
      return;
    if (!out.empty())
      out += '&';
    out += name;
    out += '=';
    out += pct(value, true);
  };
  add("tab", parts.tab);
  add("free", parts.free);
  add("pin", parts.pin);
  return out;
}

json decode_url_query(const std::string &url) {
  const std::string config = split_url(url).config;
  const std::string_view q = config;

  json out = json::object();
  std::size_t pos = 0;
  while (pos <= q.size() && !q.empty()) {
    const std::size_t amp = std::min(q.find('&', pos), q.size());
    const std::string_view part = q.substr(pos, amp - pos);
    pos = amp + 1;
    if (part.empty()) {
      if (amp >= q.size())
        break;
      continue;
    }
    const auto eq = part.find('=');
    if (eq == std::string_view::npos)
      throw ConfigError(unpct(part, "url"), "URL parameter without a value");
    // Split the key on raw dots, then unescape each piece.
    std::vector<std::string> keys;
    const std::string_view rawkey = part.substr(0, eq);
    std::size_t kp = 0;
    while (true) {
      const std::size_t dot = std::min(rawkey.find('.', kp), rawkey.size());
      keys.push_back(unpct(rawkey.substr(kp, dot - kp), "url"));
      if (keys.back().empty())
        throw ConfigError(unpct(rawkey, "url"), "empty key in the URL");
      if (keys.size() >= static_cast<std::size_t>(kMaxDepth))
        throw ConfigError("url",
                          "a key nested deeper than " + std::to_string(kMaxDepth) + " levels");
      if (dot >= rawkey.size())
        break;
      kp = dot + 1;
    }
    std::string path;
    for (const auto &k : keys)
      path = join_path(path, k);
    const std::string_view rawval = part.substr(eq + 1);
    json value;
    if (rawval.find(',') != std::string_view::npos) {
      value = json::array();
      std::size_t vp = 0;
      while (vp < rawval.size()) {
        const std::size_t c = std::min(rawval.find(',', vp), rawval.size());
        value.push_back(decode_scalar(rawval.substr(vp, c - vp), path));
        vp = c + 1;
      }
    } else {
      value = decode_scalar(rawval, path);
    }
    // Walk to the parent; a string met on the way is a preset being overridden.
    json *node = &out;
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      json &child = (*node)[keys[i]];
      if (child.is_null())
        child = json::object();
      else if (child.is_string())
        child = json{{"base", child.get<std::string>()}};
      else if (!child.is_object())
        throw ConfigError(path, "conflicts with an earlier value in the URL");
      node = &child;
    }
    json &slot = (*node)[keys.back()];
    if (slot.is_object() && value.is_string() && !slot.contains("base"))
      slot["base"] = value;
    else if (!slot.is_null())
      throw ConfigError(path, "given twice in the URL");
    else
      slot = value;
  }
  return out;
}

LenientUrl decode_url_lenient(const std::string &config_query,
                              const std::string &fallback_scenario) {
  check_url_size(config_query);
  std::vector<std::string> params;
  for (const std::string_view p : params_of(config_query))
    params.emplace_back(p);
  const auto joined = [&] {
    std::string q;
    for (const auto &p : params) {
      if (!q.empty())
        q += '&';
      q += p;
    }
    return q;
  };
  // The parameter an error names: its dotted key is the path, or the path lies inside it.
  const auto culprit = [&](const std::string &path) -> std::ptrdiff_t {
    for (std::size_t i = 0; i < params.size(); ++i) {
      std::string key = params[i].substr(0, params[i].find('='));
      try {
        key = unpct(key, "url");
      } catch (const ConfigError &) {
        return static_cast<std::ptrdiff_t>(i); // a broken escape in the key itself
      }
      if (!path.empty() && path != "url" &&
          (key == path || path.rfind(key + ".", 0) == 0 || path.rfind(key + "[", 0) == 0))
        return static_cast<std::ptrdiff_t>(i);
    }
    // A parameter that does not decode on its own (a broken escape, no value).
    for (std::size_t i = 0; i < params.size(); ++i) {
      try {
        decode_url_query(params[i]);
      } catch (const ConfigError &) {
        return static_cast<std::ptrdiff_t>(i);
      }
    }
    return -1;
  };
  LenientUrl out;
  while (true) {
    try {
      out.config = decode_url_query(joined());
      if (!out.config.empty() && !out.config.contains("scenario") && !out.config.contains("model"))
        if (const std::string base = base_scenario(out.config, fallback_scenario); !base.empty())
          out.config["scenario"] = base;
      if (!out.config.empty())
        parse_config(out.config);
      return out;
    } catch (const ConfigError &e) {
      const std::ptrdiff_t i = culprit(e.path());
      if (i < 0) {
        // Not one parameter's fault: keep what decodes; the estimate reports the rest.
        if (out.config.is_null())
          out.config = json::object();
        return out;
      }
      out.dropped.push_back({params[static_cast<std::size_t>(i)], e.path(), e.message()});
      params.erase(params.begin() + i);
      out.config = json::object();
    }
  }
}

} // namespace rl::io
