#include "core/io/json_reader.hpp"

#include <cmath>
#include <sstream>

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
      throw ConfigError(path_of(it.key()), "unknown field");
}

} // namespace rl::io
