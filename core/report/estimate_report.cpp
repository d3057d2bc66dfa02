#include "core/report/estimate_report.hpp"

#include "core/inference/serving.hpp"
#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/model/lora.hpp"
#include "core/report/cells.hpp"
#include "core/report/report.hpp"
#include "core/schema/choices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl {

namespace {

using namespace cells;

std::string plus_minus(double u) {
  return fmt("+/-%.0f%%", 100 * u);
}

// Builds a table row by row: key, cells, help, mark.
struct Builder {
  ReportTable &t;
  ReportLine &add(std::string key, std::vector<ReportCell> cells, std::string help = "",
                  Mark mark = Mark::none) {
    t.rows.push_back({std::move(key), std::move(help), mark, std::move(cells)});
    return t.rows.back();
  }
};

ReportCell share(double part, double whole) {
  const double f = whole > 0 ? part / whole : 0;
  return {units::percent(f), f};
}

// [SECTION] size and compute
void size_table(const Config &c, const Estimate &e, ReportTable &t) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  const ModelParams &p = e.params;
  t.key = "size";
  t.title = "Size and compute";
  t.columns = {{"quantity", "quantity"}, {"value", "value"}, {"detail", "detail", {}, {}, true}};
  Builder b{t};
  const auto exact = [](i64 n) { return words(units::grouped(n)); };
  b.add("params",
        {words("Parameters"), cell(d(e.total_params), Unit::count), exact(e.total_params)},
        "L x (attention + MLP + 2 norms) + embedding v*h + LM head v*h (unless tied) + final "
        "norm. Attention h*d*(2a + 2k), gated MLP 3*h*f (plain 2*h*f), rmsnorm h. "
        "docs/formulas.md 'Parameters'; Narayanan et al. 2021.");
  if (e.active_params != e.total_params)
    b.add(
        "active",
        {words("Active per token"), cell(d(e.active_params), Unit::count), exact(e.active_params)},
        "MoE: the top_k routed experts a token visits plus the shared experts, instead of "
        "all E. docs/formulas.md 'Parameters'.");
  std::string layer_help = "Attention ";
  layer_help += units::count(d(p.dense_layer.attention));
  layer_help += " = h*d*(2a+2k) = " + str(m.hidden) + "*" + str(m.head_dim) + "*(2*" +
                str(m.heads) + " + 2*" + str(m.kv_heads) + "); MLP ";
  layer_help += units::count(d(p.dense_layer.mlp));
  layer_help += m.gated_mlp ? " = 3*h*f" : " = 2*h*f";
  layer_help += "; norms " + units::count(d(p.dense_layer.norms)) + ".";
  b.add("dense_layer",
        {words("  one dense layer"), cell(d(p.dense_layer.total()), Unit::count),
         exact(p.dense_layer.total())},
        layer_help);
  if (p.moe_layers > 0)
    b.add("moe_layer",
          {words("  one MoE layer"), cell(d(p.moe_layer.total()), Unit::count),
           exact(p.moe_layer.total())},
          "Attention plus E routed experts of 3*h*f_e each (gated), the shared experts and the "
          "router h*E. docs/formulas.md 'Parameters'.");
  b.add("embedding", {words("  embedding"), cell(d(p.embedding), Unit::count), exact(p.embedding)},
        "v*h = " + str(m.vocab) + " x " + str(m.hidden) + ".");
  if (p.head > 0)
    b.add("head", {words("  LM head"), cell(d(p.head), Unit::count), exact(p.head)},
          "v*h, its own matrix (tie_embeddings shares the embedding's).");
  if (w.mode == Mode::train) {
    b.add("tokens_per_step",
          {words("Tokens per step"), cell(e.tokens_per_step, Unit::count),
           exact(static_cast<i64>(e.tokens_per_step))},
          "B x s, the global batch in tokens.");
    b.add("model_flops",
          {words("Model FLOPs per step (3 x fwd)"), cell(e.model_flops_per_step, Unit::flops),
           words("")},
          "3 x forward over the global batch (backward = 2 x forward; Narayanan et al. 2021). "
          "Forward per layer: QKV 2bsh*d(a+2k), scores 4bs^2*a*d, out-proj 2bs*a*d*h, MLP "
          "6bshf gated (4bshf plain); LM head 2bshv once. Matmuls only, 2mnk per GEMM. "
          "docs/formulas.md 'FLOPs'.");
    b.add("hardware_flops",
          {words("Hardware FLOPs per step (+recompute)"),
           cell(e.hardware_flops_per_step, Unit::flops), words("")},
          "The FLOPs executed: model FLOPs plus recompute (selective re-runs the "
          "attention-score GEMMs, full re-runs every layer's forward), with only the causal "
          "half of the score matrix when FlashAttention skips the masked blocks (so it can be "
          "below the model FLOPs, which count the whole square). Used for HFU; MFU uses model "
          "FLOPs.");
    const bool moe = e.active_params != e.total_params;
    b.add("flops_per_token",
          {words("Model FLOPs per token"), cell(e.model_flops_per_token, Unit::flops),
           words(fmt(moe ? "= %.2f x active" : "= %.2f x params",
                     e.model_flops_per_token / std::max(1.0, d(e.active_params))))},
          "Model FLOPs per step / (B x s). About 6 x active parameters (2 forward + 4 "
          "backward) plus the attention-score term 12*L*s*a*d per token.");
  } else {
    b.add("prefill_flops",
          {words("Prefill FLOPs (whole batch)"), cell(e.model_flops_per_step, Unit::flops),
           words("")},
          "One forward over the whole batch's prompts: per layer QKV 2bsh*d(a+2k), scores "
          "4bs^2*a*d, out-proj 2bs*a*d*h, MLP 6bshf (gated), plus LM head 2bshv. TTFT is bound "
          "by it.");
    b.add("decode_flops",
          {words("Decode FLOPs per token (2 x active)"), cell(e.model_flops_per_token, Unit::flops),
           words("")},
          "2 x active parameters per generated token (one multiply-add per weight); the "
          "attention over the cache is extra. How to Scale Your Model ch. 7.");
    std::string kv_help = "2 * L * k * d * bytes_kv = 2 x " + str(m.layers) + " x " +
                          str(m.kv_heads) + " x " + str(m.head_dim) + " x ";
    kv_help += units::bytes(dtype_bytes(w.kv_dtype));
    kv_help += " (MLA: L * (r_kv + rope) * bytes). docs/formulas.md 'Inference'.";
    b.add("kv_per_token",
          {words("KV cache per token"), cell(e.kv_bytes_per_token, Unit::bytes), words("")},
          kv_help);
    b.add("tokens_per_step",
          {words("Tokens per step"), cell(e.tokens_per_step, Unit::count), words("")},
          "Generated tokens of the batch: batch x gen_len.");
    b.add("max_batch",
          {words("Largest batch that fits"), cell(d(e.memory.max_batch), Unit::plain),
           words("of " + str(w.prompt_len + w.gen_len) + " tokens")},
          "Largest batch whose worst stage fits: (capacity - weights) / (KV per sequence + "
          "working set per sequence), sequences of prompt + gen tokens.");
  }
}

