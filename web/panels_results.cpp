// ridgeline web: the Results panel. Every number carries a "(?)" with its formula and source
// (docs/formulas.md). [SECTION] headline  [SECTION] size & compute  [SECTION] memory bar
// [SECTION] time  [SECTION] stages table  [SECTION] activation terms
#include "core/io/config_json.hpp"
#include "core/io/units.hpp"
#include "core/memory/model_states.hpp"
#include "core/report/report.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/widgets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl::web {

namespace {

std::string str(i64 v) {
  return std::to_string(v);
}
double d(i64 v) {
  return static_cast<double>(v);
}

// [SECTION] headline
void draw_headline(const Config &c, const Estimate &e) {
  const Layout &l = e.layout;
  const WorkloadSpec &w = c.workload;
  ImGui::TextColored(ui::color::accent, "%s", c.model.name.c_str());
  ImGui::SameLine();
  ImGui::Text("on %lld x %s (%s)", static_cast<long long>(c.cluster.devices),
              c.hardware.name.c_str(), c.cluster.name.c_str());
  ImGui::SameLine();
  if (w.mode == Mode::train)
    ui::text_dim("  train: B " + str(w.global_batch) + " x s " + str(w.seq_len) + " = " +
                 units::count(e.tokens_per_step) + " tokens/step, " + io::name_of(w.precision));
  else
    ui::text_dim("  infer: batch " + str(w.batch) + ", prompt " + str(w.prompt_len) +
                 ", generate " + str(w.gen_len) + ", weights " + io::name_of(w.weight_dtype) +
                 ", KV " + io::name_of(w.kv_dtype));
  std::string lay =
      "dp " + str(l.dp) + " x tp " + str(l.tp) + " x pp " + str(l.pp) + " x cp " + str(l.cp);
  if (l.ep > 1)
    lay += ", ep " + str(l.ep);
  if (l.vpp > 1)
    lay += ", vpp " + str(l.vpp);
  lay += l.sp ? ", SP" : "";
  if (w.mode == Mode::train)
    lay += ", ZeRO-" + str(l.zero) + ", recompute " + io::name_of(l.recompute);
  lay += ", micro-batch " + str(l.microbatch) + " (m = " + str(l.num_micro) + ")";
  lay += l.flash ? ", FlashAttention" : "";
  ui::text_dim("Layout: " + lay);
}

// The numbers a user looks for first, on one line under the headline (visible at 1280x720
// without scrolling), each with its change against the pinned result when there is one.
void draw_kpis(const Estimate &e, const std::optional<Evaluation> &pinned) {
  std::vector<CompareRow> cmp;
  if (pinned && pinned->estimate)
    cmp = compare_rows(report_rows(*pinned->estimate), report_rows(e));
  const auto kpi = [&](const char *label, const char *row, double v, Unit u) {
    ImGui::TextUnformatted(label);
    ImGui::SameLine(0, 4);
    ImGui::TextColored(ui::color::accent, "%s", format_value(v, u).c_str());
    for (const CompareRow &r : cmp)
      if (r.label == row && r.has_before && r.has_after && r.before != r.after) {
        ImGui::SameLine(0, 4);
        const int verdict = r.verdict();
        ui::text_colored(verdict > 0   ? ui::color::ok
                         : verdict < 0 ? ui::color::error
                                       : ui::color::dim,
                         units::format("(%+.1f%%)", 100 * r.relative()));
      }
    ImGui::SameLine(0, 18);
  };
  if (e.mode == Mode::train && e.has_time) {
    kpi("Step", "step", e.time.step, Unit::seconds);
    kpi("MFU", "MFU", e.throughput.mfu, Unit::percent);
    kpi("tokens", "tokens/s", e.throughput.tokens_per_s, Unit::per_second);
    if (e.time_to_train > 0)
      kpi("to train", "time to train", e.time_to_train, Unit::duration);
    if (e.cost_to_train > 0)
      kpi("", "cost to train", e.cost_to_train, Unit::dollars);
  } else if (e.has_serving) {
    kpi("TTFT", "TTFT", e.serving.ttft, Unit::seconds);
    kpi("TPOT", "TPOT (mean context)", e.serving.tpot, Unit::seconds);
    kpi("tokens", "batch tokens/s", e.serving.batch_tokens_per_s, Unit::per_second);
  }
  kpi("memory", "total", e.memory.total, Unit::bytes);
  ui::text_colored(e.memory.fits ? ui::color::ok : ui::color::error,
                   e.memory.fits ? "fits" : "does not fit");
  if (pinned) {
    ImGui::SameLine(0, 18);
    ui::text_dim("(vs pinned: Compare tab)");
  }
}

// A row of the size & compute table: name (?) | value | detail.
void kv_row(const char *name, const std::string &value, const std::string &help,
            const std::string &detail = "") {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextUnformatted(name);
  ui::help_marker(help);
  ImGui::TableSetColumnIndex(1);
  ui::text_right(value);
  ImGui::TableSetColumnIndex(2);
  if (!detail.empty())
    ui::text_dim(detail);
}

// [SECTION] size & compute
void draw_size_and_compute(const Config &c, const Estimate &e) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  const ModelParams &p = e.params;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  ui::table_export("size");
  if (!ImGui::BeginTable("size", 3, flags))
    return;
  ImGui::TableSetupColumn("quantity", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.00 EFLOP").x);
  ImGui::TableSetupColumn("detail", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("= 6.82 x params").x);

  kv_row("Parameters", units::count(d(e.total_params)),
         "L x (attention + MLP + 2 norms) + embedding v*h + LM head v*h (unless tied) + final "
         "norm. Attention h*d*(2a + 2k), gated MLP 3*h*f (plain 2*h*f), rmsnorm h. "
         "docs/formulas.md 'Parameters'; Narayanan et al. 2021.\nExact: " +
             units::grouped(e.total_params));
  if (e.active_params != e.total_params)
    kv_row("Active / token", units::count(d(e.active_params)),
           "MoE: the top_k routed experts a token visits plus the shared experts, instead of "
           "all E. docs/formulas.md 'Parameters'.");
  kv_row("  one layer", units::count(d(p.dense_layer.total())),
         "Attention " + units::count(d(p.dense_layer.attention)) +
             " = h*d*(2a+2k) = " + str(m.hidden) + "*" + str(m.head_dim) + "*(2*" + str(m.heads) +
             " + 2*" + str(m.kv_heads) + "); MLP " + units::count(d(p.dense_layer.mlp)) +
             (m.gated_mlp ? " = 3*h*f" : " = 2*h*f") + "; norms " +
             units::count(d(p.dense_layer.norms)) + ".");
  kv_row("  embedding + head", units::count(d(p.embedding + p.head)),
         "Embedding v*h = " + units::count(d(p.embedding)) + "; LM head v*h = " +
             units::count(d(p.head)) + (m.tied_embeddings ? " (tied: shared)" : "") + ".");

  if (w.mode == Mode::train) {
    kv_row("Tokens / step", units::count(e.tokens_per_step), "B x s, the global batch in tokens.");
    kv_row("Model FLOPs / step", units::flops(e.model_flops_per_step),
           "3 x forward over the global batch (backward = 2 x forward; Narayanan et al. 2021). "
           "Forward per "
           "layer: QKV 2bsh*d(a+2k), scores 4bs^2*a*d, out-proj 2bs*a*d*h, MLP 6bshf gated "
           "(4bshf plain); LM head 2bshv once. Matmuls only, 2mnk per GEMM. docs/formulas.md "
           "'FLOPs'.");
    kv_row("Hardware FLOPs / step", units::flops(e.hardware_flops_per_step),
           "The FLOPs executed: model FLOPs plus recompute (selective re-runs the "
           "attention-score GEMMs, full re-runs every layer's forward), with only the causal "
           "half of the score matrix when FlashAttention skips the masked blocks (so it can be "
           "below the model FLOPs, which count the whole square). Used for HFU; MFU uses "
           "model FLOPs.");
    char ratio[48];
    std::snprintf(ratio, sizeof ratio,
                  e.active_params != e.total_params ? "= %.2f x active" : "= %.2f x params",
                  e.model_flops_per_token / std::max(1.0, d(e.active_params)));
    kv_row("Model FLOPs / token", units::flops(e.model_flops_per_token),
           "Model FLOPs per step / (B x s). About 6 x active parameters (2 forward + 4 backward) "
           "plus the attention-score term 12*L*s*a*d per token.",
           ratio);
  } else {
    kv_row("Prefill FLOPs", units::flops(e.model_flops_per_step),
           "One forward over the whole batch's prompts: per layer QKV 2bsh*d(a+2k), scores "
           "4bs^2*a*d, out-proj 2bs*a*d*h, MLP 6bshf (gated), plus LM head 2bshv. TTFT is "
           "bound by it.");
    kv_row("Decode FLOPs / token", units::flops(e.model_flops_per_token),
           "2 x active parameters per generated token (one multiply-add per weight); the "
           "attention over the cache is extra. How to Scale Your Model ch. 7.");
    kv_row("KV cache / token", units::bytes(e.kv_bytes_per_token),
           "2 * L * k * d * bytes_kv = 2 x " + str(m.layers) + " x " + str(m.kv_heads) + " x " +
               str(m.head_dim) + " x " + units::bytes(dtype_bytes(w.kv_dtype)) +
               " (MLA: L * (r_kv + rope) * bytes). docs/formulas.md 'Inference'.");
    kv_row("Tokens / step", units::count(e.tokens_per_step),
           "Generated tokens of the batch: batch x gen_len.");
    kv_row("Max batch that fits", str(e.memory.max_batch),
           "Largest batch whose worst stage fits: (capacity - weights) / (KV per sequence + "
           "working set per sequence), sequences of prompt + gen tokens.");
  }
  ImGui::EndTable();
  ui::table_export_end();

  if (ImGui::TreeNode("Forward FLOPs of one layer (whole batch)")) {
    const LayerFlops &f = e.forward.dense_layer;
    ui::table_export("layerflops");
    if (ImGui::BeginTable("layerflops", 2, ImGuiTableFlags_SizingFixedFit)) {
      ImGui::TableSetupColumn("part", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableSetupColumn("flops", ImGuiTableColumnFlags_WidthFixed,
                              ImGui::CalcTextSize("000.00 EFLOP").x);
      auto row = [](const char *n, double v) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(n);
        ImGui::TableSetColumnIndex(1);
        ui::text_right(units::flops(v));
      };
      row("QKV projections  2bsh*d(a+2k)", f.qkv);
      row("scores + weighted sum  4bs^2*a*d", f.scores);
      row("output projection  2bs*a*d*h", f.out);
      row(m.gated_mlp ? "MLP  6bshf" : "MLP  4bshf", f.mlp);
      if (f.router > 0)
        row("router  2bshE", f.router);
      row("LM head (once)  2bshv", e.forward.head);
      ImGui::EndTable();
      ui::table_export_end();
    }
    ImGui::TreePop();
  }
}

} // namespace

