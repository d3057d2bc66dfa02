#include "core/io/readers.hpp"

#include "core/error.hpp"
#include "core/schema/printable.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>

namespace rl::io {

using namespace readers_detail;

const char *name_of_format(MeasurementFormat f) {
  switch (f) {
  case MeasurementFormat::nccl_tests:
    return "nccl-tests";
  case MeasurementFormat::gemm_csv:
    return "GEMM sweep CSV";
  case MeasurementFormat::attention_csv:
    return "attention sweep CSV";
  case MeasurementFormat::elementwise_csv:
    return "element-wise CSV";
  case MeasurementFormat::layer_profile_csv:
    return "layer profile CSV";
  case MeasurementFormat::serving_csv:
    return "serving runs CSV";
  case MeasurementFormat::vllm_json:
    return "vLLM bench serve JSON";
  case MeasurementFormat::sglang_jsonl:
    return "SGLang bench_serving JSONL";
  case MeasurementFormat::genai_perf_json:
    return "genai-perf / AIPerf profile export JSON";
  case MeasurementFormat::megatron_log:
    return "Megatron-LM training log";
  case MeasurementFormat::torchtitan_log:
    return "torchtitan training log";
  case MeasurementFormat::components_json:
    return "components.json";
  case MeasurementFormat::kernels_csv:
    return "per-operation kernel CSV (AIConfigurator)";
  }
  return "?";
}

// [SECTION] shared pieces

namespace readers_detail {

bool LineCursor::next(Line &line) {
  if (pos_ >= text_.size())
    return false;
  std::size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos)
    end = text_.size();
  std::string_view l = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  ++number_;
  if (!l.empty() && l.back() == '\r')
    l.remove_suffix(1);
  if (l.size() > kMaxMeasurementLineBytes)
    throw ConfigError(where(name_, number_),
                      "the line is " + std::to_string(l.size()) + " bytes; the limit is 1 MiB");
  line = {l, number_};
  return true;
}

std::string where(const std::string &name, long long line) {
  return name + ":" + std::to_string(line);
}

std::string quote_text(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  out.append(schema::printable(s.substr(0, kShown)));
  out.append(s.size() > kShown ? "...'" : "'");
  return out;
}

std::string_view trim(std::string_view s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos)
    return {};
  const auto b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

std::string_view without_rank_label(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ')
    ++i;
  const std::size_t digits = i;
  while (i < s.size() && i - digits < 8 && std::isdigit(static_cast<unsigned char>(s[i])))
    ++i;
  if (i > digits && i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ')
    return s.substr(i + 2);
  return s;
}

bool parse_number(std::string_view s, double &out) {
  s = trim(s);
  if (s.empty() || s.size() > 64)
    return false;
  // Plain decimal notation only: strtod would also take "inf", "nan" and hex floats.
  std::size_t i = 0, digits = 0;
  if (s[i] == '+' || s[i] == '-')
    ++i;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
    ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
      ++digits;
  if (digits == 0)
    return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    std::size_t exp_digits = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
      ++exp_digits;
    if (exp_digits == 0)
      return false;
  }
  if (i != s.size())
    return false;
  const std::string copy(s);
  const double v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v))
    return false;
  out = v;
  return true;
}

std::string number_text(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e18)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void check_row_count(std::size_t rows, const std::string &name, long long line) {
  if (rows > kMaxMeasurementRows)
    throw ConfigError(where(name, line), "more than " + std::to_string(kMaxMeasurementRows) +
                                             " rows; the limit is " +
                                             std::to_string(kMaxMeasurementRows) + " a file");
}

void name_duplicates(std::vector<ServingSample> &rows, const std::vector<long long> &lines) {
  std::map<std::string, int> uses;
  for (const ServingSample &s : rows)
    ++uses[s.name];
  for (std::size_t i = 0; i < rows.size() && i < lines.size(); ++i)
    if (uses[rows[i].name] > 1)
      rows[i].name += " (line " + std::to_string(lines[i]) + ")";
}