void layer_flops_table(const Config &c, const Estimate &e, ReportTable &t) {
  const LayerFlops &f = e.forward.dense_layer;
  t.key = "layerflops";
  t.title = "Forward FLOPs of one layer (whole batch)";
  t.help = "Matmuls only, 2mnk per GEMM (docs/formulas.md 'FLOPs'); b batch, s sequence, h "
           "hidden, a heads, k KV heads, d head dim, f MLP width, v vocabulary, E experts.";
  t.columns = {{"part", "part"}, {"formula", "formula", {}, {}, true}, {"flops", "FLOPs"}};
  Builder b{t};
  const auto row = [&](const char *key, const char *name, const char *formula, double v) {
    b.add(key, {words(name), words(formula), cell(v, Unit::flops)});
  };
  row("qkv", "QKV projections", "2bsh*d(a+2k)", f.qkv);
  row("scores", "scores + weighted sum", "4bs^2*a*d", f.scores);
  row("out", "output projection", "2bs*a*d*h", f.out);
  row("mlp", "MLP", c.model.gated_mlp ? "6bshf" : "4bshf", f.mlp);
  if (f.router > 0)
    row("router", "router", "2bshE", f.router);
  if (e.params.moe_layers > 0)
    row("experts", "one MoE layer: experts",
        c.model.gated_mlp ? "6bsh*f_e*(k+shared)" : "4bsh*f_e*(k+shared)", e.forward.moe_layer.mlp);
  row("head", "LM head (once)", "2bshv", e.forward.head);
}

// [SECTION] memory
void memory_table(const Config &c, const Estimate &e, ReportTable &t) {
  const MemorySummary &m = e.memory;
  const Layout &l = e.layout;
  t.key = "memory";
  t.title = "Memory per device (worst stage " + str(m.worst_stage) + " of " + str(l.pp) + ")";
  t.help = "The pipeline stage with the largest total. Usable is the accelerator's memory (" +
           c.hardware.name + ": ";
  t.help += units::bytes(m.capacity);
  t.help += ") less the reserve (";
  t.help += units::bytes(m.reserve);
  t.help += ": CUDA context, NCCL buffers, allocator fragmentation; hardware.memory_reserve); "
            "1 GB = 1e9 B.";
  t.columns = {{"part", "part"}, {"bytes", "bytes", Unit::bytes, Better::lower}};
  Builder b{t};
  const auto row = [&](const char *key, const char *name, double v, std::string help,
                       Mark mark = Mark::none) {
    b.add(key, {words(name), cell(v, Unit::bytes)}, std::move(help), mark);
  };
  if (e.mode == Mode::train) {
    row("weights", "weights", m.weights,
        "2 B per parameter (bf16) of this stage's layers / tp (experts / ep); the first stage "
        "adds the embedding, the last the LM head." +
            std::string(l.zero >= 3 ? " ZeRO-3: divided by dp x cp, plus the gathered weights "
                                      "of the layers in use."
                                    : ""));
    row("gradients", "gradients", m.gradients,
        std::string(c.workload.fp32_grads ? "4 B" : "2 B") + " per parameter." +
            (l.zero >= 2 ? " ZeRO-2: divided by dp x cp." : ""));
    const bool bf16_moments = c.workload.bf16_moments;
    row("optimizer",
        bf16_moments ? "optimizer (fp32 master + bf16 m, v)" : "optimizer (fp32 master + m + v)",
        m.optimizer,
        std::string(bf16_moments ? "Adam: fp32 master weights + bf16 m and v = 8 B per parameter "
                                   "(workload.bf16_moments)."
                                 : "Adam: fp32 master weights + m + v = 12 B per parameter.") +
            std::string(l.zero >= 1 ? " ZeRO-1: divided by dp x cp." : ""));
    std::string act = "Stored activations of every layer-micro-batch in flight on this stage "
                      "(Korthikanti et al. 2022): layers ";
    act += units::bytes(m.activations_layers);
    act += ", embedding/output ";
    act += units::bytes(m.activations - m.activations_layers);
    act += ". See the activations table.";
    row("activations", "activations", m.activations, act);
  } else {
    row("weights", "weights", m.weights,
        "Parameters of this stage / tp at weight_dtype bytes each.");
    row("kv_cache", "KV cache", m.kv_cache,
        "2 x layers of the stage x KV heads per rank x d x bytes_kv per token, for the "
        "replica's share of the batch at prompt + gen tokens (heads split over TP up to the KV "
        "heads, then the batch; How to Scale Your Model ch. 7).");
    row("working_set", "prefill working set", m.activations,
        "One layer's prefill activations (FlashAttention, nothing stored across layers).");
  }
  row("total", "total", m.total, "The sum of the parts above.", Mark::total);
  const double usable = m.capacity - m.reserve;
  row("usable", "usable", usable, "HBM less hardware.memory_reserve.");
  row("capacity", "HBM", m.capacity, "The accelerator's memory, " + c.hardware.name + ".");
  const double frac = usable > 0 ? m.total / usable : 0;
  t.note = m.fits ? "fits: " : "DOES NOT FIT: ";
  t.note += units::bytes(m.total);
  t.note += " of ";
  t.note += units::bytes(usable);
  t.note += " usable (" + units::percent(frac) + ")";
  if (e.mode != Mode::train) {
    t.note += "; largest batch that fits: " + str(m.max_batch) + " sequences of " +
              str(c.workload.prompt_len + c.workload.gen_len) + " tokens (KV ";
    t.note += units::bytes(e.kv_bytes_per_token);
    t.note += "/token)";
  }
}

