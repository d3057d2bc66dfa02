// ridgeline shell: the one text table of the CLI.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace rl::shell {

struct Table {
  Table() = default;
  Table(std::vector<std::string> h, std::vector<std::vector<std::string>> r = {},
        std::vector<bool> l = {})
      : head(std::move(h)), rows(std::move(r)), left(std::move(l)) {}
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> left; // left-aligned columns; when empty, only the first column
  void print(std::ostream &os) const;
};

} // namespace rl::shell
