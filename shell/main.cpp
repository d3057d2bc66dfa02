// ridgeline: the command-line tool, a thin layer over ridgeline::core.
// JSON in (a file, a scenario preset name, or inline JSON), a table or JSON out.
// Exit codes: 0 ok, 2 bad input or usage (one line on stderr naming the field), 1 the
// output could not be written (stdout closed or full) or an internal error.
#include "core/error.hpp"
#include "core/estimate/estimate.hpp"
#include "core/io/calibration_json.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"
#include "core/io/readers.hpp"
#include "core/io/schema_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/serving_groups_json.hpp"
#include "core/io/units.hpp"
#include "core/io/url_codec.hpp"
#include "core/io/validation_json.hpp"
#include "core/jobs/export.hpp"
#include "core/jobs/plan.hpp"
#include "core/jobs/run.hpp"
#include "core/parallel/knobs.hpp"
#include "core/report/calibration_report.hpp"
#include "core/report/table.hpp"
#include "core/schema/suggest.hpp"
#include "core/serve/simulate.hpp"
#include "core/tx8/arch.hpp"
#include "core/tx8/request.hpp"
#include "shell/format.hpp"
#include "shell/serve_command.hpp"
#include "shell/terminal.hpp"
#include "shell/tx8_command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using json = nlohmann::json;
using namespace rl;

struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options; // --key value or --flag ("")
  bool has(const std::string &k) const { return options.count(k) > 0; }
};

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char *kMainHelpHead =
    "ridgeline: a planner for distributed transformer training and inference\n\n"
    "usage: ridgeline <command> [options]\n\ncommands:\n";
const char *kMainHelpTail =
    "\nCFG is a JSON file, a scenario preset name (see `ridgeline presets scenario`), or inline "
    "JSON.\nRun `ridgeline <command> --help` for a command's options.\n";

const char *kEstimateHelp =
    R"(Parameters (total, active), FLOPs per step (model and hardware, with recompute), and memory
per device for the worst pipeline stage: weights, gradients, optimizer states, activations
(term by term), KV cache (inference), against the device's capacity.

  --json          print the estimate as JSON (params, flops, memory, ...; see the README)
  --compare-sp    print the comparison of DS-SP, Ring-SP, DP, ZeRO, USP, TP and Megatron-SP
                  of the DSP paper (Zhao et al. 2024) for this model, micro-batch and sequence
  --degree N      the parallel degree N of that comparison (default: parallel.cp if > 1,
                  else parallel.tp if > 1, else 8)
  --sweep batch   inference: decode step, memory and tokens/s over batch sizes (powers of
                  two, the critical batch and the largest batch that fits), at the final
                  context
)";

const char *kUrlHelp =
    R"(Encodes a configuration as the URL query the web page reads (readable dotted keys, preset
names kept: model=llama3-70b&parallel.tp=8), or decodes one back to JSON. STR may be a full
URL, "?query", "#fragment" or a bare query. --resolved prints the configuration with every
preset expanded and every default filled, as the core sees it.
)";

const char *kPlanHelp =
    R"(Searches every knob of "parallel" that CFG leaves out: tp (powers of two up to a node),
pp (every degree dividing the devices, up to the layer count) with Megatron's stage split
(the even one, or first and last stages holding fewer layers: Llama 3 405B's 126 layers on
16 stages run 7, 8 x 14, 7), vpp (every interleaving depth the stages allow, uneven virtual
stages included), cp and cp_kind (ring, ulysses, usp; sequences of 16k tokens and more),
ep (MoE), zero (0-3), microbatch (every divisor of the per-replica batch), recompute (none,
selective, full) and the axis order (pipeline outside or inside data parallelism); dp
follows from the device count. Illegal layouts are counted by reason; a layout fits when it
leaves the memory headroom free. Plans are ranked by the objective (training) or time per
output token (inference); the time/memory Pareto front comes with them.
  --top N         plans to show (default 10; a serving plan shows 1 to 20)
  --objective O   training: step (default), tokens (tokens/s), time-to-train (needs
                  workload.train_tokens), cost (needs hardware.price_per_hour: cost to train
                  the token budget, or per token without one), energy (needs
                  hardware.power_w: MWh to train the budget, or J per token without one)
  --headroom GB   memory each plan leaves free (default 1.5 GB + 5% of HBM: CUDA context,
                  NCCL buffers, allocator fragmentation)
  --free K        search knobs CFG pins, as the page's "free all": `all` (every knob that
                  applies) or names from tp, pp, "stage split", vpp, cp, cp_kind, ep, zero,
                  microbatch, recompute, order, dp (comma-separated); freeing a knob frees
                  what follows it (dp follows tp, pp and cp; sp follows tp; the schedule
                  follows pp and vpp). A scenario preset pins every knob: `plan SCENARIO
                  --free all` searches them all
  --json          {"plans": [estimate + "parallel" + "why", ...], "infeasible": [...],
                  "pareto": [{layout, parallel, objective, step, memory}, ...], "headroom",
                  "stats": {candidates, evaluated, feasible, rejected, seconds}, ...}; with
                  workload.train_tokens each plan has time_to_train (s, with interruptions
                  and checkpoints), goodput and checkpoint.{bytes, interval_s, ...}, with a
                  price cost.{per_hour, to_train}, with a board power
                  energy.{joules_per_token, kwh_per_step, mwh_to_train, cost_to_train}

On a serve configuration (workload.mode "serve") it finds the cheapest deployments that
meet workload.slo at workload.request_rate: hardware (workload.hardware_options), engine
(engine_options), weight precision (precision_options; FP4 on hardware with its peak), tp
and pp per instance and, for MoE, attention DP with the experts split by tensor (moe_tp)
or by expert (ep), replicas, max batch and chunk, aggregated or disaggregated prefill and
decode, each sized by simulation and verified whole (see `ridgeline serve --help`); knobs
`parallel` sets stay fixed unless --free frees them. --json gives "deployments" (engine,
weight_dtype, precision, instance, cost.per_hour, cost.per_million_tokens, simulation,
config) and "stats" (candidates, evaluated, feasible, rejected, simulations, seconds).
)";

const char *kExportHelp =
    R"(Prints the launch arguments for CFG's parallel layout (F: megatron, deepspeed, torchtitan,