void stages_table(const Config &c, const Estimate &e, ReportTable &t) {
  const bool train = e.mode == Mode::train;
  t.key = "stages";
  t.title = "Memory per pipeline stage (one device)";
  t.help = train ? "Each stage's own layers / tp; stage 0 also holds the embedding, the last "
                   "stage the LM head. 'layer-mb in flight': the layer-micro-batches whose "
                   "activations the stage holds at its peak (its layers x the micro-batches in "
                   "flight: 1F1B keeps min(p - j, m) on stage j, interleaved more, GPipe all "
                   "m; docs/formulas.md); the activations column is that many layers' worth."
                 : "Each stage's own layers / tp at weight_dtype; KV cache of the stage's "
                   "layers for the replica's share of the batch.";
  t.columns = {{"stage", "stage"},
               {"layers", "layers"},
               {"params", "params", Unit::count},
               {"weights", "weights", Unit::bytes}};
  if (train) {
    t.columns.push_back({"grads", "grads", Unit::bytes});
    t.columns.push_back({"optimizer", "optimizer", Unit::bytes});
    t.columns.push_back({"activations", "activations", Unit::bytes});
    t.columns.push_back({"in_flight", "layer-mb in flight"});
  } else {
    t.columns.push_back({"kv_cache", "KV cache", Unit::bytes});
  }
  t.columns.push_back({"total", "total", Unit::bytes, Better::lower});
  t.columns.push_back({"hbm", "of HBM", Unit::percent, Better::lower, false, true});
  Builder b{t};
  for (const StageMemory &s : e.stages) {
    const bool worst = s.stage == e.memory.worst_stage;
    std::vector<ReportCell> cells = {{str(s.stage) + (worst ? " *" : ""), d(s.stage)},
                                     {str(s.layers), d(s.layers)},
                                     cell(s.params, Unit::count),
                                     cell(s.states.weights, Unit::bytes)};
    if (train) {
      cells.push_back(cell(s.states.gradients, Unit::bytes));
      cells.push_back(cell(s.states.optimizer, Unit::bytes));
      cells.push_back(cell(s.activations.total(), Unit::bytes));
      // layer-micro-batches whose activations the stage holds at its peak (whole under 1F1B)
      const double n = s.activations.layers_in_flight;
      cells.push_back({fmt(n == std::floor(n) ? "%.0f" : "%.1f", n), n});
    } else {
      cells.push_back(cell(s.kv_cache, Unit::bytes));
    }
    cells.push_back(cell(s.total(), Unit::bytes));
    cells.push_back(share(s.total(), c.hardware.hbm_bytes));
    b.add("stage " + str(s.stage), std::move(cells), worst ? "The worst stage." : "",
          worst ? Mark::warn : Mark::none);
  }
}

