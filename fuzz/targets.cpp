#include "fuzz/targets.hpp"

#include "core/schema/printable.hpp"

#include "core/calibrate/calibration.hpp"
#include "core/calibrate/fit.hpp"
#include "core/error.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"
#include "core/io/readers.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/serving_groups_json.hpp"
#include "core/io/tx8_json.hpp"
#include "core/io/url_codec.hpp"
#include "core/io/validation_json.hpp"
#include "core/jobs/api.hpp"
#include "core/jobs/export.hpp"
#include "core/planner/planner.hpp"
#include "core/serve/load_sweep.hpp"
#include "core/tx8/request.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

namespace rl::fuzz {

namespace {

using json = nlohmann::json;

bool g_input_mentions_library = false; // the input itself holds "json.exception"
// the input itself holds "internal error" or "out of memory" (a key an error quotes first)
bool g_input_mentions_internal = false;

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
  if (!g_input_mentions_internal &&
      (message.rfind("internal error", 0) == 0 || message.rfind("out of memory", 0) == 0))
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

// Runs f; a ConfigError is the contract's answer to bad input (one naming where it is, a file
// and line or a field, when `located`), anything else a breach.
template <class F> bool expected(F &&f, bool located = false) {
  try {
    f();
    return true;
  } catch (const ConfigError &e) {
    if (located && e.path().empty())
      breach("error without a path", e.message());
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

// Engine iterations a serve simulation may take, bounded above: every request's prefill
// chunks and decode steps as if none were batched with another; the requests it simulates
// (requests_per_client x concurrency when both are set).
double serve_iterations(const Config &c) {
  const ServeSpec &s = c.workload.serve;
  const double chunk = static_cast<double>(std::max<i64>(1, s.chunk));
  if (s.trace.empty())
    return static_cast<double>(simulated_requests(s)) *
           (static_cast<double>(c.workload.prompt_len) / chunk +
            static_cast<double>(c.workload.gen_len));
  double n = 0;
  for (const TraceRow &r : s.trace)
    n += static_cast<double>(r.prompt) / chunk + static_cast<double>(r.gen);
  return n;
}

void validate_target(const std::string &in) {
  std::vector<ValidationRun> runs;
  if (!expected([&] { runs = io::parse_validation(io::parse_json_text(in)); }))
    return;
  // Serving runs (open or closed loop) are simulated: the same in-harness bound as the serve
  // target, on the engine iterations of every run together (requests_per_client x clients
  // where given; prompt chunks and output tokens).
  double serve_work = 0;
  for (const auto &r : runs)
    if (r.config.workload.mode == Mode::serve)
      serve_work += serve_iterations(r.config);
  if (serve_work > kFuzzServeIterations)
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
  for (int f = 0; f <= static_cast<int>(io::MeasurementFormat::kernels_csv); ++f) {
    const auto format = static_cast<io::MeasurementFormat>(f);
    read(io::name_of_format(format), [&] { return io::read_measurements(in, "fuzz.txt", format); });
  }
}

// [SECTION] calibrate: a measurement file read and fitted

// The scenario a base names as core/io/calibration_json's base_config reads it: a scenario as
// itself, a bare hardware preset as the first shipped scenario on that hardware.
std::string scenario_of_base(const std::string &base) {
  if (io::is_preset("scenario", base))
    return base;
  for (const std::string &name : io::preset_names("scenario"))
    if (io::expand_scenario(json(name)).value("hardware", json()) == json(base))
      return name;
  throw std::logic_error("fuzz: no shipped scenario runs on " + base);
}

// Engine iterations of the serving fit on one run: fit_engine simulates each run 5 times
// (the overhead at 0 and at the probe, at the fitted value, with the TTFT shift and half of it).
double serving_fit_iterations(const Config &base, const ServingSample &s) {
  return 5 * serve_iterations(serving_run_config(base, s));
}

// The rows one input may fit (kFuzzFit*): the first of each kind, the serving runs while their
// simulations stay within kFuzzServeIterations. Returns whether any row was left out.
bool cap_rows(Measurements &m, const Config &base) {
  bool capped = false;
  std::vector<ComponentPoint> points;
  for (const ComponentPoint &p : m.components) {
    const auto same = std::count_if(points.begin(), points.end(),
                                    [&](const ComponentPoint &q) { return q.kind == p.kind; });
    if (static_cast<std::size_t>(same) < kFuzzFitPoints)
      points.push_back(p);
    else
      capped = true;
  }
  m.components = std::move(points);
  if (m.kernels.size() > kFuzzFitKernels) {
    m.kernels.resize(kFuzzFitKernels);
    capped = true;
  }
  if (m.layers.size() > kFuzzFitLayers) {
    m.layers.resize(kFuzzFitLayers);
    capped = true;
  }
  std::vector<ServingSample> runs;
  double work = 0;
  for (const ServingSample &s : m.serving) {
    const double w = serving_fit_iterations(base, s);
    if (runs.size() < kFuzzFitServing && work + w <= kFuzzServeIterations) {
      runs.push_back(s);
      work += w;
    } else {
      capped = true;
    }
  }
  m.serving = std::move(runs);
  return capped;
}

// `ridgeline calibrate FILE` (base h100-sxm, the CLI's default; a serving file or an engine's
// kernel table against the shipped serving scenario on the same chip, llama3-70b-h100-serve):
// the rows read, fitted, and what `--json` prints and `--out` writes. Checks: every fitted
// value, residual, band and run finite, every error naming where; the presets written parse
// back (as files: dumped, read, named by a configuration on the base's scenario), and so does
// the base with the overrides applied (the page's Apply). A file of more rows than the caps
// (kFuzzFit*) has the rest left out and is fitted through calibrate() with the options
// calibrate_files would give (the GEMM ratio reference).
// `ridgeline calibrate --groups MANIFEST`: a manifest (the input) whose groups name two
// files, runs.csv (two B200 serving rows) and base.json (a serving configuration of them),
// then the groups' fits and leave-one-group-out when the manifest is accepted. Checks: every
// error names where; every error and host time finite.
void groups_target(const std::string &in) {
  static const std::string csv =
      "model,engine,tp,isl,osl,concurrency,requests_per_client,ttft_ms,tpot_ms,speculative\n"
      "meta-llama/Llama-3.1-8B,vllm,1,256,64,2,2,40.0,8.0,\n"
      "meta-llama/Llama-3.1-8B,trtllm,1,256,64,4,2,50.0,9.0,mtp1\n";
  static const std::string base =
      R"({"model": "llama3-8b", "hardware": "h100-sxm", "cluster": {"base": "dgx-h100",
      "devices": 1}, "workload": {"mode": "serve", "concurrency": 2, "prompt_len": 256,
      "gen_len": 64, "engine": "vllm"}, "parallel": {"tp": 1}})";
  json manifest;
  if (!expected([&] { manifest = io::parse_json_text(in); }))
    return;
  std::vector<ServingGroup> groups;
  if (!expected(
          [&] {
            groups = io::serving_groups(
                manifest, [&](const std::string &path, const std::string &field) {
                  if (path == "runs.csv")
                    return csv;
                  if (path == "base.json")
                    return base;
                  throw ConfigError(field, "no such file in the fuzz harness");
                });
          },
          true))
    return;
  ServingGroupsReport r;
  if (!expected([&] { r = serving_groups_report(groups); }, true))
    return;
  json out = io::to_json(r);
  check_numbers(out, "calibrate --groups");
}

void calibrate_target(const std::string &in) {
  if (in.find("\"groups\"") != std::string::npos) { // a --groups manifest
    groups_target(in);
    return;
  }
  static const std::string train_scenario = scenario_of_base("h100-sxm");
  static const std::string serve_scenario = "llama3-70b-h100-serve";
  Measurements m; // as calibrate_files gathers them (append names the rows' file)
  if (!expected([&] { m.append(io::read_measurements(in, "fuzz.txt")); }, true))
    return;
  const bool serving = !m.serving.empty() || !m.kernels.empty();
  const json base = serving ? json(serve_scenario) : json("h100-sxm");
  const std::string scenario = serving ? serve_scenario : train_scenario;
  // (parsed once: a configuration's parse is ~2 ms under ASan)
  static const Config train_config = io::parse_config(io::expand_scenario(json(train_scenario)));
  static const Config serve_config = io::parse_config(io::expand_scenario(json(serve_scenario)));
  const Config &base_config = serving ? serve_config : train_config;
  CalibrationResult r;
  const bool capped = cap_rows(m, base_config);
  if (!expected(
          [&] {
            if (!capped) {
              r = io::calibrate_files(base, {{"fuzz.txt", in}});
              return;
            }
            CalibrateOptions o;
            if (std::any_of(m.kernels.begin(), m.kernels.end(), is_large_gemm))
              o.ratio_reference = io::parse_hardware(json("h100-sxm"), "hardware");
            r = calibrate(base_config, m, o);
          },
          true))
    return;
  // what `ridgeline calibrate --json` prints
  json out;
  json presets;
  if (!expected(
          [&] {
            out = io::to_json(r);
            presets = io::calibrated_presets(base, r, r.hardware.name + "-calibrated",
                                             "ridgeline calibrate fuzz.txt");
            out["presets"] = presets;
          },
          true))
    breach("the calibration cannot be written", io::dump(io::to_json(r)));
  check_numbers(out, "calibrate");
  if (!expected([&] { io::dump(out, 2); }))
    breach("the calibration cannot be printed", "");
  // `--out DIR` writes each preset as a file a configuration names by path (the CLI inlines
  // it): each must parse back, on the base's own scenario.
  json cfg = {{"scenario", scenario}};
  for (const auto &[section, obj] : presets.items()) {
    json back;
    try {
      back = io::parse_json_text(io::dump(obj, 2));
    } catch (const ConfigError &e) {
      breach("calibrate wrote a preset file that is not JSON",
             section + ": " + e.path() + ": " + e.message());
    } catch (const std::exception &e) {
      breach("foreign exception", e.what());
    }
    if (section == "engine")
      cfg["workload"]["engine"] = back;
    else
      cfg[section] = back;
  }
  try {
    io::parse_config(cfg);
  } catch (const ConfigError &e) {
    breach("calibrate wrote a preset the parser refuses", e.path() + ": " + e.message());
  } catch (const std::exception &e) {
    breach("foreign exception", e.what());
  }
  // the page's Apply: the base with the fitted fields as overrides
  try {
    io::parse_config(io::apply_overrides(json(scenario), io::calibrated_overrides(r)));
  } catch (const ConfigError &e) {
    breach("the calibrated overrides make a configuration the parser refuses",
           e.path() + ": " + e.message());
  } catch (const std::exception &e) {
    breach("foreign exception", e.what());
  }
}

// [SECTION] export: a hostile name in every launch

// The words a format's one command starts with (the checkpoint argument as `model`).
std::vector<std::string> command_prefix(const std::string &format, const std::string &model) {
  if (format == "vllm")
    return {"vllm", "serve", model};
  if (format == "sglang")
    return {"python", "-m", "sglang.launch_server", "--model-path", model};
  if (format == "trtllm")
    return {"trtllm-serve", model};
  return {"torchrun"}; // megatron, torchtitan
}

// The input is the name, as it is (any bytes: a configuration read from JSON holds no invalid
// UTF-8, one built by the page or a decoded URL may). Its length picks the configuration
// (train, serve, hf), so the fuzzer's mutations move a name across all three.
void export_target(const std::string &in) {
  std::vector<ExportCase> cases;
  if (!expected([&] { cases = export_cases(in, static_cast<int>(in.size() % 3)); }))
    return;
  for (const ExportCase &c : cases) {
    if (!c.error.empty() || c.format.empty()) {
      check_message(c.error_path, c.error);
      continue;
    }
    check_export_case(c);
  }
}

// [SECTION] closed loop: a serving configuration forced into the closed loop

// Engine iterations of the closed loop's load sweep (`serve --sweep`, the page's Latency vs
// load tab): 1, 2, 4, ... clients up to twice the configured ones (at least 8), each point
// 4 requests a client (64 to kSweepRequests), the configured point its own requests.
double sweep_iterations(const Config &c) {
  const ServeSpec &s = c.workload.serve;
  const double per =
      static_cast<double>(c.workload.prompt_len) / static_cast<double>(std::max<i64>(1, s.chunk)) +
      static_cast<double>(c.workload.gen_len);
  double n = 0;
  for (i64 k = 1; k <= std::max<i64>(2 * s.concurrency, 8); k *= 2)
    n += k == s.concurrency ? static_cast<double>(simulated_requests(s))
                            : static_cast<double>(std::clamp<i64>(4 * k, 64, kSweepRequests));
  return n * per;
}

// `ridgeline serve CFG` (and `--sweep`) on a closed loop: the input's workload gets
// concurrency (8 when it gives none) and loses request_rate, so every serving configuration
// runs its clients; the fuzzer pushes clients, requests_per_client, think time and the
// scheduler to their accepted bounds. In-harness budget: the simulation only within
// kFuzzServeIterations engine iterations (the parser and the checks see every input), the load
// sweep only when all its points are within it too.
void closed_loop_target(const std::string &in) {
  json j;
  if (!expected([&] { j = io::parse_json_text(in); }))
    return;
  if (!j.is_object())
    return;
  json &w = j["workload"];
  if (w.is_null())
    w = json::object();
  if (w.is_object()) {
    w.erase("request_rate");
    if (!w.contains("concurrency"))
      w["concurrency"] = 8;
  }
  const std::string text = io::dump(j);
  Config c;
  if (!expected([&] { c = io::parse_config(j); })) {
    check_answer(api::serve(text)); // the page's answer to it
    return;
  }
  if (c.workload.mode != Mode::serve)
    return;
  if (serve_iterations(c) > kFuzzServeIterations) {
    check_answer(api::resolve(text));
    return;
  }
  check_answer(api::serve(text));
  if (c.workload.serve.concurrency > 0 && c.workload.serve.trace.empty() &&
      sweep_iterations(c) <= kFuzzServeIterations)
    check_answer(api::serve_sweep(text));
}

} // namespace

