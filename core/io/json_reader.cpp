#include "core/io/json_reader.hpp"

#include "core/schema/suggest.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace rl::io {

bool valid_utf8(const std::string &s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    if (c < 0x80)
      n = 0;
    else if ((c & 0xE0) == 0xC0 && c >= 0xC2)
      n = 1;
    else if ((c & 0xF0) == 0xE0)
      n = 2;
    else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
      n = 3;
    else
      return false;
    if (i + n >= s.size() && n > 0)
      return false;
    for (std::size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
        return false;
    i += n + 1;
  }
  return true;
}

namespace {

// The deepest nesting of arrays and objects in text, counted without parsing (strings
// skipped), stopping as soon as `limit` is passed; sets `at` to that byte.
int nesting_depth(const std::string &text, int limit, std::size_t &at) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) {
        at = i;
        return deepest;
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

// nlohmann's DOM parser behind a SAX filter that keeps the path of the value being parsed,
// so that duplicate keys and numbers beyond a double are named. (The callback parser would
// also do, but it scans the parent container after every value: quadratic in array size.)
class CheckedSax {
public:
  explicit CheckedSax(json &result) : dom_(result, true) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const std::string &s) {
    if (!std::isfinite(v))
      throw ConfigError(path(), "number out of range (beyond a double's 1.8e308)");
    return value(dom_.number_float(v, s));
  }
  bool string(json::string_t &v) { return value(dom_.string(v)); }
  bool binary(json::binary_t &v) { return value(dom_.binary(v)); }
  bool start_object(std::size_t n) {
    frames_.push_back({true, {}, {}, 0});
    return dom_.start_object(n);
  }
  bool key(json::string_t &k) {
    Frame &f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second)
      throw ConfigError(path(), "duplicate key (given twice in one object)");
    return dom_.key(k);
  }
  bool end_object() {
    frames_.pop_back();
    return value(dom_.end_object());
  }
  bool start_array(std::size_t n) {
    frames_.push_back({false, {}, {}, 0});
    return dom_.start_array(n);
  }
  bool end_array() {
    frames_.pop_back();
    return value(dom_.end_array());
  }
  template <class Exception>
  bool parse_error(std::size_t pos, const std::string &token, const Exception &e) {
    if (e.id == 406) // out_of_range.406: the lexer's number overflow
      throw ConfigError(path(), "number out of range (beyond a double's 1.8e308)");
    return dom_.parse_error(pos, token, e);
  }

  // "model.moe.experts", "runs[2].config"
  std::string path() const {
    std::string p;
    for (const Frame &f : frames_) {
      if (f.object)
        p = join_path(p, f.key);
      else
        p += "[" + std::to_string(f.index) + "]";
    }
    return p;
  }

private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };
  // A value is complete: the enclosing array moves to its next index.
  bool value(bool ok) {
    if (!frames_.empty() && !frames_.back().object)
      ++frames_.back().index;
    return ok;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Frame> frames_;
};

} // namespace

std::string plain_json_message(const std::string &what) {
  std::string s = what;
  if (const auto b = s.find("] "); s.rfind("[json.exception.", 0) == 0 && b != std::string::npos)
    s = s.substr(b + 2);
  if (s.rfind("parse error ", 0) == 0)
    s = s.substr(12);
  return s;
}

json parse_json_strict(std::string_view text) {
  json result;
  CheckedSax sax(result);
  json::sax_parse(text.begin(), text.end(), &sax);
  return result;
}

json parse_json_text(const std::string &text) {
  if (text.size() > kMaxInputBytes)
    throw ConfigError("", "the text is " + std::to_string(text.size()) + " bytes; the limit is " +
                              std::to_string(kMaxInputBytes) + " bytes (4 MiB)");
  std::size_t at = 0;
  if (nesting_depth(text, kMaxDepth, at) > kMaxDepth)
    throw ConfigError("", "arrays and objects nested deeper than " + std::to_string(kMaxDepth) +
                              " levels (at byte " + std::to_string(at) + ")");
  json result;
  CheckedSax sax(result);
  try {
    json::sax_parse(text, &sax);
  } catch (const json::parse_error &e) {
    throw ConfigError("", "malformed JSON " + plain_json_message(e.what()));
  } catch (const json::exception &e) {
    throw ConfigError(sax.path(), "malformed JSON: " + plain_json_message(e.what()));
  }
  return result;
}