// [SECTION] training time
void step_time_table(const Config &c, const Estimate &e, ReportTable &t) {
  const StepTime &s = e.time;
  t.key = "steptime";
  t.title = "Step time (slowest stage " + str(s.slowest_stage) + ")";
  t.help = "step = (m + (p-1)/v) x (t_fwd + t_bwd) + exposed DP sync + optimizer "
           "(docs/formulas.md 'Step time'). Each GEMM: max(FLOPs / (peak x efficiency), bytes "
           "/ HBM bandwidth); large-GEMM efficiency ";
  t.help +=
      fmt("%.3f, compute overhead %.3f", c.hardware.gemm_efficiency, c.hardware.compute_overhead);
  t.help += " for " + c.hardware.name +
            " (calibrated); collectives alpha-beta, exposed unless "
            "overlapped. Band " +
            plus_minus(e.uncertainty) + " from calibration (hardware.time_uncertainty).";
  t.columns = {{"part", "part"},
               {"time", "time", Unit::seconds, Better::lower},
               {"share", "share", Unit::percent}};
  Builder b{t};
  const auto row = [&](const char *key, const char *name, double v, const std::string &help,
                       Mark mark = Mark::none) {
    b.add(key, {words(name), cell(v, Unit::seconds), share(v, s.step)}, help, mark);
  };
  // Every kernel's time is the components' times x (1 + compute_overhead): the overhead's
  // part; beside them, the time the SMs of the collectives hidden under them cost.
  const double o = c.hardware.compute_overhead;
  std::string help =
      "Forward + backward GEMMs, attention and element-wise traffic of the slowest stage, all "
      "micro-batches. Of compute and recompute, " +
      units::seconds((s.compute - s.parts.comm_sms) * o / (1 + o)) +
      fmt(" is hardware.compute_overhead (%.3f): time the measured components do not "
          "explain (docs/calibration.md 'End to end: the compute overhead').",
          o);
  if (s.parts.comm_sms > 0)
    help += " " + units::seconds(s.parts.comm_sms) +
            " is the SMs the collectives hidden under it hold (cluster.collective_sms; "
            "docs/calibration.md 'The SMs overlapped collectives take').";
  row("compute", "compute", s.compute - s.recompute, help);
  row("recompute", "recompute", s.recompute,
      "The extra forward work recompute costs (selective: attention scores; full: every "
      "layer).");
  row("comm", "exposed communication", s.comm_exposed,
      "Communication on the critical path: TP/SP collectives, pipeline sends, the DP gradient "
      "sync's last bucket. See the communication table.");
  if (s.host > 0)
    row("host", "waiting for the host", s.host,
        "MoE layers whose pass is shorter than the host's time to issue it "
        "(hardware.moe_host_time): the dropless dispatcher waits for the tokens per expert on "
        "the host every layer, so the GPU idles until the host catches up.");
  row("bubble", "pipeline bubble", s.bubble,
      "Pipeline fill and drain: (p-1)/v x (t_fwd + t_bwd). See the pipeline timeline.");
  row("optimizer", "optimizer step", s.optimizer,
      "Adam update of this device's (sharded) parameters, HBM-bound.");
  row("step", "step", s.step, "The sum of the parts above.", Mark::total);
}

// The run: steps over the token budget and their wall time with interruptions and
// checkpoints; energy per token, per step and to train; rental and electricity.
void run_table(const Config &c, const Estimate &e, ReportTable &t) {
  t.key = "run";
  t.title = "The run: time, energy and cost";
  t.columns = {{"quantity", "quantity"}, {"value", "value"}, {"detail", "detail", {}, {}, true}};
  Builder b{t};
  const Resilience &k = e.resilience;
  const ClusterSpec &cl = c.cluster;
  if (e.train_steps > 0) {
    b.add("steps", {words("Steps"), cell(e.train_steps, Unit::count), words("")},
          "ceil(train_tokens / (B x s)).");
    b.add("time_to_train",
          {words("Time to train"), cell(e.time_to_train, Unit::duration),
           words(fmt("%.1f%% goodput", 100 * k.goodput))},
          "The steps' wall time with interruptions and checkpoints: Daly 2006's expected run "
          "time M e^{R/M} (e^{(tau + delta)/M} - 1) x work / tau, M the job's mean time between "
          "interruptions, R the restart, delta a checkpoint's stall, tau the interval "
          "(docs/formulas.md 'Failures and checkpoints'). Goodput: the share spent on steps "
          "that count.");
    b.add("interruptions",
          {words("Expected interruptions"), cell(k.interruptions, Unit::plain),
           words(k.mtbf_s > 0 ? "one every " + format_value(k.mtbf_s, Unit::duration) : "none")},
          fmt("cluster.interruptions_per_gpu_hour %.3g x GPUs x wall hours (Llama 3 sec. "
              "3.3.4: 419 unexpected in 54 days on 16,384 H100).",
              cl.interruptions_per_gpu_hour));
    b.add(
        "checkpoint",
        {words("Checkpoint"), cell(k.checkpoint_bytes, Unit::bytes),
         words((k.interval_s > 0 ? "every " + format_value(k.interval_s, Unit::duration) : "none") +
               ", stalls " + units::seconds(k.blocking_s) + ", writes " +
               units::seconds(k.write_s))},
        "Weights (bf16) and optimizer states (fp32 master, m, v): 14 B per trained parameter, "
        "every GPU writing its shard at workload.checkpoint.write_bw; an async save stalls "
        "only for the copy to host memory. Interval: workload.checkpoint.interval_s, or "
        "Daly's optimum sqrt(2 delta M)[1 + sqrt(delta/2M)/3 + delta/18M] - delta.");
  }
  if (e.energy.known) {
    const TrainEnergy &en = e.energy;
    std::string draw =
        fmt("%.0f W a GPU", en.device_w) + fmt(" + %.0f W its host share", en.host_w);
    if (en.clock < 1)
      draw += fmt(", clock %.1f%% under the cap", 100 * en.clock);
    const std::string power = en.facility_w >= 1e6 ? fmt("%.2f MW", en.facility_w / 1e6)
                                                   : fmt("%.1f kW", en.facility_w / 1e3);
    b.add("power", {words("Facility power"), words(power), words(draw)},
          fmt("(hardware.power_w + cluster.host_power_w) x load_power_fraction %.2f",
              c.hardware.load_power_fraction) +
              fmt(" (or the cap), x GPUs x PUE %.2f (docs/formulas.md 'Energy').", cl.pue));
    b.add("joules_per_token",
          {words("Energy per token"), words(fmt("%.3g J", en.joules_per_token)),
           words(fmt("%.4g kWh a step", en.kwh_per_step))},
          "Facility power x step / tokens per step.");
    if (en.mwh_to_train > 0)
      b.add("energy_to_train",
            {words("Energy to train"),
             words(fmt(en.mwh_to_train >= 100 ? "%.0f MWh" : "%.3g MWh", en.mwh_to_train)),
             words(format_value(en.cost_to_train, Unit::dollars) + " of electricity")},
            fmt("Facility power x time to train, at $%.4f/kWh (cluster.energy_price_per_kwh).",
                cl.energy_price_per_kwh));
  }
  if (e.cost_to_train > 0)
    b.add("cost_to_train",
          {words("Rental to train"), cell(e.cost_to_train, Unit::dollars),
           words(fmt("$%.0f an hour", e.cost_per_hour))},
          "hardware.price_per_hour x GPUs x time to train (electricity is in the rental price).");
}