std::string engine_of_backend(std::string_view backend) {
  std::string b;
  for (const char c : backend)
    b += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  constexpr std::pair<const char *, const char *> kEngines[] = {
      {"vllm", "vllm"},           {"sglang", "sglang"},
      {"lmdeploy", "lmdeploy"},   {"tensorrtllm", "trtllm"},
      {"tensorrt-llm", "trtllm"}, {"trtllm", "trtllm"},
      {"trt", "trtllm"},          {"tgi", "tgi"},
      {"scalellm", "scalellm"}};
  for (const auto &[prefix, engine] : kEngines)
    if (b.rfind(prefix, 0) == 0)
      return engine;
  return "";
}

std::vector<std::string> csv_header(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    std::string_view cell = trim(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
      cell = trim(cell.substr(1, cell.size() - 2));
    std::string name;
    for (const char c : cell)
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(name);
    if (comma == std::string_view::npos)
      return out;
    start = comma + 1;
  }
}

} // namespace readers_detail

// [SECTION] detection

namespace {

bool has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool starts(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// nccl-tests' own header lines (NVIDIA/nccl-tests src/util.cu, writeDeviceReport and
// writeResultHeader; src/common.cu, run()).
bool nccl_line(std::string_view t) {
  if (t.empty() || t[0] != '#')
    return false;
  const std::string_view b = trim(t.substr(1));
  return starts(b, "nThread ") || starts(b, "Collective test starting:") ||
         (starts(b, "Rank ") && has(b, " Pid ") && has(b, " device ")) ||
         ((starts(b, "size ") || starts(b, "bytes ")) && has(b, "busbw"));
}

// Megatron-LM's training_log line (megatron/training/training.py).
bool megatron_line(std::string_view t) {
  return has(t, "iteration ") && has(t, "elapsed time per iteration (ms):");
}

// torchtitan's metrics line (torchtitan/components/metrics.py), colour escapes or not.
bool torchtitan_line(std::string_view t) {
  return has(t, "step:") && has(t, "tps:");
}

struct CsvFormat {
  MeasurementFormat format;
  std::vector<const char *> columns;
};

// The CSV format whose columns the header holds most of (two or more).
std::optional<MeasurementFormat> csv_format(std::string_view line) {
  static const CsvFormat kFormats[] = {
      {MeasurementFormat::gemm_csv, {"m", "n", "k", "dtype", "seconds"}},
      {MeasurementFormat::attention_csv,
       {"batch", "heads", "seq", "head_dim", "causal", "dtype", "fwd_seconds", "bwd_seconds"}},
      {MeasurementFormat::elementwise_csv, {"kernel", "bytes", "seconds"}},
      {MeasurementFormat::layer_profile_csv,
       {"kernel_class", "calls", "seconds", "hidden", "heads", "kv_heads", "ffn", "seq",
        "micro_batch", "dtype"}},
      {MeasurementFormat::serving_csv,
       {"isl", "osl", "concurrency", "request_rate", "ttft_ms", "tpot_ms"}},
      // the three tables share engine, version and latency_s; each adds its own columns
      {MeasurementFormat::kernels_csv,
       {"engine", "version", "latency_s", "gpu", "num_gpus", "message_bytes", "op", "dtype", "m",
        "n", "k"}}};
  const std::vector<std::string> header = csv_header(line);
  const std::set<std::string> cols(header.begin(), header.end());
  std::optional<MeasurementFormat> best;
  std::size_t best_score = 1;
  for (const CsvFormat &f : kFormats) {
    std::size_t score = 0;
    for (const char *c : f.columns)
      score += cols.count(c);
    if (score > best_score) {
      best = f.format;
      best_score = score;
    }
  }
  return best;
}

bool any_key(const std::set<std::string> &keys, std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (keys.count(n))
      return true;
  return false;
}

std::string lowercase(std::string_view s) {
  std::string out;
  for (const char c : s)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A JSON object's format from its top-level keys (and the file name, for a tie).
MeasurementFormat json_format(std::string_view text, const std::string &name) {
  const std::vector<std::string> list = top_level_keys(text);
  const std::set<std::string> keys(list.begin(), list.end());
  if (keys.count("points"))
    return MeasurementFormat::components_json;
  if (any_key(keys, {"time_to_first_token", "inter_token_latency", "request_latency",
                     "input_sequence_length", "output_sequence_length", "aiperf_version"}))
    return MeasurementFormat::genai_perf_json;
  if (any_key(keys, {"model_id", "tokenizer_id", "endpoint_type", "burstiness", "mean_e2el_ms",
                     "request_goodput", "max_output_tokens_per_s", "max_concurrent_requests"}))
    return MeasurementFormat::vllm_json;
  if (any_key(keys, {"mean_e2e_latency_ms", "total_output_tokens_retokenized", "random_input_len",
                     "accept_length", "dataset_name"}))
    return MeasurementFormat::sglang_jsonl;
  if (keys.count("mean_ttft_ms"))
    return has(lowercase(name), "sglang") || has(lowercase(name), ".jsonl")
               ? MeasurementFormat::sglang_jsonl
               : MeasurementFormat::vllm_json;
  std::string found;
  for (std::size_t i = 0; i < list.size() && i < 12; ++i)
    found += (i ? ", " : "") + list[i];
  if (list.size() > 12)
    found += ", ...";
  throw ConfigError(name, "a JSON object with none of the keys ridgeline reads: \"points\" "
                          "(components.json), \"mean_ttft_ms\" with \"model_id\" (vllm bench "
                          "serve --save-result) or \"mean_e2e_latency_ms\" (SGLang "
                          "bench_serving), \"time_to_first_token\" (genai-perf / AIPerf "
                          "profile export); its keys: " +
                              (found.empty() ? std::string("none") : found));
}

// A JSON array, not a log line that starts with a bracket ("[rank0]:[titan] ...", Megatron's
// " [2024-05-01 10:00:00] iteration ...": detect_format looks for those first).
bool json_array(std::string_view body) {
  if (body.empty() || body[0] != '[')
    return false;
  const std::string_view rest = trim(body.substr(1));
  if (rest.empty())
    return true;
  const char c = rest[0];
  return c == '{' || c == '[' || c == '"' || c == ']' || c == '-' ||
         std::isdigit(static_cast<unsigned char>(c));
}

std::string_view without_bom(std::string_view text) {
  return starts(text, "\xEF\xBB\xBF") ? text.substr(3) : text;
}

// Refuses what no reader can take, before any is tried: text over the size limit, UTF-16 or
// UTF-32 (a byte-order mark, or NUL bytes: a binary file), lines ended by CR alone.
void check_text(std::string_view text, const std::string &name) {
  if (text.size() > kMaxMeasurementBytes)
    throw ConfigError(name, "is " + std::to_string(text.size()) + " bytes; the limit is 64 MiB");
  if (starts(text, "\xFF\xFE") || starts(text, "\xFE\xFF"))
    throw ConfigError(name, "is UTF-16 or UTF-32 text (a byte-order mark " +
                                std::string(text[0] == '\xFF' ? "FF FE" : "FE FF") +
                                "): save it as UTF-8");
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(nul), '\n');
    throw ConfigError(where(name, line), "a NUL byte: a binary file or UTF-16 text, not a "
                                         "measurement file (save it as UTF-8)");
  }
  if (text.find('\n') == std::string_view::npos && text.find('\r') != std::string_view::npos &&
      text.find('\r') + 1 < trim(text).size())
    throw ConfigError(name, "its lines end in CR alone (classic Mac OS line ends): convert them "
                            "to LF or CRLF");
}

} // namespace