std::string dump(const json &j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string json_type_name(const json &j) {
  switch (j.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::string:
    return "a string";
  case json::value_t::array:
    return "an array";
  case json::value_t::object:
    return "an object";
  case json::value_t::number_float:
    return "a number";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  default:
    return "an unsupported value";
  }
}

static std::string fmt_num(double v) {
  std::ostringstream os;
  os.precision(15);
  os << v;
  return os.str();
}

i64 read_int(const json &j, const std::string &path, i64 lo, i64 hi) {
  if (!j.is_number())
    throw ConfigError(path, "expected an integer, got " + json_type_name(j));
  double v = 0;
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
      throw ConfigError(path, fmt_num(j.get<double>()) + " is out of range [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + "]");
    const i64 i = j.get<i64>();
    if (i < lo || i > hi)
      throw ConfigError(path, std::to_string(i) + " is out of range [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "]");
    return i;
  }
  v = j.get<double>();
  if (!std::isfinite(v) || v != std::floor(v))
    throw ConfigError(path, "expected an integer, got " + fmt_num(v));
  if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw ConfigError(path, fmt_num(v) + " is out of range [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "]");
  return static_cast<i64>(v);
}

double read_num(const json &j, const std::string &path, double lo, double hi) {
  if (!j.is_number())
    throw ConfigError(path, "expected a number, got " + json_type_name(j));
  const double v = j.get<double>();
  if (!std::isfinite(v))
    throw ConfigError(path, "expected a finite number");
  if (v < lo || v > hi)
    throw ConfigError(path,
                      fmt_num(v) + " is out of range [" + fmt_num(lo) + ", " + fmt_num(hi) + "]");
  return v;
}

ObjectReader::ObjectReader(const json &j, std::string path) : j_(j), path_(std::move(path)) {
  if (!j_.is_object())
    throw ConfigError(path_, "expected an object, got " + json_type_name(j_));
}

bool ObjectReader::has(const std::string &key) const {
  return j_.contains(key);
}

const json *ObjectReader::opt_child(const std::string &key) {
  seen_.insert(key);
  const auto it = j_.find(key);
  if (it == j_.end() || it->is_null())
    return nullptr;
  return &*it;
}

std::optional<i64> ObjectReader::opt_int(const std::string &key, i64 lo, i64 hi) {
  const json *c = opt_child(key);
  if (!c)
    return std::nullopt;
  return read_int(*c, path_of(key), lo, hi);
}

i64 ObjectReader::req_int(const std::string &key, i64 lo, i64 hi) {
  const auto v = opt_int(key, lo, hi);
  if (!v)
    throw ConfigError(path_of(key), "is required");
  return *v;
}

std::optional<double> ObjectReader::opt_num(const std::string &key, double lo, double hi) {
  const json *c = opt_child(key);
  if (!c)
    return std::nullopt;
  return read_num(*c, path_of(key), lo, hi);
}

double ObjectReader::req_num(const std::string &key, double lo, double hi) {
  const auto v = opt_num(key, lo, hi);
  if (!v)
    throw ConfigError(path_of(key), "is required");
  return *v;
}

std::optional<bool> ObjectReader::opt_bool(const std::string &key) {
  const json *c = opt_child(key);
  if (!c)
    return std::nullopt;
  if (!c->is_boolean())
    throw ConfigError(path_of(key), "expected true or false, got " + json_type_name(*c));
  return c->get<bool>();
}

std::optional<std::string> ObjectReader::opt_str(const std::string &key) {
  const json *c = opt_child(key);
  if (!c)
    return std::nullopt;
  if (!c->is_string())
    throw ConfigError(path_of(key), "expected a string, got " + json_type_name(*c));
  std::string v = c->get<std::string>();
  if (!valid_utf8(v))
    throw ConfigError(path_of(key), "is not valid UTF-8 text");
  return v;
}

void ObjectReader::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!seen_.count(it.key()))
      throw ConfigError(
          path_of(it.key()),
          "unknown field" +
              schema::did_you_mean(it.key(), std::vector<std::string>(seen_.begin(), seen_.end())));
}

} // namespace rl::io