std::vector<ReportText> step_summary(const Estimate &e) {
  const StepTime &s = e.time;
  const Throughput &p = e.throughput;
  const double u = e.uncertainty;
  const Band tb = time_band_of(s.step, u), mb = rate_band_of(p.mfu, u);
  std::string step = "step " + units::seconds(s.step);
  step += " (" + units::seconds(tb.low);
  step += " .. " + units::seconds(tb.high);
  step += "); " + units::count(p.tokens_per_s);
  step += " tokens/s";
  std::string mfu = fmt("MFU %.1f%% (%.1f .. %.1f); causal MFU %.1f%%; HFU %.1f%%; ", 100 * p.mfu,
                        100 * mb.low, 100 * mb.high, 100 * p.mfu_causal, 100 * p.hfu);
  mfu += units::flop_rate(p.tflops_per_device);
  mfu += " per device";
  return {{step, "The range is the calibration band (" + plus_minus(u) +
                     ", hardware.time_uncertainty): [t (1 - u), t (1 + u)]. Tokens/s = B x s / "
                     "step."},
          {mfu, "MFU = model FLOPs / (step x devices x peak), model FLOPs in the 6N + 12 L h s "
                "convention (PaLM, Megatron: the whole attention square); causal MFU counts "
                "only the causal half of the square, the FLOPs a causal FlashAttention kernel "
                "executes. HFU counts recompute too (docs/formulas.md 'MFU'). Its band divides "
                "by the time's: [r / (1 + u), r / (1 - u)]. Per device: model FLOP/s "
                "achieved."}};
}

void comm_table(const Estimate &e, ReportTable &t) {
  const StepTime &s = e.time;
  t.key = "comm";
  t.title = "Communication per step, per device";
  t.note = "'time' if nothing overlapped; 'exposed' is what stays on the critical path "
           "(docs/formulas.md 'Communication per layer').";
  t.columns = {{"kind", "kind"},
               {"collective", "collective", {}, {}, true},
               {"group", "group"},
               {"bytes", "bytes", Unit::bytes},
               {"time", "time", Unit::seconds},
               {"exposed", "exposed", Unit::seconds, Better::lower}};
  Builder b{t};
  for (const CommCost &cc : s.comm)
    b.add(cc.kind,
          {words(cc.kind),
           words(cc.collective),
           {str(cc.group), d(cc.group)},
           cell(cc.bytes_per_device, Unit::bytes),
           cell(cc.time, Unit::seconds),
           cell(cc.exposed, Unit::seconds)},
          "", cc.exposed > 0.05 * s.step ? Mark::warn : Mark::none);
}