MeasurementFormat detect_format(std::string_view text, const std::string &name) {
  check_text(text, name);
  text = without_bom(text);
  const std::string_view body = trim(text);
  if (body.empty())
    throw ConfigError(name, "is empty");
  if (body[0] == '{')
    return json_format(body, name);
  LineCursor lines(text, name);
  Line l;
  bool first = true;
  while (lines.next(l)) {
    const std::string_view t = trim(without_rank_label(l.text));
    if (t.empty())
      continue;
    if (nccl_line(t))
      return MeasurementFormat::nccl_tests;
    if (megatron_line(t))
      return MeasurementFormat::megatron_log;
    if (torchtitan_line(t))
      return MeasurementFormat::torchtitan_log;
    if (first && t[0] != '#') {
      first = false;
      if (has(t, ","))
        if (const auto f = csv_format(t))
          return *f;
    }
  }
  // (after the log formats: a Megatron-LM line starts with " [2024-05-01 10:00:00]")
  if (json_array(body))
    throw ConfigError(name, "a JSON array: ridgeline reads a JSON object (vLLM, genai-perf, "
                            "components.json) or one object a line (SGLang)");
  throw ConfigError(
      name, "not a measurement file ridgeline reads: nccl-tests output (all_reduce_perf, ...), a "
            "CSV with the header m,n,k,dtype,seconds (GEMM), "
            "batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds (attention), "
            "kernel,bytes,seconds (element-wise), kernel_class,calls,seconds,hidden,... (layer "
            "profile) or isl,osl,concurrency,ttft_ms,tpot_ms "
            "(serving), a vLLM / SGLang / genai-perf / AIPerf result, a Megatron-LM or "
            "torchtitan training log, or components.json");
}

