#include "core/schema/fields.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

namespace rl::schema {

std::string FieldInfo::path() const {
  return *object ? std::string(object) + "." + key : std::string(key);
}

namespace {

template <class S> Field<S> num(double S::*m, FieldInfo i) {
  i.type = FieldType::number;
  return {i, m, nullptr, nullptr};
}
template <class S> Field<S> integer(i64 S::*m, FieldInfo i) {
  i.type = FieldType::integer;
  return {i, nullptr, m, nullptr};
}
template <class S> Field<S> flag(bool S::*m, FieldInfo i) {
  i.type = FieldType::boolean;
  return {i, nullptr, nullptr, m};
}

template <class T> struct member_of;
template <class S, class T> struct member_of<T S::*> {
  using owner = S;
  using type = T;
};
// An enum member, read and written by its names (core/schema/choices).
template <auto M> auto choice(FieldInfo i) {
  using S = typename member_of<decltype(M)>::owner;
  using E = typename member_of<decltype(M)>::type;
  i.type = FieldType::choice;
  i.choices = &choices<E>();
  Field<S> f{i};
  f.get = [](const S &s) { return static_cast<int>(s.*M); };
  f.set = [](S &s, int v) { s.*M = static_cast<E>(v); };
  return f;
}

// FieldInfo{object, key, type, lo, hi, unit, label, scale, format, help, group, modes, custom,
// vllm}
constexpr auto N = FieldType::number;

} // namespace

const std::vector<Field<ModelSpec>> &model_fields() {
  using M = ModelSpec;
  const Modes lm = kGpuModes; // a language model's (a video DiT has no KV cache or vocabulary)
  const char *more = "More";
  static const std::vector<Field<M>> t = {
      integer(&M::layers, {"", "layers", N, 1, kMaxLayers, "", "Layers  L", 1, "",
                           "Transformer blocks (num_hidden_layers).", "", kAllModes, true, "", 1}),
      integer(&M::hidden, {"", "hidden", N, 1, kMaxDim, "", "Hidden  h", 1, "",
                           "Model width (hidden_size).", "", kAllModes, true}),
      integer(&M::ffn, {"", "ffn", N, 1, kMaxDim, "", "MLP hidden  f", 1, "",
                        "MLP inner width (intermediate_size). Gated (SwiGLU) MLPs have 3 "
                        "matrices h x f, plain (GeLU) 2. Required unless every layer is MoE.",
                        "", kAllModes, true}),
      integer(&M::heads, {"", "heads", N, 1, kMaxDim, "", "Heads  a", 1, "",
                          "Query heads (num_attention_heads).", "", kAllModes, true, "", 1}),
      integer(&M::kv_heads,
              {"", "kv_heads", N, 1, kMaxDim, "", "KV heads  k", 1, "",
               "Key/value heads: k = a is multi-head, k = 1 multi-query, otherwise grouped-query "
               "attention. Must divide a; defaults to a.",
               "", lm, true, "", 1}),
      integer(&M::head_dim, {"", "head_dim", N, 1, kMaxDim, "", "Head dim  d", 1, "",
                             "Per-head width; defaults to h / a.", "", kAllModes, true}),
      integer(&M::vocab, {"", "vocab", N, 1, kMaxDim, "", "Vocabulary  v", 1, "",
                          "Embedding rows; the LM head is v x h too.", "", lm, true}),
      flag(&M::gated_mlp, {"", "gated_mlp", N, 0, 1, "", "Gated MLP", 1, "",
                           "SwiGLU: gate, up and down matrices (3hf parameters) instead of 2hf. "
                           "On by default for a decoder.",
                           "", lm, true}),
      flag(&M::tied_embeddings,
           {"", "tied_embeddings", N, 0, 1, "", "Tied embeddings", 1, "",
            "The LM head reuses the embedding matrix (no second v x h).", "", lm}),
      flag(&M::qkv_bias,
           {"", "qkv_bias", N, 0, 1, "", "Q/K/V bias", 1, "",
            "Biases on the Q, K, V projections (Qwen2); default: `bias`.", more, lm, true}),
      flag(&M::o_bias,
           {"", "o_bias", N, 0, 1, "", "Output bias", 1, "",
            "Bias on the attention output projection; default: `bias`.", more, lm, true}),
      flag(&M::mlp_bias, {"", "mlp_bias", N, 0, 1, "", "MLP bias", 1, "",
                          "Biases on the MLP matrices; default: `bias`.", more, lm, true}),
      flag(&M::dropout, {"", "dropout", N, 0, 1, "", "Dropout", 1, "",
                         "Dropout masks kept for backward (1 byte per element; Korthikanti et "
                         "al. 2022's activation count).",
                         more, lm}),
      flag(&M::learned_pos_emb, {"", "learned_pos_emb", N, 0, 1, "", "Learned positions", 1, "",
                                 "A learned position-embedding table of max_seq x h (GPT-2/3); "
                                 "off: rotary (RoPE).",
                                 more, lm}),
      integer(&M::max_seq, {"", "max_seq", N, 0, kMaxCount, "", "Max sequence", 1, "",
                            "Context length (max_position_embeddings); required with "
                            "learned_pos_emb.",
                            more, lm, true}),
      num(&M::rope_theta, {"", "rope_theta", N, 1.0, 1e12, "", "RoPE base", 1, "%.0f",
                           "RoPE base (rope_theta; Su et al. 2021). Changes no count; exported "
                           "as Megatron-LM --rotary-base. Absent: not given.",
                           more, lm, true}),
      num(&M::rope_scaling,
          {"", "rope_scaling", N, 1.0, 1e6, "", "RoPE scaling", 1, "%.0f",
           "Llama 3.x RoPE scaling factor (config.json rope_scaling.factor, rope_type llama3). "
           "Changes no count; exported as Megatron-LM --use-rope-scaling "
           "--rope-scaling-factor. Absent: none.",
           more, lm, true}),
  };
  return t;
}

const std::vector<Field<MoeSpec>> &moe_fields() {
  using E = MoeSpec;
  static const std::vector<Field<E>> t = {
      integer(&E::experts,
              {"moe", "experts", N, 1, 1 << 20, "", "Experts  E", 1, "",
               "Routed experts per MoE layer (num_local_experts).", "", kAllModes, true, "", 1}),
      integer(&E::top_k, {"moe", "top_k", N, 1, 1 << 20, "", "Top-k", 1, "",
                          "Routed experts each token visits (num_experts_per_tok); at most E.", "",
                          kAllModes, true, "", 1}),
      integer(&E::expert_ffn,
              {"moe", "expert_ffn", N, 1, kMaxDim, "", "Expert MLP  f_e", 1, "",
               "MLP width of one expert (moe_intermediate_size).", "", kAllModes, true}),
      integer(&E::shared_experts,
              {"moe", "shared_experts", N, 0, 1024, "", "Shared experts", 1, "",
               "Always-on experts of width f_e (DeepSeek).", "", kAllModes, false, "", 1}),
      integer(&E::every, {"moe", "every", N, 1, kMaxLayers, "", "MoE every", 1, "",
                          "An MoE layer every this many layers, the others dense (at most the "
                          "layers).",
                          "", kAllModes, true}),
      integer(&E::first_dense, {"moe", "first_dense", N, 0, kMaxLayers, "", "First dense", 1, "",
                                "The first this many layers are dense (DeepSeek "
                                "first_k_dense_replace; at most the layers).",
                                "", kAllModes, true}),
  };
  return t;
}

// A row drawn only while another field holds one of some values (FieldInfo::shown_with).
template <class F> F shown_with(F f, const char *condition) {
  f.info.shown_with = condition;
  return f;
}

const std::vector<Field<WorkloadSpec>> &workload_fields() {
  using W = WorkloadSpec;
  const Modes tr = mode_bit(Mode::train), in = mode_bit(Mode::infer), sv = mode_bit(Mode::serve),
              vd = mode_bit(Mode::video);
  // FieldInfo{object, key, type, lo, hi, unit, label, scale, format, help, group, modes,
  // custom, vllm, step, omit_zero}
  static const std::vector<Field<W>> t = {
      integer(&W::global_batch,
              {"", "global_batch", N, 1, kMaxCount, "seq", "Global batch  B", 1, "",
               "Sequences per optimizer step, over all data-parallel "
               "replicas (required).",
               "shape", tr, true}),
      integer(&W::seq_len, {"", "seq_len", N, 1, kMaxCount, "tokens", "Sequence  s", 1, "",
                            "Tokens per sequence (required).", "shape", tr, true}),
      num(&W::train_tokens,
          {"", "train_tokens", N, 1.0, 1e18, "tokens", "Tokens (1e12)", 1e-12, "%.4g",
           "Tokens the whole run trains on, shown in trillions (1e12): 15 is 15e12 tokens (the "
           "JSON holds tokens); absent: not given. Results then "
           "give the time (whole steps) and, with the accelerator's price, the "
           "cost to train; the planner can rank by them.",
           "plan", tr, false, "", 0, true}),
      num(&W::power_cap_w,
          {"", "power_cap_w", N, 0.0, 1e5, "W", "Power cap W", 1, "%.0f",
           "A power cap per GPU (nvidia-smi -pl): the clock falls to (cap / load power)^(1/"
           "hardware.power_clock_exponent) and the compute with it; absent: none.",
           "plan", tr | sv, false, "", 0, true}),
      num(&W::deadline_days, {"", "deadline_days", N, 1e-3, 1e5, "days", "Deadline", 1, "%.0f days",
                              "Training must finish the token budget within this many days "
                              "(needs train_tokens; absent: none); the planner returns the "
                              "fastest and the cheapest choices that do.",
                              "plan", tr, true, "", 0, true}),
      flag(&W::fp32_grads, {"", "fp32_grads", N, 0, 1, "", "fp32 grads", 1, "",
                            "Gradients accumulated and reduced in fp32 (4 B/param): on by default "
                            "for bf16 and fp8, as Megatron-LM forces it "
                            "(--accumulate-allreduce-grads-in-fp32).",
                            "", tr, true}),
      flag(&W::bf16_moments,
           {"", "bf16_moments", N, 0, 1, "", "BF16 moments", 1, "",
            "Adam's first and second moments in BF16, the fp32 master weights kept (DeepSeek-V3 "
            "sec. 3.3.3; Megatron-LM --use-precision-aware-optimizer --exp-avg-dtype bf16 "
            "--exp-avg-sq-dtype bf16): 8 B of optimizer state a parameter instead of 12. Off "
            "when absent.",
            "", tr}),
      shown_with(
          flag(&W::fp8_params, {"", "fp8_params", N, 0, 1, "", "FP8 params", 1, "",
                                "The module weights kept in FP8 (Megatron-LM --fp8-param-gather, "
                                "NeMo fp8_params): 1 B/param in memory and in the data-parallel "
                                "all-gather; the fp32 master copy stays in the optimizer. FP8 "
                                "precisions only.",
                                "", tr}),
          "precision=fp8|mxfp8"),
      flag(&W::ce_fusion, {"", "ce_fusion", N, 0, 1, "", "Fused loss", 1, "",
                           "The loss in one pass over the logits, its gradient written in the "
                           "forward (Megatron-LM --cross-entropy-loss-fusion): 8 B a logit "
                           "against the unfused 52 (docs/formulas.md).",
                           "", tr}),
      flag(&W::causal_skip, {"", "causal_skip", N, 0, 1, "", "Causal skip", 1, "",
                             "FlashAttention skips the masked half of a causal score matrix (Dao "
                             "2023). On by default; no effect without FlashAttention. MFU counts "
                             "the whole square either way (6N + 12 L h s); Results also gives the "
                             "causal MFU.",
                             "", tr | in}),
      num(&W::moe_imbalance, {"", "moe_imbalance", N, 1.0, 64.0, "", "MoE imbalance", 1, "%.2f x",
                              "Tokens on the busiest expert-parallel rank over the mean (1: "
                              "uniform routing): its expert GEMMs and AllToAll grow by it.",
                              "moe", tr}),
      num(&W::moe_capacity_factor,
          {"", "moe_capacity_factor", N, 0.0, 64.0, "", "Capacity factor", 1, "%.2f",
           "Megatron's --moe-expert-capacity-factor: tokens beyond it are dropped, so it caps the "
           "imbalance (0: no dropping; else at least 1).",
           "moe", tr}),
      shown_with(
          flag(&W::moe_fp8_dispatch,
               {"", "moe_fp8_dispatch", N, 0, 1, "", "FP8 dispatch", 1, "",
                "The experts' dispatch (forward) and the combine's gradient (backward) sent in "
                "FP8: 1 B an element and its scales (DeepSeek-V3 sec. 3.3.2: 1x128 fp32 scales "
                "with the blockwise recipe; Megatron-LM --moe-dispatch-fwd-dtype mxfp8 "
                "--moe-combine-bwd-dtype mxfp8 otherwise). The combine and the dispatch's "
                "gradient stay bf16.",
                "moe", tr}),
          "precision=fp8|mxfp8|fp4|nvfp4|mxfp4"),
      integer(&W::batch, {"", "batch", N, 1, kMaxCount, "seq", "Batch", 1, "",
                          "Sequences decoded together (required).", "shape", in, true, "", 1}),
      integer(&W::prompt_len,
              {"", "prompt_len", N, 1, kMaxCount, "tokens", "Prompt tokens", 1, "",
               "Prompt length per sequence (required; serve: the mean).", "shape", in | sv, true}),
      integer(&W::gen_len, {"", "gen_len", N, 0, kMaxCount, "tokens", "Output tokens", 1, "",
                            "Tokens generated per sequence (serve: the mean).", "shape", in | sv}),
      num(&W::request_rate, {"", "request_rate", N, 0.0, 1e9, "req/s", "Request rate", 1, "%.3g",
                             "Requests per second a disaggregated prefill/decode deployment is "
                             "sized for (with ttft_target and tpot_target; absent: not asked).",
                             "Disaggregated deployment", in, false, "", 0, true}),
      num(&W::ttft_target, {"", "ttft_target", N, 0.0, 3600.0, "s", "TTFT target", 1e3, "%.0f ms",
                            "Time to first token the deployment must meet (with request_rate).",
                            "Disaggregated deployment", in, false, "", 0, true}),
      num(&W::tpot_target, {"", "tpot_target", N, 0.0, 3600.0, "s", "TPOT target", 1e3, "%.1f ms",
                            "Time per output token the deployment must meet (with request_rate).",
                            "Disaggregated deployment", in, false, "", 0, true}),
      // The number formats, and how serving is timed (train, infer and serve; the page draws
      // the "types" group under the shape).
      choice<&W::precision>({"", "precision", N, 0, 0, "", "Precision", 1, "",
                             "Compute dtype of the linear layers' GEMMs: fp8/mxfp8 at the chip's "
                             "FP8 peak, fp4 (NVFP4)/mxfp4 at its FP4 peak (a chip without one is "
                             "refused).",
                             "types", tr | in | sv}),
      choice<&W::framework>(
          {"", "framework", N, 0, 0, "", "Framework", 1, "",
           "The framework the layout must launch on: its own rules join the core's in the "
           "planner and the estimate (Megatron-Core: each pipeline stage's layers divisible by "
           "vpp, an uneven split only as first/last stage counts; DeepSpeed: ZeRO 0-1 with "
           "pipeline parallelism, no interleaving). any: the core's rules alone.",
           "types", tr}),
      shown_with(
          choice<&W::fp8_recipe>(
              {"", "fp8_recipe", N, 0, 0, "", "FP8 recipe", 1, "",
               "Megatron-LM's --fp8-recipe for precision fp8: delayed (amax history; the amax "
               "inside the cast), tensorwise (current scaling: an amax pass before each cast), "
               "blockwise (DeepSeek-V3's 1x128 / 128x128 tiles). Sets the quantisation kernels "
               "around the GEMMs (docs/calibration.md). Serving: the checkpoint's scaling; an "
               "engine that fuses per-tensor quantisation (TensorRT-LLM) keeps blockwise's "
               "quantise kernel apart (docs/serving.md).",
               "types", tr | sv}),
          "precision=fp8"),
      shown_with(integer(&W::bf16_first_layers,
                         {"", "bf16_first_layers", N, 0, kMaxLayers, "", "BF16 first layers", 1, "",
                          "Layers at the start of the model kept in BF16 under an FP8/FP4 "
                          "precision (Megatron-LM --first-last-layers-bf16 "
                          "--num-layers-at-start-in-bf16; NVFP4 recipes keep a few): their "
                          "GEMMs at the bf16 peak, no casts, bf16 saved inputs.",
                          "types", tr, false, "", 1, true}),
                 "precision=fp8|mxfp8|fp4|nvfp4|mxfp4"),
      shown_with(integer(&W::bf16_last_layers,
                         {"", "bf16_last_layers", N, 0, kMaxLayers, "", "BF16 last layers", 1, "",
                          "Layers at the end of the model kept in BF16 under an FP8/FP4 "
                          "precision (Megatron-LM --num-layers-at-end-in-bf16).",
                          "types", tr, false, "", 1, true}),
                 "precision=fp8|mxfp8|fp4|nvfp4|mxfp4"),
      choice<&W::weight_dtype>({"", "weight_dtype", N, 0, 0, "", "Weights dtype", 1, "",
                                "Bytes per weight: bf16 2, fp8/int8 1, mxfp8 1.03125, fp4 (NVFP4) "
                                "0.5625, mxfp4 0.53125, int4 0.515625 (block scales included); "
                                "weight-only below the precision: dequantised to its GEMMs.",
                                "types", in | sv}),
      choice<&W::kv_dtype>({"", "kv_dtype", N, 0, 0, "", "KV cache dtype", 1, "",
                            "Bytes per cached K/V element.", "types", in | sv}),
      choice<&W::bound>({"", "bound", N, 0, 0, "", "Time bound", 1, "",
                         "achievable: HBM at hardware.hbm_efficiency and GEMMs at "
                         "gemm_efficiency; roofline: the datasheet figures (How to Scale Your "
                         "Model, ch. 7).",
                         "types", in | sv}),
      choice<&W::kv_sharding>({"", "kv_sharding", N, 0, 0, "", "KV beyond TP", 1, "",
                               "When tp exceeds the KV heads: replicate (each rank keeps a whole "
                               "KV head, as vLLM and TensorRT-LLM do) or batch (the batch splits "
                               "over the replicas of a head, an AllToAll each way per layer).",
                               "types", in | sv}),
      // An Open-Sora video request (mode video; resolution, [height, width], is read by the
      // parser).
      integer(&W::batch, {"", "batch", N, 1, 1 << 16, "videos", "Batch", 1, "",
                          "Videos generated together (default 1).", "video", vd, true, "", 1}),
      num(&W::seconds, {"", "seconds", N, 0.0, 3600.0, "s", "Seconds", 1, "%.2f",
                        "Video length; frames = floor(25.5 x seconds) (Open-Sora). Required "
                        "unless frames is given.",
                        "video", vd, true, "", 0, true}),
      integer(&W::frames, {"", "frames", N, 1, 1 << 20, "", "Frames", 1, "",
                           "Video frames, instead of seconds.", "video", vd, true, "", 1, true}),
      integer(&W::text_tokens, {"", "text_tokens", N, 1, 1 << 16, "tokens", "Text tokens", 1, "",
                                "T5 prompt tokens (Open-Sora pads to 300).", "video", vd}),
      integer(&W::steps, {"", "steps", N, 1, 10000, "", "Sampling steps", 1, "",
                          "Denoising steps; each runs every spatial and temporal block once.",
                          "video", vd, false, "", 1}),
      flag(&W::fusion,
           {"", "fusion", N, 0, 1, "", "Fuse norm + modulate", 1, "",
            "The norm's output stays in SRAM for the modulate (no DRAM round trip).", "video", vd}),
  };
  return t;
}

const std::vector<Field<HardwareSpec>> &hardware_fields() {
  using H = HardwareSpec;
  static const std::vector<Field<H>> t = {
      num(&H::hbm_bytes, {"", "hbm_bytes", N, kMinBytes, kMaxBytes, "B", "Memory GB", 1e-9, "%.1f",
                          "Device memory capacity (1 GB = 1e9 B): the memory bar's capacity line.",
                          "", kGpuModes, true}),
      num(&H::device_memory,
          {"", "device_memory", N, 0.0, kMaxBytes, "B", "Driver memory GB", 1e-9, "%.2f",
           "The memory the driver reports (nvidia-smi's total, 1 GB = 1e9 B), of which vLLM, "
           "SGLang and TensorRT-LLM take their memory fractions: H100 SXM 81,559 MiB where the "
           "datasheet says 80 GB (0: hbm_bytes).",
           "", kGpuModes, false, "", 0, true}),
      num(&H::hbm_bw, {"", "hbm_bw", N, kMinBw, kMaxBw, "B/s", "Memory GB/s", 1e-9, "%.0f",
                       "Device memory bandwidth (datasheet).", "", kGpuModes, true}),
      num(&H::hbm_efficiency,
          {"", "hbm_efficiency", N, 0.05, 1.0, "", "HBM efficiency", 100, "%.0f %%",
           "Share of the datasheet bandwidth a streaming kernel reaches (STREAM triad; "
           "docs/calibration.md). Element-wise work, the optimizer and serving run at it "
           "(serving: unless bound is roofline).",
           "", kGpuModes}),
      num(&H::memory_reserve,
          {"", "memory_reserve", N, 0.0, kMaxBytes, "B", "Reserve GB", 1e-9, "%.1f",
           "Memory no model state may use: CUDA context, NCCL buffers, allocator fragmentation "
           "(default 1.5 GB + 5% of HBM). Fits means total <= HBM - reserve.",
           "", kGpuModes, true}),
      num(&H::price_per_hour,
          {"", "price_per_hour", N, 0.0, 1e4, "$/h", "Price $/h", 1, "%.2f",
           "Price of one device-hour: cost per hour and per million output tokens.", "",
           kServingModes}),
      num(&H::power_w,
          {"", "power_w", N, 0.0, 1e5, "W", "Board power W", 1, "%.0f",
           "The accelerator's board power (TDP, datasheet: H100 SXM 700 W, B200 1,000 W, GB200's "
           "B200 1,200 W); 0: not given (no energy figures).",
           "Energy", kGpuModes}),
      num(&H::load_power_fraction,
          {"", "load_power_fraction", N, 0.05, 1.0, "", "Load power", 100, "%.0f %%",
           "Share of the board power (and of cluster.host_power_w) drawn on average under "
           "load: 76% (Newkirk et al. 2025, heavy training on an 8 x H100 node against its "
           "10.2 kW rating). Serving uses it too (an assumption: decode draws less).",
           "Energy", kGpuModes}),
      num(&H::power_clock_exponent,
          {"", "power_clock_exponent", N, 1.0, 5.0, "", "Power-clock exponent", 1, "%.1f",
           "Under workload.power_cap_w the clock falls as (cap / load power)^(1/this): dynamic "
           "power ~ f V^2 with V ~ f gives 3 (an assumption; compute-bound kernels slow with "
           "the clock, HBM and links do not).",
           "Energy", kGpuModes}),
      num(&H::gemm_efficiency,
          {"", "gemm_efficiency", N, 0.01, 1.0, "", "GEMM eff.", 100, "%.1f %%",
           "Large-GEMM fraction of peak (cuBLAS microbenchmarks); a shape loses to wave "
           "quantisation and a short K (docs/calibration.md 'GEMM').",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::gemm_k_half,
          {"", "gemm_k_half", N, 0.0, 1e6, "", "GEMM K half", 1, "%.0f",
           "Reduction length at which a GEMM runs at half its efficiency: k / (k + k_half), "
           "bf16 (FP8 twice it).",
           "Efficiencies (calibrated)", kGpuModes}),
      integer(&H::sm_count,
              {"", "sm_count", N, 0, 100000, "", "SMs", 1, "",
               "Streaming multiprocessors: output tiles run in waves over them (0: no wave "
               "quantisation).",
               "Efficiencies (calibrated)", kGpuModes}),
      num(&H::attention_efficiency,
          {"", "attention_efficiency", N, 0.0, 1.0, "", "Attention eff.", 100, "%.1f %%",
           "FlashAttention's fraction of peak, forward + backward in the model's 3x forward "
           "(FlashAttention-2/3 benchmarks; 0: the GEMM efficiency).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::gemm_efficiency_fp8,
          {"", "gemm_efficiency_fp8", N, 0.0, 1.0, "", "FP8 GEMM eff.", 100, "%.1f %%",
           "Large FP8 GEMMs' fraction of the FP8 peak (0: the bf16 one).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::gemm_efficiency_fp4,
          {"", "gemm_efficiency_fp4", N, 0.0, 1.0, "", "FP4 GEMM eff.", 100, "%.1f %%",
           "Large FP4 (NVFP4, MXFP4) GEMMs' fraction of the FP4 peak (0: the FP8 one, else the "
           "bf16 one).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::fp8_uncertainty,
          {"", "fp8_uncertainty", N, 0.0, kMaxUncertainty, "", "FP8 time band", 100, "+/-%.1f %%",
           "The band on FP8 and FP4 times (no FP8 or FP4 training run is calibrated; Transformer "
           "Engine).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::compute_overhead,
          {"", "compute_overhead", N, 0.0, 10.0, "", "Compute overhead", 100, "%.1f %%",
           "Compute-stream time the component model leaves out (kernel gaps, small kernels, "
           "sustained clocks), fitted to the calibration runs (`ridgeline validate --fit`).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::moe_host_time,
          {"", "moe_host_time", N, 0.0, 1.0, "s", "MoE host time", 1e3, "%.2f ms",
           "Host time to issue one MoE layer's forward + backward (one micro-batch, eager "
           "mode). The dropless dispatcher waits for the tokens per expert on the host every "
           "layer, so a layer pass takes at least this long (docs/calibration.md 'MoE host "
           "time'; 0: not modelled).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::quantize_latency,
          {"", "quantize_latency", N, 0.0, 1e-3, "s", "Cast latency", 1e6, "%.2f us",
           "Fixed time of one FP8/FP4 cast kernel (AIConfigurator's measured casts; 0: none).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::quantize_bw_efficiency,
          {"", "quantize_bw_efficiency", N, 0.0, 1.0, "", "Cast HBM eff.", 100, "%.0f %%",
           "Share of hbm_bw a cast kernel reaches on a large tensor (0: hbm_efficiency).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::amax_latency,
          {"", "amax_latency", N, 0.0, 1e-3, "s", "Amax latency", 1e6, "%.2f us",
           "Fixed time of one amax (absolute-maximum) kernel of current scaling (0: none).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::amax_bw_efficiency,
          {"", "amax_bw_efficiency", N, 0.0, 1.0, "", "Amax HBM eff.", 100, "%.0f %%",
           "Share of hbm_bw an amax kernel reaches on a large tensor (0: hbm_efficiency).",
           "Efficiencies (calibrated)", kGpuModes}),
      num(&H::time_uncertainty,
          {"", "time_uncertainty", N, 0.0, kMaxUncertainty, "", "Time band", 100, "+/-%.1f %%",
           "The band on predicted times: the calibration's leave-one-out error.",
           "Efficiencies (calibrated)", kGpuModes}),
  };
  return t;
}

const std::vector<Field<ClusterSpec>> &cluster_fields() {
  using C = ClusterSpec;
  const Modes tr = mode_bit(Mode::train);
  static const std::vector<Field<C>> t = {
      num(&C::host_power_w,
          {"", "host_power_w", N, 0.0, 1e5, "W", "Host power W", 1, "%.0f",
           "Per GPU, the server's parts beside it (CPUs, memory, NICs, fans) at their rated "
           "share: the system's rating less its GPUs' board power, over the GPUs (DGX H100: "
           "(10.2 kW - 8 x 700 W) / 8 = 575 W). 0: not counted.",
           "Energy", kGpuModes}),
      num(&C::pue, {"", "pue", N, 1.0, 5.0, "", "PUE", 1, "%.2f",
                    "Facility power usage effectiveness: facility power over IT power (Uptime "
                    "Institute 2024 survey average 1.56; hyperscale sites about 1.1).",
                    "Energy", kGpuModes}),
      num(&C::energy_price_per_kwh,
          {"", "energy_price_per_kwh", N, 0.0, 10.0, "$/kWh", "Electricity $/kWh", 1, "%.3f",
           "Electricity price (US industrial average 2023: $0.0806/kWh, EIA); 0: no energy "
           "cost.",
           "Energy", kGpuModes}),
      num(&C::interruptions_per_gpu_hour,
          {"", "interruptions_per_gpu_hour", N, 0.0, 1.0, "/GPU-h", "Interruptions /1M GPU-h", 1e6,
           "%.1f",
           "Unexpected interruptions per GPU-hour: Llama 3's 419 in 54 days on 16,384 H100 "
           "(Dubey et al. 2024, sec. 3.3.4) = 19.7 per million GPU-hours. 0: a run that never "
           "stops.",
           "Failures", tr}),
      num(&C::host_adam_rate,
          {"", "host_adam_rate", N, 1e3, 1e13, "param/s", "Host Adam Gparam/s", 1e-9, "%.2f",
           "Parameters/s one GPU's share of the host updates with Adam under "
           "parallel.offload_optimizer (DeepSpeed CPU-Adam): an assumption, set it to your "
           "host's rate.",
           "Failures", tr}),
      num(&C::collective_sms,
          {"", "collective_sms", N, 0.0, 1024.0, "SMs", "Collective SMs", 1, "%.0f",
           "SMs one NCCL collective holds while it runs under computation (a CTA per channel; "
           "24 measured on H100 by Nsight Systems; NCCL_MAX_CTAS or Megatron's "
           "--nccl-communicator-config-path max_ctas caps them): the hidden time costs the "
           "GEMMs under it that share of the SMs. 0: overlap is free.",
           "Collectives", tr}),
  };
  return t;
}

const std::vector<Field<CheckpointSpec>> &checkpoint_fields() {
  using K = CheckpointSpec;
  const Modes tr = mode_bit(Mode::train);
  static const std::vector<Field<K>> t = {
      num(&K::interval_s,
          {"checkpoint", "interval_s", N, 0.0, 1e8, "s", "Checkpoint every", 1.0 / 60, "%.1f min",
           "Seconds between checkpoints; 0: Daly's optimum for the job's mean time between "
           "interruptions (Daly 2006, eq. 37).",
           "Failures", tr}),
      num(&K::write_bw,
          {"checkpoint", "write_bw", N, kMinBw, kMaxBw, "B/s", "Write MB/s per GPU", 1e-6, "%.0f",
           "Bytes/s each GPU writes its shard of the checkpoint at (Megatron-LM's fully "
           "parallel torch_dist save): Llama 3's 2 TB/s sustained over 16,384 GPUs = 122 MB/s.",
           "Failures", tr}),
      flag(&K::async, {"checkpoint", "async", N, 0, 1, "", "Async checkpoint", 1, "",
                       "The step waits only for the copy to host memory at cluster.host_bw; the "
                       "write runs behind the next steps (Megatron-LM --async-save).",
                       "Failures", tr}),
      num(&K::restart_s,
          {"checkpoint", "restart_s", N, 0.0, 1e6, "s", "Restart", 1.0 / 60, "%.1f min",
           "Seconds from an interruption to training again: rescheduling, loading the "
           "checkpoint, initialisation (an assumption, 10 min).",
           "Failures", tr}),
  };
  return t;
}

const std::vector<Field<FinetuneSpec>> &finetune_fields() {
  using T = FinetuneSpec;
  const Modes tr = mode_bit(Mode::train);
  static const std::vector<Field<T>> t = {
      choice<&T::method>({"finetune", "method", N, 0, 0, "", "Fine-tuning", 1, "",
                          "full: every weight trained; lora: rank-r adapters on the targets, the "
                          "base frozen (Hu et al. 2021); qlora: LoRA over an NF4 base (Dettmers "
                          "et al. 2023).",
                          "", tr}),
      integer(&T::rank, {"finetune", "rank", N, 1, 65536, "", "LoRA rank  r", 1, "",
                         "Adapter rank: r (in + out) parameters beside each targeted weight.",
                         "finetune", tr, false, "", 8}),
      choice<&T::base_dtype>({"finetune", "base_dtype", N, 0, 0, "", "Base weights", 1, "",
                              "The frozen base's storage: bf16 (2 B), fp8 (1 B) or nf4 (QLoRA: "
                              "4.127 bits with double quantisation), dequantised to bf16 for "
                              "each GEMM; embeddings, head and norms stay bf16.",
                              "finetune", tr}),
  };
  return t;
}

const std::vector<Field<SpeculativeSpec>> &speculative_fields() {
  using S = SpeculativeSpec;
  const Modes sv = mode_bit(Mode::serve);
  static const std::vector<Field<S>> t = {
      choice<&S::method>({"speculative", "method", N, 0, 0, "", "Speculative", 1, "",
                          "The draft: mtp (the model's multi-token-prediction block, DeepSeek-V3 "
                          "sec. 2.2), eagle (an EAGLE-3 head, Li et al. 2025) or draft (a smaller "
                          "model, draft_model).",
                          "", sv}),
      integer(&S::draft_tokens,
              {"speculative", "draft_tokens", N, 1, 16, "", "Draft tokens  k", 1, "",
               "Tokens the draft proposes a sequence each iteration; the model verifies 1 + k "
               "(vLLM num_speculative_tokens, SGLang --speculative-num-steps, TensorRT-LLM "
               "num_nextn_predict_layers / max_draft_len).",
               "speculative", sv, false, "", 1}),
  };
  return t;
}

const std::vector<Field<Tx8Spec>> &tx8_fields() {
  using T = Tx8Spec;
  const Modes tx = mode_bit(Mode::tx8_op) | mode_bit(Mode::video);
  static const std::vector<Field<T>> t = {
      integer(&T::tiles, {"tx8", "tiles", N, 1, 4096, "", "Tiles per die", 1, "",
                          "Tiles of one die (mesh_x x mesh_y).", "", tx, true}),
      num(&T::gemm_flops,
          {"tx8", "gemm_flops", N, kMinFlops, kMaxFlops, "FLOP/s", "GEMM TFLOP/s", 1e-12, "%.2f",
           "GEMM unit throughput of one tile (bf16), per tile.", "", tx}),
      num(&T::vector_ops,
          {"tx8", "vector_ops", N, kMinFlops, kMaxFlops, "op/s", "Vector Gop/s", 1e-9, "%.2f",
           "Vector unit throughput of one tile (norms, softmax, element-wise).", "", tx}),
      num(&T::sram_bytes,
          {"tx8", "sram_bytes", N, 1024.0, 1e10, "B", "SRAM MiB", 1.0 / 1048576, "%.2f",
           "SRAM of one tile (1 MiB = 1,048,576 B); the mapper uses sram_usable_bytes.", "", tx}),
      num(&T::dram_bw, {"tx8", "dram_bw", N, kMinBw, kMaxBw, "B/s", "DRAM GB/s", 1e-9, "%.1f",
                        "DRAM bandwidth of one die, shared by its tiles.", "", tx}),
      num(&T::noc_bw, {"tx8", "noc_bw", N, kMinBw, kMaxBw, "B/s", "NoC GB/s", 1e-9, "%.1f",
                       "Bandwidth of one NoC link between tiles, per direction.", "", tx}),
      num(&T::dram_latency,
          {"tx8", "dram_latency", N, 0.0, kMaxLatency, "s", "DRAM latency us", 1e6, "%.3f",
           "Latency of one DMA between DRAM and a tile's SRAM.", "Tile details", tx}),
      num(&T::hop_latency,
          {"tx8", "hop_latency", N, 0.0, kMaxLatency, "s", "NoC hop us", 1e6, "%.4f",
           "Latency of one NoC hop between neighbouring tiles.", "Tile details", tx}),
      integer(&T::granule,
              {"tx8", "granule", N, 1, 4096, "", "GEMM granule", 1, "",
               "GEMM array granule: tile sizes are multiples of it.", "Tile details", tx}),
      num(&T::sram_usable_bytes,
          {"tx8", "sram_usable_bytes", N, 1024.0, 1e10, "B", "Usable SRAM MiB", 1.0 / 1048576,
           "%.3f",
           "SRAM a kernel may use per tile, below sram_bytes (FlagTree's tx8 backend reserves "
           "the rest).",
           "Tile details", tx, true}),
      num(&T::elem_bytes,
          {"tx8", "elem_bytes", N, 0.5, 8.0, "B", "Element bytes", 1, "%.1f",
           "Bytes per activation and weight element (bf16: 2).", "Tile details", tx}),
      num(&T::acc_bytes,
          {"tx8", "acc_bytes", N, 0.5, 8.0, "B", "Accumulator bytes", 1, "%.1f",
           "Bytes per partial sum and softmax statistic (fp32: 4).", "Tile details", tx}),
      num(&T::exp_ops, {"tx8", "exp_ops", N, 0.0, 1000.0, "op", "Ops per exp", 1, "%.2f",
                        "Vector ops per exp or rsqrt (docs/formulas.md, tx8: a parameter).",
                        "Tile details", tx}),
      flag(&T::overlap_units,
           {"tx8", "overlap_units", N, 0, 1, "", "Units overlap", 1, "",
            "The GEMM and vector units overlap within an attention block (FlashAttention-3's "
            "ping-pong); off: they take turns.",
            "Tile details", tx}),
  };
  return t;
}

const std::vector<Field<SessionsSpec>> &sessions_fields() {
  using S = SessionsSpec;
  const Modes sv = mode_bit(Mode::serve);
  static const std::vector<Field<S>> t = {
      integer(&S::turns, {"sessions", "turns", N, 1, 10000, "", "Turns", 1, "",
                          "Turns of one conversation; a client (closed loop) or a conversation "
                          "arriving at request_rate / turns (open loop) runs them in turn.",
                          "sessions", sv, false, "", 1}),
      integer(&S::new_tokens,
              {"sessions", "new_tokens", N, 1, 10'000'000, "", "New tokens a turn", 1, "",
               "Tokens each turn adds to the conversation before its answer (the user's message, "
               "a tool's output); the turn's prompt is the conversation so far plus these.",
               "sessions", sv, false, "", 256}),
      num(&S::think_time,
          {"sessions", "think_time", N, 0.0, 86400.0, "s", "Think time", 1, "%.3g s",
           "Between a turn's last token and the next turn (a person reading, "
           "an agent's tool call).",
           "sessions", sv}),
  };
  return t;
}

const std::vector<Field<LoraSpec>> &lora_fields() {
  using S = LoraSpec;
  const Modes sv = mode_bit(Mode::serve);
  static const std::vector<Field<S>> t = {
      integer(&S::adapters, {"lora", "adapters", N, 1, 100000, "", "Adapters", 1, "",
                             "LoRA adapters the requests use, one each (a session keeps its own).",
                             "lora", sv, false, "", 1}),
      integer(&S::rank, {"lora", "rank", N, 1, 1024, "", "Adapter rank", 1, "",
                         "Rank r of every adapter: r x (in + out) bf16 weights beside each "
                         "attention and dense MLP matrix (vLLM --max-lora-rank).",
                         "lora", sv, false, "", 8}),
      integer(&S::resident, {"lora", "resident", N, 1, 10000, "", "Resident adapters", 1, "",
                             "Adapters an instance holds in GPU memory at once, beside its KV "
                             "cache; a running batch uses at most this many (vLLM --max-loras, "
                             "SGLang --max-loras-per-batch). The others load from host memory.",
                             "lora", sv, false, "", 1}),
      num(&S::zipf, {"lora", "zipf", N, 0.0, 5.0, "", "Popularity (Zipf)", 1, "%.2f",
                     "Exponent of the adapters' Zipf popularity (0: uniform; S-LoRA's "
                     "evaluation draws power-law popularity).",
                     "lora", sv}),
  };
  return t;
}

const std::vector<Field<KvOffloadSpec>> &kv_offload_fields() {
  using S = KvOffloadSpec;
  const Modes sv = mode_bit(Mode::serve);
  static const std::vector<Field<S>> t = {
      num(&S::host_bytes,
          {"scheduler.kv_offload", "host_bytes", N, 0.0, kMaxBytes, "B", "Host KV GB", 1e-9, "%.0f",
           "Host memory for KV blocks HBM evicts, per GPU (vLLM --kv-offloading-size over the "
           "GPUs, SGLang --hicache-size, TensorRT-LLM kv_cache_config.host_cache_size).",
           "kv_offload", sv}),
      num(&S::host_bw,
          {"scheduler.kv_offload", "host_bw", N, 0.0, kMaxBw, "B/s", "Host link GB/s", 1e-9, "%.1f",
           "Bandwidth blocks come back from host memory at, per GPU (0: cluster.host_bw, the "
           "PCIe or NVLink-C2C link).",
           "kv_offload", sv}),
      num(&S::disk_bytes,
          {"scheduler.kv_offload", "disk_bytes", N, 0.0, kMaxBytes, "B", "Disk KV GB", 1e-9, "%.0f",
           "Local disk (NVMe) for blocks host memory evicts, per GPU (LMCache local_disk, "
           "SGLang HiCache storage).",
           "kv_offload", sv}),
      num(&S::disk_bw,
          {"scheduler.kv_offload", "disk_bw", N, 0.0, kMaxBw, "B/s", "Disk GB/s", 1e-9, "%.1f",
           "Read bandwidth of the disk tier per GPU (a PCIe 5.0 NVMe drive reads "
           "about 14 GB/s; shared by the GPUs it serves).",
           "kv_offload", sv}),
  };
  return t;
}

const std::vector<Field<ServeSpec>> &serve_fields() {
  using S = ServeSpec;
  const Modes sv = mode_bit(Mode::serve);
  static const std::vector<Field<S>> t = {
      integer(&S::shared_prefix,
              {"prefix", "shared_tokens", N, 0, 10'000'000, "", "Shared prefix", 1, "",
               "Tokens every prompt begins with (a system prompt): computed once, then found in "
               "the prefix cache.",
               "", sv, false, "", 512, true}),
      flag(&S::prefix_cache,
           {"scheduler", "prefix_cache", N, 0, 1, "", "Prefix cache", 1, "",
            "Keep finished requests' KV blocks and reuse them for prompts that begin the same "
            "way, evicting the least recently used (vLLM --enable-prefix-caching, SGLang's "
            "radix cache, TensorRT-LLM enable_block_reuse; on by default in each).",
            "", sv}),
      num(&S::request_rate,
          {"", "request_rate", N, 1e-6, 1e6, "req/s", "Request rate", 1, "%.3g req/s",
           "Poisson arrivals per second, over all instances (each of N "
           "instances sees rate / N); required unless a trace or concurrency is given.",
           "", sv, true}),
      integer(&S::concurrency,
              {"", "concurrency", N, 0, 1'000'000, "", "Concurrency", 1, "",
               "Closed loop: clients, each sending its next request when its previous one "
               "completes (vLLM bench serve --max-concurrency, SGLang bench_serving, "
               "genai-perf); replaces request_rate. Latency statistics leave out each client's "
               "first and last request (warm-up and drain).",
               "", sv, true, "", 1, true}),
      integer(&S::requests_per_client,
              {"", "requests_per_client", N, 0, 1'000'000, "", "Per client", 1, "",
               "Closed loop: requests each client sends, in place of Requests (0: Requests in "
               "all). InferenceMAX runs 10 x the concurrency.",
               "", sv, false, "", 0, true}),
      flag(&S::count_warmup,
           {"", "count_warmup", N, 0, 1, "", "Count warm-up", 1, "",
            "Closed loop: latencies over every request, the opening burst of all clients "
            "starting together among them, as vLLM's bench serve reports them with no warm-up "
            "requests; off: the steady state only.",
            "", sv, false, "", 0, true}),
      num(&S::think_time, {"", "think_time", N, 0.0, 3600.0, "s", "Think time", 1, "%.3g s",
                           "Closed loop: a client's pause between a response and its next "
                           "request.",
                           "", sv, false, "", 0, true}),
      integer(&S::requests, {"", "requests", N, 1, 1'000'000, "", "Requests", 1, "",
                             "Requests simulated (at most 1,000,000).", "", sv}),
      num(&S::slo_ttft, {"slo", "ttft", N, 0.0, 3600.0, "s", "SLO: TTFT", 1e3, "%.0f ms",
                         "Time to first token target (0: none).", "", sv}),
      num(&S::slo_tpot, {"slo", "tpot", N, 0.0, 3600.0, "s", "SLO: TPOT", 1e3, "%.1f ms",
                         "Mean time per output token target, per request (0: none).", "", sv}),
      num(&S::slo_attainment,
          {"slo", "attainment", N, 0.01, 1.0, "", "SLO: attainment", 100, "%.0f %%",
           "Share of requests that must meet both targets (DistServe's SLO attainment).", "", sv}),
      integer(&S::max_batch,
              {"scheduler", "max_batch", N, 1, 1'000'000, "", "Max batch", 1, "",
               "Sequences running at once (vLLM max_num_seqs).", "", sv, false, "--max-num-seqs"}),
      integer(&S::max_tokens, {"scheduler", "max_tokens", N, 1, 10'000'000, "", "Max tokens/iter",
                               1, "", "Tokens per iteration (vLLM max_num_batched_tokens).", "", sv,
                               false, "--max-num-batched-tokens"}),
      integer(&S::chunk, {"scheduler", "chunk", N, 1, 10'000'000, "", "Prefill chunk", 1, "",
                          "Prompt tokens one request prefills per iteration (chunked prefill, "
                          "Sarathi-Serve).",
                          "", sv}),
      num(&S::memory_fraction,
          {"scheduler", "memory_fraction", N, 0.05, 1.0, "", "Memory fraction", 100, "%.0f %%",
           "Share of HBM the engine may use (vLLM gpu_memory_utilization).", "", sv, false,
           "--gpu-memory-utilization"}),
      integer(&S::block_size,
              {"scheduler", "block_size", N, 1, 1'000'000, "", "KV block", 1, "",
               "Tokens per paged KV block (vLLM block_size).", "", sv, false, "--block-size"}),
      integer(&S::cuda_graph_max_batch,
              {"scheduler", "cuda_graph_max_batch", N, 0, 1'000'000, "", "Graph batch", 1, "",
               "Largest decode batch the engine replays as a CUDA graph (vLLM "
               "max_cudagraph_capture_size, SGLang cuda_graph_max_bs, TensorRT-LLM "
               "cuda_graph_config.max_batch_size; 0: none). Recorded, not modelled apart.",
               "", sv, false, "", 0, true}),
      flag(&S::overlap_schedule,
           {"scheduler", "overlap_schedule", N, 0, 1, "", "Overlap scheduling", 1, "",
            "The host schedules the next batch while the GPU runs this one (SGLang's overlap "
            "scheduler, on by default). Recorded, not modelled apart.",
            "", sv, false, "", 0, true}),
      flag(&S::mixed_prefill,
           {"scheduler", "mixed_prefill", N, 0, 1, "", "Mixed prefill", 1, "",
            "An iteration carries prefill chunks and decodes together (vLLM V1, TensorRT-LLM "
            "in-flight batching). Off: an iteration is all prefill or all decode, prefill first "
            "while a prompt waits (SGLang unless --enable-mixed-chunk).",
            "", sv}),
      integer(&S::recv_interval,
              {"scheduler", "recv_interval", N, 0, 1'000'000, "", "Receive interval", 1, "",
               "New requests are taken once every this many decode iterations; an iteration "
               "with prefill or an idle engine takes them at once (SGLang "
               "--scheduler-recv-interval, python/sglang/srt/managers/scheduler_recv_skipper.py; "
               "0 or 1: every iteration).",
               "", sv, false, "", 0, true}),
      integer(&S::batch_wait_iters,
              {"scheduler", "batch_wait_iters", N, 0, 1'000'000, "", "Batch wait", 1, "",
               "While sequences decode, new prompts wait until the iteration's tokens reach "
               "batch_wait_tokens_ratio x max_tokens or they have waited this many iterations "
               "(TensorRT-LLM batch_wait_timeout_iters, tensorrt_llm/_torch/pyexecutor/"
               "py_executor.py; 0: no waiting).",
               "", sv, false, "", 0, true}),
      num(&S::batch_wait_tokens_ratio,
          {"scheduler", "batch_wait_tokens_ratio", N, 0.0, 1.0, "", "Batch wait tokens", 100,
           "%.0f %%",
           "The share of max_tokens whose scheduling ends a batch wait (TensorRT-LLM "
           "batch_wait_max_tokens_ratio).",
           "", sv, false, "", 0, true}),
      integer(&S::adp_balance_iters,
              {"scheduler", "adp_balance_iters", N, 0, 1'000'000, "", "ADP balance", 1, "",
               "With attention DP, context requests wait until every rank has one, at most "
               "this many iterations, and not while a rank has nothing to decode "
               "(TensorRT-LLM attention_dp_config enable_balance, timeout_iters; "
               "tensorrt_llm/_torch/pyexecutor/py_executor.py; 0: no balance).",
               "", sv, false, "", 0, true}),
      integer(&S::adp_batching_wait_iters,
              {"scheduler", "adp_batching_wait_iters", N, 0, 1'000'000, "", "ADP batching wait", 1,
               "",
               "Under the attention-DP balance, iterations more that context requests wait once "
               "every rank has one and every rank decodes (TensorRT-LLM attention_dp_config "
               "batching_wait_iters).",
               "", sv, false, "", 0, true}),
      integer(&S::prefill_instances,
              {"scheduler", "prefill_instances", N, 0, 1'000'000, "", "Prefill instances", 1, "",
               "0: aggregated; > 0: disaggregated, this many instances only prefill and ship "
               "the KV cache to the others (DistServe, Splitwise).",
               "", sv}),
      choice<&S::length_dist>({"", "length_dist", N, 0, 0, "", "Lengths", 1, "",
                               "Distribution of prompt and output lengths about their means: "
                               "fixed, exponential (at most 8x the mean) or uniform on [1, 2 x "
                               "mean - 1] (or on [range ratio, 1] x the largest).",
                               "lengths", sv}),
      shown_with(
          num(&S::range_ratio, {"", "range_ratio", N, 0.0, 1.0, "", "Range ratio", 1, "%.2f",
                                "Uniform lengths drawn on [ratio, 1] x the largest, about the mean "
                                "prompt_len and gen_len, as benchmark clients draw random prompts "
                                "(sglang bench_serving and InferenceMAX --random-range-ratio; 0.8: "
                                "0.8-1.0 of the largest). 0: on [1, 2 x mean - 1].",
                                "lengths", sv, false, "", 0, true}),
          "length_dist=uniform"),
      choice<&S::routing>(
          {"", "routing", N, 0, 0, "", "Routing", 1, "",
           "How requests reach the replicas: none (an open loop's at random, a client or a "
           "session kept on one), round_robin, least_loaded (fewest requests outstanding), "
           "prefix_aware (the replica holding the longest cached prefix unless the loads are "
           "out of balance by 64 requests and 1.5x: SGLang's cache-aware router's defaults).",
           "routing", sv, false, "", 0, true}),
      choice<&S::policy>({"scheduler", "policy", N, 0, 0, "", "Scheduler", 1, "",
                          "continuous: every iteration mixes decodes and prefill chunks (vLLM, "
                          "Sarathi-Serve, TensorRT-LLM in-flight batching); static: a batch is "
                          "prefilled, then decoded until its longest request ends.",
                          "", sv}),
  };
  return t;
}

const std::vector<Field<Link>> &link_fields() {
  static const std::vector<Field<Link>> t = {
      num(&Link::bw, {"", "bw", N, kMinBw, kMaxBw, "B/s", "GB/s", 1e-9, "%.1f",
                      "Per device, one direction (1 GB/s = 1e9 B/s; datasheet line rate).", "",
                      kAllModes, true}),
      num(&Link::latency,
          {"", "latency", N, 0.0, kMaxLatency, "s", "lat. us", 1e6, "%.2f",
           "Per step of a collective (alpha of the alpha-beta model).", "", kAllModes}),
      num(&Link::efficiency,
          {"", "efficiency", N, kMinLinkEfficiency, 1.0, "", "eff.", 100, "%.1f %%",
           "Share of the line rate NCCL delivers (nccl-tests bus bandwidth over the link's "
           "rate; docs/calibration.md 'Collectives').",
           "", kAllModes}),
      num(&Link::uncertainty,
          {"", "uncertainty", N, 0.0, kMaxUncertainty, "", "band", 100, "+/-%.0f %%",
           "Relative band on the times of its collectives: a plan's communication difference "
           "to the next carries it (docs/formulas.md 'Bands of a plan'; 25% when not "
           "calibrated).",
           "", kAllModes}),
  };
  return t;
}

namespace {
template <auto M> bool has_member(const ParallelSpec &p) {
  return (p.*M).has_value();
}
template <auto M> void reset_member(ParallelSpec &p) {
  (p.*M).reset();
}
// An optional integer, boolean or choice member of the layout, with its presence accessors.
template <auto M> OptField<ParallelSpec> opt(FieldInfo i) {
  using T = std::remove_reference_t<decltype(std::declval<ParallelSpec>().*M)>;
  OptField<ParallelSpec> f{i, nullptr, nullptr, has_member<M>, reset_member<M>};
  f.member = &member_tag<M>;
  if constexpr (std::is_same_v<T, std::optional<i64>>) {
    f.info.type = FieldType::integer;
    f.integer = M;
  } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
    f.info.type = FieldType::boolean;
    f.flag = M;
  } else if constexpr (std::is_enum_v<typename T::value_type>) {
    using E = typename T::value_type;
    f.info.type = FieldType::choice;
    f.info.choices = &choices<E>();
    f.get = [](const ParallelSpec &p) { return static_cast<int>(*(p.*M)); };
    f.set = [](ParallelSpec &p, int v) { p.*M = static_cast<E>(v); };
  } else { // the axis order: a string of its own syntax
    f.info.type = FieldType::choice;
    f.info.custom = true;
  }
  return f;
}
} // namespace

const std::vector<OptField<ParallelSpec>> &parallel_fields() {
  using P = ParallelSpec;
  const Modes gpu = kGpuModes, tr = mode_bit(Mode::train), sv = kServingModes;
  static const std::vector<OptField<P>> t = {
      opt<&P::dp>({"", "dp", N, 1, kMaxCount, "", "dp", 1, "",
                   "Data-parallel degree; absent: devices / (tp x pp x cp).", "", gpu}),
      opt<&P::tp>(
          {"", "tp", N, 1, 1 << 16, "", "tp", 1, "",
           "Tensor-parallel degree: heads and the MLP width split over t devices (Megatron-LM "
           "--tensor-model-parallel-size).",
           "", gpu}),
      opt<&P::pp>({"", "pp", N, 1, kMaxLayers, "", "pp", 1, "",
                   "Pipeline stages: the layers split over p devices (Megatron-LM "
                   "--pipeline-model-parallel-size).",
                   "", gpu}),
      opt<&P::vpp>(
          {"", "vpp", N, 1, kMaxLayers, "", "vpp", 1, "",
           "Model chunks per device for the interleaved 1F1B schedule (Narayanan et al. "
           "2021), exported as Megatron-LM --num-layers-per-virtual-pipeline-stage L / (p v). "
           "It cuts the bubble to (p-1)/(v m).",
           "", tr}),
      opt<&P::cp>({"", "cp", N, 1, kMaxCount, "", "cp", 1, "",
                   "Context-parallel degree: every sequence split over c devices.", "", gpu}),
      opt<&P::ulysses>({"", "ulysses", N, 1, kMaxCount, "", "Ulysses degree", 1, "",
                        "The Ulysses (all-to-all) degree inside USP's cp = ulysses x ring "
                        "(Fang & Zhao 2024).",
                        "", gpu}),
      opt<&P::ep>(
          {"", "ep", N, 1, 1 << 20, "", "ep", 1, "",
           "Expert-parallel degree (MoE; Megatron-LM --expert-model-parallel-size): the routed "
           "experts split over ep ranks of the dp x cp group (with moe_tp below tp: of tp x cp "
           "x dp), or, serving, over the GPUs of one instance (ep divides tp x attention_dp).",
           "", gpu}),
      opt<&P::attention_dp>(
          {"", "attention_dp", N, 1, 1 << 16, "", "attention DP", 1, "",
           "Attention data-parallel ranks inside one serving instance of a MoE model, each with "
           "its own requests and KV cache (SGLang --enable-dp-attention, TensorRT-LLM attention "
           "DP); the instance holds tp x attention_dp x pp GPUs. Absent: 1.",
           "", sv}),
      opt<&P::moe_tp>({"", "moe_tp", N, 1, 1 << 16, "", "expert tp", 1, "",
                       "Tensor parallelism of the routed experts (Megatron-LM "
                       "--expert-tensor-parallel-size). Training: tp (absent) splits them like "
                       "the attention; below tp is MoE parallel folding, moe_tp x ep x "
                       "expert-dp over the stage's tp x cp x dp ranks (SP on when tp > 1). "
                       "Serving: moe_tp x ep = tp x attention_dp inside an instance; absent, tp "
                       "x attention_dp / ep.",
                       "", gpu}),
      opt<&P::zero>({"", "zero", N, 0, 3, "", "ZeRO", 1, "",
                     "ZeRO stage (Rajbhandari et al. 2020) over the dp x cp ranks: 1 shards "
                     "optimizer states, 2 also gradients, 3 also weights (FSDP).",
                     "", tr}),
      opt<&P::microbatch>({"", "microbatch", N, 1, kMaxCount, "", "Micro-batch  b", 1, "",
                           "Sequences per micro-batch: m = B / (dp x b) micro-batches run "
                           "through each pipeline per step.",
                           "", tr}),
      opt<&P::cp_kind>({"", "cp_kind", N, 0, 0, "", "cp kind", 1, "",
                        "ring: K/V chunks passed around a ring, overlapped with attention (Ring "
                        "Attention); ulysses: all-to-alls that split the heads "
                        "(DeepSpeed-Ulysses); usp: Ulysses inside, ring across.",
                        "", gpu}),
      opt<&P::sp>({"", "sp", N, 0, 1, "", "Megatron-SP", 1, "",
                   "Megatron sequence parallelism (Korthikanti et al. 2022): norms and dropout "
                   "run sequence-split, so every activation term is divided by t, and each "
                   "all-reduce becomes an all-gather + reduce-scatter. Absent: on with tp > 1.",
                   "", gpu}),
      opt<&P::flash_attention>({"", "flash_attention", N, 0, 1, "", "FlashAttention", 1, "",
                                "Fused attention (Dao 2022): the s^2 score tensors are "
                                "never stored, only fp32 softmax statistics 4asb. Absent: on.",
                                "", gpu}),
      opt<&P::uneven_pp>({"", "uneven_pp", N, 0, 1, "", "uneven pp", 1, "",
                          "Allow pp that does not divide the layers: the first L % pp stages "
                          "one layer more.",
                          "", gpu}),
      opt<&P::first_stage_layers>(
          {"", "first_stage_layers", N, 1, kMaxLayers, "", "First stage layers", 1, "",
           "Layers on the first pipeline stage (Megatron-LM "
           "--decoder-first-pipeline-num-layers); the stages without a count share the rest "
           "evenly (Llama 3 405B: 7 of 126 on 16 stages).",
           "", gpu}),
      opt<&P::last_stage_layers>(
          {"", "last_stage_layers", N, 1, kMaxLayers, "", "Last stage layers", 1, "",
           "Layers on the last pipeline stage, which also holds the LM head (Megatron-LM "
           "--decoder-last-pipeline-num-layers).",
           "", gpu}),
      opt<&P::overlap_tp>({"", "overlap_tp", N, 0, 1, "", "TP comm overlap", 1, "",
                           "Transformer Engine's userbuffers (--tp-comm-overlap): every TP/SP "
                           "collective hidden behind a GEMM. Off (absent): Megatron still hides "
                           "the backward input-gradient collectives behind the weight-gradient "
                           "GEMMs.",
                           "overlap", tr}),
      opt<&P::overlap_dp>({"", "overlap_dp", N, 0, 1, "", "DP overlap", 1, "",
                           "Gradient reduce-scatter/all-reduce under the last micro-batch's "
                           "backward, parameter gathers under the forward (--overlap-grad-reduce, "
                           "--overlap-param-gather); the last bucket stays exposed. On when "
                           "absent.",
                           "overlap", tr}),
      opt<&P::overlap_pp>({"", "overlap_pp", N, 0, 1, "", "PP overlap", 1, "",
                           "Pipeline sends hidden behind the next micro-batch "
                           "(--overlap-p2p-communication). Off when absent.",
                           "overlap", tr}),
      opt<&P::overlap_ep>({"", "overlap_ep", N, 0, 1, "", "EP overlap", 1, "",
                           "MoE dispatch/combine AllToAll under another micro-batch's computation "
                           "(DeepSeek-V3's DualPipe, --overlap-moe-expert-parallel-comm). Off "
                           "when absent.",
                           "overlap", tr}),
      opt<&P::order>({"", "order", N, 0, 0, "", "order", 1, "",
                      "Axis order, innermost first (Megatron notation, e.g. tp-cp-dp-pp).", "",
                      gpu}),
      opt<&P::recompute>({"", "recompute", N, 0, 0, "", "Recompute", 1, "",
                          "Activation recomputation: none; selective drops the s^2 attention "
                          "tensors and reruns them (Korthikanti et al. 2022); full keeps only "
                          "each layer's input and reruns its forward in the backward pass.",
                          "", tr}),
      opt<&P::recompute_norm>(
          {"", "recompute_norm", N, 0, 1, "", "Recompute norms", 1, "",
           "Selective recompute also reruns the norms: their outputs (the QKV and MLP inputs) "
           "are not kept (Megatron-LM --recompute-modules layernorm). Only with recompute "
           "selective.",
           "recompute", tr}),
      opt<&P::recompute_mla_up>(
          {"", "recompute_mla_up", N, 0, 1, "", "Recompute MLA up-proj", 1, "",
           "Selective recompute also reruns MLA's up-projections: Q, K, V are rebuilt from the "
           "kept latents (--recompute-modules mla_up_proj; DeepSeek-V3 sec. 3.2.3). Only with "
           "recompute selective.",
           "recompute", tr}),
      opt<&P::recompute_moe_act>(
          {"", "recompute_moe_act", N, 0, 1, "", "Recompute MoE act", 1, "",
           "Selective recompute also reruns the experts' activation function: its output is "
           "not kept (--recompute-modules moe_act). Only with recompute selective.",
           "recompute", tr}),
      opt<&P::offload_layers>(
          {"", "offload_layers", N, 0, 100000, "", "Offload layers", 1, "",
           "Layers whose stored activations go to host memory in the forward and come back "
           "for the backward, under the neighbouring layers' compute (Megatron-LM "
           "--cpu-offloading-num-layers). pp 1, no recompute; needs cluster.host_bw.",
           "offload", tr}),
      opt<&P::offload_optimizer>(
          {"", "offload_optimizer", N, 0, 1, "", "Offload optimizer", 1, "",
           "The optimizer's fp32 master and Adam moments in host memory, updated there "
           "(DeepSpeed ZeRO-Offload, Ren et al. 2021): gradients down and weights up over "
           "cluster.host_bw each step, the update at cluster.host_adam_rate. Off when absent.",
           "offload", tr}),
      opt<&P::pp_schedule>({"", "pp_schedule", N, 0, 0, "", "Schedule", 1, "",
                            "Pipeline schedule: 1f1b (warm-up, then one forward / one backward; "
                            "p micro-batches in flight), interleaved (v chunks per device) or "
                            "gpipe (all forwards, then all backwards; m in flight), dualpipe "
                            "(DeepSeek-V3: two copies of the model fed from both ends, each "
                            "device a stage of each; bubble (p/2 - 1)(F&B + B - 3W), p + 1 "
                            "stages of activations, parameters twice) or dualpipev (its V "
                            "shape, github.com/deepseek-ai/DualPipe: 2p stages, device j "
                            "holding stages j and 2p - 1 - j; parameters once). Absent: "
                            "follows vpp.",
                            "", tr}),
      opt<&P::sp_kind>({"", "sp_kind", N, 0, 0, "", "SP scheme", 1, "",
                        "tx8 video requests: the sequence parallelism across the dies of a "
                        "stage (the DSP paper, Zhao et al. 2024): dsp switches the split "
                        "dimension between spatial and temporal blocks (one all-to-all), ulysses "
                        "all-to-alls around attention, ring passes K/V, megatron-sp all-gathers "
                        "and reduce-scatters, usp = Ulysses inside x ring across.",
                        "", mode_bit(Mode::video)}),
  };
  return t;
}

const OptField<ParallelSpec> *parallel_field(std::string_view key) {
  for (const OptField<ParallelSpec> &f : parallel_fields())
    if (key == f.info.key)
      return &f;
  return nullptr;
}

const OptField<ParallelSpec> &parallel_row(const void *member_tag) {
  for (const OptField<ParallelSpec> &f : parallel_fields())
    if (f.member == member_tag)
      return f;
  missing_row("parallel");
}

void missing_row(const char *what) {
  throw std::logic_error(std::string("no ") + what + " schema row is built on that member");
}

namespace {
template <class S>
void add(std::vector<FieldEntry> &out, const char *section, const std::vector<Field<S>> &t,
         const char *prefix = "") {
  static const S d = S();
  for (const Field<S> &f : t) {
    FieldEntry e{section, f.info, 0};
    if (*prefix)
      e.info.object = prefix;
    e.default_value = f.num       ? d.*f.num
                      : f.integer ? static_cast<double>(d.*f.integer)
                      : f.get     ? f.get(d)
                                  : (d.*f.flag ? 1.0 : 0.0);
    out.push_back(e);
  }
}
} // namespace

const std::vector<Field<Tx8OpSpec>> &op_fields() {
  using O = Tx8OpSpec;
  const Modes op = mode_bit(Mode::tx8_op);
  const char *gemm = "gemm", *vec = "vector", *fa = "flash_attention";
  // FieldInfo{object, key, type, lo, hi, unit, label, scale, format, help, group, modes,
  // custom, vllm, step, omit_zero}
  static const std::vector<Field<O>> t = {
      integer(&O::m, {"op", "m", N, 1, kMaxCount, "", "M", 1, "",
                      "GEMM rows of the input (tokens); required.", gemm, op, true}),
      integer(&O::k, {"op", "k", N, 1, kMaxCount, "", "K", 1, "",
                      "GEMM reduction dimension; required.", gemm, op, true}),
      integer(&O::n, {"op", "n", N, 1, kMaxCount, "", "N", 1, "", "GEMM output columns; required.",
                      gemm, op, true}),
      integer(&O::rows, {"op", "rows", N, 1, kMaxCount, "", "Rows", 1, "",
                         "Rows the vector unit processes; required.", vec, op, true}),
      integer(&O::width, {"op", "width", N, 1, kMaxCount, "", "Width", 1, "",
                          "Elements per row; required.", vec, op, true}),
      integer(&O::inputs, {"op", "inputs", N, 1, 16, "", "Inputs", 1, "",
                           "Input tensors read per element (a residual add: 2).", vec, op}),
      num(&O::ops_per_element, {"op", "ops_per_element", N, 0.0, 1e4, "", "Ops/element", 1, "%.2f",
                                "Vector-unit operations per element.", vec, op}),
      num(&O::ops_per_row,
          {"op", "ops_per_row", N, 0.0, 1e6, "", "Ops/row", 1, "%.2f",
           "Extra operations per row (RMSNorm's rsqrt).", vec, op, false, "", 0, true}),
      integer(&O::params, {"op", "params", N, 0, 64, "", "Parameter vectors", 1, "",
                           "Parameter vectors of `width` elements it reads (modulate: 2).", vec, op,
                           false, "", 0, true}),
      integer(&O::batch, {"op", "batch", N, 1, kMaxCount, "", "Batch", 1, "",
                          "Attention batch (multiplies the head groups).", fa, op}),
      integer(&O::heads, {"op", "heads", N, 1, kMaxDim, "", "Heads", 1, "",
                          "Attention heads; required.", fa, op, true, "", 1}),
      integer(&O::seq_q, {"op", "seq_q", N, 1, kMaxCount, "", "Query length", 1, "",
                          "Query tokens; required.", fa, op, true}),
      integer(&O::seq_kv, {"op", "seq_kv", N, 1, kMaxCount, "", "Key/value length", 1, "",
                           "Key/value tokens; defaults to seq_q.", fa, op, true}),
      integer(&O::head_dim, {"op", "head_dim", N, 1, kMaxDim, "", "Head dim", 1, "",
                             "Per-head width; required.", fa, op, true}),
      integer(&O::heads_fused,
              {"op", "heads_fused", N, 0, kMaxCount, "", "Heads fused", 1, "",
               "Heads one tile processes together (0: searched).", fa, op, false, "", 0, true}),
      flag(&O::in_sram,
           {"op", "in_sram", N, 0, 1, "", "Input in SRAM", 1, "",
            "Fusion: the input is already in SRAM (no load).", "", op, false, "", 0, true}),
      flag(&O::out_sram,
           {"op", "out_sram", N, 0, 1, "", "Output in SRAM", 1, "",
            "Fusion: the output stays in SRAM (no store).", "", op, false, "", 0, true}),
  };
  return t;
}

const std::vector<ParsedField> &parsed_fields() {
  const Modes lm = kGpuModes;
  const Modes train = mode_bit(Mode::train), video = mode_bit(Mode::video);
  auto choice_of = [](const char *object, const char *key, const ChoiceList &c, const char *help,
                      Modes modes = kAllModes) {
    FieldInfo i{object, key, FieldType::choice, 0, 0, "", key, 1, "", help, "", modes, true};
    i.choices = &c;
    return i;
  };
  // FieldInfo{object, key, type, lo, hi, unit, label, scale, format, help, group, modes, custom}
  static const std::vector<ParsedField> t = {
      {"model", choice_of("", "family", choices<ModelFamily>(),
                          "decoder (a language model) or stdit3 (Open-Sora's video DiT).")},
      {"model", choice_of("", "norm", choices<Norm>(),
                          "rmsnorm (h parameters) or layernorm (2h); default rmsnorm for a "
                          "decoder.")},
      {"model",
       {"", "bias", FieldType::boolean, 0, 1, "", "bias", 1, "",
        "Every bias on (GPT style): the default of qkv_bias, o_bias and mlp_bias.", "", lm, true}},
      {"model",
       {"", "hf_id", FieldType::number, 0, 0, "", "hf_id", 1, "",
        "Hugging Face repository of the checkpoint (owner/name, e.g. meta-llama/Llama-3.1-70B): "
        "the model argument of `ridgeline export --format vllm`. Absent: the preset name.",
        "", lm, true},
       "string"},
      {"model",
       {"mla", "q_lora_rank", FieldType::integer, 0, kMaxDim, "", "q_lora_rank", 1, "",
        "DeepSeek MLA: query down-projection rank (0: a plain query projection).", "", lm, true}},
      {"model",
       {"mla", "kv_lora_rank", FieldType::integer, 1, kMaxDim, "", "kv_lora_rank", 1, "",
        "DeepSeek MLA: compressed KV rank, cached per token per layer.", "", lm, true}},
      {"model",
       {"mla", "qk_nope_head_dim", FieldType::integer, 1, kMaxDim, "", "qk_nope_head_dim", 1, "",
        "DeepSeek MLA: per-head query/key width without RoPE.", "", lm, true}},
      {"model",
       {"mla", "qk_rope_head_dim", FieldType::integer, 0, kMaxDim, "", "qk_rope_head_dim", 1, "",
        "DeepSeek MLA: per-head query/key width with RoPE (the key part shared by heads).", "", lm,
        true}},
      {"model",
       {"mla", "v_head_dim", FieldType::integer, 1, kMaxDim, "", "v_head_dim", 1, "",
        "DeepSeek MLA: per-head value width.", "", lm, true}},
      {"model",
       {"dit", "in_channels", FieldType::integer, 1, 4096, "", "in_channels", 1, "",
        "STDiT3: latent channels in (default 4).", "", video, true}},
      {"model",
       {"dit", "caption_channels", FieldType::integer, 1, kMaxDim, "", "caption_channels", 1, "",
        "STDiT3: text-encoder width (default 4096, T5-XXL).", "", video, true}},
      {"model",
       {"dit", "patch", FieldType::integer, 1, 64, "", "patch", 1, "",
        "STDiT3: patch size [t, h, w] (default [1, 2, 2]).", "", video, true},
       "array"},
      {"hardware", choice_of("", "kind", choices<HardwareKind>(),
                             "gpu, tpu or tx8 (a tx8 die needs the tx8 object).")},
      {"hardware",
       {"peak_flops", "bf16", FieldType::number, kMinFlops, kMaxFlops, "FLOP/s", "bf16", 1, "",
        "Dense BF16/FP16 tensor peak (datasheet); required but for tx8.", "", kAllModes, true}},
      {"hardware",
       {"peak_flops", "fp8", FieldType::number, 0, kMaxFlops, "FLOP/s", "fp8", 1, "",
        "Dense FP8 peak; 0 or absent: no FP8 (a precision fp8 is refused).", "", kGpuModes, true}},
      {"hardware",
       {"peak_flops", "int8", FieldType::number, 0, kMaxFlops, "FLOP/s", "int8", 1, "",
        "Dense INT8 peak; 0 or absent: none.", "", kGpuModes, true}},
      {"hardware",
       {"peak_flops", "int4", FieldType::number, 0, kMaxFlops, "FLOP/s", "int4", 1, "",
        "Dense INT4 peak; 0 or absent: none.", "", kGpuModes, true}},
      {"hardware",
       {"peak_flops", "fp32", FieldType::number, 0, kMaxFlops, "FLOP/s", "fp32", 1, "",
        "FP32 peak (non-tensor; the optimizer's element-wise work); 0 or absent: none.", "",
        kGpuModes, true}},
      {"hardware",
       {"peak_flops", "fp4", FieldType::number, 0, kMaxFlops, "FLOP/s", "fp4", 1, "",
        "Dense block-scaled FP4 peak (NVFP4 and MXFP4 run at this one rate on Blackwell); 0 or "
        "absent: none (a precision fp4/mxfp4 is refused; weight_dtype fp4 still dequantises).",
        "", kGpuModes, true}},
      {"hardware",
       {"tx8", "mesh", FieldType::integer, 1, 64, "", "mesh", 1, "",
        "tx8: tile mesh [x, y] inside the die (default [4, 4]).", "", kAllModes, true},
       "array"},
      {"cluster",
       {"", "devices", FieldType::integer, 1, kMaxCount, "", "devices", 1, "",
        "Accelerators in the cluster; required unless torus or mesh implies it.", "", kAllModes,
        true}},
      {"cluster",
       {"", "devices_per_node", FieldType::integer, 1, 1 << 16, "", "devices_per_node", 1, "",
        "Accelerators per node (on intra_node links); default min(devices, 8).", "", kAllModes,
        true}},
      {"cluster",
       {"", "nvlink_domain", FieldType::integer, 1, 1 << 16, "", "nvlink_domain", 1, "",
        "GPUs on one NVLink switch fabric spanning several nodes (GB200/GB300 NVL72: 72); "
        "collectives run on intra_node inside it, inter_node across. Absent: the node.",
        "", kAllModes, true}},
      {"cluster",
       {"", "devices_per_domain", FieldType::integer, 1, 1 << 16, "", "devices_per_domain", 1, "",
        "GPUs the job holds in each NVLink domain, whole nodes (256 GPUs on NVL72 racks: 64 "
        "in each of 4). Absent: the most whole nodes of one domain that divide devices.",
        "", kAllModes, true}},
      {"cluster",
       {"", "host_bw", FieldType::number, 0, 1e13, "B/s", "host_bw", 1e9, "%.0f GB/s",
        "Bytes/s one device moves to or from host memory, each direction (Grace NVLink-C2C, "
        "PCIe): what activation offload (parallel.offload_layers) runs at.",
        "", kAllModes, true}},
      {"cluster", choice_of("", "topology", choices<Topology>(),
                            "switched (GPU nodes), torus (TPU) or mesh (tx8 dies); torus and "
                            "mesh set it.")},
      {"cluster",
       {"", "torus", FieldType::integer, 1, 4096, "", "torus", 1, "",
        "TPU torus axes, 1 to 3 extents ([4, 4, 4]); devices = their product x slices.", "",
        kAllModes, true},
       "array"},
      {"cluster",
       {"", "wraparound", FieldType::boolean, 0, 1, "", "wraparound", 1, "",
        "Torus wraparound links: one boolean or one per axis (default: axes of 16 or more).", "",
        kAllModes, true}},
      {"cluster",
       {"", "mesh", FieldType::integer, 1, 1024, "", "mesh", 1, "",
        "tx8 die mesh [x, y]; devices = x * y.", "", kAllModes, true},
       "array"},
      {"cluster",
       {"", "slices", FieldType::integer, 1, 1 << 16, "", "slices", 1, "",
        "TPU slices joined over dcn (default 1).", "", kAllModes, true}},
      {"workload", choice_of("", "mode", choices<Mode>(),
                             "What runs: train, infer (one batch), serve (a request stream), "
                             "video (STDiT3 on tx8) or tx8-op (one operator); required.")},
      {"workload",
       {"", "hardware_options", FieldType::number, 0, 0, "", "hardware_options", 1, "",
        "Planner: hardware presets to compare (\"h100-sxm\", \"a100-80gb@dgx-a100\").", "",
        train | kServingModes, true},
       "array"},
      {"workload",
       {"", "engine_options", FieldType::number, 0, 0, "", "engine_options", 1, "",
        "Serving planner: engine presets to compare (vllm, sglang, trtllm; name@version); "
        "none: workload.engine.",
        "", mode_bit(Mode::serve), true},
       "array"},
      {"workload",
       {"", "precision_options", FieldType::number, 0, 0, "", "precision_options", 1, "",
        "Serving planner: weight precisions to compare (bf16, fp8, fp4, mxfp4; int4 "
        "weight-only); each sets weight_dtype and the GEMMs' precision; FP4 only on hardware "
        "with an FP4 peak. None: the configuration's own.",
        "", mode_bit(Mode::serve), true},
       "array"},
      {"workload",
       {"", "device_options", FieldType::integer, 1, kMaxCount, "", "device_options", 1, "",
        "Planner: device counts to compare, a list or {\"min\", \"max\"} (powers of two).", "",
        train, true},
       "array"},
      {"workload",
       {"", "engine", FieldType::number, 0, 0, "", "engine", 1, "",
        "Serving engine: a preset (vllm, sglang, trtllm; name@version) or an object starting "
        "from one (\"base\"): its per-iteration costs and, under \"scheduler\", its defaults "
        "for the workload.scheduler fields (max_batch, max_tokens, chunk, memory_fraction, "
        "block_size, cuda_graph_max_batch, overlap_schedule), which the configuration's own "
        "scheduler values override (presets/engines).",
        "", kServingModes, true},
       "string"},
      {"workload",
       {"", "trace", FieldType::number, 0, 0, "", "trace", 1, "",
        "Serving: requests as [arrival_s, prompt_len, gen_len] rows, replacing request_rate and "
        "the lengths.",
        "", mode_bit(Mode::serve), true},
       "array"},
      {"workload",
       {"", "seed", FieldType::integer, 0, 9007199254740992.0, "", "seed", 1, "",
        "Serving: the random stream of arrivals and lengths (default 1).", "",
        mode_bit(Mode::serve), true}},
      {"workload",
       {"speculative", "acceptance", FieldType::number, 0, 1, "", "acceptance", 1, "",
        "Speculative decoding: the probability each successive draft token is accepted, one "
        "number or one per position (the last carries on); default the method's fit to the "
        "calibration pairs (docs/serving.md).",
        "", mode_bit(Mode::serve), true},
       "array"},
      {"workload",
       {"speculative", "draft_model", FieldType::number, 0, 0, "", "draft_model", 1, "",
        "Speculative decoding, method draft: the draft's model preset (a smaller model of the "
        "family: its tokenizer must be the model's).",
        "", mode_bit(Mode::serve), true},
       "string"},
      {"workload",
       {"finetune", "targets", FieldType::number, 0, 0, "", "targets", 1, "",
        "Fine-tuning: the weights LoRA adapts, any of \"qkv\" (Q, K, V; MLA's projections), "
        "\"o\" (attention output), \"mlp\" (the MLP's or every expert's matrices); default "
        "[\"qkv\", \"o\"].",
        "", train, true},
       "array"},
      {"workload",
       {"", "resolution", FieldType::integer, 1, 1 << 16, "", "resolution", 1, "",
        "Video: frame size [height, width] in pixels.", "", video, true},
       "array"},
  };
  return t;
}

std::vector<FieldEntry> all_fields() {
  std::vector<FieldEntry> out;
  add(out, "model", model_fields());
  add(out, "model", moe_fields());
  add(out, "workload", workload_fields());
  add(out, "hardware", hardware_fields());
  add(out, "hardware", tx8_fields());
  add(out, "cluster", cluster_fields());
  add(out, "workload", checkpoint_fields());
  add(out, "workload", finetune_fields());
  add(out, "workload", speculative_fields());
  add(out, "workload", serve_fields());
  add(out, "workload", sessions_fields());
  add(out, "workload", kv_offload_fields());
  add(out, "workload", lora_fields());
  add(out, "workload", op_fields());
  for (const char *link : {"intra_node", "inter_node", "ici", "dcn", "d2d"})
    add(out, "cluster", link_fields(), link);
  for (const OptField<ParallelSpec> &f : parallel_fields())
    out.push_back({"parallel", f.info, 0}); // absent by default: the planner chooses
  for (const ParsedField &f : parsed_fields())
    out.push_back({f.section, f.info, 0, f.type});
  return out;
}

} // namespace rl::schema
