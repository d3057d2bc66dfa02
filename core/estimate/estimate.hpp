// ridgeline estimate: one configuration -> parameters, FLOPs and memory per device.
// Exact accounting only (docs/formulas.md); no efficiency factors here.
#pragma once

#include "core/config.hpp"
#include "core/estimate/goodput.hpp"
#include "core/inference/serving.hpp"
#include "core/memory/activations.hpp"
#include "core/memory/model_states.hpp"
#include "core/model/flops.hpp"
#include "core/model/params.hpp"
#include "core/parallel/layout.hpp"
#include "core/time/step_time.hpp"

#include <string>
#include <vector>

namespace rl {

struct StageMemory {
  i64 stage = 0;
  i64 layers = 0;
  double params = 0; // parameters on one device of this stage
  ModelStateBytes states;
  StageActivations activations;
  double kv_cache = 0;
  double total() const { return states.total() + activations.total() + kv_cache; }
};

struct MemorySummary { // the worst stage
  double weights = 0, gradients = 0, optimizer = 0;
  double activations = 0, activations_layers = 0, kv_cache = 0;
  double total = 0, capacity = 0;
  double reserve = 0; // hardware.memory_reserve: fits means total <= capacity - reserve
  bool fits = false;
  i64 worst_stage = 0;
  i64 max_batch = 0; // inference: sequences of prompt+gen that fit
};

struct Throughput {
  double tokens_per_s = 0;
  // MFU in the 6N + 12 L h s convention (PaLM, Megatron: the whole attention square counted),
  // and with the causal half only (the FLOPs a causal FlashAttention kernel executes).
  double mfu = 0, mfu_causal = 0, hfu = 0;
  double tflops_per_device = 0;          // model FLOP/s per device, in FLOP/s
  double hardware_tflops_per_device = 0; // with recompute (Megatron's "TFLOP/s per GPU")
};

// Energy of training (hardware.power_w given; docs/formulas.md "Energy"): each device's and
// its host share's draw, the clock a power cap leaves, the job's facility power; per token and
// per step; with train_tokens over the whole run (its wall time, interruptions included) and
// its electricity cost.
struct TrainEnergy {
  bool known = false;
  double device_w = 0, host_w = 0, clock = 1, facility_w = 0;
  double joules_per_token = 0, kwh_per_step = 0, mwh_to_train = 0, cost_to_train = 0;
};

struct Estimate {
  Mode mode = Mode::train;
  Layout layout;
  ModelParams params;
  i64 total_params = 0, active_params = 0;
  double tokens_per_step = 0;
  ModelFlops forward;                     // whole global batch, one forward pass
  ModelFlops forward_per_microbatch;      // one micro-batch on one pipeline (before TP split)
  double model_flops_per_step = 0;        // 6N + 12 L h s convention
  double model_flops_per_step_causal = 0; // the causal half of the attention square
  double hardware_flops_per_step = 0;
  double model_flops_per_token = 0;
  LayerActivations act_terms; // one dense layer, one micro-batch, one device, stored
  std::vector<StageMemory> stages;
  MemorySummary memory;
  double kv_bytes_per_token = 0; // whole model, all layers
  bool has_time = false;
  StepTime time; // training
  Throughput throughput;
  bool has_serving = false;
  ServingEstimate serving; // inference
  double uncertainty = 0;  // relative band on times (hardware.time_uncertainty)
  // Training with workload.train_tokens: whole steps to consume the budget, their time with
  // the interruptions and checkpoints (resilience), and (with hardware.price_per_hour) the
  // cost; cost_per_hour needs only the price.
  double train_steps = 0, time_to_train = 0;
  double cost_per_hour = 0, cost_to_train = 0;
  double trained_params = 0; // the weights the step updates (a LoRA's: its adapters)
  Resilience resilience;     // with train_tokens
  TrainEnergy energy;        // with hardware.power_w
};

// Rates and totals of a training step of `step` seconds on `devices` devices: tokens/s, and
// with workload.train_tokens the whole steps to consume them, their time with the
// interruptions and checkpoints (resilience) and (with hardware.price_per_hour) their cost; the
// energy with hardware.power_w.
struct TrainTotals {
  double tokens_per_s = 0, train_steps = 0, time_to_train = 0;
  double cost_per_hour = 0, cost_to_train = 0;
  double trained_params = 0;
  Resilience resilience;
  TrainEnergy energy;
};
// `trained_params`: trainable_params of the configuration (counted once by the caller, not for
// every step time the planner ranks).
TrainTotals train_totals(const Config &c, double tokens_per_step, double step, double devices,
                         double trained_params);

// The relative band on predicted times: hardware.time_uncertainty, widened to
// hardware.fp8_uncertainty for FP8 (its efficiency is not fitted to a training run).
double time_band(const Config &c);

// The band around a predicted time t with relative uncertainty u: [t (1 - u), t (1 + u)];
// around a rate r that divides by the time (MFU, tokens/s): [r / (1 + u), r / (1 - u)].
// One rule for the CLI, the JSON and the page.
struct Band {
  double low = 0, high = 0;
};
Band time_band_of(double t, double u);
Band rate_band_of(double r, double u);

// with_time = false stops after memory (the planner's cheap pre-check).
Estimate estimate(const Config &c, bool with_time = true);

// The serving curve of an inference estimate (How to Scale Your Model ch. 7): decode over
// sweep_batches. One TPOT definition everywhere: each row's step is the mean over a
// request's decode steps, at the mean context prompt + gen/2 (as Results' TPOT); its memory
// and fit are at the final context prompt + gen (the memory that must fit).
struct DecodeCurve {
  double context = 0;        // of the times: prompt + gen/2
  double memory_context = 0; // of the memory: prompt + gen
  double critical_batch = 0;
  std::vector<DecodeStep> rows;
};
DecodeCurve decode_curve(const Config &c, const Estimate &e);

} // namespace rl