Measurements read_measurements(std::string_view text, const std::string &name) {
  return read_measurements(text, name, detect_format(text, name));
}

Measurements read_measurements(std::string_view text, const std::string &name,
                               MeasurementFormat f) {
  check_text(text, name);
  text = without_bom(text);
  Measurements m;
  switch (f) {
  case MeasurementFormat::nccl_tests:
    m = read_nccl(text, name);
    break;
  case MeasurementFormat::gemm_csv:
    m = read_gemm_csv(text, name);
    break;
  case MeasurementFormat::attention_csv:
    m = read_attention_csv(text, name);
    break;
  case MeasurementFormat::elementwise_csv:
    m = read_elementwise_csv(text, name);
    break;
  case MeasurementFormat::layer_profile_csv:
    m = read_layer_profile_csv(text, name);
    break;
  case MeasurementFormat::serving_csv:
    m = read_serving_csv(text, name);
    break;
  case MeasurementFormat::vllm_json:
  case MeasurementFormat::sglang_jsonl:
  case MeasurementFormat::genai_perf_json:
    m = read_serving_json(text, name, f);
    break;
  case MeasurementFormat::megatron_log:
    m = read_megatron(text, name);
    break;
  case MeasurementFormat::torchtitan_log:
    m = read_torchtitan(text, name);
    break;
  case MeasurementFormat::components_json:
    m = read_components_json(text, name);
    break;
  case MeasurementFormat::kernels_csv:
    m = read_kernels_csv(text, name);
    break;
  }
  for (ServingSample &s : m.serving) {
    s.file = name;
    // A latency under a nanosecond is a corrupt cell (7.5e-300 ms made a fit's cost infinite).
    for (const auto &[what, v] : {std::pair{"TTFT", s.ttft.mean}, std::pair{"TPOT", s.tpot.mean},
                                  std::pair{"ITL", s.itl.mean}, std::pair{"E2E", s.e2e.mean}})
      if (v > 0 && v < kMinMeasuredSeconds)
        throw ConfigError(name, s.name + ": mean " + what + " " + number_text(v) +
                                    " s is under 1 ns: not a measured latency");
  }
  for (TrainingSample &t : m.training)
    t.file = name;
  for (LayerProfile &p : m.layers)
    p.file = name;
  m.files = {name};
  return m;
}

} // namespace rl::io
