#include "fuzz/targets.hpp"

#include "core/calibrate/calibration.hpp"
#include "core/error.hpp"
#include "core/jobs/api.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/readers.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/tx8_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/io/validation_json.hpp"
#include "core/planner/planner.hpp"
#include "core/tx8/request.hpp"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>

namespace rl::fuzz {

namespace {

using json = nlohmann::json;

bool g_input_mentions_library = false; // the input itself holds "json.exception"

[[noreturn]] void breach(const std::string &what, const std::string &detail) {
  throw Breach(what + ": " + detail.substr(0, 400));
}

// Every number finite; every relative band below 1 (so t*(1-u) > 0), but an engine's: its
// TPOT and TTFT bands are the largest residuals of its fit, shown as "up to Nx" past 100% and
// never subtracted (docs/serving.md).
void check_numbers(const json &j, const std::string &path) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v))
      breach("non-finite number", path);
    const bool engine_band = path.find(".engine.") != std::string::npos && v >= 0;
    if (path.size() >= 11 && path.compare(path.size() - 11, 11, "uncertainty") == 0 &&
        !engine_band && !(v >= 0 && v < 1))
      breach("band without a positive lower bound", path + " = " + std::to_string(v));
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      check_numbers(it.value(), path + "." + it.key());
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      check_numbers(j[i], path + "[" + std::to_string(i) + "]");
  }
}

// A message in plain words: not empty, not an internal error, no library's own text.
void check_message(const std::string &path, const std::string &message) {
  if (message.empty())
    breach("error without a message", path);
  if (message.rfind("internal error", 0) == 0 || message.rfind("out of memory", 0) == 0)
    breach("internal error", path + ": " + message);
  // (Messages quote the user's own text: only input without the words can be judged.)
  if (!g_input_mentions_library && message.find("json.exception") != std::string::npos)
    breach("library text in an error", path + ": " + message);
}

// An API answer: JSON; either {"error": {path, message}} with a plain message, or an
// answer whose numbers are finite. Returns whether it was an error.
bool check_answer(const std::string &answer) {
  json j;
  try {
    j = json::parse(answer);
  } catch (const json::exception &e) {
    breach("API answer is not JSON", answer);
  }
  if (j.is_object() && j.contains("error")) {
    const json &e = j["error"];
    if (!e.is_object() || !e.contains("path") || !e.contains("message") || !e["path"].is_string() ||
        !e["message"].is_string())
      breach("malformed error", answer);
    check_message(e["path"].get<std::string>(), e["message"].get<std::string>());
    return true;
  }
  check_numbers(j, "");
  return false;
}

// Runs f; a ConfigError is the contract's answer to bad input, anything else a breach.
template <class F> bool expected(F &&f) {
  try {
    f();
    return true;
  } catch (const ConfigError &e) {
    check_message(e.path(), e.message());
    return false;
  } catch (const Breach &) {
    throw;
  } catch (const std::exception &e) {
    breach("foreign exception", e.what());
  }
}

std::string mode_of(const std::string &resolved_answer) {
  const json j = json::parse(resolved_answer);
  if (j.contains("workload") && j["workload"].contains("mode"))
    return j["workload"]["mode"].get<std::string>();
  return "";
}

void estimate_target(const std::string &in) {
  check_answer(api::estimate(in));
  const std::string resolved = api::resolve(in);
  if (check_answer(resolved))
    return;
  if (mode_of(resolved) == "infer")
    check_answer(api::sweep(in));
}

void plan_target(const std::string &in) {
  Config c;
  if (!expected([&] { c = io::parse_config(io::parse_json_text(in)); }))
    return;
  if (c.workload.mode != Mode::train && c.workload.mode != Mode::infer)
    return;
  PlanOptions o;
  o.top = 3;
  o.budget = kFuzzPlanBudget;
  PlanResult r;
  if (!expected([&] { r = plan(c, o); }))
    return;
  check_numbers(io::to_json(r), "plan");
}

