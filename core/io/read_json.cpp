// ridgeline io: the JSON readers: serving benchmark results (vLLM, SGLang, genai-perf /
// AIPerf) and components.json. A file holds one object, or one object a line (JSONL, as SGLang
// appends and vLLM's --append-result writes); errors name the line of the field.
#include "core/error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/readers.hpp"
#include "core/io/validation_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <optional>

namespace rl::io::readers_detail {

namespace {

using json = nlohmann::json;

// [SECTION] JSON text scanned without parsing it

std::size_t skip_ws(std::string_view t, std::size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
    ++i;
  return i;
}

// From the opening quote to just past the closing one.
std::size_t skip_string(std::string_view t, std::size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

// From the first byte of a value to just past it (arrays and objects counted, not recursed).
std::size_t skip_value(std::string_view t, std::size_t i) {
  if (i >= t.size())
    return i;
  if (t[i] == '"')
    return skip_string(t, i);
  if (t[i] != '{' && t[i] != '[') {
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' &&
           t[i] != '\n' && t[i] != '\r' && t[i] != '\t')
      ++i;
    return i;
  }
  long long depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      i = skip_string(t, i);
      continue;
    }
    if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth == 0)
      return i + 1;
    ++i;
  }
  return i;
}

// The deepest nesting of arrays and objects in t.
long long nesting(std::string_view t) {
  long long depth = 0, deepest = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"')
      i = skip_string(t, i) - 1;
    else if (c == '{' || c == '[')
      deepest = std::max(deepest, ++depth);
    else if (c == '}' || c == ']')
      --depth;
  }
  return deepest;
}

// The offset of the value at `path` ("points[3].hardware") in the JSON text t: of the deepest
// part of the path found.
std::size_t offset_of(std::string_view t, std::string_view path) {
  std::size_t i = skip_ws(t, 0), found = i;
  while (!path.empty()) {
    if (path[0] == '.')
      path.remove_prefix(1);
    if (path.empty())
      break;
    if (path[0] == '[') {
      const std::size_t close = path.find(']');
      if (close == std::string_view::npos || i >= t.size() || t[i] != '[')
        return found;
      const long long index = std::atoll(std::string(path.substr(1, close - 1)).c_str());
      path.remove_prefix(close + 1);
      i = skip_ws(t, i + 1);
      for (long long k = 0; k < index && i < t.size() && t[i] != ']'; ++k) {
        i = skip_ws(t, skip_value(t, i));
        if (i < t.size() && t[i] == ',')
          i = skip_ws(t, i + 1);
      }
      if (i >= t.size() || t[i] == ']')
        return found;
      found = i;
      continue;
    }
    const std::size_t end = std::min(path.find('.'), path.find('['));
    const std::string_view key = path.substr(0, end);
    path.remove_prefix(std::min(end, path.size()));
    if (i >= t.size() || t[i] != '{')
      return found;
    i = skip_ws(t, i + 1);
    bool hit = false;
    while (i < t.size() && t[i] == '"') {
      const std::size_t key_end = skip_string(t, i);
      const std::string_view k = t.substr(i + 1, key_end - i - 2 < t.size() ? key_end - i - 2 : 0);
      i = skip_ws(t, key_end);
      if (i >= t.size() || t[i] != ':')
        return found;
      i = skip_ws(t, i + 1);
      if (k == key) {
        hit = true;
        break;
      }
      i = skip_ws(t, skip_value(t, i));
      if (i < t.size() && t[i] == ',')
        i = skip_ws(t, i + 1);
    }
    if (!hit)
      return found;
    found = i;
  }
  return found;
}

long long newlines(std::string_view t, std::size_t from, std::size_t to) {
  long long n = 0;
  for (std::size_t i = from; i < to && i < t.size(); ++i)
    n += t[i] == '\n';
  return n;
}

// Python's json.dumps writes NaN, Infinity and -Infinity (SGLang's request_rate of inf):
// read as null, "not given".
std::string python_literals_as_null(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '"') {
      const std::size_t e = skip_string(t, i);
      out.append(t.substr(i, e - i));
      i = e;
      continue;
    }
    bool replaced = false;
    for (const std::string_view lit : {"-Infinity", "Infinity", "NaN"})
      if (t.substr(i, lit.size()) == lit) {
        out += "null";
        i += lit.size();
        replaced = true;
        break;
      }
    if (!replaced)
      out += t[i++];
  }
  return out;
}

// [SECTION] records

