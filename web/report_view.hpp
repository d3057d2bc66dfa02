// ridgeline web: the report layer's tables (core/report) drawn as ImGui tables, and their
// rows as stacked-bar parts, so the page shows the same cells as the CLI.
#pragma once

#include "core/report/table.hpp"
#include "web/widgets.hpp"

#include <string>
#include <utility>
#include <vector>

namespace rl::web::ui {

// The table under its key (the copy button's id): words left, numbers right, a "(?)" on a
// row with help, totals in the accent colour, warnings in amber. A column keyed "hbm"
// (a share of the memory) is drawn as a small bar. height > 0: the rows scroll.
// selectable: a row is a button across the columns; returns the row clicked (-1: none).
int report_table(const ReportTable &t, float height = 0, bool selectable = false);

// The title with its "(?)", then the table, then its note (dimmed, wrapped).
void report_section(const ReportTable &t, float height = 0);

// The rows as bar parts: the value of column `col`, the colour of the row's key; rows whose
// key has no colour (totals, capacities) are left out. The first letter is capitalised.
using SegmentColors = std::vector<std::pair<std::string, ImVec4>>;
std::vector<Segment> report_segments(const ReportTable &t, const std::string &col,
                                     const SegmentColors &colors);

} // namespace rl::web::ui