void url_target(const std::string &in) {
  check_answer(api::decode_url(in));
  json decoded;
  if (!expected([&] { decoded = io::decode_url_query(in); }))
    return;
  if (!expected([&] { io::parse_config(decoded); }))
    return;
  // A configuration the page accepts must come back from its own URL unchanged.
  std::string query;
  if (!expected([&] { query = io::encode_url_query(decoded); }))
    breach("a decoded configuration cannot be encoded", in);
  json again;
  if (!expected([&] { again = io::decode_url_query(query); }))
    breach("an encoded URL does not decode", query);
  if (again != decoded)
    breach("URL round trip changed the configuration", in + " -> " + query);
  check_answer(api::encode_url(io::dump(decoded)));
}

void tx8_target(const std::string &in) {
  Config c;
  if (!expected([&] { c = io::parse_config(io::parse_json_text(in)); })) {
    check_answer(api::tx8(in, false)); // the page's answer to a bad configuration
    return;
  }
  // In-harness budget: each operator's search looks at kFuzzTx8Budget tilings, and a video
  // request is mapped once, unplanned (the page's default compares every scheme on every
  // mesh split, ~0.1 s a request), so the mappers see many more shapes a second.
  tx8::Tx8Options o;
  o.plan = false;
  o.budget = kFuzzTx8Budget;
  tx8::Tx8Result r;
  if (expected([&] { r = tx8::solve(c, o); }))
    check_numbers(io::to_json(r), "tx8");
  if (c.workload.mode == Mode::tx8_op) {
    o.compare_presets = true;
    if (expected([&] { r = tx8::solve(c, o); }))
      check_numbers(io::to_json(r), "tx8 presets");
  }
}

void validate_target(const std::string &in) {
  std::vector<ValidationRun> runs;
  if (!expected([&] { runs = io::parse_validation(io::parse_json_text(in)); }))
    return;
  // Serving runs are simulated: the same in-harness bound as the serve target.
  double serve_tokens = 0;
  for (const auto &r : runs)
    if (r.config.workload.mode == Mode::serve)
      serve_tokens += static_cast<double>(r.config.workload.serve.requests) *
                      static_cast<double>(r.config.workload.gen_len + 1);
  if (serve_tokens > kFuzzServeIterations)
    return;
  std::vector<ValidationRow> rows;
  if (expected([&] { rows = validate(runs); }))
    check_numbers(io::to_json(rows), "rows");
  // In-harness budget: the fit costs 1501 estimates per run; the CLI allows up to
  // kCalibrationBudget units (about a second natively), too slow for every fuzz input.
  long long work = 0;
  for (const auto &r : runs)
    work += 1501 * (1 + r.config.model.layers);
  if (work > kFuzzFitBudget)
    return;
  std::vector<FitResult> fits;
  if (expected([&] { fits = fit_compute_overhead(runs); }))
    check_numbers(io::to_json(fits), "fit");
}

void hf_target(const std::string &in) {
  json hf;
  if (!expected([&] { hf = io::parse_json_text(in); }))
    return;
  if (!expected([&] { io::model_from_hf_config(hf, "hf_config"); }))
    return;
  const json cfg = {{"model", {{"hf_config", hf}}},
                    {"hardware", "h100-sxm"},
                    {"cluster", {{"base", "dgx-h100"}, {"devices", 64}}},
                    {"workload", {{"mode", "train"}, {"global_batch", 64}, {"seq_len", 4096}}}};
  check_answer(api::estimate(io::dump(cfg)));
}

// Engine iterations a serve simulation may take, bounded above: every request's prefill
// chunks and decode steps as if none were batched with another.
double serve_iterations(const Config &c) {
  const ServeSpec &s = c.workload.serve;
  const double chunk = static_cast<double>(std::max<i64>(1, s.chunk));
  if (s.trace.empty())
    return static_cast<double>(s.requests) * (static_cast<double>(c.workload.prompt_len) / chunk +
                                              static_cast<double>(c.workload.gen_len));
  double n = 0;
  for (const auto &r : s.trace)
    n += r[1] / chunk + r[2];
  return n;
}