// [SECTION] step-time parts (the Results bar and the Compare tab)
std::vector<ui::Segment> step_time_segments(const Estimate &e) {
  const StepTime &t = e.time;
  return {
      {"Compute", t.compute - t.recompute, ui::color::forward,
       "Forward + backward GEMMs and element-wise traffic of the slowest stage, all "
       "micro-batches."},
      {"Recompute", t.recompute, ImVec4(0.55f, 0.72f, 0.98f, 1.0f),
       "The extra forward work recompute costs (selective: attention scores; full: every "
       "layer)."},
      {"Exposed comm", t.comm_exposed, ui::color::kv_cache,
       "Communication on the critical path: TP/SP collectives, pipeline sends, the DP "
       "gradient sync's last bucket. See the Communication tab."},
      {"Bubble", t.bubble, ImVec4(0.80f, 0.25f, 0.25f, 1.0f),
       "Pipeline fill and drain: (p-1)/v x (t_fwd + t_bwd). See the timeline below."},
      {"Optimizer", t.optimizer, ui::color::optimizer,
       "Adam update of this device's (sharded) parameters, HBM-bound."},
  };
}

// [SECTION] memory bar
std::vector<ui::Segment> memory_segments(const Config &c, const Estimate &e) {
  const MemorySummary &mem = e.memory;
  const Layout &l = e.layout;
  std::vector<ui::Segment> s;
  if (e.mode == Mode::train) {
    s.push_back({"Weights", mem.weights, ui::color::weights,
                 "2 B per parameter (bf16) of this stage's layers / tp (experts / ep); the first "
                 "stage adds the embedding, the last the LM head." +
                     std::string(l.zero >= 3 ? " ZeRO-3: divided by dp x cp, plus the gathered "
                                               "weights of the layers in use."
                                             : "")});
    s.push_back({"Gradients", mem.gradients, ui::color::gradients,
                 std::string(c.workload.fp32_grads ? "4 B" : "2 B") + " per parameter." +
                     (l.zero >= 2 ? " ZeRO-2: divided by dp x cp." : "")});
    s.push_back({"Optimizer", mem.optimizer, ui::color::optimizer,
                 "Adam: fp32 master weights + m + v = 12 B per parameter." +
                     std::string(l.zero >= 1 ? " ZeRO-1: divided by dp x cp." : "")});
    s.push_back({"Activations", mem.activations, ui::color::activations,
                 "Stored activations of every layer-micro-batch in flight on this stage "
                 "(Korthikanti et al. 2022), plus the embedding/output terms. See the "
                 "Activations tab."});
  } else {
    s.push_back({"Weights", mem.weights, ui::color::weights,
                 "Parameters of this stage / tp at weight_dtype bytes each."});
    s.push_back({"KV cache", mem.kv_cache, ui::color::kv_cache,
                 "2 x layers of the stage x KV heads per rank x d x bytes_kv per token, for the "
                 "replica's share of the batch at prompt + gen tokens (heads split over TP up to "
                 "the KV heads, then the batch; How to Scale Your Model ch. 7)."});
    s.push_back({"Working set", mem.activations, ui::color::activations,
                 "One layer's prefill activations (FlashAttention, nothing stored across "
                 "layers)."});
  }
  return s;
}

