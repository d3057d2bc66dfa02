// ridgeline web: a table captured as text by Dear ImGui's logging (ImGui::LogToBuffer around
// a table), turned into CSV or a Markdown table. Pure string functions, no Dear ImGui: the
// Catch2 suite tests them natively (tests/test_table_text.cpp).
//
// Dear ImGui 1.86 logs a table as "|" at the start of every cell (TableBeginCell) and one "|"
// at the end of every row (TableEndRow), the cell texts in between; it starts a new line when
// the drawing position moves down, which a cell without text or a wrapped text can upset. So
// rows are found by counting cells: with the table's column count N known, the text between
// pipes reads c1 .. cN, (row end), c1 .. cN, (row end), ... Without it (columns <= 0), or when
// that reading does not fit, rows are lines and cells are what lies between their pipes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rl::web::table_text {

using Rows = std::vector<std::vector<std::string>>;

// Whitespace runs (newlines included) become one space; the page's "(?)" help markers go;
// leading and trailing blanks are cut.
inline std::string clean_cell(std::string_view s) {
  std::string t(s);
  for (std::size_t at = t.find("(?)"); at != std::string::npos; at = t.find("(?)"))
    t.erase(at, 3);
  std::string out;
  bool space = false;
  for (const char ch : t) {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
      space = !out.empty();
      continue;
    }
    if (space)
      out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

namespace detail {
inline bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (std::size_t at = s.find(sep); at != std::string_view::npos; at = s.find(sep, from)) {
    parts.push_back(s.substr(from, at - from));
    from = at + 1;
  }
  parts.push_back(s.substr(from));
  return parts;
}

// By cell count: the parts between pipes, N cells then the (blank) gap after each row end.
inline bool rows_by_count(std::string_view text, int columns, Rows &rows) {
  const auto parts = split(text, '|');
  if (parts.size() < 2 || !blank(parts.front()) || !blank(parts.back()))
    return false;
  const std::size_t n = static_cast<std::size_t>(columns);
  const std::size_t inner = parts.size() - 2; // between the first and the last pipe
  if ((inner + 1) % (n + 1) != 0)
    return false;
  for (std::size_t i = 1; i + 1 < parts.size(); i += n + 1) {
    std::vector<std::string> row;
    for (std::size_t k = 0; k < n; ++k)
      row.push_back(clean_cell(parts[i + k]));
    if (i + n + 1 < parts.size() && !blank(parts[i + n]))
      return false; // something between a row's end and the next row's first cell
    rows.push_back(std::move(row));
  }
  return true;
}

// By lines: every line holding a pipe is a row, its cells between the first and last pipe.
inline Rows rows_by_line(std::string_view text) {
  Rows rows;
  for (std::string_view line : split(text, '\n')) {
    const std::size_t a = line.find('|'), b = line.rfind('|');
    if (a == std::string_view::npos)
      continue;
    std::string_view body = line.substr(a + 1, b > a ? b - a - 1 : std::string_view::npos);
    std::vector<std::string> row;
    for (std::string_view cell : split(body, '|'))
      row.push_back(clean_cell(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}
} // namespace detail

// The rows of a logged table (`columns`: its visible column count, or 0 when unknown). Rows
// with no text at all are dropped; short rows are padded to the widest.
inline Rows parse_logged_table(std::string_view text, int columns = 0) {
  Rows rows;
  if (columns <= 0 || !detail::rows_by_count(text, columns, rows))
    rows = detail::rows_by_line(text);
  Rows kept;
  std::size_t width = 0;
  for (auto &r : rows) {
    bool any = false;
    for (const auto &c : r)
      any = any || !c.empty();
    if (!any)
      continue;
    width = std::max(width, r.size());
    kept.push_back(std::move(r));
  }
  for (auto &r : kept)
    r.resize(width);
  return kept;
}

// RFC 4180: CRLF line ends; a field holding a comma, quote, CR or LF (or starting or ending
// with a space) is quoted, its quotes doubled.
inline std::string to_csv(const Rows &rows) {
  std::string out;
  for (const auto &row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string &f = row[i];
      if (i)
        out += ',';
      const bool quote = f.find_first_of(",\"\r\n") != std::string::npos ||
                         (!f.empty() && (f.front() == ' ' || f.back() == ' '));
      if (!quote) {
        out += f;
        continue;
      }
      out += '"';
      for (const char ch : f) {
        if (ch == '"')
          out += '"';
        out += ch;
      }
      out += '"';
    }
    out += "\r\n";
  }
  return out;
}

// A GitHub-flavoured Markdown table: the first row is the header, then "| --- |", pipes in
// cells escaped, line breaks as spaces.
inline std::string to_markdown(const Rows &rows) {
  if (rows.empty())
    return "";
  const auto cell = [](const std::string &s) {
    std::string t;
    for (const char ch : s) {
      if (ch == '|')
        t += "\\|";
      else if (ch == '\n' || ch == '\r')
        t += ' ';
      else
        t += ch;
    }
    return t;
  };
  const auto line = [&](const std::vector<std::string> &r) {
    std::string l = "|";
    for (const auto &c : r) {
      l += ' ';
      l += cell(c);
      l += " |";
    }
    return l + "\n";
  };
  std::string out = line(rows.front());
  out += "|";
  for (std::size_t i = 0; i < rows.front().size(); ++i)
    out += " --- |";
  out += "\n";
  for (std::size_t i = 1; i < rows.size(); ++i)
    out += line(rows[i]);
  return out;
}

} // namespace rl::web::table_text