torchtune, vllm, sglang, trtllm). Training (workload.mode train): Megatron-LM (Megatron-Core)
flags, a DeepSpeed ds_config.json (with the Megatron-DeepSpeed model-parallel flags; a
fine-tune's Hugging Face PEFT LoraConfig and BitsAndBytesConfig), TorchTitan overrides, or a
torchtune `tune run` of its LoRA or full fine-tuning recipe, each with the plan's FP8/MX recipe or a note where the framework has none; when
CFG leaves parallel knobs free, the planner's best layout that the framework launches is
exported (Megatron-Core's stage and virtual-stage divisibility, DeepSpeed's ZeRO 0-1 with
pipeline parallelism). Inference and serving (infer, serve): a `vllm serve`,
`python -m sglang.launch_server` or `trtllm-serve` command line for one engine instance
(tp, attention DP, pp, expert parallelism, scheduler settings) and how many to run. A
format that does not apply to the mode, or a layout the framework refuses to launch, is an
error (exit 2, naming the field) and nothing is printed. Where a framework has no twin of
a ridgeline knob, a "# note:" line says so. --free (training) frees knobs CFG pins, as in
`ridgeline plan --free`, and exports the planner's best layout.
)";

const char *kCollectiveHelp =
    R"(Time and bytes per device of one collective on a cluster (alpha-beta; NCCL-style choice of
ring or tree; hierarchical across nodes; TPU torus axes as in How to Scale Your Model ch. 3).
  CLUSTER   a cluster preset name, a JSON file or inline JSON
  --op      allreduce | allgather | reduce_scatter | alltoall | p2p
  --bytes   the full buffer M in bytes (AllToAll: the per-device buffer), e.g. 1e9
  --group   devices in the group (default: every device of the cluster)
  --stride  distance between group members in device order (default 1: TP-like, inside a
            node first; a stride of devices_per_node puts every member on its own node)
)";

const char *kValidateHelp =
    R"(Runs each measured configuration through the model and prints predicted vs measured with
the relative error and the band ridgeline reports for that chip. FILE holds {"runs": [{"name",
"config": <configuration>, "measured": {"mfu" | "step_time" | "tokens_per_s" |
"tflops_per_device" | "hardware_tflops_per_device": value}}]}. Without FILE: the model's
components against published microbenchmarks (cuBLAS GEMMs, FlashAttention, NCCL bus
bandwidth, STREAM), the calibration runs and the held-out runs, dense and fine-grained MoE
(docs/calibration.md).
--fit refits each chip's compute_overhead to the runs (least squares on the log-ratio;
without FILE, to the calibration runs) and prints the fitted values and residuals. A run's
"fit_group" pools chips into one fit ("blackwell": B200 and GB200, one die); "fit": false
predicts a run without fitting to it.
With --runs FILE each run also shows the predicted step by component (compute, exposed
communication, pipeline bubble, optimizer), the step the measurement implies, and whether
the measurement falls inside the band. A run's configuration may name preset files written
by `ridgeline calibrate --out` ("hardware": "calibrated/hardware.json").
)";

const char *kCalibrateHelp =
    R"(Reads your measurements and fits the parameters each informs, with the same code that fits
ridgeline's shipped presets (docs/calibration.md):
  nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
    sendrecv_perf; one node -> cluster.intra_node, several -> cluster.inter_node):
    link efficiency and step latency
  GEMM sweep CSV (m,n,k,dtype,seconds): hardware.gemm_efficiency (bf16/fp16),
    gemm_efficiency_fp8, gemm_k_half
  attention sweep CSV (batch,heads,seq,head_dim,causal,dtype,fwd_seconds,bwd_seconds):
    hardware.attention_efficiency
  element-wise CSV (kernel,bytes,seconds): hardware.hbm_efficiency
  Megatron-LM / torchtitan training logs, runs of the base configuration: the end-to-end
    hardware.compute_overhead, fitted last with every component above already fitted
  components.json ({"points": [...]}, presets/validation/components.json's format)
The format of each file is found from its text; tools/measure/ writes the CSVs.

  --base B   where the fit starts and what the logs ran: a configuration file or JSON, a
             scenario, a hardware preset or hardware@cluster (default: h100-sxm)
  --out DIR  write DIR/hardware.json and DIR/cluster.json: the base preset with the fitted
             fields ({"base": ..., fields}); a configuration names them by path
  --name N   the name of the written presets (default: <hardware>-calibrated)
  --fix P,.. hold these parameters at the base's value (dotted paths as printed, e.g.
             cluster.intra_node.efficiency: the link's latency is then fitted alone)
  --json     the parameters with their residuals, the runs and the overrides as JSON
Each parameter is printed with its data count, residuals and band (the largest residual).

  --groups MANIFEST  instead of FILES: serving runs in groups (one benchmark campaign each:
             a model, chip, engine and harness), {"groups": [{"name", "runs": CSV, "base":
             CONFIG, "where": {"model", "engine", "hardware"}}]}, paths relative to the
             manifest. Prints each engine's host times fitted to all its groups, then each
             group predicted by its engine fitted to the others (leave one group out):
             ridgeline calibrate --groups docs/data/serving/groups.json
)";

const char *kCompareHelp =
    R"(Every headline number of two configurations (each a file, a scenario preset name or inline
JSON) side by side with its change from A to B: the table of the page's Compare tab (A is
its pinned result, B the current one). Training and inference compare their estimates,
serving its simulations, tx8 its mappings; a number only one side has reads "new" or
"gone". Changes are relative ("-12.5%"), but a percentage's change is in points (MFU 30.0%
-> 35.2%: "+5.2 pts"). Two training configurations end with the step-time difference and
its band, each component's difference with that component's band (the chip's on compute,
bubble and optimizer, the links' on exposed communication; docs/formulas.md "Bands of a
plan"): beyond the band, or within it and not a difference the model can vouch for.
  --json   {"a", "b", "rows": [{section, label, a, b, change}], "verdict"} (a / b absent
           where that side has no such number; verdict for two training configurations)
)";

const char *kPresetsHelp =
    R"(Lists the presets compiled into ridgeline (models, hardware, clusters, serving engines,
scenarios), or
prints one preset's JSON.
)";