std::vector<ExportCase> export_cases(const std::string &name, int only) {
  // Training: a model and a chip named `name`, every parallel knob set (no planning).
  const json train = {{"model", {{"base", "llama3-8b"}, {"name", name}}},
                      {"hardware", {{"base", "h100-sxm"}, {"name", name}}},
                      {"cluster", {{"base", "dgx-h100"}, {"devices", 8}}},
                      {"workload", {{"mode", "train"}, {"global_batch", 16}, {"seq_len", 4096}}},
                      {"parallel",
                       {{"tp", 2},
                        {"pp", 2},
                        {"vpp", 1},
                        {"cp", 1},
                        {"zero", 1},
                        {"microbatch", 1},
                        {"recompute", "selective"}}}};
  // Serving: the model without an hf_id, so its name is the checkpoint argument.
  static const json model = [] {
    json m = io::preset_json("model", "llama3-8b", "model");
    m.erase("hf_id");
    return m;
  }();
  json named = model;
  named["name"] = name;
  const json load = {{"mode", "serve"},   {"concurrency", 4}, {"requests", 16},
                     {"prompt_len", 128}, {"gen_len", 16},    {"engine", "vllm"}};
  const json serve = {{"model", named},
                      {"hardware", {{"base", "h100-sxm"}, {"name", name}}},
                      {"cluster", {{"base", "dgx-h100"}, {"devices", 8}}},
                      {"workload", load},
                      {"parallel", {{"tp", 1}}}};
  // A pasted config.json whose _name_or_path is `name` (an hf_id when it has that form).
  const json hf = {{"model",
                    {{"hf_config",
                      {{"model_type", "llama"},
                       {"hidden_size", 2048},
                       {"intermediate_size", 8192},
                       {"num_attention_heads", 16},
                       {"num_hidden_layers", 4},
                       {"num_key_value_heads", 8},
                       {"vocab_size", 32000},
                       {"max_position_embeddings", 8192},
                       {"_name_or_path", name}}}}},
                   {"hardware", "h100-sxm"},
                   {"cluster", {{"base", "dgx-h100"}, {"devices", 8}}},
                   {"workload", load},
                   {"parallel", {{"tp", 1}}}};
  const struct {
    const char *label;
    const json &config;
    std::vector<const char *> formats;
  } configs[] = {{"train", train, {"megatron", "deepspeed", "torchtitan"}},
                 {"serve", serve, {"vllm", "sglang", "trtllm"}},
                 {"hf", hf, {"vllm", "sglang", "trtllm"}}};
  std::vector<ExportCase> out;
  for (int i = 0; i < 3; ++i) {
    if (only >= 0 && i != only)
      continue;
    const auto &cfg = configs[i];
    Config c;
    try {
      c = io::parse_config(cfg.config);
    } catch (const ConfigError &e) {
      out.push_back({cfg.label, "", "", e.path(), e.message(), ""});
      continue;
    }
    const std::string model_word =
        c.model.hf_id.empty() ? schema::printable(c.model.name) : c.model.hf_id;
    for (const char *format : cfg.formats) {
      ExportCase x{cfg.label, format, "", "", "", model_word};
      try {
        x.text = jobs::export_launch(c, format).all();
      } catch (const ConfigError &e) {
        x.error_path = e.path();
        x.error = e.message();
      }
      out.push_back(x);
    }
  }
  return out;
}

