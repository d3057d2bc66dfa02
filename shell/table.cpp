#include "shell/table.hpp"

#include <algorithm>

namespace rl::shell {

void Table::print(std::ostream &os) const {
  std::vector<std::size_t> w(head.size(), 0);
  for (std::size_t i = 0; i < head.size(); ++i)
    w[i] = head[i].size();
  for (const auto &r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string> &r) {
    std::string s = "  ";
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) {
      const bool l = left.empty() ? i == 0 : i < left.size() && left[i];
      const std::string padding(w[i] > r[i].size() ? w[i] - r[i].size() : 0, ' ');
      s.append(l ? r[i] : padding).append(l ? padding : r[i]);
      if (i + 1 < r.size())
        s.append("  ");
    }
    while (!s.empty() && s.back() == ' ')
      s.pop_back();
    os << s << "\n";
  };
  line(head);
  std::vector<std::string> rule;
  for (const auto x : w)
    rule.emplace_back(x, '-');
  line(rule);
  for (const auto &r : rows)
    line(r);
}

} // namespace rl::shell