// One JSON object of a file, its text and the line it starts on.
struct Record {
  json value;
  std::string_view text;
  long long line = 1;
};

json parse_record(std::string_view t, const std::string &name, long long line) {
  constexpr long long kMaxNesting = 64;
  if (nesting(t) > kMaxNesting)
    throw ConfigError(where(name, line), "arrays and objects nested deeper than " +
                                             std::to_string(kMaxNesting) + " levels");
  std::string sanitized;
  const bool python =
      t.find("Infinity") != std::string_view::npos || t.find("NaN") != std::string_view::npos;
  if (python)
    sanitized = python_literals_as_null(t);
  const std::string_view text = python ? std::string_view(sanitized) : t;
  try {
    return parse_json_strict(text);
  } catch (const ConfigError &e) { // a duplicate key or a number beyond a double, at its path
    throw ConfigError(where(name, line),
                      (e.path().empty() ? "" : "\"" + e.path() + "\": ") + e.message());
  } catch (const json::parse_error &e) {
    const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    const std::size_t line_start = text.rfind('\n', at);
    const std::size_t column = line_start == std::string_view::npos ? at + 1 : at - line_start;
    std::string what = plain_json_message(e.what());
    if (const auto p = what.find(": "); what.rfind("at line ", 0) == 0 && p != std::string::npos)
      what = what.substr(p + 2);
    throw ConfigError(where(name, line + newlines(text, 0, at)),
                      "malformed JSON at column " + std::to_string(column) + ": " + what);
  } catch (const json::exception &e) {
    throw ConfigError(where(name, line), "malformed JSON: " + plain_json_message(e.what()));
  }
}

// The objects of a file: one, or several one after another (JSONL) when `many`.
std::vector<Record> records(std::string_view text, const std::string &name, bool many) {
  std::vector<Record> out;
  long long line = 1;
  std::size_t i = 0, counted = 0;
  while ((i = skip_ws(text, i)) < text.size()) {
    line += newlines(text, counted, i);
    counted = i;
    if (text[i] != '{')
      throw ConfigError(where(name, line),
                        out.empty() ? "expected a JSON object ('{')"
                                    : "expected the next JSON object ('{') after the last one");
    if (!out.empty() && !many)
      throw ConfigError(where(name, line), "a second JSON object: the file holds one");
    const std::size_t end = skip_value(text, i);
    Record r;
    r.text = text.substr(i, end - i);
    r.line = line;
    r.value = parse_record(r.text, name, line);
    out.push_back(std::move(r));
    check_row_count(out.size(), name, line);
    i = end;
  }
  if (out.empty())
    throw ConfigError(name, "is empty: expected a JSON object");
  return out;
}

// [SECTION] fields

// The fields of one record, each error at its line: "field 'mean_ttft_ms': ...".
class Fields {
public:
  Fields(const Record &r, const std::string &name) : r_(r), name_(name) {}

