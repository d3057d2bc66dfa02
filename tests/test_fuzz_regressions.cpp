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
  // One folder per fuzz target, none empty.
  CHECK(seen.size() == rl::fuzz::targets().size());
  CHECK(inputs.size() >= 25);
}

TEST_CASE("Fuzz checks catch a broken contract") {
  // The checks themselves: a target name that does not exist is refused.
  CHECK_THROWS_AS(rl::fuzz::check("nope", "{}"), std::invalid_argument);
  // Good input passes every target.
  for (const auto &t : rl::fuzz::targets())
    CHECK_NOTHROW(t.check("{\"scenario\": \"llama3-70b-h100-1024\"}"));
}
