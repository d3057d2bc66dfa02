#include "core/report/table.hpp"

namespace rl {

int ReportTable::column(const std::string &k) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == k)
      return static_cast<int>(i);
  return -1;
}

const ReportLine *ReportTable::row(const std::string &k) const {
  for (const ReportLine &r : rows)
    if (r.key == k)
      return &r;
  return nullptr;
}

ReportTable compare_table(const std::vector<ReportRow> &before, const std::vector<ReportRow> &after,
                          const std::string &before_head, const std::string &after_head) {
  ReportTable t;
  t.key = "compare";
  t.title = "Every headline number";
  t.help = "Each number of both results with its change: relative for quantities, in "
           "percentage points for percentages (MFU 30% -> 35%: +5.0 pts).";
  t.columns = {{"label", "", Unit::plain, Better::neither, true},
               {"before", before_head},
               {"after", after_head},
               {"change", "change"}};
  std::string section;
  for (const CompareRow &r : compare_rows(before, after)) {
    if (r.section != section) {
      section = r.section;
      t.rows.push_back({"section", "", Mark::none, {{section}, {}, {}, {}}});
    }
    const int v = r.verdict();
    ReportLine line{r.label, "", Mark::none, {}};
    line.cells = {{r.label, 0},
                  {r.has_before ? format_value(r.before, r.unit) : "-", r.before},
                  {r.has_after ? format_value(r.after, r.unit) : "-", r.after},
                  {change_text(r), r.relative(),
                   v > 0   ? Mark::ok
                   : v < 0 ? Mark::warn
                           : Mark::dim}};
    t.rows.push_back(std::move(line));
  }
  return t;
}

} // namespace rl
