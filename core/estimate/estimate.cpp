#include "core/estimate/estimate.hpp"

#include "core/error.hpp"
#include "core/estimate/energy.hpp"
#include "core/inference/serving.hpp"
#include "core/model/lora.hpp"
#include "core/time/step_time.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

namespace {

void check_supported(const Config &c) {
  if (c.model.family == ModelFamily::stdit3)
    throw ConfigError("model.family", "stdit3 models are mapped by `ridgeline tx8` (video mode)");
  if (c.workload.mode == Mode::tx8_op || c.workload.mode == Mode::video)
    throw ConfigError("workload.mode", std::string("mode ") +
                                           (c.workload.mode == Mode::video ? "video" : "tx8-op") +
                                           " is handled by `ridgeline tx8`");
  if (c.workload.mode == Mode::serve)
    throw ConfigError("workload.mode",
                      "mode serve is simulated by `ridgeline serve` (and planned by "
                      "`ridgeline plan`)");
  if (c.hardware.kind == HardwareKind::tx8)
    throw ConfigError("hardware", "tx8 dies are modelled by `ridgeline tx8`");
  check_precision_peak(c.hardware, c.workload.precision);
}

// Inference memory on stage j at the final context (inference_stage_bytes).
StageMemory inference_stage(const Config &c, const Layout &l, i64 stage, i64 batch) {
  const WorkloadSpec &w = c.workload;
  const InferenceStageBytes b = inference_stage_bytes(
      c, l, stage, static_cast<double>(batch), static_cast<double>(w.prompt_len + w.gen_len));
  StageMemory s;
  s.stage = stage;
  s.layers = static_cast<i64>(b.layers);
  s.params = b.params;
  s.states.weights = b.weights;
  s.kv_cache = b.kv;
  s.activations.layers = b.working_set;
  s.activations.layers_in_flight = 1;
  return s;
}

} // namespace

double time_band(const Config &c) {
  const HardwareSpec &hw = c.hardware;
  return is_scaled_float(c.workload.precision) ? std::max(hw.time_uncertainty, hw.fp8_uncertainty)
                                               : hw.time_uncertainty;
}

Band time_band_of(double t, double u) {
  return {t * (1 - u), t * (1 + u)};
}

Band rate_band_of(double r, double u) {
  // u < 1 (the parser's kMaxUncertainty): the upper bound stays finite
  return {r / (1 + u), r / std::max(1e-9, 1 - u)};
}

TrainTotals train_totals(const Config &c, double tokens_per_step, double step, double devices,
                         double trained_params) {
  TrainTotals t;
  t.tokens_per_s = tokens_per_step / step;
  t.cost_per_hour = c.hardware.price_per_hour * devices;
  t.trained_params = trained_params;
  // Time and cost to train: whole steps (the last one is a full step too), their wall time with
  // the interruptions and checkpoints (core/estimate/goodput).
  if (c.workload.train_tokens > 0) {
    t.train_steps = std::ceil(c.workload.train_tokens / tokens_per_step);
    t.resilience = resilience(c, devices, t.trained_params, t.train_steps * step);
    t.time_to_train = t.resilience.wall_s;
    t.cost_to_train = t.cost_per_hour * t.time_to_train / 3600;
  }
  const PowerState ps = power_state(c.hardware, c.cluster, c.workload.power_cap_w);
  if (ps.device_w > 0) {
    TrainEnergy &e = t.energy;
    const EnergyUse per_step = energy_use(ps, c.cluster, devices, step, tokens_per_step);
    e.known = true;
    e.device_w = ps.device_w;
    e.host_w = ps.host_w;
    e.clock = ps.clock;
    e.facility_w = per_step.facility_w;
    e.joules_per_token = per_step.joules_per_token;
    e.kwh_per_step = per_step.kwh;
    if (t.time_to_train > 0) { // the whole run's wall time draws power, restarts included
      const EnergyUse run = energy_use(ps, c.cluster, devices, t.time_to_train, 0);
      e.mwh_to_train = run.kwh / 1000;
      e.cost_to_train = run.cost;
    }
  }
  return t;
}