// What stands at `path` when it is not a regular file, in words ("a FIFO (named pipe)");
// "" for a regular file.
std::string not_regular(const std::filesystem::file_status &st) {
  namespace fs = std::filesystem;
  switch (st.type()) {
  case fs::file_type::regular:
    return "";
  case fs::file_type::directory:
    return "a directory";
  case fs::file_type::fifo:
    return "a FIFO (named pipe)";
  case fs::file_type::character:
    return "a character device";
  case fs::file_type::block:
    return "a block device";
  case fs::file_type::socket:
    return "a socket";
  default:
    return "not a regular file";
  }
}

// The text of the regular file at `path`; nullopt when nothing is there (the name may be a
// preset's). Anything else is refused before it is read, in an error at `field` (a
// configuration field, or "" for an operand) naming the cause: a symbolic-link loop, a link
// to nothing, a directory, a FIFO, device or socket (reading one can block forever or never
// end), a file over `limit` bytes, one that cannot be read.
std::optional<std::string> read_file(const std::string &path, const std::string &field = "",
                                     std::size_t limit = io::kMaxInputBytes) {
  namespace fs = std::filesystem;
  const std::string at = "\"" + path + "\"";
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw ConfigError(field, at + ": " + ec.message());
  if (!fs::exists(link))
    return std::nullopt;
  const fs::file_status st = fs::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels)
    throw ConfigError(field, at + ": a symbolic-link loop");
  if (ec == std::errc::no_such_file_or_directory || (!ec && !fs::exists(st)))
    throw ConfigError(field, at + ": a symbolic link to nothing");
  if (ec)
    throw ConfigError(field, at + ": " + ec.message());
  if (const std::string what = not_regular(st); !what.empty())
    throw ConfigError(field, at + " is " + what + "; only regular files are read");
  const auto size = fs::file_size(path, ec);
  if (ec)
    throw ConfigError(field, at + ": " + ec.message());
  if (size > limit)
    throw ConfigError(field, at + " is " + std::to_string(size) + " bytes; the limit is " +
                                 std::to_string(limit) + " bytes (" + std::to_string(limit >> 20) +
                                 " MiB)");
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw ConfigError(field, "cannot read " + at);
  std::string text;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(f.gcount()));
    if (text.size() > limit) // grew while read
      throw ConfigError(field, at + " is over the limit of " + std::to_string(limit) + " bytes (" +
                                   std::to_string(limit >> 20) + " MiB)");
  }
  if (f.bad())
    throw ConfigError(field, "cannot read " + at);
  return text;
}

// JSON text from a file, named in errors that have no field path.
json parse_file_json(const std::string &path, const std::string &text) {
  try {
    return io::parse_json_text(text);
  } catch (const ConfigError &e) {
    if (!e.path().empty())
      throw;
    throw ConfigError("", path + ": " + e.message());
  }
}

bool is_json_path(const std::string &name) {
  return name.size() >= 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

// A preset file's object in place of its path: `value` itself ("hardware":
// "calibrated/hardware.json") or an object's "base" ({"base": "calibrated/cluster.json",
// "devices": 16}: the file's object with the other fields over it).
json preset_file_in_place(const json &value, const std::string &path) {
  if (value.is_string() && is_json_path(value.get<std::string>())) {
    const std::string name = value.get<std::string>();
    const auto text = read_file(name, path);
    if (!text)
      throw ConfigError(path, "\"" + name + "\": no such preset file");
    return parse_file_json(name, *text);
  }
  if (value.is_object())
    if (const auto b = value.find("base");
        b != value.end() && b->is_string() && is_json_path(b->get<std::string>())) {
      json merged = preset_file_in_place(*b, path + ".base");
      json patch = value;
      patch.erase("base");
      merged.merge_patch(patch);
      return merged;
    }
  return value;
}

// A configuration's model, hardware, cluster and workload.engine may name preset files by
// their path, as `ridgeline calibrate --out` writes them (hardware.json, cluster.json,
// engine.json), alone or as the base of an object. Relative paths are from the working
// directory.
json inline_preset_files(json cfg) {
  if (!cfg.is_object())
    return cfg;
  for (const char *key : {"model", "hardware", "cluster"})
    if (const auto it = cfg.find(key); it != cfg.end())
      *it = preset_file_in_place(*it, key);
  if (const auto w = cfg.find("workload"); w != cfg.end() && w->is_object())
    if (const auto e = w->find("engine"); e != w->end())
      *e = preset_file_in_place(*e, "workload.engine");
  return cfg;
}

// CFG: a file path, inline JSON, or a scenario preset name.
json load_config(const std::string &cfg) {
  if (!cfg.empty() && cfg.front() == '{')
    return inline_preset_files(io::parse_json_text(cfg));
  if (const auto text = read_file(cfg))
    return inline_preset_files(parse_file_json(cfg, *text));
  for (const auto &n : io::preset_names("scenario"))
    if (n == cfg)
      return json(cfg);
  throw ConfigError("", "\"" + cfg + "\" is neither a readable file nor a scenario preset");
}

std::string one_positional(const Args &a, const char *what) {
  if (a.positional.size() != 1)
    throw Usage("`" + a.command + "` takes exactly one " + what);
  return a.positional[0];
}

int cmd_estimate(const Args &a) {
  const json cfg = load_config(one_positional(a, "CFG"));
  const Config c = io::parse_config(cfg);
  if (a.has("--degree") && !a.has("--compare-sp"))
    throw Usage("--degree goes with --compare-sp");
  if (a.has("--compare-sp")) {
    i64 degree = 0;
    if (a.has("--degree")) {
      const std::string d = a.options.at("--degree");
      if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos || d.size() > 7 ||
          std::stol(d) < 1)
        throw ConfigError("--degree", "expected a positive integer, got \"" + d + "\"");
      degree = std::stol(d);
    }
    const SpComparison cmp =
        degree ? compare_sp(c.model, static_cast<double>(c.parallel.microbatch.value_or(1)),
                            static_cast<double>(c.workload.seq_len), degree)
               : compare_sp(c);
    if (a.has("--json"))
      std::cout << io::dump(io::to_json(cmp), 2) << "\n";
    else
      shell::print_sp_comparison(std::cout, c, cmp);
    return 0;
  }
  if (a.has("--sweep")) {
    if (a.options.at("--sweep") != "batch")
      throw Usage("--sweep takes `batch`");
    if (c.workload.mode != Mode::infer)
      throw ConfigError("workload.mode", "--sweep batch needs an inference workload");
    const DecodeCurve curve = decode_curve(c, estimate(c));
    if (a.has("--json"))
      std::cout << io::to_json(curve).dump(2) << "\n";
    else
      shell::print_sweep(std::cout, curve, static_cast<double>(c.workload.batch));
    return 0;
  }
  const Estimate e = estimate(c);
  if (a.has("--json"))
    std::cout << io::dump(io::to_json(e), 2) << "\n";
  else
    shell::print_estimate(std::cout, c, e);
  return 0;
}

