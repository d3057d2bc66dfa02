#include "core/io/readers.hpp"

#include "core/calibrate/components.hpp"
#include "core/comm/collective.hpp"
#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/validation_json.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace rl::io {

using json = nlohmann::json;

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
  }
  return "?";
}

namespace {

// [SECTION] text helpers

struct Line {
  std::size_t number; // 1-based
  std::string text;
};

std::vector<Line> lines_of(std::string_view text, const std::string &name) {
  std::vector<Line> out;
  std::size_t start = 0, n = 1;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r')
      l.remove_suffix(1);
    if (l.size() > (std::size_t{1} << 20))
      throw ConfigError(name + ":" + std::to_string(n), "a line over 1 MiB");
    out.push_back({n, std::string(l)});
    if (end == text.size())
      break;
    start = end + 1;
    ++n;
  }
  return out;
}

std::string trim(const std::string &s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos)
    return "";
  const auto b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto p = s.find(sep, start);
    out.push_back(trim(s.substr(start, p - start)));
    if (p == std::string::npos)
      return out;
    start = p + 1;
  }
}

std::vector<std::string> words(const std::string &s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t')
      ++j;
    if (j > i)
      out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// A finite number spanning the whole text ("1,234" with thousands separators allowed when
// `commas`); nullopt otherwise.
std::optional<double> number(std::string s, bool commas = false) {
  if (commas)
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  s = trim(s);
  if (s.empty() || s.size() > 64)
    return std::nullopt;
  char *end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::string at_line(const std::string &name, std::size_t line) {
  return name + ":" + std::to_string(line);
}

void check_rows(std::size_t rows, const std::string &name) {
  if (rows > kMaxMeasurementRows)
    throw ConfigError(name, "more than " + std::to_string(kMaxMeasurementRows) + " rows");
}

// [SECTION] CSV with a header row

struct Csv {
  std::string name;
  std::map<std::string, std::size_t> cols;
  std::vector<Line> rows; // data lines (non-empty, not '#')
  std::size_t header_line = 0;
};

Csv read_csv(std::string_view text, const std::string &name) {
  Csv c;
  c.name = name;
  bool header = false;
  for (Line &l : lines_of(text, name)) {
    const std::string t = trim(l.text);
    if (t.empty() || t[0] == '#')
      continue;
    if (!header) {
      const auto cells = split(t, ',');
      for (std::size_t i = 0; i < cells.size(); ++i)
        c.cols[cells[i]] = i;
      c.header_line = l.number;
      header = true;
      continue;
    }
    c.rows.push_back({l.number, t});
    check_rows(c.rows.size(), name);
  }
  if (!header)
    throw ConfigError(name, "is empty: expected a header row and data rows");
  return c;
}

struct CsvRow {
  const Csv &csv;
  const Line &line;
  std::vector<std::string> cells;
  CsvRow(const Csv &c, const Line &l) : csv(c), line(l), cells(split(l.text, ',')) {}
  bool has(const std::string &col) const {
    const auto it = csv.cols.find(col);
    return it != csv.cols.end() && it->second < cells.size() && !cells[it->second].empty();
  }
  const std::string &text(const std::string &col) const {
    const auto it = csv.cols.find(col);
    if (it == csv.cols.end())
      throw ConfigError(at_line(csv.name, csv.header_line), "no column '" + col + "'");
    if (it->second >= cells.size())
      throw ConfigError(at_line(csv.name, line.number),
                        "column '" + col + "': missing (the row has " +
                            std::to_string(cells.size()) + " cells)");
    return cells[it->second];
  }
  double num(const std::string &col, bool positive = true) const {
    const std::string &s = text(col);
    const auto v = number(s);
    if (!v || (positive ? *v <= 0 : *v < 0))
      throw ConfigError(at_line(csv.name, line.number),
                        "column '" + col + "': expected a " +
                            (positive ? "positive" : "non-negative") + " number, got '" + s + "'");
    return *v;
  }
  double opt(const std::string &col) const { return has(col) ? num(col, false) : 0; }
};

Dtype dtype_of(const CsvRow &r) {
  const std::string s = r.text("dtype");
  static const std::pair<const char *, Dtype> names[] = {
      {"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"fp32", Dtype::fp32},
      {"fp8", Dtype::fp8},   {"int8", Dtype::int8}};
  for (const auto &[n, d] : names)
    if (s == n)
      return d;
  throw ConfigError(at_line(r.csv.name, r.line.number),
                    "column 'dtype': '" + s + "' is not one of bf16, fp16, fp32, fp8, int8");
}

std::string dims(double a, double b, double c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0fx%.0fx%.0f", a, b, c);
  return buf;
}

// tools/measure/gemm_sweep.py: m,n,k,dtype,seconds (time of one GEMM [m x k] x [k x n]).
Measurements read_gemm(std::string_view text, const std::string &name) {
  const Csv c = read_csv(text, name);
  Measurements m;
  for (const Line &l : c.rows) {
    const CsvRow r(c, l);
    ComponentPoint p;
    p.kind = ComponentKind::gemm;
    p.m = r.num("m");
    p.n = r.num("n");
    p.k = r.num("k");
    p.precision = dtype_of(r);
    p.measured = 2 * p.m * p.n * p.k / r.num("seconds");
    p.name = std::string("gemm ") + r.text("dtype") + " " + dims(p.m, p.n, p.k);
    p.source = at_line(name, l.number);
    p.fitted = true;
    m.components.push_back(p);
  }
  return m;
}

bool flag_of(const CsvRow &r, const std::string &col) {
  const std::string s = r.text(col);
  if (s == "true" || s == "1" || s == "True")
    return true;
  if (s == "false" || s == "0" || s == "False")
    return false;
  throw ConfigError(at_line(r.csv.name, r.line.number),
                    "column '" + col + "': expected true or false, got '" + s + "'");
}

// tools/measure/attention_sweep.py: batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds;
// the rate in FlashAttention's convention (Dao 2023 sec. 4.1: forward + backward 3.5x forward).
Measurements read_attention(std::string_view text, const std::string &name) {
  const Csv c = read_csv(text, name);
  Measurements m;
  for (const Line &l : c.rows) {
    const CsvRow r(c, l);
    ComponentPoint p;
    p.kind = ComponentKind::attention;
    p.batch = r.num("batch");
    p.heads = r.num("heads");
    p.seq = r.num("seq");
    p.head_dim = r.num("head_dim");
    p.causal = flag_of(r, "causal");
    p.precision = dtype_of(r);
    p.measured = flash_attention_flops(p.batch, p.heads, p.seq, p.head_dim, p.causal) /
                 (r.num("fwd_seconds") + r.num("bwd_seconds"));
    p.name = "attention b" + std::to_string(static_cast<long long>(p.batch)) + " h" +
             std::to_string(static_cast<long long>(p.heads)) + " s" +
             std::to_string(static_cast<long long>(p.seq)) + " d" +
             std::to_string(static_cast<long long>(p.head_dim)) + (p.causal ? " causal" : "");
    p.source = at_line(name, l.number);
    p.fitted = true;
    m.components.push_back(p);
  }
  return m;
}

// tools/measure/elementwise_sweep.py: kernel,bytes,seconds (bytes read + written).
Measurements read_elementwise(std::string_view text, const std::string &name) {
  const Csv c = read_csv(text, name);
  Measurements m;
  for (const Line &l : c.rows) {
    const CsvRow r(c, l);
    ComponentPoint p;
    p.kind = ComponentKind::hbm;
    p.measured = r.num("bytes") / r.num("seconds");
    p.name = r.text("kernel");
    p.source = at_line(name, l.number);
    p.fitted = true;
    m.components.push_back(p);
  }
  return m;
}

// Runs of a serving benchmark as CSV (AIConfigurator's measured sample layout: model, engine,
// engine_version, hardware, precision, tp, pp, isl, osl, concurrency, ttft_ms, tpot_ms).
Measurements read_serving_csv(std::string_view text, const std::string &name) {
  const Csv c = read_csv(text, name);
  Measurements m;
  for (const Line &l : c.rows) {
    const CsvRow r(c, l);
    ServingSample s;
    s.model = r.has("model") ? r.text("model") : "";
    s.engine = r.has("engine") ? r.text("engine") : "";
    s.version = r.has("engine_version") ? r.text("engine_version") : "";
    s.tp = r.has("tp") ? static_cast<i64>(r.num("tp")) : 0;
    if (r.has("concurrency"))
      s.concurrency = static_cast<i64>(r.num("concurrency"));
    else
      s.request_rate = r.num("request_rate");
    s.input_len = r.num("isl");
    s.output_len = r.num("osl");
    s.ttft.mean = r.num("ttft_ms") / 1e3;
    s.tpot.mean = r.num("tpot_ms") / 1e3;
    s.e2e.mean = r.opt("e2e_ms") / 1e3;
    s.output_tokens_per_s = r.opt("output_tokens_per_s");
    s.name = (s.engine.empty() ? std::string("run") : s.engine) + " tp" + std::to_string(s.tp) +
             " isl" + std::to_string(static_cast<long long>(s.input_len)) + " osl" +
             std::to_string(static_cast<long long>(s.output_len)) + " c" +
             std::to_string(s.concurrency) + " (" + at_line(name, l.number) + ")";
    m.serving.push_back(s);
  }
  return m;
}

// [SECTION] serving results as JSON

double jnum(const json &j, const char *key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    return 0;
  const double v = it->get<double>();
  return std::isfinite(v) && v > 0 ? v : 0;
}

// vLLM `vllm bench serve --save-result` (vllm/benchmarks/serve.py) and SGLang bench_serving
// (python/sglang/bench_serving.py) share most keys: <stat>_<metric>_ms.
ServingSample serving_from(const json &j, const std::string &label, const char *e2e_key) {
  ServingSample s;
  s.name = label;
  if (const auto it = j.find("backend"); it != j.end() && it->is_string())
    s.engine = it->get<std::string>();
  for (const char *k : {"model_id", "model"})
    if (const auto it = j.find(k); it != j.end() && it->is_string() && s.model.empty())
      s.model = it->get<std::string>();
  s.concurrency = static_cast<i64>(jnum(j, "max_concurrency"));
  s.request_rate = s.concurrency > 0 ? 0 : jnum(j, "request_rate");
  const double done = jnum(j, "completed");
  s.requests = static_cast<i64>(done);
  if (done > 0) {
    s.input_len = jnum(j, "total_input_tokens") / done;
    s.output_len = jnum(j, "total_output_tokens") / done;
  }
  auto stats = [&](LatencyStats &out, const std::string &metric) {
    out.mean = jnum(j, ("mean_" + metric + "_ms").c_str()) / 1e3;
    out.p50 = jnum(j, ("median_" + metric + "_ms").c_str()) / 1e3;
    out.p90 = jnum(j, ("p90_" + metric + "_ms").c_str()) / 1e3;
    out.p99 = jnum(j, ("p99_" + metric + "_ms").c_str()) / 1e3;
  };
  stats(s.ttft, "ttft");
  stats(s.tpot, "tpot");
  stats(s.itl, "itl");
  stats(s.e2e, e2e_key);
  s.output_tokens_per_s = jnum(j, "output_throughput");
  s.requests_per_s = jnum(j, "request_throughput");
  return s;
}

json parse_object(const std::string &text, const std::string &where) {
  json j;
  try {
    j = parse_json_text(text);
  } catch (const ConfigError &e) {
    throw ConfigError(where, e.message());
  }
  if (!j.is_object())
    throw ConfigError(where, "expected a JSON object");
  return j;
}

void need_key(const json &j, const char *key, const std::string &where, const char *format) {
  if (!j.contains(key))
    throw ConfigError(where, std::string("no \"") + key + "\": not a " + format);
}

Measurements read_vllm(std::string_view text, const std::string &name) {
  const json j = parse_object(std::string(text), name);
  need_key(j, "mean_ttft_ms", name, "vLLM result");
  Measurements m;
  m.serving.push_back(serving_from(j, name, "e2el"));
  return m;
}

Measurements read_sglang(std::string_view text, const std::string &name) {
  Measurements m;
  for (const Line &l : lines_of(text, name)) {
    if (trim(l.text).empty())
      continue;
    const std::string where = at_line(name, l.number);
    const json j = parse_object(l.text, where);
    need_key(j, "mean_ttft_ms", where, "bench_serving result line");
    m.serving.push_back(serving_from(j, where, "e2e_latency"));
    check_rows(m.serving.size(), name);
  }
  return m;
}

// genai-perf's profile_export_genai_perf.json (triton-inference-server/perf_analyzer genai-perf)
// and AIPerf's profile export: one object per metric with "avg", "p50", "p90", "p99" in its
// "unit"; the load under "input_config".
Measurements read_genai_perf(std::string_view text, const std::string &name) {
  const json j = parse_object(std::string(text), name);
  need_key(j, "time_to_first_token", name, "genai-perf export");
  auto scale_of = [](const json &o) {
    const std::string u = o.contains("unit") && o["unit"].is_string() ? o["unit"].get<std::string>() : "ms";
    return u == "ns" ? 1e-9 : u == "us" ? 1e-6 : u == "s" ? 1.0 : 1e-3;
  };
  auto stats = [&](const char *key, LatencyStats &out) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_object())
      return;
    const double k = scale_of(*it);
    out.mean = jnum(*it, "avg") * k;
    out.p50 = jnum(*it, "p50") * k;
    out.p90 = jnum(*it, "p90") * k;
    out.p99 = jnum(*it, "p99") * k;
  };
  ServingSample s;
  s.name = name;
  stats("time_to_first_token", s.ttft);
  stats("inter_token_latency", s.tpot); // genai-perf: (e2e - ttft) / (osl - 1) per request
  stats("request_latency", s.e2e);
  auto avg = [&](const char *key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_object() ? jnum(*it, "avg") : 0.0;
  };
  s.output_tokens_per_s = avg("output_token_throughput");
  s.requests_per_s = avg("request_throughput");
  s.output_len = avg("output_sequence_length");
  s.input_len = avg("input_sequence_length");
  // The load: the first "concurrency" / "request_rate" number under input_config.
  std::function<void(const json &, int)> find = [&](const json &o, int depth) {
    if (depth > 6 || !o.is_object())
      return;
    for (const auto &[k, v] : o.items()) {
      if (k == "concurrency" && v.is_number() && s.concurrency == 0)
        s.concurrency = static_cast<i64>(jnum(o, "concurrency"));
      else if (k == "request_rate" && v.is_number() && s.request_rate == 0)
        s.request_rate = jnum(o, "request_rate");
      else
        find(v, depth + 1);
    }
  };
  if (const auto it = j.find("input_config"); it != j.end())
    find(*it, 0);
  if (s.concurrency > 0)
    s.request_rate = 0;
  Measurements m;
  m.serving.push_back(s);
  return m;
}

// [SECTION] training logs

// The number after `key` on the line (nullopt when the key is absent or no number follows).
std::optional<double> after(const std::string &l, const std::string &key, bool commas = false) {
  const auto p = l.find(key);
  if (p == std::string::npos)
    return std::nullopt;
  std::size_t i = p + key.size();
  while (i < l.size() && l[i] == ' ')
    ++i;
  std::size_t j = i;
  while (j < l.size() && (std::isdigit(static_cast<unsigned char>(l[j])) || l[j] == '.' ||
                          l[j] == ',' || l[j] == 'e' || l[j] == 'E' || l[j] == '-' || l[j] == '+'))
    ++j;
  return number(l.substr(i, j - i), commas);
}

// Megatron-LM's training_log (megatron/training/training.py): " iteration 10/ 100 | ... |
// elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 456.7 | ...".
Measurements read_megatron(std::string_view text, const std::string &name) {
  Measurements m;
  for (const Line &l : lines_of(text, name)) {
    if (l.text.find("elapsed time per iteration (ms):") == std::string::npos)
      continue;
    TrainingSample t;
    const auto it = after(l.text, "iteration");
    const auto ms = after(l.text, "elapsed time per iteration (ms):");
    if (!ms || *ms <= 0)
      throw ConfigError(at_line(name, l.number),
                        "'elapsed time per iteration (ms):' is not followed by a positive number");
    t.iteration = it ? static_cast<i64>(*it) : 0;
    t.step_s = *ms / 1e3;
    if (const auto tf = after(l.text, "throughput per GPU (TFLOP/s/GPU):"))
      t.tflops_per_gpu = *tf * 1e12;
    if (const auto b = after(l.text, "global batch size:"))
      t.global_batch = static_cast<i64>(*b);
    t.name = "iteration " + std::to_string(t.iteration) + " (" + at_line(name, l.number) + ")";
    m.training.push_back(t);
    check_rows(m.training.size(), name);
  }
  if (m.training.empty())
    throw ConfigError(name, "no line with 'elapsed time per iteration (ms):' (Megatron-LM's "
                            "iteration log line)");
  return m;
}

std::string strip_ansi(const std::string &s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !std::isalpha(static_cast<unsigned char>(s[i])))
        ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// torchtitan's metrics line (torchtitan/train.py): "step:  10  loss:  7.9  memory: 30GiB(38%)
// tps: 6,112  tflops: 350.1  mfu: 35.4%".
Measurements read_torchtitan(std::string_view text, const std::string &name) {
  Measurements m;
  for (const Line &l : lines_of(text, name)) {
    const std::string t = strip_ansi(l.text);
    if (t.find("step:") == std::string::npos || t.find("tps:") == std::string::npos)
      continue;
    TrainingSample s;
    const auto tps = after(t, "tps:", true);
    if (!tps || *tps <= 0)
      throw ConfigError(at_line(name, l.number), "'tps:' is not followed by a positive number");
    s.tokens_per_s = *tps;
    s.iteration = static_cast<i64>(after(t, "step:").value_or(0));
    s.tflops_per_gpu = after(t, "tflops:").value_or(0) * 1e12;
    s.mfu = after(t, "mfu:").value_or(0) / 100;
    s.name = "step " + std::to_string(s.iteration) + " (" + at_line(name, l.number) + ")";
    m.training.push_back(s);
    check_rows(m.training.size(), name);
  }
  if (m.training.empty())
    throw ConfigError(name, "no line with 'step:' and 'tps:' (torchtitan's metrics line)");
  return m;
}

// [SECTION] nccl-tests (NVIDIA/nccl-tests src/common.cu: the header, then per size
// "size count type redop root | time algbw busbw #wrong (out-of-place) | the same (in-place)")

std::optional<Collective> collective_of_binary(const std::string &s) {
  static const std::pair<const char *, Collective> names[] = {
      {"all_reduce", Collective::allreduce},         {"all_gather", Collective::allgather},
      {"reduce_scatter", Collective::reduce_scatter}, {"alltoall", Collective::alltoall},
      {"sendrecv", Collective::p2p}};
  for (const auto &[n, c] : names)
    if (s.find(n) != std::string::npos)
      return c;
  return std::nullopt;
}

Measurements read_nccl(std::string_view text, const std::string &name) {
  Measurements m;
  std::optional<Collective> op;
  std::set<std::string> hosts;
  i64 ranks = 0, header_ranks = 0;
  bool in_test = false;
  for (const Line &l : lines_of(text, name)) {
    const std::string t = trim(l.text);
    if (t.empty())
      continue;
    if (t[0] == '#') {
      if (const auto p = t.find("Collective test starting:"); p != std::string::npos) {
        op = collective_of_binary(t.substr(p));
        ranks = 0;
        hosts.clear();
        in_test = true;
      } else if (t.find(" Rank ") != std::string::npos && t.find(" on ") != std::string::npos) {
        const auto w = words(t.substr(t.find(" on ") + 4));
        if (!w.empty())
          hosts.insert(w[0]);
        ++ranks;
      } else if (t.find("nThread") != std::string::npos && t.find("nGpus") != std::string::npos) {
        header_ranks = static_cast<i64>(after(t, "nThread").value_or(1) *
                                        after(t, "nGpus").value_or(1));
      }
      continue;
    }
    if (!op && !in_test) {
      if (const auto c = collective_of_binary(t)) // a command line echoed before the output
        op = c;
    }
    const auto w = words(t);
    if (w.size() < 9 || !number(w[0]))
      continue;
    if (!op)
      throw ConfigError(at_line(name, l.number),
                        "a result row before the test's name (\"# Collective test starting: "
                        "all_reduce_perf\")");
    const double size = *number(w[0]);
    if (size <= 0)
      continue;
    const i64 n = ranks > 0 ? ranks : std::max<i64>(header_ranks, 1);
    const std::size_t k = w.size();
    const struct {
      std::size_t at;
      const char *variant;
    } variants[] = {{k - 6, "out-of-place"}, {k - 2, "in-place"}};
    for (const auto &v : variants) {
      if (w[v.at] == "N/A")
        continue;
      const auto busbw = number(w[v.at]);
      if (!busbw || *busbw < 0)
        throw ConfigError(at_line(name, l.number),
                          std::string("column 'busbw' (") + v.variant +
                              "): expected a number in GB/s, got '" + w[v.at] + "'");
      if (*busbw == 0)
        continue;
      ComponentPoint p;
      p.kind = ComponentKind::collective;
      p.op = *op;
      p.group = n;
      p.nodes = std::max<i64>(1, static_cast<i64>(hosts.size()));
      p.bytes = size;
      p.measured = *busbw * 1e9;
      p.name = std::string(name_of_collective(*op)) + " " + std::to_string(n) + " ranks " +
               std::to_string(p.nodes) + (p.nodes > 1 ? " nodes " : " node ") +
               std::to_string(static_cast<long long>(size)) + " B " + v.variant;
      p.source = at_line(name, l.number);
      p.fitted = true;
      m.components.push_back(p);
      check_rows(m.components.size(), name);
    }
  }
  if (m.components.empty())
    throw ConfigError(name, "no nccl-tests result row (size count type ... busbw #wrong)");
  return m;
}

Measurements read_components(std::string_view text, const std::string &name) {
  const json j = parse_object(std::string(text), name);
  Measurements m;
  try {
    m.components = parse_components(j);
  } catch (const ConfigError &e) {
    throw ConfigError(name + ": " + e.path(), e.message());
  }
  return m;
}

} // namespace

