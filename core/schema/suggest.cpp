#include "core/schema/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace rl::schema {

std::size_t edit_distance(const std::string &a, const std::string &b) {
  auto low = [](char ch) { return std::tolower(static_cast<unsigned char>(ch)); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] =
          std::min({row[j] + 1, row[j - 1] + 1, diag + (low(a[i - 1]) == low(b[j - 1]) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(const std::string &given, const std::vector<std::string> &names) {
  if (given.empty() || given.size() > 256) // a name, not a text
    return "";
  const std::size_t limit = std::clamp<std::size_t>(given.size() / 3, 1, 3);
  const std::string *best = nullptr;
  std::size_t best_d = limit + 1;
  for (const std::string &n : names) {
    if (n.size() > given.size() + limit || given.size() > n.size() + limit)
      continue;
    const std::size_t d = edit_distance(given, n);
    if (d < best_d && d > 0) {
      best_d = d;
      best = &n;
    }
  }
  return best ? " (did you mean \"" + *best + "\"?)" : "";
}

} // namespace rl::schema
