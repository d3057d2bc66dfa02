// ridgeline io: reads one JSON object field by field, tracking the path, rejecting
// wrong types, out-of-range values and (on finish) unknown fields.
#pragma once

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/schema/choices.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace rl::io {

using json = nlohmann::json;

// Stated limits on user text, checked before any other work: JSON text (a config, a
// config.json, a validation file, a serve trace) and URLs at most kMaxInputBytes; arrays
// and objects nested at most kMaxDepth deep (a configuration needs 6; deeper input would
// cost recursion in copies, merges and dumps, which crashed the page's small WASM stack).
constexpr std::size_t kMaxInputBytes = std::size_t{4} << 20; // 4 MiB
constexpr int kMaxDepth = 64;

// Parses JSON text within the limits above. Every failure is a ConfigError in plain words:
// syntax errors with line and column, duplicate keys and numbers that overflow a double
// named by their path, text too large or nested too deep.
json parse_json_text(const std::string &text);

// JSON text parsed as parse_json_text parses it (duplicate keys and numbers beyond a double
// are ConfigErrors at their path) with no size or nesting limit (the caller checks its own)
// and nlohmann's parse_error left to the caller (a reader that knows the file's lines).
json parse_json_strict(std::string_view text);

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: ..." in
// plain words: "at line 1, column 2: ...".
std::string plain_json_message(const std::string &what);

// Whether s is well-formed UTF-8 (text from a file or a hand-edited URL may not be).
bool valid_utf8(const std::string &s);

// JSON text that never throws on bad UTF-8 (invalid bytes become U+FFFD).
std::string dump(const nlohmann::json &j, int indent = -1);

// A short human description of a JSON value's type, for error messages.
std::string json_type_name(const json &j);

class ObjectReader {
public:
  ObjectReader(const json &j, std::string path);

  const std::string &path() const { return path_; }
  std::string path_of(const std::string &key) const { return join_path(path_, key); }
  bool has(const std::string &key) const;

  std::optional<i64> opt_int(const std::string &key, i64 lo, i64 hi);
  i64 req_int(const std::string &key, i64 lo, i64 hi);
  std::optional<double> opt_num(const std::string &key, double lo, double hi);
  double req_num(const std::string &key, double lo, double hi);
  std::optional<bool> opt_bool(const std::string &key);
  std::optional<std::string> opt_str(const std::string &key);
  // A child value of any type (marked as read); nullptr when absent.
  const json *opt_child(const std::string &key);

  template <class E, std::size_t N>
  std::optional<E> opt_enum(const std::string &key, const std::pair<const char *, E> (&names)[N]) {
    const auto s = opt_str(key);
    if (!s)
      return std::nullopt;
    std::string allowed;
    for (const auto &[name, value] : names) {
      if (*s == name)
        return value;
      allowed += allowed.empty() ? name : std::string(", ") + name;
    }
    throw ConfigError(path_of(key), "\"" + *s + "\" is not one of " + allowed);
  }

  // A value named by one of `names` (core/schema/choices), as its int.
  std::optional<int> opt_choice(const std::string &key, const schema::ChoiceList &names) {
    const auto s = opt_str(key);
    if (!s)
      return std::nullopt;
    if (const auto v = schema::value_in(names, *s))
      return v;
    throw ConfigError(path_of(key), "\"" + *s + "\" is not one of " + schema::names_text(names));
  }

  // Marks keys as read without interpreting them (e.g. "source", "notes").
  void ignore(const std::string &key) { seen_.insert(key); }
  // Throws on the first field that was never read.
  void finish() const;

private:
  const json &j_;
  std::string path_;
  std::set<std::string> seen_;
};

// Reads an integer from any JSON number that holds an integral value in [lo, hi].
i64 read_int(const json &j, const std::string &path, i64 lo, i64 hi);
double read_num(const json &j, const std::string &path, double lo, double hi);

} // namespace rl::io
