// ridgeline fuzz: one check per entry point that takes user text (config JSON for
// estimate/resolve/sweep and plan, URL decode with a round trip, tx8, validation files, the
// Hugging Face importer, the serve simulation and its request traces, the measurement files of
// `ridgeline calibrate`). Each runs the input through the entry point and throws Breach when the
// contract of issue 13 is broken: a foreign exception, an error without a path or message in
// plain words, an internal error, a non-finite number in an answer, a band without a positive
// lower bound, a URL that does not decode back to the same configuration. libFuzzer drives them
// (fuzz/fuzz_main.cpp, scripts/fuzz.sh); the test suite replays every input that ever failed
// (fuzz/regressions/<target>/, embedded).
#pragma once

#include "core/tx8/mapping.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace rl::fuzz {

struct Breach : std::logic_error {
  using std::logic_error::logic_error;
};

struct Target {
  const char *name;
  void (*check)(const std::string &input);
};

// estimate, plan, url, tx8, validate, hf, serve, trace, readers
const std::vector<Target> &targets();
// Runs target `name` on `input`; throws Breach (or std::invalid_argument for an unknown name).
void check(const std::string &name, const std::string &input);

// In-harness work budget for the planner (budget units, see PlanOptions::budget): the
// fuzzers try many inputs a second, so they search a smaller space than the CLI.
constexpr long long kFuzzPlanBudget = 20000;
// ... and fit validation runs only up to this many units (1501 per run and model layer).
constexpr long long kFuzzFitBudget = 300000;
// ... and simulate serving only up to about this many engine iterations (requests x (prompt
// chunks + generated tokens)): the CLI allows kServeIterationBudget (a long run under ASan).
constexpr double kFuzzServeIterations = 200000;
// ... and a request trace's simulation to fewer (a trace's requests are drawn by the fuzzer
// one by one, so most of them are small).
constexpr double kFuzzTraceIterations = 20000;
// ... and search each tx8 operator within this budget (the CLI's: 10^6 tilings, 10^5
// evaluated).
constexpr tx8::SearchBudget kFuzzTx8Budget{4000, 400};

} // namespace rl::fuzz
