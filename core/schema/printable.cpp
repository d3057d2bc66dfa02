#include "core/schema/printable.hpp"

#include <cstdio>

namespace rl::schema {

namespace {

// The length of the UTF-8 sequence at s[i] and its code point; 0 when the bytes there are
// not well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
std::size_t utf8_at(std::string_view s, std::size_t i, char32_t &cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size())
    return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0u) != 0x80u)
      return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return 0;
  return n;
}

bool is_control(char32_t cp, bool keep_lines) {
  if (keep_lines && (cp == '\n' || cp == '\t'))
    return false;
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

} // namespace

bool has_control(std::string_view s, bool keep_lines) {
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(s, i, cp);
    if (n == 0 || is_control(cp, keep_lines))
      return true;
    i += n;
  }
  return false;
}

std::string printable(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  char buf[12];
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(s, i, cp);
    if (n == 0 || (n == 1 && is_control(cp, keep_lines))) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
      i += 1;
    } else if (is_control(cp, keep_lines)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

} // namespace rl::schema