std::vector<std::vector<std::string>> shell_commands(const std::string &text) {
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> command;
  std::string word;
  bool in_word = false; // a word has started (an empty quoted one too)
  const auto end_word = [&] {
    if (in_word)
      command.push_back(word);
    word.clear();
    in_word = false;
  };
  const auto end_command = [&] {
    end_word();
    if (!command.empty())
      commands.push_back(command);
    command.clear();
  };
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const char ch = text[i];
    if (ch == '\\') { // a line continuation, or the next character as itself
      if (i + 1 >= n)
        breach("a backslash ends the launch", text);
      if (text[i + 1] != '\n') {
        word += text[i + 1];
        in_word = true;
      }
      i += 2;
    } else if (ch == '\'') {
      const std::size_t e = text.find('\'', i + 1);
      if (e == std::string::npos)
        breach("an unterminated single quote in a launch", text);
      word += text.substr(i + 1, e - i - 1);
      in_word = true;
      i = e + 1;
    } else if (ch == '"') {
      in_word = true;
      for (++i;; ++i) {
        if (i >= n)
          breach("an unterminated double quote in a launch", text);
        const char c = text[i];
        if (c == '"') {
          ++i;
          break;
        }
        if (c == '\\' && i + 1 < n && std::strchr("$`\"\\\n", text[i + 1])) {
          if (text[i + 1] != '\n')
            word += text[i + 1];
          ++i;
        } else if (c == '$' || c == '`') {
          breach("an expansion inside double quotes in a launch", text);
        } else {
          word += c;
        }
      }
    } else if (ch == '\n') {
      end_command();
      ++i;
    } else if (ch == ' ' || ch == '\t') {
      end_word();
      ++i;
    } else if (ch == '#' && !in_word) { // a comment, to the end of the line
      while (i < n && text[i] != '\n')
        ++i;
    } else if (std::strchr(";&|<>()", ch)) {
      breach("a shell operator in a launch", text);
    } else if (ch == '$' || ch == '`') {
      breach("an expansion in a launch", text);
    } else if (ch == '*' || ch == '?' || ch == '[') {
      breach("a pathname pattern outside quotes in a launch", text);
    } else if (ch == '~' && !in_word) {
      breach("a tilde expansion in a launch", text);
    } else {
      word += ch;
      in_word = true;
      ++i;
    }
  }
  end_command();
  return commands;
}