void serve_target(const std::string &in) {
  Config c;
  // In-harness budget: the parser and the checks see every input, the simulation only
  // the ones of a bounded size.
  if (expected([&] { c = io::parse_config(io::parse_json_text(in)); }) &&
      c.workload.mode == Mode::serve && serve_iterations(c) > kFuzzServeIterations) {
    check_answer(api::resolve(in));
    return;
  }
  check_answer(api::serve(in));
}

// `ridgeline serve CFG --trace FILE`: a request trace (JSON array or CSV) into the serve
// scenario, then simulated.
void trace_target(const std::string &in) {
  json trace;
  if (!expected([&] { trace = io::trace_from_text(in); }))
    return;
  json cfg;
  if (!expected([&] { cfg = io::with_trace(json("llama3-70b-h100-serve"), trace); }))
    return;
  // In-harness budget: the parser and the trace checks see every input; the simulation
  // only traces of at most kFuzzTraceIterations engine iterations.
  Config c;
  if (expected([&] { c = io::parse_config(cfg); }) && serve_iterations(c) > kFuzzTraceIterations)
    return;
  check_answer(api::serve(io::dump(cfg)));
}

// Every number of the rows read finite, every component point with a positive measurement.
void check_rows(const Measurements &m, const std::string &what) {
  auto finite = [&](std::initializer_list<double> values, const std::string &row) {
    for (const double v : values)
      if (!std::isfinite(v))
        breach("non-finite number", what + ": " + row);
  };
  for (const ComponentPoint &p : m.components) {
    finite({p.m, p.n, p.k, p.batch, p.heads, p.seq, p.head_dim, p.bytes, p.measured}, p.name);
    if (!(p.measured > 0))
      breach("a point without a positive measurement", what + ": " + p.name);
  }
  for (const ServingSample &s : m.serving)
    for (const LatencyStats &l : {s.ttft, s.tpot, s.itl, s.e2e})
      finite({s.request_rate, s.input_len, s.output_len, s.output_tokens_per_s, s.requests_per_s,
              l.mean, l.p50, l.p90, l.p99},
             s.name);
  for (const TrainingSample &t : m.training)
    finite({t.step_s, t.tflops_per_gpu, t.mfu, t.tokens_per_s}, t.name);
  if (m.files != std::vector<std::string>{"fuzz.txt"})
    breach("rows without their file", what);
}

// `ridgeline calibrate FILES`: a measurement file, its format detected, then read as each
// format in turn. Every error names the file (and line): a path is required.
void readers_target(const std::string &in) {
  auto read = [&](const char *what, auto f) {
    try {
      check_rows(f(), what);
    } catch (const ConfigError &e) {
      if (e.path().empty())
        breach("error without a path", e.message());
      check_message(e.path(), e.message());
    } catch (const Breach &) {
      throw;
    } catch (const std::exception &e) {
      breach("foreign exception", e.what());
    }
  };
  read("detected", [&] { return io::read_measurements(in, "fuzz.txt"); });
  for (int f = 0; f <= static_cast<int>(io::MeasurementFormat::components_json); ++f) {
    const auto format = static_cast<io::MeasurementFormat>(f);
    read(io::name_of_format(format), [&] { return io::read_measurements(in, "fuzz.txt", format); });
  }
}

} // namespace

const std::vector<Target> &targets() {
  static const std::vector<Target> all = {
      {"estimate", estimate_target}, {"plan", plan_target},         {"url", url_target},
      {"tx8", tx8_target},           {"validate", validate_target}, {"hf", hf_target},
      {"serve", serve_target},       {"trace", trace_target},       {"readers", readers_target}};
  return all;
}

void check(const std::string &name, const std::string &input) {
  for (const Target &t : targets())
    if (name == t.name) {
      // (case-insensitively: a CSV header is quoted back lowercased)
      std::string lower_input = input;
      for (char &ch : lower_input)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      g_input_mentions_library = lower_input.find("json.exception") != std::string::npos;
      t.check(input);
      return;
    }
  throw std::invalid_argument("unknown fuzz target " + name);
}

} // namespace rl::fuzz