// f's result, with its wall time in `seconds` (the CLI measures; the core has no clock).
template <class F> auto timed(double &seconds, F &&f) {
  const auto t0 = std::chrono::steady_clock::now();
  auto out = f();
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

int cmd_plan(const Args &a) {
  const json cfg = load_config(one_positional(a, "CFG"));
  const std::string free = a.has("--free") ? a.options.at("--free") : "";
  Config c = io::parse_config(cfg);
  if (!free.empty())
    free_knobs(c, free); // the names are checked before anything runs
  PlanOptions o;
  if (a.has("--objective")) {
    const std::string v = a.options.at("--objective");
    if (v == "step")
      o.objective = Objective::step;
    else if (v == "tokens")
      o.objective = Objective::tokens;
    else if (v == "time-to-train")
      o.objective = Objective::time_to_train;
    else if (v == "cost")
      o.objective = Objective::cost;
    else if (v == "energy")
      o.objective = Objective::energy;
    else
      throw ConfigError("--objective",
                        "\"" + v + "\" is not one of step, tokens, time-to-train, cost, energy");
  }
  if (a.has("--top")) {
    const std::string v = a.options.at("--top");
    if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(v) < 1)
      throw ConfigError("--top", "expected a positive integer, got \"" + v + "\"");
    o.top = std::stoi(v);
  }
  if (a.has("--headroom")) {
    const std::string v = a.options.at("--headroom");
    char *end = nullptr;
    const double gb = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(gb) || gb < 0 ||
        gb * 1e9 >= c.hardware.hbm_bytes)
      throw ConfigError("--headroom",
                        "expected GB from 0 to below the device's memory, got \"" + v + "\"");
    o.headroom = gb * 1e9;
  }
  const jobs::PlanKind kind = jobs::plan_kind(c);
  if (kind == jobs::PlanKind::deployments)
    return shell::run_serve_plan(jobs::choices_of(cfg, free), static_cast<int>(o.top),
                                 a.has("--json"), std::cout);
  if (kind == jobs::PlanKind::joint) {
    double seconds = 0;
    const JointPlanResult r =
        timed(seconds, [&] { return plan_choices(jobs::choices_of(cfg, free), o); });
    if (a.has("--json"))
      std::cout << io::dump(io::to_json(r, seconds), 2) << "\n";
    else
      shell::print_joint_plan(std::cout, c, r);
    if (r.fastest < 0)
      std::cerr << "parallel: no choice has a layout that fits"
                << (r.deadline > 0 ? " and meets the deadline" : "") << "\n";
    return r.fastest < 0 ? 2 : 0;
  }
  double seconds = 0;
  const PlanResult r = timed(seconds, [&] { return plan(c, o); });
  if (a.has("--json"))
    std::cout << io::dump(io::to_json(r, seconds), 2) << "\n";
  else
    shell::print_plan(std::cout, c, r);
  if (r.skipped > 0)
    std::cerr << "plan: the search budget covered " << r.candidates << " of " << r.space
              << " layouts; fix knobs in \"parallel\" to search the rest\n";
  if (r.plans.empty())
    std::cerr << "parallel: no layout fits (" << r.candidates
              << " candidates; the rejections are counted above)\n";
  return r.plans.empty() ? 2 : 0;
}

int cmd_serve(const Args &a) {
  if (a.has("--sweep") && a.options.at("--sweep") != "rate" &&
      a.options.at("--sweep") != "concurrency")
    throw Usage("--sweep takes `rate` or `concurrency`");
  json cfg = load_config(one_positional(a, "CFG"));
  if (a.has("--trace")) {
    const std::string path = a.options.at("--trace");
    const auto text = read_file(path, "--trace");
    if (!text)
      throw ConfigError("--trace", "\"" + path + "\": no such file");
    cfg = io::with_trace(cfg, io::trace_from_text(*text, path));
  }
  return shell::run_serve(cfg, a.has("--json"), a.has("--sweep") ? a.options.at("--sweep") : "",
                          std::cout);
}

int cmd_tx8(const Args &a) {
  return shell::run_tx8(load_config(one_positional(a, "CFG")), a.has("--json"), a.has("--presets"),
                        std::cout);
}

int cmd_export(const Args &a) {
  if (!a.has("--format"))
    throw Usage(
        "`export` needs --format megatron|deepspeed|torchtitan|torchtune|vllm|sglang|trtllm");
  const Config c = io::parse_config(load_config(one_positional(a, "CFG")));
  std::cout << jobs::export_launch(c, a.options.at("--format"),
                                   a.has("--free") ? a.options.at("--free") : "")
                   .all();
  return 0;
}

int cmd_compare(const Args &a) {
  if (a.positional.size() != 2)
    throw Usage("`compare` takes two configurations, A and B");
  const Config ca = io::parse_config(load_config(a.positional[0]));
  const Config cb = io::parse_config(load_config(a.positional[1]));
  const jobs::RunResult xa = jobs::run(ca), xb = jobs::run(cb);
  const std::vector<ReportRow> ra = jobs::headline_rows(xa);
  const std::vector<ReportRow> rb = jobs::headline_rows(xb);
  const bool train = ca.workload.mode == Mode::train && cb.workload.mode == Mode::train;
  const std::string verdict = train ? step_verdict(ca, *xa.estimate, cb, *xb.estimate) : "";
  if (a.has("--json")) {
    json rows = json::array();
    for (const CompareRow &r : compare_rows(ra, rb)) {
      json j = {{"section", r.section}, {"label", r.label}, {"change", change_text(r)}};
      if (r.has_before)
        j["a"] = r.before;
      if (r.has_after)
        j["b"] = r.after;
      rows.push_back(j);
    }
    json out = {{"a", a.positional[0]}, {"b", a.positional[1]}, {"rows", rows}};
    if (!verdict.empty())
      out["verdict"] = verdict;
    std::cout << io::dump(out, 2) << "\n";
    return 0;
  }
  const ReportTable t = compare_table(ra, rb, "A", "B");
  std::cout << "ridgeline compare: A = " << a.positional[0] << ", B = " << a.positional[1]
            << " (change from A to B)\n";
  shell::Table out{{"", "A", "B", "change"}};
  out.left = {true, false, false, false};
  for (const ReportLine &r : t.rows)
    if (r.key == "section")
      out.rows.push_back({r[0].text, "", "", ""});
    else
      out.rows.push_back({"  " + r[0].text, r[1].text, r[2].text, r[3].text});
  out.print(std::cout);
  if (!verdict.empty())
    std::cout << verdict << "\n";
  return 0;
}