namespace {

void draw_memory_bar(const Config &c, const Estimate &e) {
  const MemorySummary &mem = e.memory;
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading, the bar and its verdict
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted("Memory per device");
  ImGui::SameLine();
  ui::text_dim("(worst stage " + str(mem.worst_stage) + " of " + str(e.layout.pp) + ")");
  ui::help_marker("The pipeline stage with the largest total. Usable is the accelerator's "
                  "memory (" +
                  c.hardware.name + ": " + units::bytes(mem.capacity) + ") less the reserve (" +
                  units::bytes(mem.reserve) +
                  ": CUDA context, NCCL buffers, allocator fragmentation; "
                  "hardware.memory_reserve); 1 GB = 1e9 B.");
  const auto segs = memory_segments(c, e);
  const double usable = mem.capacity - mem.reserve;
  ui::stacked_bar(segs, std::max(mem.total, mem.capacity) * 1.04, usable,
                  "usable " + units::bytes(usable), &units::bytes);
  const double frac = usable > 0 ? mem.total / usable : 0;
  const std::string verdict = units::bytes(mem.total) + " of " + units::bytes(usable) +
                              " usable (" + units::percent(frac) + "; HBM " +
                              units::bytes(mem.capacity) + ")";
  if (mem.fits)
    ui::text_colored(ui::color::ok, "Fits: " + verdict);
  else
    ui::text_colored(ui::color::error, "Does not fit: " + verdict);
  ui::plot_export("memory", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::legend("mem_legend", segs, mem.total, &units::bytes);
}

// [SECTION] time
std::string time_str(double s) {
  return units::seconds(s);
}

void draw_step_time(const Config &c, const Estimate &e) {
  const StepTime &t = e.time;
  const Throughput &p = e.throughput;
  const double u = e.uncertainty;
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading and the bar
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted("Step time");
  ImGui::SameLine();
  ui::text_dim("(slowest stage " + str(t.slowest_stage) + ")");
  char band[96];
  std::snprintf(band, sizeof band, "%.3f", c.hardware.gemm_efficiency);
  ui::help_marker(
      "step = (m + (p-1)/v) x (t_fwd + t_bwd) + exposed DP sync + optimizer "
      "(docs/formulas.md 'Step time'). Each GEMM: max(FLOPs / (peak x efficiency), bytes / "
      "HBM bandwidth), GEMM efficiency " +
      std::string(band) + " for " + c.hardware.name +
      " (calibrated); collectives alpha-beta, exposed unless overlapped.");
  const std::vector<ui::Segment> segs = step_time_segments(e);
  ui::stacked_bar(segs, t.step, -1, "", &time_str);
  ui::plot_export("step-time", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::legend("time_legend", segs, t.step, &time_str);
  char line[200];
  std::snprintf(line, sizeof line, "Step %s (%s .. %s)   %s tokens/s", time_str(t.step).c_str(),
                time_str(time_band_of(t.step, u).low).c_str(),
                time_str(time_band_of(t.step, u).high).c_str(),
                units::count(p.tokens_per_s).c_str());
  ImGui::TextUnformatted(line);
  std::snprintf(band, sizeof band, "+/-%.0f%%", 100 * u);
  ui::help_marker("The range is the calibration band (" + std::string(band) +
                  ", hardware.time_uncertainty). Tokens/s = B x s / step.");
  std::snprintf(line, sizeof line,
                "MFU %.1f%% (%.1f .. %.1f)   causal MFU %.1f%%   HFU %.1f%%   %s per device",
                100 * p.mfu, 100 * rate_band_of(p.mfu, u).low, 100 * rate_band_of(p.mfu, u).high,
                100 * p.mfu_causal, 100 * p.hfu, units::flop_rate(p.tflops_per_device).c_str());
  ImGui::TextUnformatted(line);
  ui::help_marker("MFU = model FLOPs / (step x devices x peak), model FLOPs in the 6N + 12 L h s "
                  "convention (PaLM, Megatron: the whole attention square); causal MFU counts "
                  "only the causal half of the square, the FLOPs a causal FlashAttention kernel "
                  "executes. HFU counts recompute too (docs/formulas.md 'MFU'). Per device: "
                  "model FLOP/s achieved.");
}

void draw_serving(const Estimate &e) {
  const ServingEstimate &sv = e.serving;
  const DecodeStep &d = sv.decode;
  const ImVec2 chart0 = ImGui::GetCursorScreenPos(); // the heading and the bar
  const float chart_w = ImGui::GetContentRegionAvail().x;
  ImGui::TextUnformatted("Latency and throughput");
  char u[64];
  std::snprintf(u, sizeof u, "+/-%.0f%%", 100 * e.uncertainty);
  ui::help_marker("How to Scale Your Model, ch. 7: decode step = B x KV bytes / BW + max(2 B "
                  "P_active / FLOP/s, weight bytes / BW) + collectives, over the chips of one "
                  "replica, with BW = hbm_bw x hbm_efficiency unless workload.bound is "
                  "roofline; TPOT at the mean context. The batch's wall time counts every "
                  "prompt's prefill, then gen decode steps (static batching). Band " +
                  std::string(u) + " from calibration. Serve mode simulates requests.");
  const std::vector<ui::Segment> segs = {
      {"KV reads", d.kv_time, ui::color::kv_cache, "B x KV bytes / HBM bandwidth."},
      {"Weights / FLOPs", std::max(d.weight_time, d.compute_time), ui::color::weights,
       "max(weight bytes / HBM bandwidth, 2 B P_active / FLOP/s): weights " +
           time_str(d.weight_time) + ", matmuls " + time_str(d.compute_time) + "."},
      {"Element-wise + head", d.other_time, ui::color::activations,
       "Norms, residual adds, rotary, activation and the LM head (achievable bound; the "
       "textbook roofline leaves them out)."},
      {"Communication", d.comm_time, ui::color::gradients,
       "TP AllReduce (latency-bound at decode) and pipeline sends per step."},
  };
  ui::stacked_bar(segs, std::max(d.step, 1e-12), -1, "", &time_str);
  ui::plot_export("decode-step", chart0, ImVec2(chart0.x + chart_w, ImGui::GetItemRectMax().y));
  ui::legend("decode_legend", segs, d.step, &time_str);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  ui::table_export("serving");
  if (!ImGui::BeginTable("serving", 2, flags))
    return;
  ImGui::TableSetupColumn("q", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.00 ms (bandwidth)").x);
  auto row = [](const char *n, const std::string &v) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(n);
    ImGui::TableSetColumnIndex(1);
    ui::text_right(v);
  };
  row("TTFT (prefill of one prompt)", time_str(sv.ttft));
  row("TPOT (decode step)", time_str(sv.tpot) + (d.compute_bound ? " (compute)" : " (bandwidth)"));
  row("Request latency", time_str(sv.request_latency));
  row("Batch time (all prefills + decode)", time_str(sv.batch_time));
  char v[48];
  std::snprintf(v, sizeof v, "%s (%.1f/chip)", units::count(sv.batch_tokens_per_s).c_str(),
                sv.batch_tokens_per_s_per_chip);
  row("Output tokens/s over the batch", v);
  std::snprintf(v, sizeof v, "%s (%.1f/chip)", units::count(d.tokens_per_s).c_str(),
                d.tokens_per_s_per_chip);
  row("Tokens/s while decoding", v);
  row("Smallest slice for this batch", str(sv.min_devices) + " chips");
  ImGui::EndTable();
  ui::table_export_end();
}

void draw_comm(const Estimate &e) {
  const StepTime &t = e.time;
  if (t.comm.empty()) {
    ui::text_dim("No communication: a single device.");
    return;
  }
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  ui::table_export("comm");
  if (!ImGui::BeginTable("comm", 6, flags))
    return;
  ImGui::TableSetupColumn("kind");
  ImGui::TableSetupColumn("collective", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("group");
  ImGui::TableSetupColumn("bytes");
  ImGui::TableSetupColumn("time");
  ImGui::TableSetupColumn("exposed");
  ImGui::TableHeadersRow();
  for (const CommCost &cc : t.comm) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(cc.kind.c_str());
    ImGui::TableSetColumnIndex(1);
    ui::text_dim(cc.collective);
    ImGui::TableSetColumnIndex(2);
    ui::text_right(str(cc.group));
    ImGui::TableSetColumnIndex(3);
    ui::text_right(units::bytes(cc.bytes_per_device));
    ImGui::TableSetColumnIndex(4);
    ui::text_right(time_str(cc.time));
    ImGui::TableSetColumnIndex(5);
    ui::text_right(time_str(cc.exposed), cc.exposed > 0.05 * t.step ? &ui::color::warn : nullptr);
  }
  ImGui::EndTable();
  ui::table_export_end();
  ui::text_dim_wrapped("Per device, per step. 'time' if nothing overlapped; 'exposed' is what "
                       "stays on the critical path (docs/formulas.md 'Communication per layer').");
}

// [SECTION] stages table
void draw_stages(const Config &c, const Estimate &e) {
  const bool train = e.mode == Mode::train;
  ImGui::TextUnformatted("Memory per pipeline stage (one device)");
  ui::help_marker(train ? "Each stage's own layers / tp; stage 0 also holds the embedding, the "
                          "last stage the LM head. 'in flight' counts layer-micro-batches of "
                          "stored activations: 1F1B keeps min(p - j, m) micro-batches on stage "
                          "j, interleaved more, GPipe all m (docs/formulas.md)."
                        : "Each stage's own layers / tp at weight_dtype; KV cache of the "
                          "stage's layers for the replica's share of the batch.");
  const int cols = train ? 8 : 6;
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  const float rows_h =
      row_h * static_cast<float>(std::min<std::size_t>(e.stages.size(), 10) + 1) + 4;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  ui::table_export("stages");
  if (!ImGui::BeginTable("stages", cols, flags, ImVec2(0, rows_h)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("stage");
  ImGui::TableSetupColumn("layers");
  ImGui::TableSetupColumn("weights");
  if (train) {
    ImGui::TableSetupColumn("grads");
    ImGui::TableSetupColumn("optim.");
    ImGui::TableSetupColumn("activ.");
  } else {
    ImGui::TableSetupColumn("KV cache");
  }
  ImGui::TableSetupColumn("total");
  ImGui::TableSetupColumn("of HBM", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  const double cap = c.hardware.hbm_bytes;
  for (const StageMemory &st : e.stages) {
    const bool worst = st.stage == e.memory.worst_stage;
    const ImVec4 *col = worst ? &ui::color::warn : nullptr;
    ImGui::TableNextRow();
    int i = 0;
    ImGui::TableSetColumnIndex(i++);
    ui::text_right(str(st.stage) + (worst ? " *" : ""), col);
    ImGui::TableSetColumnIndex(i++);
    ui::text_right(str(st.layers), col);
    ImGui::TableSetColumnIndex(i++);
    ui::text_right(units::bytes(st.states.weights), col);
    if (train) {
      ImGui::TableSetColumnIndex(i++);
      ui::text_right(units::bytes(st.states.gradients), col);
      ImGui::TableSetColumnIndex(i++);
      ui::text_right(units::bytes(st.states.optimizer), col);
      ImGui::TableSetColumnIndex(i++);
      ui::text_right(units::bytes(st.activations.total()), col);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%.0f layer-micro-batches in flight", st.activations.layers_in_flight);
    } else {
      ImGui::TableSetColumnIndex(i++);
      ui::text_right(units::bytes(st.kv_cache), col);
    }
    ImGui::TableSetColumnIndex(i++);
    ui::text_right(units::bytes(st.total()), col);
    ImGui::TableSetColumnIndex(i++);
    // A small bar of total / capacity.
    const float w = ImGui::GetContentRegionAvail().x;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight() * 0.6f;
    const float y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
    const double frac = cap > 0 ? st.total() / cap : 0;
    ImDrawList *dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + w, y + h), ui::u32(ui::ink(0.06f)));
    dl->AddRectFilled(ImVec2(p.x, y),
                      ImVec2(p.x + w * static_cast<float>(std::min(frac, 1.0)), y + h),
                      ui::u32(frac <= 1.0 ? ui::color::ok : ui::color::error, 0.8f));
    ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s of %s (%s)", units::bytes(st.total()).c_str(),
                        units::bytes(cap).c_str(), units::percent(frac).c_str());
  }
  ImGui::EndTable();
  ui::table_export_end();
}

// [SECTION] activation terms
void draw_activation_terms(const Config &c, const Estimate &e) {
  const Layout &l = e.layout;
  if (e.mode != Mode::train) {
    ImGui::TextUnformatted("Activations");
    ui::text_dim_wrapped("Inference stores no activations across layers: the memory bar counts "
                         "one layer's prefill working set (" +
                         units::bytes(e.memory.activations) + ").");
    return;
  }
  ImGui::TextUnformatted("Activations of one layer");
  ui::help_marker(
      "One transformer layer, one micro-batch (b = " + str(l.microbatch) +
      ", s = " + str(c.workload.seq_len) +
      "), on one device, stored for the backward pass before "
      "recompute (Korthikanti et al. 2022; docs/formulas.md 'Activation memory'). bf16 "
      "tensors, 1-byte dropout masks. With TP t and SP every term is divided by t; without SP "
      "the norm inputs, QKV/MLP inputs and dropout masks stay whole. Ring CP and Ulysses divide "
      "every term by their degree. Selective recompute drops the s^2 terms; full keeps only "
      "the layer input.");
  const LayerActivations &a = e.act_terms;
  struct Term {
    const char *name, *formula;
    double bytes;
  };
  const Term terms[] = {
      {"norm inputs", "4sbh", a.norm_inputs},
      {"QKV input", "2sbh", a.qkv_input},
      {"Q, K for QK^T", "2sbd(a+k)", a.qk},
      {"V", "2sbdk", a.v},
      {"out-proj input", "2sbad", a.out_input},
      {"attention dropout mask", "sbh", a.attn_dropout},
      {"softmax output", "2as^2b", a.softmax},
      {"softmax dropout", "3as^2b", a.softmax_dropout},
      {"flash softmax stats", "4asb (fp32)", a.flash_stats},
      {"MLA latents", "2sb(r_q+r_kv+rope)", a.mla_latent},
      {"MLP input", "2sbh", a.mlp_input},
      {"MLP hidden", c.model.gated_mlp ? "6sbf" : "4sbf", a.mlp_hidden},
      {"MLP dropout mask", "sbh", a.mlp_dropout},
      {"router logits", "4sbE (fp32)", a.router},
  };
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  ui::table_export("acts");
  if (!ImGui::BeginTable("acts", 4, flags))
    return;
  ImGui::TableSetupColumn("term", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("formula");
  ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.00 MB").x);
  ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("100.0%").x);
  ImGui::TableHeadersRow();
  const double total = a.total();
  for (const Term &t : terms) {
    if (t.bytes <= 0)
      continue;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(t.name);
    ImGui::TableSetColumnIndex(1);
    ui::text_dim(t.formula);
    ImGui::TableSetColumnIndex(2);
    ui::text_right(units::bytes(t.bytes));
    ImGui::TableSetColumnIndex(3);
    ui::text_right(units::percent(total > 0 ? t.bytes / total : 0), &ui::color::dim);
  }
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextColored(ui::color::accent, "total per layer");
  ImGui::TableSetColumnIndex(2);
  ui::text_right(units::bytes(total), &ui::color::accent);
  ImGui::EndTable();
  ui::table_export_end();
  const std::string kept = l.recompute == Recompute::none ? "all stored"
                           : l.recompute == Recompute::selective
                               ? "selective recompute drops s^2 terms"
                               : "full recompute keeps the layer input";
  ui::text_dim_wrapped("Stage " + str(e.memory.worst_stage) + ": " +
                       units::bytes(e.memory.activations_layers) + " for the layers in flight (" +
                       kept + ").");
}

// When no layout has worked yet, the model's size still does not depend on it.
void draw_model_size_only(const AppState &s) {
  ui::text_dim_wrapped("Fix the field marked in red to see the estimate.");
  const auto &c = s.view_config();
  if (!c || c->model.family != ModelFamily::decoder)
    return;
  const ModelParams p = model_params(c->model);
  ImGui::Spacing();
  ImGui::TextUnformatted("Model size (does not depend on the layout)");
  ui::table_export("size_only");
  if (!ImGui::BeginTable("size_only", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("quantity", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("embedding + head  (?)").x + 40);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.00 B").x);
  auto row = [](const char *n, double v) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted(n);
    ImGui::TableSetColumnIndex(1);
    ui::text_right(units::count(v));
  };
  row("Parameters", d(p.total()));
  if (p.active() != p.total())
    row("Active / token", d(p.active()));
  row("one layer", d(p.dense_layer.total()));
  row("embedding + head", d(p.embedding + p.head));
  ImGui::EndTable();
  ui::table_export_end();
}

} // namespace

void draw_results_panel(const AppState &s) {
  const bool current = s.estimate().has_value();
  const std::optional<Estimate> &e = current ? s.estimate() : s.last_good();
  const std::optional<Config> &c = current ? s.view_config() : s.last_good_config();
  if (s.startup_error())
    ui::text_colored(ui::color::error, "The URL's configuration was rejected (" +
                                           s.startup_error()->text() +
                                           "); showing the default scenario.");
  if (!current && s.error()) {
    ui::text_colored(ui::color::error, "Error: " + s.error()->text());
    if (e)
      ui::text_dim("Below: the last valid configuration.");
  }
  if (!e || !c) {
    draw_model_size_only(s);
    return;
  }
  if (!current)
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  draw_headline(*c, *e);
  draw_kpis(*e, s.pinned());
  ImGui::Separator();
  // Two columns, each scrolling on its own when the window is small.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
  const float col_w = std::floor((avail.x - gap) * 0.5f);
  ImGui::BeginChild("left", ImVec2(col_w, avail.y));
  draw_size_and_compute(*c, *e);
  ImGui::Spacing();
  if (e->has_time)
    draw_step_time(*c, *e);
  else if (e->has_serving)
    draw_serving(*e);
  ImGui::EndChild();
  ImGui::SameLine(0, gap);
  const ImVec2 sep = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddLine(ImVec2(sep.x - gap * 0.5f, sep.y),
                                      ImVec2(sep.x - gap * 0.5f, sep.y + avail.y),
                                      ImGui::GetColorU32(ImGuiCol_Separator));
  ImGui::BeginChild("right", ImVec2(0, avail.y));
  draw_memory_bar(*c, *e);
  ImGui::Spacing();
  if (ImGui::BeginTabBar("details")) {
    if (ImGui::BeginTabItem("Stages")) {
      draw_stages(*c, *e);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Activations")) {
      draw_activation_terms(*c, *e);
      ImGui::EndTabItem();
    }
    if (e->has_time && ImGui::BeginTabItem("Communication")) {
      draw_comm(*e);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  if (!current)
    ImGui::PopStyleVar();
}

} // namespace rl::web
