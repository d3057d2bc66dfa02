// ridgeline io: readers that turn the measurement files people already have into rows
// (core/calibrate/measurements.hpp): nccl-tests output, GEMM / attention / element-wise sweeps
// (tools/measure/), serving benchmark results (vLLM, SGLang, genai-perf, a CSV of runs),
// training logs (Megatron-LM, torchtitan) and the components.json format. Every error names the
// file and line ("nccl.txt:12: column 'busbw': ...").
#pragma once

#include "core/calibrate/measurements.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rl::io {

// Largest file a reader takes (bytes): larger inputs are refused with the limit, never parsed.
constexpr std::size_t kMaxMeasurementBytes = std::size_t{64} << 20;
// The largest values a measurement file may give: beyond these a number is a typo or a unit
// slip, not a measurement.
constexpr double kMaxMeasuredDim = 1 << 30;  // a GEMM or attention dimension
constexpr double kMaxMeasuredMs = 1e9;       // a latency in ms (11 days)
constexpr double kMinMeasuredSeconds = 1e-9; // ... and at least a nanosecond
// Rows one file may give.
constexpr std::size_t kMaxMeasurementRows = 100000;
// Longest line a reader takes (bytes).
constexpr std::size_t kMaxMeasurementLineBytes = std::size_t{1} << 20;
// Columns a CSV header may name.
constexpr std::size_t kMaxMeasurementColumns = 256;

enum class MeasurementFormat {
  nccl_tests,
  gemm_csv,
  attention_csv,
  elementwise_csv,
  layer_profile_csv,
  serving_csv,
  vllm_json,
  sglang_jsonl,
  genai_perf_json,
  megatron_log,
  torchtitan_log,
  components_json,
  kernels_csv // AIConfigurator's per-operation tables (all-reduce, GEMM, quantise kernels)
};
const char *name_of_format(MeasurementFormat f);

// The format of a file from its text (and name, for hints): the first decisive line of a log,
// a CSV's header, a JSON object's top-level keys. ConfigError at `name` listing the formats
// when nothing matches.
MeasurementFormat detect_format(std::string_view text, const std::string &name);
// Reads one file's text (format detected, or as given). Every Measurements returned has
// files = {name}; a row's name identifies it ("gemm bf16 4096x4096x4096", "iteration 120") and
// a component point's source is "<name>:<line>". Errors are ConfigError with path
// "<name>:<line>" and a message naming the column or field ("column 'seconds': expected a
// positive number, got 'abc'"); text over kMaxMeasurementBytes, more than kMaxMeasurementRows
// rows or a line over kMaxMeasurementLineBytes is refused.
//
// Serving runs: a run driven with neither a concurrency limit nor a finite request rate (all
// requests sent at once) reads as concurrency = the requests sent.
Measurements read_measurements(std::string_view text, const std::string &name);
Measurements read_measurements(std::string_view text, const std::string &name, MeasurementFormat f);

// Internal: the pieces the readers' files (core/io/read_*.cpp) share. Not for callers.
namespace readers_detail {

// One line of the text: its bytes (no '\r' or '\n') and its 1-based number.
struct Line {
  std::string_view text;
  long long number = 0;
};

// The lines of a text, one at a time; refuses a line over kMaxMeasurementLineBytes.
class LineCursor {
public:
  LineCursor(std::string_view text, const std::string &name) : text_(text), name_(name) {}
  bool next(Line &line);

private:
  std::string_view text_;
  const std::string &name_;
  std::size_t pos_ = 0;
  long long number_ = 0;
};

// "<name>:<line>"
std::string where(const std::string &name, long long line);
// A user's text quoted for a message, cut to 40 bytes: 'abc'.
std::string quote_text(std::string_view s);
std::string_view trim(std::string_view s);
// A line without a launcher's rank label ("0: " from srun --label).
std::string_view without_rank_label(std::string_view s);
// A plain decimal number ("12", "-3.5e2"), finite; false on anything else ("inf", "0x1", "").
bool parse_number(std::string_view s, double &out);
// A whole number as text ("1048576"); others with up to 6 significant digits.
std::string number_text(double v);
// Throws when a file gives more than kMaxMeasurementRows rows.
void check_row_count(std::size_t rows, const std::string &name, long long line);
// Appends " (line N)" to the names that two or more rows share.
void name_duplicates(std::vector<ServingSample> &rows, const std::vector<long long> &lines);
// The serving engine a benchmark client's backend names ("vllm", "sglang-oai" -> "sglang",
// "tensorrtllm" -> "trtllm"); "" for a plain API ("openai").
std::string engine_of_backend(std::string_view backend);

Measurements read_nccl(std::string_view text, const std::string &name);
Measurements read_gemm_csv(std::string_view text, const std::string &name);
Measurements read_attention_csv(std::string_view text, const std::string &name);
Measurements read_elementwise_csv(std::string_view text, const std::string &name);
// docs/data/aic/*.csv (AIConfigurator systems/data, flattened): an engine's all-reduce
// (engine,version,kernel,num_gpus,message_bytes,latency_s), dense GEMMs
// (gpu,engine,version,dtype,m,n,k,latency_s) or FP8 quantise kernels
// (gpu,engine,version,op,m,k,latency_s), by the header.
Measurements read_kernels_csv(std::string_view text, const std::string &name);
Measurements read_serving_csv(std::string_view text, const std::string &name);
Measurements read_layer_profile_csv(std::string_view text, const std::string &name);
Measurements read_serving_json(std::string_view text, const std::string &name, MeasurementFormat f);
Measurements read_components_json(std::string_view text, const std::string &name);
Measurements read_megatron(std::string_view text, const std::string &name);
Measurements read_torchtitan(std::string_view text, const std::string &name);

// The top-level keys of the first JSON object in text (the first 1 MiB looked at).
std::vector<std::string> top_level_keys(std::string_view text);
// The lowercased names of a CSV header line.
std::vector<std::string> csv_header(std::string_view line);

} // namespace readers_detail

} // namespace rl::io