int cmd_url(const Args &a) {
  if (a.has("--decode")) {
    if (!a.positional.empty())
      throw Usage("`url --decode STR` takes no CFG");
    const json j = io::decode_url_query(a.options.at("--decode"));
    const Config c = io::parse_config(j);
    std::cout << io::dump(a.has("--resolved") ? io::to_json(c) : j, 2) << "\n";
    // The page's own parameters are not configuration: said, not dropped.
    const io::UrlParts parts = io::split_url(a.options.at("--decode"));
    if (!parts.pin.empty())
      std::cerr << "url: the link pins a second configuration for the Compare tab; `ridgeline url "
                   "--decode '"
                << parts.pin << "'` prints it, `ridgeline compare` compares the two\n";
    if (!parts.tab.empty() || !parts.free.empty())
      std::cerr << "url: the link opens the page"
                << (parts.tab.empty() ? "" : " on tab=" + parts.tab)
                << (parts.free.empty() ? "" : " with free=" + parts.free + " (plan --free)")
                << "\n";
    return 0;
  }
  if (a.has("--resolved"))
    throw Usage("--resolved goes with --decode");
  const json cfg = load_config(one_positional(a, "CFG"));
  io::parse_config(cfg);
  std::cout << io::encode_url_query(cfg.is_string() ? json{{"scenario", cfg}} : cfg) << "\n";
  return 0;
}

double parse_number(const Args &a, const char *opt, double lo, double hi) {
  const std::string v = a.options.at(opt);
  char *end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(d >= lo && d <= hi))
    throw ConfigError(opt, "expected a number in [" + units::count(lo) + ", " + units::count(hi) +
                               "], got \"" + v + "\"");
  return d;
}

// A whole number of devices in [1, hi] (1.5 devices is an error, not 1).
i64 parse_count(const Args &a, const char *opt, i64 hi) {
  const std::string v = a.options.at(opt);
  char *end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(d >= 1 && d <= static_cast<double>(hi)) || d != std::floor(d))
    throw ConfigError(opt, "expected a whole number of devices in [1, " + std::to_string(hi) +
                               "], got \"" + v + "\"");
  return static_cast<i64>(d);
}

int cmd_collective(const Args &a) {
  const std::string src = one_positional(a, "CLUSTER");
  json cj;
  if (!src.empty() && src.front() == '{') {
    cj = io::parse_json_text(src);
  } else if (const auto text = read_file(src)) {
    cj = parse_file_json(src, *text);
  } else {
    cj = json(src);
  }
  const ClusterSpec c = io::parse_cluster(cj, "cluster");
  if (!a.has("--op") || !a.has("--bytes"))
    throw Usage("`collective` needs --op and --bytes");
  const std::string opname = a.options.at("--op");
  const std::optional<Collective> known = collective_of(opname);
  if (!known)
    throw ConfigError("--op",
                      "\"" + opname +
                          "\" is not one of allreduce, allgather, reduce_scatter, alltoall, p2p");
  const Collective op = *known;
  const double bytes = parse_number(a, "--bytes", 1, 1e15);
  Group g{c.devices, 1};
  if (a.has("--group"))
    g.n = parse_count(a, "--group", c.devices);
  if (a.has("--stride"))
    g.stride = parse_count(a, "--stride", c.devices);
  if (g.n * g.stride > c.devices)
    throw ConfigError("--group", std::to_string(g.n) + " x stride " + std::to_string(g.stride) +
                                     " exceeds the cluster's " + std::to_string(c.devices) +
                                     " devices");
  const CollectiveTime t = collective_time(c, op, bytes, g);
  if (a.has("--json")) {
    std::cout << json{{"op", name_of_collective(t.op)},
                      {"algorithm", t.algorithm},
                      {"group", t.n},
                      {"steps", t.steps},
                      {"bytes_per_device", t.bytes_per_device},
                      {"time", t.time}}
                     .dump(2)
              << "\n";
    return 0;
  }
  shell::print_collective(std::cout, c, bytes, g, t);
  return 0;
}