void activations_table(const Config &c, const Estimate &e, ReportTable &t) {
  const Layout &l = e.layout;
  t.key = "acts";
  t.title = "Activations of one layer";
  if (e.mode != Mode::train) {
    t.note = "Inference stores no activations across layers: the memory counts one layer's "
             "prefill working set (";
    t.note += units::bytes(e.memory.activations);
    t.note += ").";
    return;
  }
  t.title += " (b = " + str(l.microbatch) + ", s = " + str(c.workload.seq_len) + ")";
  t.help = "One transformer layer, one micro-batch, on one device, stored for the backward pass "
           "before recompute (Korthikanti et al. 2022; docs/formulas.md 'Activation memory'). "
           "bf16 tensors, 1-byte dropout masks. With TP t and SP every term is divided by t; "
           "without SP the norm inputs, QKV/MLP inputs and dropout masks stay whole. Ring CP and "
           "Ulysses divide every term by their degree. Selective recompute drops the s^2 terms; "
           "full keeps only the layer input.";
  t.columns = {{"term", "term"},
               {"formula", "formula", {}, {}, true},
               {"bytes", "bytes", Unit::bytes},
               {"share", "share", Unit::percent}};
  const LayerActivations &a = e.act_terms;
  const double total = a.total();
  Builder b{t};
  const auto row = [&](const char *key, const char *name, const char *formula, double v) {
    if (v > 0)
      b.add(key, {words(name), words(formula), cell(v, Unit::bytes), share(v, total)});
  };
  // Each formula as the value it stands beside: per TP rank (core/memory/activations: "/t"
  // where TP splits the term; Megatron-SP splits the replicated ones too) and per CP rank.
  const bool tp = l.tp > 1, sp = tp && l.sp;
  const std::string by_cp = l.cp > 1 ? "/cp" : "";
  const auto per = [&](std::string f, bool split) { return f + (split ? "/t" : "") + by_cp; };
  // KV heads: split by t when t divides k, else one whole head per rank (replicated)
  const bool kv_split = !tp || c.model.mla || c.model.kv_heads % l.tp == 0;
  const std::string k = kv_split ? "k" : "1";
  const auto frow = [&](const char *key, const char *name, const std::string &f, double v) {
    row(key, name, f.c_str(), v);
  };
  // The linear layers' saved inputs at their recipe's bytes per element (core/memory/
  // activations: ActLayout::linear_input), named beside the formula when not bf16.
  const double li = act_layout(l, c.workload.precision).linear_input;
  const std::string lis = units::format("%g", li);
  const std::string lin =
      li == 2 ? "" : std::string(" (") + io::name_of(c.workload.precision) + ")";
  frow("norm_inputs", "norm inputs", per("4sbh", sp), a.norm_inputs);
  frow("qkv_input", "QKV input", per(lis + "sbh", sp) + lin, a.qkv_input);
  frow("qk", "Q, K for QK^T", per(tp && !kv_split ? "2sbd(a/t+1)" : "2sbd(a+k)", tp && kv_split),
       a.qk);
  frow("v", "V", per("2sbd" + k, tp && kv_split), a.v);
  frow("out_input", "out-proj input", per(lis + "sbad", tp) + lin, a.out_input);
  frow("attn_dropout", "attention dropout mask", per("sbh", sp), a.attn_dropout);
  frow("softmax", "softmax output", per("2as^2b", tp), a.softmax);
  frow("softmax_dropout", "softmax dropout", per("3as^2b", tp), a.softmax_dropout);
  frow("flash_stats", "flash softmax stats", per("4asb", tp) + " (fp32)", a.flash_stats);
  frow("mla_latent", "MLA latents", per(lis + "sb(r_q+r_kv+rope)", false) + lin, a.mla_latent);
  frow("mlp_input", "MLP input", per(lis + "sbh", sp) + lin, a.mlp_input);
  // MoE: the R routed tokens at this rank's experts (sb top_k, gathered over the experts' TP
  // group: core/parallel/layout expert_share), their inputs and hidden terms, and the shared
  // experts' hidden terms
  const std::string hid = units::format("%g", (c.model.gated_mlp ? 4 : 2) + li);
  const std::string et = l.expert_folding ? "/moe_tp" : "/t";
  frow("mlp_hidden", "MLP hidden",
       (c.model.moe ? "(" + lis + "Rh + " + hid + "Rf_e" + et + " + " + hid + "sbf_e shared/t)"
                    : per(hid + "sbf", tp)) +
           lin,
       a.mlp_hidden);
  frow("mlp_dropout", "MLP dropout mask", per("sbh", sp), a.mlp_dropout);
  frow("router", "router logits", per("4sbE", sp) + " (fp32)", a.router);
  b.add("total", {words("total per layer"), words(""), cell(total, Unit::bytes), share(1, 1)}, "",
        Mark::total);
  std::string kept = l.recompute == Recompute::none        ? "all stored"
                     : l.recompute == Recompute::selective ? "selective recompute drops s^2 terms"
                                                           : "full recompute keeps the layer input";
  if (l.recompute == Recompute::selective) {
    if (l.recompute_norm)
      kept += ", the norms' outputs";
    if (l.recompute_mla_up && c.model.mla)
      kept += ", MLA's Q, K, V";
    if (l.recompute_moe_act && c.model.moe)
      kept += ", the experts' activation output";
  }
  t.note = "Stage " + str(e.memory.worst_stage) + ": ";
  t.note += units::bytes(e.memory.activations_layers);
  t.note += " for the layers in flight (";
  t.note += kept;
  t.note += ").";
}

// [SECTION] inference
void decode_step_table(const Estimate &e, ReportTable &t) {
  const DecodeStep &s = e.serving.decode;
  t.key = "decode";
  t.title = fmt("Decode step (TPOT at the mean context %.0f)", s.context);
  t.help = "How to Scale Your Model, ch. 7: decode step = B x KV bytes / BW + max(2 B P_active "
           "/ FLOP/s, weight bytes / BW) + collectives, over the chips of one replica, with BW = "
           "hbm_bw x hbm_efficiency unless workload.bound is roofline.";
  t.columns = {{"part", "part"},
               {"time", "time", Unit::seconds, Better::lower},
               {"share", "share", Unit::percent},
               {"detail", "detail", {}, {}, true}};
  Builder b{t};
  const auto row = [&](const char *key, const char *name, double v, std::string detail,
                       const char *help, Mark mark = Mark::none) {
    b.add(key, {words(name), cell(v, Unit::seconds), share(v, s.step), words(std::move(detail))},
          help, mark);
  };
  row("kv", "KV cache reads", s.kv_time, "", "B x KV bytes / HBM bandwidth.");
  std::string wf = "weights " + units::seconds(s.weight_time);
  wf += ", matmuls " + units::seconds(s.compute_time);
  row("weights", "weights / FLOPs (the larger)", std::max(s.weight_time, s.compute_time), wf,
      "max(weight bytes / HBM bandwidth, 2 B P_active / FLOP/s).");
  if (s.other_time > 0)
    row("other", "element-wise kernels + LM head", s.other_time, "",
        "Norms, residual adds, rotary, activation and the LM head (achievable bound; the "
        "textbook roofline leaves them out).");
  row("comm", "TP/EP/PP communication", s.comm_time, "",
      "TP AllReduce (latency-bound at decode) and pipeline sends per step.");
  row("step", "TPOT (decode step)", s.step, s.compute_bound ? "compute-bound" : "bandwidth-bound",
      "The step over the pipeline's stages.", Mark::total);
}

