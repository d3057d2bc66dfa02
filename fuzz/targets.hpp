// ridgeline fuzz: one check per entry point that takes user text (config JSON for
// estimate/resolve/sweep and plan, URL decode with a round trip, tx8, validation files
// (`validate --runs`), the Hugging Face importer, the serve simulation and its request traces,
// the measurement files of `ridgeline calibrate` read and fitted, the launch exports of a
// hostile model name, the closed-loop serving simulation). Each runs the input through the
// entry point and throws Breach when the contract of issues 13 and 35 is broken: a foreign
// exception, an error without a path or message in plain words, an internal error, a non-finite
// number in an answer, a band without a positive lower bound, a URL that does not decode back
// to the same configuration, a calibrated preset the parser refuses, a launch text a shell reads
// as anything but its one command. libFuzzer drives them
// (fuzz/fuzz_main.cpp, scripts/fuzz.sh); the test suite replays every input that ever failed
// (fuzz/regressions/<target>/, embedded).
#pragma once

#include "core/tx8/mapping.hpp"

#include <cstddef>
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

// estimate, plan, url, tx8, validate, hf, serve, trace, readers, calibrate, export, closed_loop
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
// ... and fit at most this many rows of each kind from one measurement file (calibrate has no
// work budget of its own yet, issue 35: a GEMM sweep's fit evaluates every point ~42,000
// times, a collective tier's ~27,000): component points of each kind, kernel timings, layer
// profiles, serving runs (each run is simulated 5 times, all of them within
// kFuzzServeIterations). Training rows are all kept: one file is one run, its overhead fit
// 1501 estimates of the base.
constexpr std::size_t kFuzzFitPoints = 3;
constexpr std::size_t kFuzzFitKernels = 16;
constexpr std::size_t kFuzzFitLayers = 8;
constexpr std::size_t kFuzzFitServing = 4;

// The launch texts of every export format for configurations carrying `name` where a user's
// text reaches a launch: a model's name (training and serving, no hf_id), a hardware preset's
// name, a Hugging Face config's _name_or_path. What the export target checks and the shell-stub
// test (tests/test_export_shell.cpp) runs through /bin/sh. only = 0, 1 or 2: that configuration
// alone (train, serve, hf; the fuzz target takes one an input: each parse is ~2 ms under ASan).
struct ExportCase {
  std::string config; // which configuration: "train", "serve", "hf"
  std::string format; // "" when the configuration itself was refused
  std::string text;   // the launch (its planner header included), when written
  std::string error_path, error;   // the ConfigError, when refused
  std::string model_word;          // the checkpoint argument a serving launch must carry
};
std::vector<ExportCase> export_cases(const std::string &name, int only = -1);
// A launch text as a POSIX shell reads it (XCU 2.2-2.3): its simple commands, each as its words
// after quote removal. Throws Breach on anything a launch never holds: an operator (; & | < >
// ( )), an expansion ($, `), an unterminated quote, a pathname pattern or tilde outside quotes,
// a backslash ending the text.
std::vector<std::vector<std::string>> shell_commands(const std::string &text);
// Throws Breach when a case's text is not what its format promises (export target's check).
void check_export_case(const ExportCase &c);

} // namespace rl::fuzz
