// Every input that ever broke a fuzz target's contract (fuzz/regressions/<target>/, embedded
// by cmake/embed_corpus.cmake), replayed through the same checks the fuzzers run: each must
// now get a field-named error or a finite answer, within the work budgets.
#include "fuzz/targets.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

namespace rl::fuzz {
struct RegressionInput {
  std::string target, name, bytes;
};
const std::vector<RegressionInput> &regression_inputs();
} // namespace rl::fuzz

TEST_CASE("Fuzz regressions: every input that ever failed now gets an answer") {
  const auto &inputs = rl::fuzz::regression_inputs();
  std::set<std::string> seen;
  for (const auto &in : inputs) {
    INFO(in.target + "/" + in.name);
    seen.insert(in.target);
    CHECK_NOTHROW(rl::fuzz::check(in.target, in.bytes));
  }
  // Every folder is a fuzz target's (a target that never failed has none: calibrate,
  // export and closed_loop until they find something).
  std::set<std::string> names;
  for (const auto &t : rl::fuzz::targets())
    names.insert(t.name);
  for (const std::string &t : seen) {
    INFO(t);
    CHECK(names.count(t) == 1);
  }
  CHECK(seen.size() >= 9);
  CHECK(inputs.size() >= 25);
}

TEST_CASE("Fuzz checks catch a broken contract") {
  // The checks themselves: a target name that does not exist is refused.
  CHECK_THROWS_AS(rl::fuzz::check("nope", "{}"), std::invalid_argument);
  // Good input passes every target.
  for (const auto &t : rl::fuzz::targets())
    CHECK_NOTHROW(t.check("{\"scenario\": \"llama3-70b-h100-1024\"}"));
}

TEST_CASE("Fuzz checks: a launch is read as a shell reads it") {
  using rl::fuzz::shell_commands;
  const auto one = shell_commands("# a comment; $(x) `y`\nvllm serve 'a b'\\\n  --x \"c\\$d\"\n");
  REQUIRE(one.size() == 1);
  CHECK(one[0] == std::vector<std::string>{"vllm", "serve", "a b", "--x", "c$d"});
  // a comment ends at its line; a backslash does not continue it
  CHECK(shell_commands("# x \\\ntouch y\n").size() == 1);
  CHECK(shell_commands("vllm serve ''#x\n")[0] == std::vector<std::string>{"vllm", "serve", "#x"});
  for (const char *bad : {"vllm serve x; touch y\n", "vllm serve $(touch y)\n", "vllm `id`\n",
                          "vllm 'x\n", "vllm \"$HOME\"\n", "vllm x > y\n", "vllm *\n",
                          "vllm ~/x\n", "vllm x\\"}) {
    INFO(bad);
    CHECK_THROWS_AS(shell_commands(bad), rl::fuzz::Breach);
  }
  // every format is written for a plain name, and passes its check
  const auto cases = rl::fuzz::export_cases("plain-name");
  CHECK(cases.size() == 9);
  for (const auto &c : cases) {
    INFO(c.config + " " + c.format + ": " + c.error_path + ": " + c.error);
    CHECK(c.error.empty());
    CHECK(!c.text.empty());
    CHECK_NOTHROW(rl::fuzz::check_export_case(c));
  }
}