void serving_table(const Config &c, const Estimate &e, ReportTable &t) {
  const ServingEstimate &sv = e.serving;
  const DecodeStep &s = sv.decode;
  t.key = "serving";
  t.title = "Latency and throughput (band " + plus_minus(e.uncertainty) + ")";
  t.help = "TTFT is one prompt's prefill; TPOT the decode step at the mean context. The batch's "
           "wall time counts every prompt's prefill, then gen decode steps (static batching). "
           "The band is the calibration's (hardware.time_uncertainty). Serve mode simulates "
           "requests.";
  t.columns = {{"quantity", "quantity"}, {"value", "value"}, {"detail", "detail", {}, {}, true}};
  Builder b{t};
  const auto row = [&](const char *key, const char *name, ReportCell v, std::string detail,
                       const char *help) {
    b.add(key, {words(name), std::move(v), words(std::move(detail))}, help);
  };
  std::string pre = "compute " + units::seconds(sv.prefill.compute);
  pre += ", communication " + units::seconds(sv.prefill.comm);
  row("ttft", "TTFT (prefill of one prompt)", cell(sv.ttft, Unit::seconds), pre,
      "One prompt's forward: its FLOPs at the GEMM efficiency, plus the TP/PP communication.");
  row("tpot", "TPOT (decode step)", cell(sv.tpot, Unit::seconds),
      s.compute_bound ? "compute-bound" : "bandwidth-bound", "The decode step's table above.");
  row("request", "request latency", cell(sv.request_latency, Unit::seconds), "TTFT + gen x TPOT",
      "One request alone: its prefill, then gen_len decode steps.");
  row("batch_prefill", "batch prefill", cell(sv.batch_prefill, Unit::seconds),
      "every prompt of the batch", "The prefill of all the batch's prompts.");
  row("batch_time", "batch time", cell(sv.batch_time, Unit::seconds), "prefill all, then decode",
      "Static batching: every prompt prefilled, then gen_len decode steps of the whole batch.");
  row("batch_tokens", "output tokens/s over the batch", cell(sv.batch_tokens_per_s, Unit::count),
      fmt("%.1f per chip", sv.batch_tokens_per_s_per_chip),
      "batch x gen_len / batch time (prefill included).");
  row("decode_tokens", "tokens/s while decoding", cell(s.tokens_per_s, Unit::count),
      fmt("%.1f per chip", s.tokens_per_s_per_chip), "batch / TPOT.");
  row("critical_batch", "critical batch", {fmt("%.0f", sv.critical_batch), sv.critical_batch},
      s.compute_bound ? "compute-bound now" : "bandwidth-bound now",
      "Decode turns compute-bound above this batch: peak FLOP/s / HBM bandwidth x bytes per "
      "weight / 2 (How to Scale Your Model ch. 7).");
  if (sv.moe_critical_batch > 0)
    row("moe_critical_batch", "MoE critical batch",
        {fmt("%.0f", sv.moe_critical_batch), sv.moe_critical_batch}, "x E / k",
        "MoE: every expert must see the critical batch, B > critical x E / k (How to Scale Your "
        "Model ch. 4).");
  row("min_devices", "smallest slice for this batch",
      {str(sv.min_devices) + " chips", d(sv.min_devices)}, "power of two",
      "The smallest power-of-two TP slice that holds the weights and the batch's KV cache.");
  if (sv.disaggregated)
    t.note = fmt("disaggregated at %.2f req/s: %.2f prefill + %.2f decode instances",
                 c.workload.request_rate, sv.prefill_instances, sv.decode_instances) +
             fmt(" of %.0f chips (decode batch %.0f; prefill:decode = %.2f)",
                 d(sv.devices_per_instance), d(sv.decode_batch), sv.prefill_to_decode);
}

} // namespace