int cmd_validate(const Args &a) {
  if (a.positional.size() > 1 || (a.has("--runs") && !a.positional.empty()))
    throw Usage("`validate` takes at most one FILE (or --runs FILE)");
  const std::string runs_file =
      a.has("--runs") ? a.options.at("--runs") : (a.positional.empty() ? "" : a.positional[0]);
  if (!runs_file.empty()) { // one file of runs
    const auto text = read_file(runs_file, a.has("--runs") ? "--runs" : "");
    if (!text)
      throw ConfigError("", "cannot read \"" + runs_file + "\": no such file");
    json runs_json = parse_file_json(runs_file, *text);
    if (runs_json.is_object() && runs_json.contains("runs") && runs_json["runs"].is_array())
      for (json &r : runs_json["runs"])
        if (r.is_object() && r.contains("config"))
          r["config"] = inline_preset_files(r["config"]);
    const auto runs = io::parse_validation(runs_json);
    const auto rows = validate(runs);
    if (a.has("--fit")) {
      const auto fits = fit_compute_overhead(runs);
      if (a.has("--json")) {
        std::cout << io::dump(json{{"rows", io::to_json(rows)}, {"fit", io::to_json(fits)}}, 2)
                  << "\n";
        return 0;
      }
      shell::print_validation(std::cout, rows);
      shell::print_fit(std::cout, fits);
      return 0;
    }
    if (a.has("--json")) {
      std::cout << io::dump(io::to_json(rows), 2) << "\n";
      return 0;
    }
    shell::print_runs(std::cout, rows);
    return 0;
  }
  // The embedded sets: component microbenchmarks, the calibration runs (fitted) and the
  // held-out runs (never fitted).
  const auto components = check_components(io::parse_components(json("components")));
  const auto calibration = io::parse_validation(json("calibration"));
  const auto cal_rows = validate(calibration);
  const auto held_rows = validate(io::parse_validation(json("heldout")));
  const auto moe_rows = validate(io::parse_validation(json("heldout-moe")));
  const bool fit = a.has("--fit");
  if (a.has("--json")) {
    const auto summary = [](const std::vector<ValidationRow> &rows) {
      const ErrorSummary s = summarize(rows);
      return json{{"runs", s.rows},
                  {"median_abs_error", s.median_abs_error},
                  {"max_abs_error", s.max_abs_error},
                  {"within_band", s.within_band}};
    };
    json out = {
        {"components", io::to_json(components)}, {"calibration", io::to_json(cal_rows)},
        {"heldout", io::to_json(held_rows)},     {"heldout_summary", summary(held_rows)},
        {"heldout_moe", io::to_json(moe_rows)},  {"heldout_moe_summary", summary(moe_rows)}};
    if (fit)
      out["fit"] = io::to_json(fit_compute_overhead(calibration));
    std::cout << io::dump(out, 2) << "\n";
    return 0;
  }
  std::cout << "Components against published microbenchmarks (docs/calibration.md)\n";
  shell::print_components(std::cout, components);
  shell::print_validation(std::cout, cal_rows,
                          "Calibration runs (compute_overhead is fitted to these)");
  if (fit)
    shell::print_fit(std::cout, fit_compute_overhead(calibration));
  shell::print_validation(
      std::cout, held_rows,
      "Held-out runs (never fitted: how the model does on runs it has not seen)");
  shell::print_validation(std::cout, moe_rows,
                          "Held-out MoE runs (Megatron-Bridge 25.11, never fitted: the MoE layer's "
                          "host and dispatcher costs are not yet modelled, docs/calibration.md)");
  return 0;
}

// calibrate --groups MANIFEST: the serving groups' in-sample and leave-one-group-out tables.
int cmd_calibrate_groups(const Args &a) {
  if (!a.positional.empty())
    throw Usage("`calibrate --groups` takes the manifest alone: its groups name their files");
  const std::string manifest = a.options.at("--groups");
  const auto text = read_file(manifest, "--groups");
  if (!text)
    throw ConfigError("--groups", "cannot read \"" + manifest + "\": no such file");
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(manifest).parent_path();
  std::uintmax_t total = 0;
  const std::vector<ServingGroup> groups = io::serving_groups(
      parse_file_json(manifest, *text), [&](const std::string &path, const std::string &field) {
        const std::string full = (dir / path).string();
        const auto t = read_file(full, field, io::kMaxMeasurementBytes);
        if (!t)
          throw ConfigError(field, "cannot read \"" + full + "\": no such file");
        total += t->size();
        io::check_measurement_files(1, total);
        return *t;
      });
  const ServingGroupsReport r = serving_groups_report(groups);
  if (a.has("--json")) {
    std::cout << io::dump(io::to_json(r), 2) << "\n";
    return 0;
  }
  shell::print_section(std::cout, serving_engines_table(r));
  shell::print_section(std::cout, serving_groups_table(r, false));
  shell::print_section(std::cout, serving_groups_table(r, true));
  for (const std::string &n : r.notes)
    std::cout << "note: " << n << "\n";
  return 0;
}

int cmd_calibrate(const Args &a) {
  if (a.has("--groups"))
    return cmd_calibrate_groups(a);
  if (a.positional.empty())
    throw Usage("`calibrate` needs at least one measurement FILE");
  // The files' count, kinds, sizes and sameness are checked before any is read.
  io::check_measurement_files(a.positional.size(), 0);
  namespace fs = std::filesystem;
  std::uintmax_t total = 0;
  for (std::size_t i = 0; i < a.positional.size(); ++i) {
    const std::string &path = a.positional[i];
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec)))
      throw ConfigError("", "cannot read \"" + path + "\": no such file");
    for (std::size_t j = 0; j < i; ++j)
      if (fs::equivalent(path, a.positional[j], ec))
        throw ConfigError("", "\"" + path + "\" is the same file as \"" + a.positional[j] +
                                  "\": given twice, its rows would count twice");
    if (const auto size = fs::file_size(path, ec); !ec)
      total += size;
  }
  io::check_measurement_files(a.positional.size(), total);
  std::vector<io::MeasurementFile> files;
  for (const std::string &path : a.positional) {
    const auto text = read_file(path, "", io::kMaxMeasurementBytes);
    if (!text)
      throw ConfigError("", "cannot read \"" + path + "\": no such file");
    files.push_back({path, *text});
  }
  const std::string base_arg = a.has("--base") ? a.options.at("--base") : "h100-sxm";
  json base;
  if (!base_arg.empty() && base_arg.front() == '{')
    base = inline_preset_files(io::parse_json_text(base_arg));
  else if (const auto text = read_file(base_arg, "--base"))
    base = inline_preset_files(parse_file_json(base_arg, *text));
  else
    base = json(base_arg);
  CalibrateOptions opt;
  if (a.has("--fix")) {
    std::stringstream list(a.options.at("--fix"));
    for (std::string p; std::getline(list, p, ',');)
      if (!p.empty())
        opt.fixed.push_back(p);
  }
  const CalibrationResult r = io::calibrate_files(base, files, opt);
  std::string name = a.has("--name") ? a.options.at("--name") : r.hardware.name + "-calibrated";
  std::string source = "ridgeline calibrate";
  for (const std::string &p : a.positional) {
    source += ' ';
    source.append(std::filesystem::path(p).filename().string());
  }
  const json presets = io::calibrated_presets(base, r, name, source);
  std::vector<std::string> written;
  if (a.has("--out")) {
    namespace fs = std::filesystem;
    const fs::path dir = a.options.at("--out");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      throw ConfigError("", "cannot create \"" + dir.string() + "\": " + ec.message());
    for (const auto &[section, obj] : presets.items()) {
      const fs::path file = dir / (section + ".json");
      std::ofstream f(file);
      f << io::dump(obj, 2) << "\n";
      if (!f)
        throw ConfigError("", "cannot write \"" + file.string() + "\"");
      written.push_back(file.string());
    }
  }
  if (a.has("--json")) {
    json out = io::to_json(r);
    out["presets"] = presets;
    out["written"] = written;
    std::cout << io::dump(out, 2) << "\n";
    return 0;
  }
  shell::print_calibration(std::cout, r);
  for (const std::string &w : written)
    std::cout << "wrote " << w << "\n";
  if (!written.empty()) {
    // the hint names what was written: hardware, cluster and engine presets, by path
    std::string uses;
    for (const auto &[section, obj] : presets.items()) {
      const std::string file = a.options.at("--out") + "/" + section + ".json";
      uses += (uses.empty() ? "" : ", ") + (section == "engine"
                                                ? "\"workload\": {\"engine\": \"" + file + "\"}"
                                                : "\"" + section + "\": \"" + file + "\"");
    }
    std::cout << "a configuration names them by path (" << uses
              << "; or as a base: {\"base\": \"FILE\", \"devices\": N}); `ridgeline validate "
                 "--runs RUNS.json` checks your runs\n";
  }
  return 0;
}

