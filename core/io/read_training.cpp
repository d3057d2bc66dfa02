// ridgeline io: training logs, one TrainingSample per iteration line; every other line (and
// the launcher's and logger's prefixes) is ignored.
#include "core/error.hpp"
#include "core/io/readers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace rl::io::readers_detail {

namespace {

bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c));
}

// The key at a word boundary in t (not the tail of a longer word): its offset or npos.
std::size_t key_at(std::string_view t, std::string_view key, std::size_t from = 0) {
  for (std::size_t p = t.find(key, from); p != std::string_view::npos; p = t.find(key, p + 1)) {
    const char before = p == 0 ? ' ' : t[p - 1];
    if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_')
      return p;
  }
  return std::string_view::npos;
}

// The word after `key` (spaces skipped; up to a space or '|'); nullopt when the key is absent.
std::optional<std::string_view> after(std::string_view t, std::string_view key) {
  const std::size_t p = key_at(t, key);
  if (p == std::string_view::npos)
    return std::nullopt;
  std::size_t i = p + key.size();
  while (i < t.size() && t[i] == ' ')
    ++i;
  std::size_t j = i;
  while (j < t.size() && t[j] != ' ' && t[j] != '|' && t[j] != '\t')
    ++j;
  return t.substr(i, j - i);
}

[[noreturn]] void bad_value(const std::string &name, long long line, std::string_view field,
                            const char *expected, std::string_view got) {
  throw ConfigError(where(name, line), "field '" + std::string(field) + "': expected " + expected +
                                           ", got " + quote_text(got));
}

// The value after `key`: a number in [lo, hi] (nullopt when the key is absent).
std::optional<double> value(std::string_view t, std::string_view key, const std::string &name,
                            long long line, double lo, double hi, bool commas = false,
                            std::string_view suffix = "") {
  const auto w = after(t, key);
  if (!w)
    return std::nullopt;
  std::string s(*w);
  if (commas)
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  if (!suffix.empty() && s.size() >= suffix.size() &&
      std::string_view(s).substr(s.size() - suffix.size()) == suffix)
    s.resize(s.size() - suffix.size());
  const std::string_view field = key.substr(0, key.size() - 1); // without the ':'
  double v = 0;
  if (!parse_number(s, v))
    bad_value(name, line, field, "a number", *w);
  if (v < lo || v > hi)
    throw ConfigError(where(name, line), "field '" + std::string(field) + "': " + std::string(*w) +
                                             " is out of range [" + number_text(lo) + ", " +
                                             number_text(hi) + "]");
  return v;
}

// Megatron-LM's " iteration      120/    1000 |": the iteration's number, or nullopt when the
// line has no such field.
std::optional<long long> megatron_iteration(std::string_view t) {
  for (std::size_t p = key_at(t, "iteration "); p != std::string_view::npos;
       p = key_at(t, "iteration ", p + 1)) {
    std::size_t i = p + 10;
    while (i < t.size() && t[i] == ' ')
      ++i;
    const std::size_t a = i;
    while (i < t.size() && digit(t[i]) && i - a < 15)
      ++i;
    if (i == a || i >= t.size() || t[i] != '/')
      continue;
    const long long n = std::atoll(std::string(t.substr(a, i - a)).c_str());
    for (++i; i < t.size() && t[i] == ' ';)
      ++i;
    const std::size_t b = i;
    while (i < t.size() && digit(t[i]))
      ++i;
    if (i > b)
      return n;
  }
  return std::nullopt;
}

// The line without terminal colour escapes (ESC [ ... final byte) and other control bytes.
std::string without_escapes(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\x1b') {
      if (i + 1 < t.size() && t[i + 1] == '[') {
        i += 2;
        while (i < t.size() && !(t[i] >= 0x40 && t[i] <= 0x7e))
          ++i;
      }
      continue;
    }
    out += t[i];
  }
  return out;
}

} // namespace