  long long line_of(const std::string &path) const {
    return r_.line + newlines(r_.text, 0, offset_of(r_.text, path));
  }
  [[noreturn]] void fail(const std::string &path, const std::string &what) const {
    throw ConfigError(where(name_, line_of(path)), "field '" + path + "': " + what);
  }
  // The child `key` of object o (nullptr when absent or null).
  static const json *child(const json &o, const char *key) {
    if (!o.is_object())
      return nullptr;
    const auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  // A number in [lo, hi] (nullopt when absent or null).
  std::optional<double> num(const json &o, const std::string &path, const char *key, double lo,
                            double hi) const {
    const json *v = child(o, key);
    if (!v)
      return std::nullopt;
    const std::string p = join_path(path, key);
    if (!v->is_number())
      fail(p, "expected a number, got " + json_type_name(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
      fail(p,
           number_text(x) + " is out of range [" + number_text(lo) + ", " + number_text(hi) + "]");
    return x;
  }
  double need(const json &o, const std::string &path, const char *key, double lo, double hi) const {
    const auto v = num(o, path, key, lo, hi);
    if (!v)
      fail(join_path(path, key), "is required");
    return *v;
  }
  // A whole number in [lo, hi] (nullopt when absent or null).
  std::optional<double> count(const json &o, const std::string &path, const char *key, double lo,
                              double hi) const {
    const auto v = num(o, path, key, lo, hi);
    if (v && *v != std::floor(*v))
      fail(join_path(path, key), "expected a whole number, got " + number_text(*v));
    return v;
  }
  static std::string str(const json &o, const char *key) {
    const json *v = child(o, key);
    return v && v->is_string() ? v->get<std::string>() : "";
  }

private:
  const Record &r_;
  const std::string &name_;
};

constexpr double kMaxCount = 1e12; // tokens or requests of a run
constexpr double kMaxRequests = 1 << 30;

// mean_<m>_ms, median_<m>_ms, p90_<m>_ms, p99_<m>_ms as seconds (vLLM and SGLang).
LatencyStats latency_ms(const Fields &f, const json &j, const std::string &metric) {
  auto at = [&](const std::string &key) {
    return f.num(j, "", key.c_str(), 0, kMaxMeasuredMs).value_or(0) / 1e3;
  };
  LatencyStats s;
  s.mean = at("mean_" + metric + "_ms");
  s.p50 = at("median_" + metric + "_ms");
  s.p90 = at("p90_" + metric + "_ms");
  s.p99 = at("p99_" + metric + "_ms");
  return s;
}

// A request rate: a number, or "inf" / Infinity (read as null) for all requests at once (0).
double request_rate(const Fields &f, const json &j) {
  const json *v = Fields::child(j, "request_rate");
  if (v && v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s == "inf" || s == "Infinity")
      return 0;
    f.fail("request_rate", "expected a number or \"inf\", got \"" + s.substr(0, 40) + "\"");
  }
  return f.num(j, "", "request_rate", 0, 1e9).value_or(0);
}

// A tensor-parallel size passed as metadata (vllm bench serve --metadata tp=8).
i64 tp_of(const Fields &f, const json &j) {
  for (const char *key : {"tensor_parallel_size", "tp"}) {
    const json *v = Fields::child(j, key);
    if (!v)
      continue;
    double x = 0;
    if (v->is_number())
      x = f.count(j, "", key, 1, 1 << 20).value_or(0);
    else if (v->is_string() && !parse_number(v->get<std::string>(), x))
      f.fail(key, "expected a whole number, got \"" + v->get<std::string>().substr(0, 40) + "\"");
    if (x < 1 || x > (1 << 20) || x != std::floor(x))
      f.fail(key, "expected a whole number in [1, 1048576], got " + number_text(x));
    return static_cast<i64>(x);
  }
  return 0;
}

// vLLM's `vllm bench serve --save-result` (vllm/benchmarks/serve.py, main_async's result_json)
// and SGLang's bench_serving JSONL (python/sglang/bench_serving.py, benchmark()'s result):
// <stat>_<metric>_ms keys, token totals over `completed` requests.
ServingSample bench_serving_run(const Record &r, const std::string &name, bool vllm) {
  const Fields f(r, name);
  const json &j = r.value;
  ServingSample s;
  s.model = Fields::str(j, "model_id");
  if (s.model.empty())
    s.model = Fields::str(j, "model");
  s.engine = engine_of_backend(Fields::str(j, "backend"));
  s.tp = tp_of(f, j);
  const double done = f.count(j, "", "completed", 0, kMaxRequests).value_or(-1);
  if (done < 0)
    f.fail("completed", "is required (the requests the run completed)");
  if (done == 0)
    f.fail("completed", "is 0: the run completed no request");
  s.requests = static_cast<i64>(done);
  s.counts_warmup = true; // statistics over every completed request
  // a token at least a request, in and out
  s.input_len = f.need(j, "", "total_input_tokens", done, kMaxCount) / done;
  s.output_len = f.need(j, "", "total_output_tokens", done, kMaxCount) / done;
  s.concurrency = static_cast<i64>(f.count(j, "", "max_concurrency", 1, kMaxRequests).value_or(0));
  s.request_rate = request_rate(f, j);
  if (s.concurrency == 0 && s.request_rate == 0) {
    // No limit and no rate: every request sent at once, a closed loop of that many clients.
    const double sent = f.count(j, "", "num_prompts", 1, kMaxRequests).value_or(0);
    s.concurrency = static_cast<i64>(sent > 0 ? sent : done);
  }
  s.ttft = latency_ms(f, j, "ttft");
  if (!(s.ttft.mean > 0))
    f.fail("mean_ttft_ms", "is required: a positive mean time to first token");
  s.tpot = latency_ms(f, j, "tpot");
  s.itl = latency_ms(f, j, "itl");
  s.e2e = latency_ms(f, j, vllm ? "e2el" : "e2e_latency");
  s.output_tokens_per_s = f.num(j, "", "output_throughput", 0, 1e12).value_or(0);
  s.requests_per_s = f.num(j, "", "request_throughput", 0, 1e9).value_or(0);
  s.name = std::string(vllm ? "vllm" : "sglang") + (s.request_rate > 0 && s.concurrency == 0
                                                        ? " rate=" + number_text(s.request_rate)
                                                        : " c=" + std::to_string(s.concurrency));
  return s;
}

// A genai-perf / AIPerf metric object's time unit, as seconds.
double seconds_per_unit(const Fields &f, const json &metric, const std::string &path) {
  const std::string u = Fields::str(metric, "unit");
  if (u.empty() || u == "ms")
    return 1e-3;
  if (u == "s" || u == "sec")
    return 1;
  if (u == "us")
    return 1e-6;
  if (u == "ns")
    return 1e-9;
  f.fail(path + ".unit", "\"" + u.substr(0, 40) + "\" is not a time unit (ns, us, ms, s)");
}

// The first of several places a value may sit in genai-perf's and AIPerf's input_config.
const json *first_of(const json &config,
                     std::initializer_list<std::initializer_list<const char *>> paths) {
  for (const auto &path : paths) {
    const json *v = &config;
    for (const char *key : path)
      if (!(v = Fields::child(*v, key)))
        break;
    if (v)
      return v;
  }
  return nullptr;
}

// genai-perf's profile_export_genai_perf.json (triton-inference-server/perf_analyzer,
// genai-perf/genai_perf/export_data/json_exporter.py, metrics/statistics.py) and AIPerf's
// profile_export_aiperf.json (ai-dynamo/aiperf, exporters/metrics_json_exporter.py): one
// object a metric, {"unit", "avg", "p50", "p90", "p99", ...}; the load under input_config
// (genai-perf: concurrency or perf_analyzer.stimulus; AIPerf: loadgen).
ServingSample genai_perf_run(const Record &r, const std::string &name) {
  const Fields f(r, name);
  const json &j = r.value;
  auto metric = [&](const char *key, bool required) -> const json * {
    const json *m = Fields::child(j, key);
    if (!m && required)
      f.fail(key, "is required");
    if (m && !m->is_object())
      f.fail(key,
             "expected an object {\"unit\", \"avg\", \"p50\", ...}, got " + json_type_name(*m));
    return m;
  };
  auto latency = [&](const char *key, bool required) {
    LatencyStats s;
    const json *m = metric(key, required);
    if (!m)
      return s;
    const double k = seconds_per_unit(f, *m, key);
    s.mean = f.need(*m, key, "avg", 0, kMaxMeasuredMs) * k;
    s.p50 = f.num(*m, key, "p50", 0, kMaxMeasuredMs).value_or(0) * k;
    s.p90 = f.num(*m, key, "p90", 0, kMaxMeasuredMs).value_or(0) * k;
    s.p99 = f.num(*m, key, "p99", 0, kMaxMeasuredMs).value_or(0) * k;
    return s;
  };
  auto average = [&](const char *key, bool required, double hi, double lo = 0) {
    const json *m = metric(key, required);
    return m ? f.need(*m, key, "avg", lo, hi) : 0.0;
  };
  ServingSample s;
  s.ttft = latency("time_to_first_token", true);
  if (!(s.ttft.mean > 0))
    f.fail("time_to_first_token.avg", "expected a positive time to first token");
  // genai-perf's inter_token_latency is (request latency - TTFT) / (output tokens - 1) per
  // request: the time per output token.
  s.tpot = latency("inter_token_latency", false);
  s.e2e = latency("request_latency", false);
  s.input_len = average("input_sequence_length", true, kMaxCount, 1); // a token at least
  s.output_len = average("output_sequence_length", true, kMaxCount, 1);
  s.output_tokens_per_s = average("output_token_throughput", false, 1e12);
  s.requests_per_s = average("request_throughput", false, 1e9);
  s.requests = static_cast<i64>(std::floor(average("request_count", false, kMaxRequests)));
  const bool aiperf = Fields::child(j, "aiperf_version") != nullptr;
  if (const json *config = Fields::child(j, "input_config"); config && config->is_object()) {
    const std::string base = "input_config";
    const auto read = [&](const json *v, const char *what, double hi, bool whole) {
      if (!v)
        return 0.0;
      const bool number = v->is_number() && std::isfinite(v->get<double>());
      if (!number || v->get<double>() <= 0 || v->get<double>() > hi ||
          (whole && v->get<double>() != std::floor(v->get<double>())))
        f.fail(base, std::string(what) + ": expected a positive " +
                         (whole ? "whole number" : "number") + ", got " +
                         (v->is_number() ? number_text(v->get<double>()) : json_type_name(*v)));
      return v->get<double>();
    };
    const json *conc = first_of(*config, {{"concurrency"},
                                          {"perf_analyzer", "stimulus", "concurrency"},
                                          {"loadgen", "concurrency"}});
    const json *rate = first_of(*config, {{"request_rate"},
                                          {"perf_analyzer", "stimulus", "request_rate"},
                                          {"loadgen", "request_rate"}});
    s.concurrency = static_cast<i64>(read(conc, "concurrency", kMaxRequests, true));
    s.request_rate = s.concurrency > 0 ? 0 : read(rate, "request_rate", 1e9, false);
    if (const json *model =
            first_of(*config, {{"model"}, {"model_names"}, {"endpoint", "model_names"}})) {
      if (model->is_string())
        s.model = model->get<std::string>();
      else if (model->is_array() && !model->empty() && (*model)[0].is_string())
        s.model = (*model)[0].get<std::string>();
    }
    if (const json *backend = first_of(*config, {{"endpoint", "backend"}, {"backend"}});
        backend && backend->is_string())
      s.engine = engine_of_backend(backend->get<std::string>());
  }
  if (s.concurrency == 0 && s.request_rate == 0)
    s.concurrency = 1; // neither given: both tools' default, one client
  s.name = std::string(aiperf ? "aiperf" : "genai-perf") +
           (s.concurrency > 0 ? " c=" + std::to_string(s.concurrency)
                              : " rate=" + number_text(s.request_rate));
  return s;
}

} // namespace

Measurements read_serving_json(std::string_view text, const std::string &name,
                               MeasurementFormat format) {
  const bool genai = format == MeasurementFormat::genai_perf_json;
  const std::vector<Record> rs = records(text, name, !genai);
  Measurements out;
  std::vector<long long> lines;
  for (const Record &r : rs) {
    if (genai)
      out.serving.push_back(genai_perf_run(r, name));
    else
      out.serving.push_back(bench_serving_run(r, name, format == MeasurementFormat::vllm_json));
    lines.push_back(r.line);
  }
  name_duplicates(out.serving, lines);
  return out;
}

// ridgeline's own components.json (presets/validation/components.json, io::parse_components).
Measurements read_components_json(std::string_view text, const std::string &name) {
  const Record r = records(text, name, false).front();
  Measurements out;
  try {
    out.components = parse_components(r.value);
  } catch (const ConfigError &e) {
    const Fields f(r, name);
    throw ConfigError(where(name, f.line_of(e.path())),
                      e.path().empty() ? e.message() : e.path() + ": " + e.message());
  }
  // each point's line, in one pass over the array (a search from the top per point was
  // quadratic in the file: 60 MB took minutes)
  const std::string_view t = r.text;
  std::size_t i = skip_ws(t, offset_of(t, "points") + 1), counted = 0;
  long long line = r.line;
  for (ComponentPoint &p : out.components) {
    line += newlines(t, counted, i);
    counted = i;
    const std::string at = where(name, line);
    p.source = p.source.empty() ? at : at + " (" + p.source + ")";
    i = skip_ws(t, skip_value(t, i));
    if (i < t.size() && t[i] == ',')
      i = skip_ws(t, i + 1);
  }
  return out;
}

std::vector<std::string> top_level_keys(std::string_view text) {
  text = text.substr(0, std::size_t{1} << 20);
  std::vector<std::string> keys;
  std::size_t i = skip_ws(text, 0);
  if (i >= text.size() || text[i] != '{')
    return keys;
  i = skip_ws(text, i + 1);
  while (i < text.size() && text[i] == '"' && keys.size() < 1000) {
    const std::size_t end = skip_string(text, i);
    if (end > text.size() || end < i + 2)
      break;
    keys.emplace_back(text.substr(i + 1, end - i - 2));
    i = skip_ws(text, end);
    if (i >= text.size() || text[i] != ':')
      break;
    i = skip_ws(text, skip_value(text, skip_ws(text, i + 1)));
    if (i >= text.size() || text[i] != ',')
      break;
    i = skip_ws(text, i + 1);
  }
  return keys;
}

} // namespace rl::io::readers_detail