int cmd_presets(const Args &a) {
  static const char *kinds[] = {"model", "hardware", "cluster", "engine", "scenario"};
  if (a.positional.size() > 2)
    throw Usage("`presets` takes at most KIND and NAME");
  if (!a.positional.empty()) {
    bool known = false;
    for (const char *k : kinds)
      known = known || a.positional[0] == k;
    if (!known)
      throw ConfigError("", "unknown preset kind \"" + a.positional[0] +
                                "\" (model, hardware, cluster, engine, scenario)");
  }
  if (a.positional.size() == 2) {
    std::cout << io::dump(io::preset_json(a.positional[0], a.positional[1], a.positional[0]), 2)
              << "\n";
    return 0;
  }
  json all = json::object();
  for (const char *k : kinds)
    if (a.positional.empty() || a.positional[0] == k)
      all[k] = io::preset_names(k);
  if (a.has("--json")) {
    std::cout << io::dump(all, 2) << "\n";
    return 0;
  }
  shell::print_presets(std::cout, all);
  return 0;
}

const char *kFieldsHelp =
    R"(The configuration's tunable fields, from the schema the parser, the printer and the web
page's input panel are driven by: path, type, accepted range, unit, default and meaning.
SECTION (model, hardware, cluster, workload or parallel) lists one section's. "see help": required,
or its default derives from another field; a parallel knob left out is the planner's to
choose (or follows another, as the help says). The workload's shape (batch, lengths, modes) is
described in the README's configuration section.
)";

int cmd_fields(const Args &a) {
  if (a.positional.size() > 1)
    throw Usage("`fields` takes at most SECTION");
  const std::string section = a.positional.empty() ? "" : a.positional[0];
  if (!section.empty() && section != "model" && section != "hardware" && section != "cluster" &&
      section != "workload" && section != "parallel")
    throw ConfigError("", "unknown section \"" + section +
                              "\" (model, hardware, cluster, workload, parallel)");
  json rows = json::array();
  for (const json &f : io::fields_json())
    if (section.empty() || f["path"].get<std::string>().rfind(section + ".", 0) == 0)
      rows.push_back(f);
  if (a.has("--json")) {
    std::cout << io::dump(rows, 2) << "\n";
    return 0;
  }
  shell::print_fields(std::cout, rows);
  return 0;
}

// [SECTION] the command table: every command, its operands and options (with the name of
// the value an option takes; none for a flag), its summary and its help, in one place. The
// parser, `ridgeline --help` and each command's usage line are read from it.
struct OptionSpec {
  const char *name;
  const char *value = ""; // the value's name in the usage line; "" for a flag
  bool required = false;  // shown without brackets (the command checks it)
};

struct CommandSpec {
  const char *name;
  const char *operands; // as the usage line shows them
  std::vector<OptionSpec> options;
  const char *summary; // the line of `ridgeline --help`
  const char *help;    // what `ridgeline CMD --help` prints under the usage line
  int (*run)(const Args &);
};

const std::vector<CommandSpec> &command_table() {
  static const std::vector<CommandSpec> t = {
      {"estimate",
       "CFG",
       {{"--json"}, {"--compare-sp"}, {"--degree", "N"}, {"--sweep", "batch"}},
       "parameters, FLOPs, memory, step time / serving latency for one configuration",
       kEstimateHelp,
       cmd_estimate},
      {"plan",
       "CFG",
       {{"--top", "N"},
        {"--objective", "O"},
        {"--headroom", "GB"},
        {"--free", "all|KNOB,..."},
        {"--json"}},
       "search every parallel knob CFG leaves free (and those --free frees); ranked plans, why "
       "each wins, why the closest infeasible ones fail; on a serve configuration the cheapest "
       "deployments",
       kPlanHelp,
       cmd_plan},
      {"serve",
       "CFG",
       {{"--json"}, {"--sweep", "rate|concurrency"}, {"--trace", "FILE"}},
       "request-level serving simulation: TTFT/TPOT/latency percentiles, throughput, goodput, KV "
       "memory",
       shell::kServeHelp,
       cmd_serve},
      {"tx8",
       "CFG",
       {{"--json"}, {"--presets"}},
       "tx8 (a tiled AI accelerator of 16-tile dies on a mesh) mapping of one operator or a whole "
       "STDiT3 video request",
       shell::kTx8Help,
       cmd_tx8},
      {"collective",
       "CLUSTER",
       {{"--op", "OP", true},
        {"--bytes", "M", true},
        {"--group", "N"},
        {"--stride", "S"},
        {"--json"}},
       "time and bytes of one collective on a cluster",
       kCollectiveHelp,
       cmd_collective},
      {"validate",
       "[FILE]",
       {{"--runs", "FILE"}, {"--fit"}, {"--json"}},
       "predicted vs measured for your runs, with the step's components and the band (default: "
       "the embedded component, calibration and held-out sets); --fit refits the compute "
       "overhead",
       kValidateHelp,
       cmd_validate},
      {"calibrate",
       "FILES...",
       {{"--base", "B"},
        {"--out", "DIR"},
        {"--name", "N"},
        {"--fix", "P,.."},
        {"--groups", "MANIFEST"},
        {"--json"}},
       "fit hardware and cluster parameters to your own measurements (nccl-tests, GEMM/attention/"
       "element-wise sweeps, training logs) and write presets",
       kCalibrateHelp,
       cmd_calibrate},
      {"export",
       "CFG",
       {{"--format", "F", true}, {"--free", "all|KNOB,..."}},
       "launch arguments for the layout (train: megatron, deepspeed, torchtitan, torchtune, free "
       "knobs "
       "planned first; infer/serve: vllm, sglang, trtllm)",
       kExportHelp,
       cmd_export},
      {"compare",
       "A B",
       {{"--json"}},
       "two configurations' headline numbers side by side with the change of each (the page's "
       "Compare tab)",
       kCompareHelp,
       cmd_compare},
      {"url",
       "[CFG]",
       {{"--decode", "STR"}, {"--resolved"}, {"--json"}},
       "the shareable URL query of a configuration, or (--decode) the configuration a URL holds "
       "(--resolved: presets expanded)",
       kUrlHelp,
       cmd_url},
      {"presets",
       "[KIND] [NAME]",
       {{"--json"}},
       "list presets, or print one (KIND: model|hardware|cluster|engine|scenario)",
       kPresetsHelp,
       cmd_presets},
      {"fields",
       "[SECTION]",
       {{"--json"}},
       "the configuration's tunable fields: type, range, unit, default and meaning (SECTION: "
       "model|hardware|cluster|workload|parallel)",
       kFieldsHelp,
       cmd_fields},
  };
  return t;
}