// Megatron-LM's training_log (megatron/training/training.py): " [2025-05-14 10:21:33.123]
// iteration      120/    1000 | consumed samples: ... | elapsed time per iteration (ms): 1234.5
// | throughput per GPU (TFLOP/s/GPU): 456.7 | learning rate: ... | global batch size:   128 |".
Measurements read_megatron(std::string_view text, const std::string &name) {
  Measurements out;
  LineCursor lines(text, name);
  Line l;
  while (lines.next(l)) {
    const std::string_view t = l.text;
    const auto iteration = megatron_iteration(t);
    if (!iteration)
      continue;
    const auto ms = value(t, "elapsed time per iteration (ms):", name, l.number, 0, 1e12);
    if (!ms)
      throw ConfigError(where(name, l.number),
                        "an iteration line without 'elapsed time per iteration (ms):'");
    if (*ms <= 0)
      bad_value(name, l.number, "elapsed time per iteration (ms)", "a positive number",
                *after(t, "elapsed time per iteration (ms):"));
    TrainingSample s;
    s.iteration = *iteration;
    s.step_s = *ms / 1e3;
    s.tflops_per_gpu =
        value(t, "throughput per GPU (TFLOP/s/GPU):", name, l.number, 0, 1e9).value_or(0) * 1e12;
    const auto batch = value(t, "global batch size:", name, l.number, 1, 1e12);
    if (batch && *batch != std::floor(*batch))
      bad_value(name, l.number, "global batch size", "a whole number",
                *after(t, "global batch size:"));
    s.global_batch = static_cast<i64>(batch.value_or(0));
    s.name = "iteration " + std::to_string(s.iteration);
    out.training.push_back(s);
    check_row_count(out.training.size(), name, l.number);
  }
  if (out.training.empty())
    throw ConfigError(name, "no Megatron-LM iteration line (' iteration N/ M | ... | elapsed "
                            "time per iteration (ms): X | ...')");
  return out;
}

// torchtitan's metrics line (torchtitan/components/metrics.py, MetricsProcessor.log), after
// the logger's "[titan] <time> - root - INFO - " and with colour escapes unless disabled:
// "step: 10  loss:  7.9214  grad_norm: 1.2  memory: 30.12GiB(38.04%)  tps: 6,112
// tflops: 350.12  mfu: 35.40%". Validation lines ("validate step:") are not training steps.
Measurements read_torchtitan(std::string_view text, const std::string &name) {
  Measurements out;
  LineCursor lines(text, name);
  Line l;
  while (lines.next(l)) {
    if (l.text.find("step:") == std::string_view::npos)
      continue;
    const std::string plain = without_escapes(l.text);
    const std::string_view t = plain;
    const std::size_t at = key_at(t, "step:");
    if (at == std::string_view::npos || key_at(t, "tps:") == std::string_view::npos)
      continue;
    const std::string_view before = trim(t.substr(0, at));
    if (before.size() >= 8 && before.substr(before.size() - 8) == "validate")
      continue;
    const auto step = value(t, "step:", name, l.number, 0, 1e15);
    if (*step != std::floor(*step))
      bad_value(name, l.number, "step", "a whole number", *after(t, "step:"));
    const auto tps = value(t, "tps:", name, l.number, 0, 1e12, true);
    if (*tps <= 0)
      bad_value(name, l.number, "tps", "a positive number", *after(t, "tps:"));
    TrainingSample s;
    s.iteration = static_cast<i64>(*step);
    s.tokens_per_s = *tps;
    s.tflops_per_gpu = value(t, "tflops:", name, l.number, 0, 1e9, true).value_or(0) * 1e12;
    s.mfu = value(t, "mfu:", name, l.number, 0, 1000, false, "%").value_or(0) / 100;
    s.name = "step " + std::to_string(s.iteration);
    out.training.push_back(s);
    check_row_count(out.training.size(), name, l.number);
  }
  if (out.training.empty())
    throw ConfigError(name, "no torchtitan metrics line ('step: N  loss: ...  tps: T  tflops: F  "
                            "mfu: M%')");
  return out;
}

} // namespace rl::io::readers_detail
