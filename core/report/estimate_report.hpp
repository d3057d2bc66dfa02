// ridgeline report: an estimate as the headline, tables and summary lines that both
// `ridgeline estimate` and the page's Results panel show. Every label, unit, band and
// derived value (shares, ratios, the band's ends) is made here once; the CLI prints the
// tables as text, the page draws them (and its bars from the same rows).
#pragma once

#include "core/config.hpp"
#include "core/estimate/estimate.hpp"
#include "core/report/table.hpp"

#include <string>
#include <vector>

namespace rl {

// A line of text with its explanation.
struct ReportText {
  std::string text, help;
};

struct EstimateReport {
  std::string title;    // "Llama 3 70B on 1024 x H100 SXM (dgx-h100-1024)"
  std::string workload; // "train: global batch 1024 x seq 8192 = 8,388,608 tokens/step, bf16"
  std::string layout;   // "dp 16 x tp 8 x pp 4 x cp 1, ep 1, SP, ZeRO-1, ..."
  // Tables (empty where the mode has none): size and compute, forward FLOPs of one layer,
  // memory of the worst stage, and per stage; training: step time and its communication,
  // the activations of one layer; inference: the decode step and the serving numbers.
  ReportTable size, layer_flops, memory, stages;
  ReportTable step_time, comm, activations;
  ReportTable decode_step, serving;
  // Training: the run with its interruptions and checkpoints, its energy and its cost
  // (workload.train_tokens, hardware.power_w, hardware.price_per_hour; empty without them).
  ReportTable run;
  // Training: the step with its band and tokens/s; MFU with its band, causal MFU, HFU.
  std::vector<ReportText> summary;
};

EstimateReport estimate_report(const Config &c, const Estimate &e);

// The decode latency-throughput curve (How to Scale Your Model ch. 7), one row per batch:
// batch, memory/chip, fits, KV / weights / FLOPs / comm times, TPOT, tokens/s (all chips and
// per chip), bound, and a note (critical, workload, no fit). `ridgeline estimate --sweep
// batch` prints it; the page's serving curve draws it beside the plot.
ReportTable decode_curve_table(const DecodeCurve &curve, double workload_batch);

// A fine-tune in words: "lora r16 on qkv o, nf4 base".
std::string finetune_text(const FinetuneSpec &f);

// The layout in words, as the headline shows it.
std::string layout_line(const Estimate &e);

} // namespace rl