Estimate estimate(const Config &c, bool with_time) {
  // Under a power cap the chip computes at the capped clock (core/estimate/energy).
  if (c.hardware.capped_clock == 1 &&
      power_state(c.hardware, c.cluster, c.workload.power_cap_w).capped)
    return estimate(at_power_cap(c), with_time);
  check_supported(c);
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  Estimate e;
  e.mode = w.mode;
  e.layout = resolve_layout(c);
  const Layout &l = e.layout;
  e.params = model_params(m);
  e.total_params = e.params.total();
  e.active_params = e.params.active();
  e.kv_bytes_per_token = kv_cache_bytes_per_token(m, w.kv_dtype);

  if (w.mode == Mode::train) {
    const double s = static_cast<double>(w.seq_len);
    const double B = static_cast<double>(w.global_batch);
    e.tokens_per_step = B * s;
    // Model FLOPs in the 6N + 12 L h s convention (the whole attention square; PaLM,
    // Megatron); the causal count and the executed (hardware) FLOPs beside them.
    const bool skip = skips_causal_half(w.causal_skip, l);
    e.forward = model_forward_flops(m, B, s, false);
    e.forward_per_microbatch = model_forward_flops(m, static_cast<double>(l.microbatch), s, false);
    if (w.finetune && w.finetune->adapters()) {
      // a frozen base: no weight gradients but the adapters' (core/model/flops)
      const double adapters = 2 * lora_params(m, *w.finetune).active * e.tokens_per_step;
      const ModelFlops executed = model_forward_flops(m, B, s, skip);
      e.model_flops_per_step = adapter_training_flops(e.forward, adapters);
      e.model_flops_per_step_causal =
          adapter_training_flops(model_forward_flops(m, B, s, true), adapters);
      e.hardware_flops_per_step = adapter_training_flops(executed, adapters) +
                                  recompute_flops(executed, l.recompute) +
                                  (l.recompute == Recompute::full ? adapters : 0.0);
    } else {
      e.model_flops_per_step = training_model_flops(e.forward);
      e.model_flops_per_step_causal = training_model_flops(model_forward_flops(m, B, s, true));
      e.hardware_flops_per_step =
          training_hardware_flops(model_forward_flops(m, B, s, skip), l.recompute);
    }
    e.model_flops_per_token = e.model_flops_per_step / e.tokens_per_step;
    e.act_terms = layer_activations(m, false, static_cast<double>(l.microbatch), s,
                                    act_layout(l, c.workload.precision));
    const Bf16Layers hp = bf16_layers(c.workload);
    const std::vector<StageLayerCount> mix = stage_layer_mix(m, l, hp);
    const LayerActivationBytes per_layer =
        layer_activation_bytes(m, l, s, c.workload.precision, hp.first > 0 || hp.last > 0);
    for (i64 j = 0; j < l.pp; ++j) {
      const StageLayerCount &n = mix[static_cast<std::size_t>(j)];
      StageMemory st;
      st.stage = j;
      st.layers = n.total();
      const StageParams p = stage_params(m, e.params, l, j, n);
      st.params = p.total();
      st.states = stage_training_states(c, e.params, l, p, n);
      st.activations = stage_activations(m, l, j, s, n, per_layer, w.ce_fusion);
      e.stages.push_back(st);
    }
    if (with_time) {
      e.time = training_step_time(c, l);
      e.has_time = true;
    }
    if (with_time) {
      const double devices = static_cast<double>(l.devices());
      Throughput &tp = e.throughput;
      const TrainTotals tt = train_totals(c, e.tokens_per_step, e.time.step, devices,
                                          trainable_params(m, e.params, w.finetune));
      tp.tokens_per_s = tt.tokens_per_s;
      tp.tflops_per_device = e.model_flops_per_step / (e.time.step * devices);
      tp.hardware_tflops_per_device = e.hardware_flops_per_step / (e.time.step * devices);
      tp.mfu = tp.tflops_per_device / e.time.peak;
      tp.mfu_causal = e.model_flops_per_step_causal / (e.time.step * devices) / e.time.peak;
      tp.hfu = tp.hardware_tflops_per_device / e.time.peak;
      e.cost_per_hour = tt.cost_per_hour;
      e.train_steps = tt.train_steps;
      e.time_to_train = tt.time_to_train;
      e.cost_to_train = tt.cost_to_train;
      e.resilience = tt.resilience;
      e.trained_params = tt.trained_params;
      e.energy = tt.energy;
    }
    e.uncertainty = time_band(c);
  } else { // inference: one forward over the prompt, then gen_len decode steps
    const double B = static_cast<double>(w.batch);
    const double s = static_cast<double>(w.prompt_len);
    e.tokens_per_step = B * static_cast<double>(w.gen_len);
    e.forward = model_forward_flops(m, B, s, skips_causal_half(w.causal_skip, l));
    e.forward_per_microbatch = e.forward;
    e.model_flops_per_step = e.forward.forward();
    e.hardware_flops_per_step = e.model_flops_per_step;
    e.model_flops_per_token = 2.0 * static_cast<double>(e.active_params); // decode, per token
    for (i64 j = 0; j < l.pp; ++j)
      e.stages.push_back(inference_stage(c, l, j, w.batch));
    if (with_time) {
      e.serving = serving(c, l);
      e.has_serving = true;
    }
    e.uncertainty = time_band(c);
  }

  // Worst stage.
  const auto worst = std::max_element(
      e.stages.begin(), e.stages.end(),
      [](const StageMemory &a, const StageMemory &b) { return a.total() < b.total(); });
  const StageMemory &ws = *worst;
  MemorySummary &mem = e.memory;
  mem.worst_stage = ws.stage;
  mem.weights = ws.states.weights;
  mem.gradients = ws.states.gradients;
  mem.optimizer = ws.states.optimizer;
  mem.activations = ws.activations.total();
  mem.activations_layers = ws.activations.layers;
  mem.kv_cache = ws.kv_cache;
  mem.total = ws.total();
  mem.capacity = c.hardware.hbm_bytes;
  mem.reserve = memory_reserve(c.hardware);
  mem.fits = mem.total <= usable_memory(c.hardware);
  if (w.mode == Mode::infer)
    mem.max_batch = e.serving.max_batch;
  return e;
}

DecodeCurve decode_curve(const Config &c, const Estimate &e) {
  DecodeCurve out;
  const double prompt = static_cast<double>(c.workload.prompt_len);
  const double gen = static_cast<double>(c.workload.gen_len);
  out.context = prompt + gen / 2;
  out.memory_context = prompt + gen;
  out.critical_batch = e.serving.critical_batch;
  const auto batches = sweep_batches(e.memory.max_batch, e.layout.dp, e.serving.critical_batch);
  const auto last = batch_sweep(c, e.layout, batches, out.memory_context);
  out.rows = batch_sweep(c, e.layout, batches, out.context);
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    out.rows[i].memory_per_device = last[i].memory_per_device;
    out.rows[i].fits = last[i].fits;
  }
  return out;
}

} // namespace rl