ReportTable decode_curve_table(const DecodeCurve &curve, double workload_batch) {
  ReportTable t;
  t.key = "sweep";
  t.title = fmt("Decode latency-throughput curve (critical batch %.0f): TPOT at the mean context "
                "%.0f (prompt + gen/2), memory at the final %.0f",
                curve.critical_batch, curve.context, curve.memory_context);
  // The step first, then what it is made of.
  t.columns = {{"batch", "batch"},
               {"memory", "memory/chip", Unit::bytes, Better::lower},
               {"fits", "fits"},
               {"tpot", "TPOT", Unit::seconds, Better::lower},
               {"tokens", "tokens/s", Unit::count, Better::higher},
               {"tokens_chip", "tokens/s/chip", Unit::count, Better::higher},
               {"bound", "bound", {}, {}, true},
               {"note", "", {}, {}, true},
               {"kv", "KV", Unit::seconds},
               {"weights", "weights", Unit::seconds},
               {"flops", "FLOPs", Unit::seconds},
               {"comm", "comm", Unit::seconds}};
  const double critical = std::round(curve.critical_batch);
  for (const DecodeStep &d : curve.rows) {
    const bool is_critical = critical >= 1 && std::round(d.batch) == critical;
    const bool is_workload = d.batch == workload_batch;
    ReportCell note = words(is_critical   ? "critical"
                            : is_workload ? "workload"
                            : !d.fits     ? "no fit"
                                          : "");
    if (is_critical)
      note.mark = Mark::warn;
    t.rows.push_back(
        {"",
         "",
         !d.fits       ? Mark::dim
         : is_workload ? Mark::ok
                       : Mark::none,
         {num(d.batch, "%.0f"), cell(d.memory_per_device, Unit::bytes),
          words(d.fits ? "yes" : "no"), cell(d.step, Unit::seconds), num(d.tokens_per_s, "%.1f"),
          num(d.tokens_per_s_per_chip, "%.2f"), words(d.compute_bound ? "compute" : "memory"), note,
          cell(d.kv_time, Unit::seconds), cell(d.weight_time, Unit::seconds),
          cell(d.compute_time, Unit::seconds), cell(d.comm_time, Unit::seconds)}});
  }
  return t;
}

std::string finetune_text(const FinetuneSpec &f) {
  std::string s = schema::choice_name(f.method);
  if (!f.adapters())
    return s + " fine-tune";
  s += " r" + str(f.rank) + " on";
  for (const auto &[on, name] :
       {std::pair{f.qkv, " qkv"}, std::pair{f.o, " o"}, std::pair{f.mlp, " mlp"}})
    if (on)
      s += name;
  s += ", ";
  s += schema::choice_name(f.base_dtype);
  s += " base";
  return s;
}

std::string layout_line(const Estimate &e) {
  const Layout &l = e.layout;
  const bool train = e.mode == Mode::train;
  std::string s = "dp " + str(l.dp);
  s += " x tp " + str(l.tp);
  s += " x pp " + str(l.pp);
  s += " x cp " + str(l.cp);
  if (l.cp > 1) {
    s += " (";
    s += io::name_of(l.cp_kind);
    if (l.cp_kind == CpKind::usp)
      s += ", ulysses " + str(l.ulysses);
    s += ")";
  }
  s += ", ep " + str(l.ep);
  if (l.expert_folding)
    s += " x expert tp " + str(l.moe_tp) + " (folded)";
  if (l.sp)
    s += ", SP";
  if (train)
    s += ", ZeRO-" + str(l.zero);
  s += ", micro-batch " + str(l.microbatch);
  s += " (m = " + str(l.num_micro) + ")";
  if (l.pp > 1) {
    s += ", ";
    s += io::name_of(l.schedule);
    if (l.vpp > 1)
      s += " v=" + str(l.vpp);
  }
  if (train) {
    s += ", recompute ";
    s += io::name_of(l.recompute);
    s += recompute_modules_label(l);
    if (l.offload_layers > 0)
      s += ", " + str(l.offload_layers) + " layers' activations offloaded";
    if (l.offload_optimizer)
      s += ", optimizer offloaded";
  }
  if (l.flash)
    s += ", FlashAttention";
  return s;
}

EstimateReport estimate_report(const Config &c, const Estimate &e) {
  const WorkloadSpec &w = c.workload;
  EstimateReport r;
  r.title = c.model.name + " on " + str(c.cluster.devices) + " x " + c.hardware.name;
  r.title += " (" + c.cluster.name;
  if (const i64 held = c.cluster.nvlink_devices();
      c.cluster.nvlink_domain > held && c.cluster.devices > held)
    r.title += ", " + str(held) + " GPUs in each NVLink domain of " + str(c.cluster.nvlink_domain);
  r.title += ")";
  if (w.mode == Mode::train) {
    r.workload = "train: global batch " + str(w.global_batch) + " x seq " + str(w.seq_len);
    r.workload += " = " + units::grouped(static_cast<i64>(e.tokens_per_step));
    r.workload += " tokens/step, ";
    r.workload += io::name_of(w.precision);
    if (w.finetune)
      r.workload +=
          ", " + finetune_text(*w.finetune) + ": " +
          units::count(e.trained_params > 0 ? e.trained_params
                                            : trainable_params(c.model, e.params, w.finetune)) +
          " trained";
  } else {
    r.workload = "infer: batch " + str(w.batch) + ", prompt " + str(w.prompt_len) + ", generate " +
                 str(w.gen_len) + ", weights ";
    r.workload += io::name_of(w.weight_dtype);
    r.workload += ", KV ";
    r.workload += io::name_of(w.kv_dtype);
  }
  r.layout = layout_line(e);
  size_table(c, e, r.size);
  layer_flops_table(c, e, r.layer_flops);
  memory_table(c, e, r.memory);
  stages_table(c, e, r.stages);
  activations_table(c, e, r.activations);
  if (e.has_time) {
    step_time_table(c, e, r.step_time);
    comm_table(e, r.comm);
    r.summary = step_summary(e);
    run_table(c, e, r.run);
  }
  if (e.has_serving) {
    decode_step_table(e, r.decode_step);
    serving_table(c, e, r.serving);
  }
  return r;
}

} // namespace rl