MeasurementFormat detect_format(std::string_view text, const std::string &name) {
  std::string first;
  std::size_t nonempty = 0;
  for (const Line &l : lines_of(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)), name))
    if (!trim(l.text).empty()) {
      if (first.empty())
        first = trim(l.text);
      ++nonempty;
    }
  const std::string head(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)));
  if (!first.empty() && first[0] == '{') {
    const bool one_line = first.size() > 1 && first.back() == '}';
    if (head.find("\"points\"") != std::string::npos)
      return MeasurementFormat::components_json;
    if (head.find("\"time_to_first_token\"") != std::string::npos)
      return MeasurementFormat::genai_perf_json;
    if (head.find("e2e_latency_ms") != std::string::npos || (one_line && nonempty > 1))
      return MeasurementFormat::sglang_jsonl;
    if (head.find("ttft_ms") != std::string::npos)
      return MeasurementFormat::vllm_json;
    throw ConfigError(name, "a JSON file with none of the keys ridgeline reads (\"points\", "
                            "\"time_to_first_token\", \"mean_ttft_ms\")");
  }
  if (head.find("elapsed time per iteration (ms)") != std::string::npos)
    return MeasurementFormat::megatron_log;
  if (head.find("tps:") != std::string::npos && head.find("step:") != std::string::npos)
    return MeasurementFormat::torchtitan_log;
  if (head.find("nccl-tests") != std::string::npos ||
      head.find("Collective test starting") != std::string::npos ||
      head.find("busbw") != std::string::npos)
    return MeasurementFormat::nccl_tests;
  if (first.find(',') != std::string::npos) {
    std::set<std::string> cols;
    for (const std::string &c : split(first, ','))
      cols.insert(c);
    if (cols.count("fwd_seconds"))
      return MeasurementFormat::attention_csv;
    if (cols.count("m") && cols.count("n") && cols.count("k"))
      return MeasurementFormat::gemm_csv;
    if (cols.count("kernel") && cols.count("bytes"))
      return MeasurementFormat::elementwise_csv;
    if (cols.count("ttft_ms") && cols.count("tpot_ms"))
      return MeasurementFormat::serving_csv;
  }
  throw ConfigError(name, "not a format ridgeline reads: nccl-tests output, a GEMM "
                          "(m,n,k,dtype,seconds), attention "
                          "(batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds), "
                          "element-wise (kernel,bytes,seconds) or serving "
                          "(isl,osl,concurrency,ttft_ms,tpot_ms) CSV, vLLM / SGLang / "
                          "genai-perf results, a Megatron-LM or torchtitan log, components.json");
}

