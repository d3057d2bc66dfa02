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

} // namespace rl
