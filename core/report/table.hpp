// ridgeline report: a result as a table of text cells, the one form both the CLI (as a text
// table) and the page (as an ImGui table) draw, so neither formats or derives a value itself.
#pragma once

#include "core/report/report.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace rl {

struct ReportColumn {
  std::string key;  // stable id: "rank", "dp", "bytes", "share", ...
  std::string head; // shown: "#", "dp", "bytes", "share", ...
  Unit unit = Unit::plain;
  Better better = Better::neither;
  bool text = false; // words, left-aligned (the first column always is); numbers go right
  bool bar = false;  // a fraction (0..1) the page draws as a small bar beside its text
};

// How a row or a cell stands out: a total under its parts, a warning (the worst stage, a
// communication that costs more than 5% of the step, a latency above its SLO target, what
// bounds an operator), a cell in the background (an infeasible row, the lesser terms), or
// the configuration's own row among others (the workload's batch).
enum class Mark { none, total, warn, dim, ok };

struct ReportCell {
  std::string text;
  double value = 0;       // what a sort by this column compares (the rank for text-only cells)
  Mark mark = Mark::none; // none: the row's
};

struct ReportLine {
  std::string key;  // stable id of the row ("weights", "compute", ...; "" when unnamed)
  std::string help; // what the row's number is and where its formula comes from
  Mark mark = Mark::none;
  std::vector<ReportCell> cells;
  const ReportCell &operator[](std::size_t i) const { return cells[i]; }
};

struct ReportTable {
  std::string key;         // stable id: the page's table id and export name ("size", "stages", ...)
  std::string title;       // "Memory per device (worst stage 3 of 8)"
  std::string help;        // the title's explanation, with its public source
  std::string note;        // a line under the table ("" when none)
  bool hover_help = false; // a row's help shows on hovering its first cell, not as a "(?)"
  std::vector<ReportColumn> columns;
  std::vector<ReportLine> rows;
  int column(const std::string &key) const; // its index, -1 when absent
  // The row with this key, nullptr when absent.
  const ReportLine *row(const std::string &key) const;
  bool empty() const { return rows.empty(); }
};

// Two results' headline rows side by side (compare_rows): the Compare tab's table and
// `ridgeline compare`'s. Columns: the row's label, before, after, change (change_text); each
// section opens with a line of key "section" holding its name alone. The change cell is
// marked ok (an improvement), warn (a regression) or dim (no change, or neither better).
ReportTable compare_table(const std::vector<ReportRow> &before, const std::vector<ReportRow> &after,
                          const std::string &before_head = "pinned",
                          const std::string &after_head = "current");

} // namespace rl