Measurements read_measurements(std::string_view text, const std::string &name) {
  if (text.size() > kMaxMeasurementBytes)
    throw ConfigError(name, "is " + std::to_string(text.size()) + " bytes; the limit is 64 MiB");
  return read_measurements(text, name, detect_format(text, name));
}

Measurements read_measurements(std::string_view text, const std::string &name,
                               MeasurementFormat f) {
  if (text.size() > kMaxMeasurementBytes)
    throw ConfigError(name, "is " + std::to_string(text.size()) + " bytes; the limit is 64 MiB");
  Measurements m;
  switch (f) {
  case MeasurementFormat::nccl_tests:
    m = read_nccl(text, name);
    break;
  case MeasurementFormat::gemm_csv:
    m = read_gemm(text, name);
    break;
  case MeasurementFormat::attention_csv:
    m = read_attention(text, name);
    break;
  case MeasurementFormat::elementwise_csv:
    m = read_elementwise(text, name);
    break;
  case MeasurementFormat::serving_csv:
    m = read_serving_csv(text, name);
    break;
  case MeasurementFormat::vllm_json:
    m = read_vllm(text, name);
    break;
  case MeasurementFormat::sglang_jsonl:
    m = read_sglang(text, name);
    break;
  case MeasurementFormat::genai_perf_json:
    m = read_genai_perf(text, name);
    break;
  case MeasurementFormat::megatron_log:
    m = read_megatron(text, name);
    break;
  case MeasurementFormat::torchtitan_log:
    m = read_torchtitan(text, name);
    break;
  case MeasurementFormat::components_json:
    m = read_components(text, name);
    break;
  }
  for (ServingSample &s : m.serving)
    s.file = name;
  for (TrainingSample &t : m.training)
    t.file = name;
  m.files = {name};
  return m;
}

} // namespace rl::io
