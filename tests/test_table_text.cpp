// The page's table export (web/table_text.hpp): Dear ImGui's logged table text -> CSV /
// Markdown.
#include "web/table_text.hpp"

#include <catch2/catch.hpp>

using rl::web::table_text::clean_cell;
using rl::web::table_text::parse_logged_table;
using rl::web::table_text::Rows;
using rl::web::table_text::to_csv;
using rl::web::table_text::to_markdown;

TEST_CASE("table text: a logged table splits into rows and trimmed cells", "[web][export]") {
  // What Dear ImGui 1.86 logs: "|" per cell begin, "|" per row end, a newline per row.
  const std::string logged = "| Quantity | Value (?) | Note|\n"
                             "| params | 70.55 B | |\n"
                             "| FLOPs | 4.8e14 | per token|\n";
  const Rows want = {
      {"Quantity", "Value", "Note"}, {"params", "70.55 B", ""}, {"FLOPs", "4.8e14", "per token"}};
  CHECK(parse_logged_table(logged, 3) == want);
  CHECK(parse_logged_table(logged) == want); // by lines, column count unknown
}

TEST_CASE("table text: rows run together or a cell wraps: the column count decides",
          "[web][export]") {
  // The last cell of row 1 drew no text, so row 2 did not start a new line; a wrapped cell
  // put a newline inside row 2.
  const std::string logged = "| a | b | || c | two\n lines | |\n";
  CHECK(parse_logged_table(logged, 3) == Rows{{"a", "b", ""}, {"c", "two lines", ""}});
  CHECK(parse_logged_table("| x | y |\n", 2) == Rows{{"x", "y"}});
  // A count that does not fit falls back to lines.
  CHECK(parse_logged_table("| x | y |\n| z |\n", 2) == Rows{{"x", "y"}, {"z", ""}});
}

TEST_CASE("table text: clean_cell drops help markers and folds whitespace", "[web][export]") {
  CHECK(clean_cell("  Weights (?)  ") == "Weights");
  CHECK(clean_cell("a\n  b\tc") == "a b c");
  CHECK(clean_cell("") == "");
}

TEST_CASE("table text: CSV follows RFC 4180", "[web][export]") {
  const Rows rows = {{"name", "value"}, {"a,b", "say \"hi\""}, {"line\nbreak", " pad"}};
  CHECK(to_csv(rows) == "name,value\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n\"line\nbreak\",\" pad\"\r\n");
  CHECK(to_csv({}) == "");
}

TEST_CASE("table text: Markdown has a header separator and escaped pipes", "[web][export]") {
  const Rows rows = {{"kind", "bytes"}, {"all|reduce", "1 GB"}};
  CHECK(to_markdown(rows) == "| kind | bytes |\n| --- | --- |\n| all\\|reduce | 1 GB |\n");
  CHECK(to_markdown({}) == "");
}