std::vector<std::string> command_names() {
  std::vector<std::string> out;
  for (const CommandSpec &c : command_table())
    out.push_back(c.name);
  return out;
}

const CommandSpec &command_of(const std::string &name) {
  for (const CommandSpec &c : command_table())
    if (name == c.name)
      return c;
  throw Usage("unknown command \"" + name + "\"" + schema::did_you_mean(name, command_names()) +
              " (run `ridgeline --help`)");
}

// "plan CFG [--top N] ... [--json]"
std::string synopsis(const CommandSpec &c) {
  std::string out = std::string(c.name) + " " + c.operands;
  for (const OptionSpec &o : c.options) {
    const std::string opt = std::string(o.name) + (*o.value ? std::string(" ") + o.value : "");
    out += o.required ? " " + opt : " [" + opt + "]";
  }
  return out;
}

// text wrapped at `width` columns, every line indented by `indent` spaces
std::string wrapped(const std::string &text, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (!line.empty() && indent + line.size() + 1 + w.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty())
    out += std::string(indent, ' ') + line + "\n";
  return out;
}

std::string main_help() {
  std::string out = kMainHelpHead;
  for (const CommandSpec &c : command_table())
    out += wrapped(synopsis(c), 2, 92) + wrapped(c.summary, 6, 92);
  return out + kMainHelpTail;
}

std::string command_help(const CommandSpec &c) {
  return "usage: ridgeline " + synopsis(c) + "\n\n" + c.help;
}

// argv read against the command's own options: an option the command does not take is an
// error (with the closest it does take), one that takes a value takes the next word.
Args parse_args(int argc, char **argv) {
  Args a;
  int i = 1;
  for (; i < argc && a.command.empty(); ++i) {
    const std::string s = argv[i];
    if (s == "-h" || s == "--help")
      a.options["--help"] = "";
    else if (s.rfind("--", 0) == 0)
      throw Usage("an option before the command: " + s + " (run `ridgeline --help`)");
    else
      a.command = s;
  }
  if (a.command.empty() || a.command == "help")
    return a;
  const CommandSpec &cmd = command_of(a.command);
  std::vector<std::string> names = {"--help"};
  for (const OptionSpec &o : cmd.options)
    names.push_back(o.name);
  for (; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "-h" || s == "--help") {
      a.options["--help"] = "";
      continue;
    }
    if (s.rfind("--", 0) != 0) {
      a.positional.push_back(s);
      continue;
    }
    const auto o = std::find_if(cmd.options.begin(), cmd.options.end(),
                                [&](const OptionSpec &x) { return s == x.name; });
    if (o == cmd.options.end())
      throw Usage("unknown option " + s + " for `" + a.command + "`" +
                  schema::did_you_mean(s, names));
    if (*o->value) {
      if (i + 1 >= argc)
        throw Usage(s + " needs a value (" + o->value + ")");
      a.options[s] = argv[++i];
    } else {
      a.options[s] = "";
    }
  }
  return a;
}

int run(int argc, char **argv) {
  bool json_out = false;
  for (int i = 1; i < argc; ++i)
    json_out = json_out || std::string(argv[i]) == "--json";
  try {
    const Args a = parse_args(argc, argv);
    if (a.command.empty() || a.command == "help") {
      std::cout << main_help();
      return a.command.empty() && !a.has("--help") ? 2 : 0;
    }
    const CommandSpec &cmd = command_of(a.command);
    if (a.has("--help")) {
      std::cout << command_help(cmd);
      return 0;
    }
    return cmd.run(a);
  } catch (const Usage &u) {
    std::cerr << "ridgeline: " << u.what() << "\n";
    return 2;
  } catch (const ConfigError &e) {
    if (json_out)
      std::cout << io::dump(io::error_json(e.path(), e.message())) << "\n";
    std::cerr << (e.path().empty() ? "" : e.path() + ": ") << e.message() << "\n";
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "ridgeline: out of memory: the input asks for too much work\n";
    return 2;
  } catch (const json::exception &e) {
    std::cerr << "ridgeline: internal error: " << io::plain_json_message(e.what()) << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "ridgeline: internal error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace

int main(int argc, char **argv) {
  // Every character written goes through the printable filter (shell/terminal.hpp): no
  // control character from input reaches a terminal raw.
  rl::shell::PrintableBuf out(std::cout.rdbuf()), err(std::cerr.rdbuf());
  std::streambuf *const was_out = std::cout.rdbuf(&out);
  std::streambuf *const was_err = std::cerr.rdbuf(&err);
  int rc = run(argc, argv);
  // A closed or full stdout fails here (or at the writes before): never report success.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "ridgeline: cannot write the output (standard output closed or full)\n";
    rc = rc == 0 ? 1 : rc;
  }
  std::cerr.flush();
  std::cout.rdbuf(was_out);
  std::cerr.rdbuf(was_err);
  return rc;
}