void check_export_case(const ExportCase &c) {
  const std::string where = c.config + " --format " + c.format + ": ";
  // Pasted into a terminal, a launch shows as it is: no control character but the line ends
  // (C0 but '\n', DEL, C1, line separators, bidi overrides: core/schema/printable).
  std::string joined = c.text; // the line ends allowed, every other control character not
  std::replace(joined.begin(), joined.end(), '\n', ' ');
  if (schema::has_control(joined))
    breach("a control character in a launch", where + c.text);
  if (c.format == "deepspeed") {
    // A ds_config.json behind comment lines: the lines that are not comments are the JSON.
    std::string body;
    std::size_t start = 0;
    while (start < c.text.size()) {
      std::size_t end = c.text.find('\n', start);
      if (end == std::string::npos)
        end = c.text.size();
      const std::string line = c.text.substr(start, end - start);
      if (line.empty() || line[0] != '#')
        body += line + "\n";
      start = end + 1;
    }
    json ds;
    try {
      ds = json::parse(body);
    } catch (const json::exception &) {
      breach("a DeepSpeed launch line outside its comments", where + c.text);
    }
    if (!ds.is_object() || !ds.contains("train_batch_size"))
      breach("a DeepSpeed launch without its config", where + c.text);
    return;
  }
  const auto commands = shell_commands(c.text);
  if (commands.size() != 1)
    breach("a launch is not one command",
           where + std::to_string(commands.size()) + " commands: " + c.text);
  const std::vector<std::string> &words = commands.front();
  const std::vector<std::string> prefix = command_prefix(c.format, c.model_word);
  if (words.size() < prefix.size() || !std::equal(prefix.begin(), prefix.end(), words.begin()))
    breach("a launch's command is not the framework's", where + c.text);
  const char *entry = c.format == "megatron"     ? "pretrain_gpt.py"
                      : c.format == "torchtitan" ? "torchtitan.train"
                                                 : nullptr;
  if (entry && std::find(words.begin(), words.end(), entry) == words.end())
    breach("a launch's command is not the framework's", where + c.text);
}

const std::vector<Target> &targets() {
  static const std::vector<Target> all = {
      {"estimate", estimate_target}, {"plan", plan_target},
      {"url", url_target},           {"tx8", tx8_target},
      {"validate", validate_target}, {"hf", hf_target},
      {"serve", serve_target},       {"trace", trace_target},
      {"readers", readers_target},   {"calibrate", calibrate_target},
      {"export", export_target},     {"closed_loop", closed_loop_target}};
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
      g_input_mentions_internal = lower_input.find("internal error") != std::string::npos ||
                                  lower_input.find("out of memory") != std::string::npos;
      t.check(input);
      return;
    }
  throw std::invalid_argument("unknown fuzz target " + name);
}

} // namespace rl::fuzz
