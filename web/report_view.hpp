// ridgeline web: the report layer's tables (core/report) drawn as ImGui tables, and their
// rows as stacked-bar parts, so the page shows the same cells as the CLI.
#pragma once

#include "core/report/table.hpp"
#include "web/widgets.hpp"

#include <string>
#include <utility>
#include <vector>

namespace rl::web::ui {

struct TableView {
  float height = 0;        // > 0: the rows scroll (and many columns scroll sideways)
  bool selectable = false; // each row is a button across the columns
  int chosen = -1;    // a row drawn as the current one (arrow, green), scrolled to when it changes
  int highlight = -1; // a row drawn selected (linked to a plot's hovered point)
  int *hovered = nullptr; // selectable: set to the row under the mouse, when there is one
};

// The table under its key (the copy button's id): words left, numbers right; a row's help as
// a "(?)" (or, with hover_help, on hovering its first cell); totals in the accent colour,
// warnings in amber, background cells dimmed; a bar column as a small bar with its text.
// Returns the row clicked (-1: none; only when selectable).
int report_table(const ReportTable &t, const TableView &view = {});

// The title with its "(?)", then the table, then its note (dimmed, wrapped).
int report_section(const ReportTable &t, const TableView &view = {});

// The rows as bar parts: the value of column `col`, the colour of the row's key; rows whose
// key has no colour (totals, capacities) are left out. The first letter is capitalised.
using SegmentColors = std::vector<std::pair<std::string, ImVec4>>;
std::vector<Segment> report_segments(const ReportTable &t, const std::string &col,
                                     const SegmentColors &colors);

} // namespace rl::web::ui
