// ridgeline core: the configuration as plain value types.
// Units: bytes, FLOPs, seconds, bytes/s, FLOP/s. Parsing and validation live in core/io.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rl {

using i64 = std::int64_t;

enum class Norm { rmsnorm, layernorm };

// Routed mixture-of-experts MLP (How to Scale Your Model ch. 4; DeepSeek/Mixtral layouts).
struct MoeSpec {
  i64 experts = 0;        // routed experts E
  i64 top_k = 0;          // experts per token
  i64 expert_ffn = 0;     // f_e, hidden of one expert
  i64 shared_experts = 0; // always-on experts of width expert_ffn
  i64 every = 1;          // an MoE layer every `every` layers (others dense)
  i64 first_dense = 0; // the first `first_dense` layers are dense (DeepSeek first_k_dense_replace)
};

// Multi-head latent attention (DeepSeek-V2/V3): low-rank Q and joint compressed KV.
struct MlaSpec {
  i64 q_lora_rank = 0; // 0 = plain Q projection
  i64 kv_lora_rank = 0;
  i64 qk_nope_head_dim = 0;
  i64 qk_rope_head_dim = 0;
  i64 v_head_dim = 0;
};

// Open-Sora STDiT3 specifics (hpcaitech/Open-Sora 1.2): video DiT with spatial + temporal blocks.
struct DitSpec {
  i64 in_channels = 4;         // VAE latent channels
  i64 caption_channels = 4096; // T5-XXL embedding width
  i64 patch_t = 1, patch_h = 2, patch_w = 2;
};

enum class ModelFamily { decoder, stdit3 };

// The name of the model of a configuration that has none (one tx8 operator, `ridgeline tx8`).
inline constexpr const char *kNoModel = "none";

struct ModelSpec {
  std::string name;
  ModelFamily family = ModelFamily::decoder;
  i64 layers = 0;
  i64 hidden = 0;
  i64 ffn = 0;
  i64 heads = 0;
  i64 kv_heads = 0;
  i64 head_dim = 0;
  i64 vocab = 0;
  bool gated_mlp = true;
  bool qkv_bias = false; // biases on Q, K, V projections
  bool o_bias = false;   // bias on the attention output projection
  bool mlp_bias = false; // biases on the MLP matrices
  Norm norm = Norm::rmsnorm;
  bool dropout = false;
  bool tied_embeddings = false;
  bool learned_pos_emb = false;
  i64 max_seq = 0;
  // RoPE base (Hugging Face rope_theta; Su et al. 2021, RoFormer). Changes no count; the
  // launch export passes it on (Megatron-LM --rotary-base). 0: not given.
  double rope_theta = 0;
  // Llama 3.x RoPE scaling factor (Hugging Face rope_scaling {"rope_type": "llama3",
  // "factor"}). Changes no count; the Megatron export passes it on. 0: none.
  double rope_scaling = 0;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;
  std::optional<DitSpec> dit;
  std::string source; // where the numbers come from
  // The checkpoint's Hugging Face repository ("meta-llama/Llama-3.1-70B"): vLLM's model
  // argument in `ridgeline export --format vllm`. Empty: not given.
  std::string hf_id;
};

struct PeakFlops {
  // FLOP/s (dense). fp4: the block-scaled FP4 tensor rate (Blackwell's one rate for NVFP4
  // and MXFP4); 0: the chip has none.
  double bf16 = 0, fp8 = 0, int8 = 0, int4 = 0, fp32 = 0, fp4 = 0;
};

// tx8 tiled accelerator die (docs/formulas.md (tx8)): per-tile compute/SRAM, per-die DRAM, per-link
// NoC.
struct Tx8Spec {
  i64 tiles = 16;
  i64 mesh_x = 4, mesh_y = 4;         // tile mesh inside the die
  double gemm_flops = 8e12;           // per tile, FLOP/s
  double vector_ops = 6.25e10;        // per tile, op/s
  double sram_bytes = 3145728;        // per tile (3 MiB)
  double dram_bw = 1e11;              // per die, shared by the tiles, B/s
  double dram_latency = 1e-7;         // per DMA, s
  double noc_bw = 1.28e11;            // per link per direction, B/s
  double hop_latency = 1e-8;          // per NoC hop, s
  i64 granule = 64;                   // GEMM array granule
  double sram_usable_bytes = 3014656; // per tile, B kernels may use (FlagTree backend)
  double elem_bytes = 2;              // bf16 activations and weights, B
  double acc_bytes = 4;               // fp32 partial sums and softmax statistics, B
  double exp_ops = 1;         // vector ops per exp or rsqrt (docs/formulas.md (tx8): a parameter)
  bool overlap_units = false; // GEMM and vector units overlap in an attention block
};

enum class HardwareKind { gpu, tpu, tx8 };

struct HardwareSpec {
  std::string name;
  HardwareKind kind = HardwareKind::gpu;
  PeakFlops peak;
  double hbm_bytes = 0; // device memory capacity
  // The memory the driver reports (nvidia-smi's total), of which the serving engines take their
  // fractions (0: hbm_bytes).
  double device_memory = 0;
  double hbm_bw = 0; // device memory bandwidth, B/s
  // GEMM efficiency (docs/calibration.md "GEMM"): the achievable fraction of peak on a large
  // GEMM (cuBLAS microbenchmarks), lowered for a shape by wave quantisation over `sm_count`
  // multiprocessors in 128 x 256 output tiles and by a short reduction, k / (k + gemm_k_half).
  double gemm_efficiency = 0.7;
  double gemm_k_half = 0; // reduction length at which a GEMM runs at half its efficiency
  i64 sm_count = 0;       // multiprocessors (0: no wave quantisation)
  // FP8 GEMMs (Transformer Engine): their own achievable fraction of the FP8 peak (0: the
  // bf16 one), and the band of FP8 times (no FP8 training run is calibrated).
  // FP4 GEMMs (NVFP4, MXFP4): their fraction of the FP4 peak (0: the FP8 one, else bf16);
  // fp8_uncertainty is their band too.
  double gemm_efficiency_fp8 = 0;
  double gemm_efficiency_fp4 = 0;
  double fp8_uncertainty = 0.25;
  // FlashAttention kernels: achievable fraction of peak (attention-kernel microbenchmarks;
  // 0: gemm_efficiency).
  double attention_efficiency = 0;
  // Compute-stream time the roofline sum leaves out (kernel launches and gaps, small
  // kernels), as a fraction of it; fitted to the end-to-end calibration runs.
  double compute_overhead = 0;
  // Host (CPU) time to issue one MoE layer's forward and backward for one micro-batch in
  // Megatron-Core's eager mode: Python, PyTorch dispatch and kernel launches. A dropless
  // dispatcher copies the tokens per expert to the host and waits for them in every MoE
  // layer's forward (Megatron-LM token_dispatcher.py, _maybe_dtoh_and_synchronize), so the
  // host cannot run ahead of the GPU: a layer pass takes at least this long. 0: not modelled.
  double moe_host_time = 0;
  // The quantisation kernels of FP8/FP4 recipes (docs/calibration.md "FP8 quantisation
  // kernels"): a cast (read bf16, write the low-precision copies) and an amax (read), each a
  // fixed time per kernel plus its bytes at a share of hbm_bw; 0: no fixed time, and bytes at
  // hbm_efficiency.
  double quantize_latency = 0, quantize_bw_efficiency = 0;
  double amax_latency = 0, amax_bw_efficiency = 0;
  // Device memory no model state may use: CUDA context, NCCL buffers, allocator
  // fragmentation (docs/formulas.md "Memory reserve"; < 0: 1.5 GB + 5% of hbm_bytes).
  double memory_reserve = -1;
  double time_uncertainty = 0.25; // relative band on predicted times (calibration residuals)
  // Serving (docs/serving.md): achievable fraction of the datasheet HBM bandwidth in a
  // streaming-read kernel (memory-bandwidth microbenchmarks), and the price of one device-hour.
  double hbm_efficiency = 0.85;
  double price_per_hour = 0; // $ per device-hour (0: not given)
  // Energy (docs/formulas.md "Energy"): the board power (W; 0: not given, no energy figures)
  // and the share of it, and of the server's other parts (cluster.host_power_w), drawn on
  // average under a training or serving load (Newkirk et al. 2025: heavy training on an
  // 8 x H100 node at 76% of its 10.2 kW rating).
  double power_w = 0;
  double load_power_fraction = 0.76;
  // Under a power cap (workload.power_cap_w) the clock falls as the cap over the load power
  // to the 1 / power_clock_exponent (dynamic power ~ f V^2 with V ~ f: 3); the compute peaks
  // fall with the clock, HBM and links do not.
  double power_clock_exponent = 3;
  // The clock a power cap left, relative (1: uncapped); set with the scaled peaks by
  // at_power_cap (core/estimate/energy), never read from a configuration.
  double capped_clock = 1;
  std::optional<Tx8Spec> tx8;
  std::string source;
};

// Device memory a model may not use (docs/formulas.md "Memory reserve"): the CUDA context and
// library workspaces (cuBLAS, NCCL buffers) outside PyTorch's allocator, about 1.5 GB, plus 5% of
// HBM for the caching allocator's fragmentation.
inline double default_memory_reserve(double hbm_bytes) {
  return 1.5e9 + 0.05 * hbm_bytes;
}
inline double memory_reserve(const HardwareSpec &hw) {
  return hw.memory_reserve >= 0 ? hw.memory_reserve : default_memory_reserve(hw.hbm_bytes);
}
// The HBM bandwidth a streaming kernel reaches (STREAM-style microbenchmarks).
inline double achieved_hbm_bw(const HardwareSpec &hw) {
  return hw.hbm_bw * hw.hbm_efficiency;
}
// The memory a serving engine sizes itself against (vLLM, SGLang and TensorRT-LLM read the
// runtime's total, torch.cuda.mem_get_info).
inline double engine_memory(const HardwareSpec &hw) {
  return hw.device_memory > 0 ? hw.device_memory : hw.hbm_bytes;
}
// What "fits" compares against: HBM less the reserve.
inline double usable_memory(const HardwareSpec &hw) {
  return hw.hbm_bytes - memory_reserve(hw);
}

struct Link {
  double bw = 0;      // per device, one direction, B/s (datasheet line rate)
  double latency = 0; // per step, s
  // Fraction of bw NCCL's protocols deliver (nccl-tests bus bandwidth over line rate;
  // docs/calibration.md "Collectives").
  double efficiency = 1;
  // Relative band on the times of its collectives (docs/formulas.md "Bands of a plan");
  // 0.25 when not calibrated, as hardware.time_uncertainty.
  double uncertainty = 0.25;
  double rate() const { return bw * efficiency; }
};

enum class Topology { switched, torus, mesh };

struct ClusterSpec {
  std::string name;
  Topology topology = Topology::switched;
  i64 devices = 1;
  i64 devices_per_node = 1;
  // GPUs on one NVLink switch fabric when it spans several nodes (GB200/GB300 NVL72: 72 over
  // 18 compute trays of 4); 0: the node. Collectives run on intra_node inside it.
  i64 nvlink_domain = 0;
  // GPUs the job holds in each NVLink domain (Megatron-Bridge's GB200 runs use 64 of each
  // NVL72 rack's 72 for 256 GPUs); 0: derived (domain_devices_of).
  i64 devices_per_domain = 0;
  // The GPUs one NVLink fabric joins for this job: the node, the whole domain when the job
  // fits in one, else the GPUs it holds in each domain.
  i64 nvlink_devices() const;
  // Bytes/s one device moves to or from host memory, each direction (Grace's NVLink-C2C,
  // PCIe); 0: unknown (activation offload refused).
  double host_bw = 0;
  // Energy: per device, the server's parts beside the accelerator (CPUs, memory, NICs, fans)
  // at their rated share (W; 0: not counted); the facility's power usage effectiveness; the
  // electricity price ($/kWh; 0: no cost).
  double host_power_w = 0;
  // Parameters/s one device's share of the host updates with Adam when the optimizer is
  // offloaded (parallel.offload_optimizer; DeepSpeed's CPU-Adam): an assumption, set it to
  // the host's measured rate.
  double host_adam_rate = 1e9;
  // SMs one collective's kernels hold while they run under computation (NCCL: one CTA per
  // channel; NCCL_MAX_CTAS or a communicator's max_ctas caps them). A GEMM running beside it
  // has the rest: the overlapped time costs collective_sms / sm_count of it
  // (docs/calibration.md "The SMs overlapped collectives take").
  double collective_sms = 24;
  double pue = 1.56;                    // Uptime Institute 2024 survey average
  double energy_price_per_kwh = 0.0806; // US industrial average 2023 (EIA)
  // Unexpected interruptions per GPU-hour (Llama 3, sec. 3.3.4: 419 in 54 days on 16,384 H100);
  // 0: a run that never stops.
  double interruptions_per_gpu_hour = 419.0 / (54 * 24 * 16384.0);
  Link intra_node;              // NVLink/NVSwitch class, per device
  Link inter_node;              // InfiniBand/RoCE class, per device
  std::vector<i64> torus_axes;  // TPU slice axes, e.g. {16, 16}
  std::vector<bool> wraparound; // per axis
  Link ici;                     // TPU inter-chip link, per link one direction
  Link dcn;                     // between slices/pods, per device
  i64 slices = 1;               // TPU: slices of the torus joined by the DCN
  std::vector<i64> mesh;        // tx8 die mesh {x, y}
  Link d2d;                     // tx8 die-to-die link
  std::string source;
};

// The GPUs a job of `devices` holds in each NVLink domain when it spans several and does not
// set cluster.devices_per_domain: the most whole nodes of one domain that divide devices
// (256 GPUs on NVL72 racks of 4-GPU trays: 64 in each of 4 racks).
inline i64 domain_devices_of(const ClusterSpec &c, i64 devices) {
  if (c.nvlink_domain <= 0)
    return c.devices_per_node;
  if (c.devices_per_domain > 0)
    return c.devices_per_domain;
  if (devices <= c.nvlink_domain)
    return c.nvlink_domain;
  const i64 node = c.devices_per_node > 0 ? c.devices_per_node : 1;
  for (i64 d = c.nvlink_domain / node * node; d > node; d -= node)
    if (devices % d == 0)
      return d;
  return node;
}
inline i64 ClusterSpec::nvlink_devices() const {
  return domain_devices_of(*this, devices);
}

enum class Mode { train, infer, tx8_op, video, serve };
// nvfp4 (named "fp4"): E2M1 values with an E4M3 scale per 16; mxfp4 / mxfp8: OCP MX, E2M1 /
// E4M3 values with an E8M0 scale per 32 (core/memory/model_states: dtype_bytes).
enum class Dtype { fp32, bf16, fp16, fp8, int8, int4, nvfp4, mxfp4, mxfp8 };
// The FP4 formats: their GEMMs run at hardware.peak_flops.fp4.
inline bool is_fp4(Dtype d) {
  return d == Dtype::nvfp4 || d == Dtype::mxfp4;
}
// The scaled low-precision floats (FP8, MXFP8, FP4): Transformer Engine runs only the linear
// layers' GEMMs in them (attention, router and output layer stay bf16).
inline bool is_scaled_float(Dtype d) {
  return d == Dtype::fp8 || d == Dtype::mxfp8 || is_fp4(d);
}

// Transformer Engine's FP8 scaling recipes (Megatron-LM --fp8-recipe; mxfp8 is its own
// precision): delayed (a scale from the amax history, the amax taken inside the cast),
// tensorwise (current scaling: an amax pass over each tensor before its cast), blockwise
// (DeepSeek-V3's 1 x 128 activation and 128 x 128 weight tiles, an fp32 scale each).
enum class Fp8Recipe { delayed, tensorwise, blockwise };
// The framework a plan is launched with (`ridgeline export --format`): its own launch rules
// join the core's (core/parallel/frameworks). any: the core's alone.
// torchtune: PyTorch's fine-tuning recipes (LoRA, QLoRA and full fine-tunes over FSDP2).
enum class Framework { any, megatron, deepspeed, torchtitan, torchtune, vllm, sglang, trtllm };

struct Tx8OpSpec {
  std::string type; // gemm | vector | flash_attention
  std::string name; // optional label
  i64 m = 0, k = 0, n = 0;
  std::string fuse;       // "" or "silu"
  std::string stationary; // "" (search) | input | weight
  i64 rows = 0, width = 0, inputs = 1;
  double ops_per_element = 1;
  double ops_per_row = 0; // vector: extra ops per row (RMSNorm's rsqrt)
  i64 params = 0;         // vector: parameter vectors of `width` elements (modulate: 2)
  i64 batch = 1, heads = 1, seq_q = 0, seq_kv = 0, head_dim = 0;
  std::string loop_order;  // flash attention: "" (search) | a | b | broadcast | packed
  i64 heads_fused = 0;     // flash attention: 0 = search
  bool in_sram = false;    // fusion: the input is already in SRAM (no load)
  bool out_sram = false;   // fusion: the output stays in SRAM (no store)
  std::vector<i64> tiling; // fixed tiling instead of the search: gemm [Tm, Tn(, Tk)],
                           // vector [rows per tile], flash attention [Tx, Ty]
};

// Decode/prefill time: `achievable` (HBM at hardware.hbm_efficiency, GEMMs at
// gemm_efficiency) or How to Scale Your Model's `roofline` (datasheet bandwidth and peak FLOP/s).
enum class ServingBound { achievable, roofline };
// KV heads when TP exceeds them: `replicate` (vLLM, TensorRT-LLM: each rank keeps a whole
// KV head) or `batch` (How to Scale Your Model ch. 7: the batch split over the replicas, an
// AllToAll each way).
enum class KvSharding { replicate, batch };
enum class LengthDist { fixed, exponential, uniform };
enum class SchedulerPolicy { continuous, static_batch };
// How requests are spread over a deployment's replicas (workload.routing): `none`, the
// default, sends an open loop's requests to a random replica and keeps a closed loop's client
// (and a session) on one; round_robin in turn; least_loaded to the replica with the fewest
// requests outstanding; prefix_aware to the replica holding the longest cached prefix of the
// prompt unless the load is out of balance (SGLang's cache-aware router).
enum class Routing { none, round_robin, least_loaded, prefix_aware };

// A serving engine as a named part of the model (presets/engines/): the host-side time the
// roofline of an iteration leaves out, fitted to measured serving runs (docs/serving.md).
struct EngineSpec {
  std::string name = "none", version;
  // Per engine iteration: scheduling, input preparation, sampling and kernel-launch gaps
  // on the host (s); added to every iteration's device time.
  double iteration_overhead = 0;
  // Relative bands of its predictions: the largest TPOT residual of the fit and the largest
  // TTFT residual beside it (not fitted); an engine never calibrated keeps 25% and 100%.
  double tpot_uncertainty = 0.25, ttft_uncertainty = 1.0;
  // The engine's own all-reduce kernel (vLLM / SGLang custom all-reduce, TensorRT-LLM's AUTO
  // strategy) for messages up to allreduce_max_bytes inside one NVLink domain: latency plus
  // bus bytes 2 (n - 1) / n x M over allreduce_bw (fitted to measured per-operation data,
  // docs/serving.md "Custom all-reduce"); 0: NCCL's ring or tree for every size.
  double allreduce_latency = 0, allreduce_bw = 0, allreduce_max_bytes = 0;
  std::string allreduce_source; // the measured data it was fitted to
  // Per request, outside the iterations: the front end's work between a request and the
  // engine (HTTP, tokenisation) and between a token and the client (detokenisation,
  // streaming), s; every TTFT and end-to-end latency carries it, and a closed-loop client's
  // next request leaves that much later. Fitted to TTFT (docs/serving.md).
  double request_overhead = 0;
  // The engine's dense GEMM kernels at decode's small M (weight streaming), per dtype: a fixed
  // time per call (launch, tail and, for FP8, the activation's quantisation) and the share of
  // HBM bandwidth they stream weights at, fitted to measured per-operation data
  // (`ridgeline calibrate` on a GEMM table; docs/serving.md "GEMMs at small M"). latency 0: none
  // (the chip's hbm_efficiency, no per-call time). `gemm` is the calibrated chip's (H100 SXM),
  // used on chips without their own; `gemm_on` those measured on other chips, by preset name.
  struct SmallGemm {
    double latency = 0, bw_efficiency = 0;
  };
  struct GemmFits {
    SmallGemm bf16, fp8, fp4; // fp4: NVFP4 (B200's measured)
  };
  GemmFits gemm;
  std::map<std::string, GemmFits> gemm_on;
  std::string gemm_source; // the measured data they were fitted to
  // The engine fuses per-tensor FP8 activation quantisation into the kernel before each GEMM
  // (TensorRT-LLM's RMSNorm, SwiGLU and attention-output kernels under CUDA graphs), so an FP8
  // call costs the GEMM kernel's own launch and tail: the bf16 fit's latency on the chip. The
  // FP8 fit's latency carries the standalone quantise kernel (AIConfigurator's collect_gemm.py
  // times it with the GEMM). Block-scaled FP8 (fp8_recipe blockwise, DeepSeek's 1x128) is not
  // fused.
  bool fp8_quant_fused = false;
  // The engine's decode attention kernel (paged GQA over the KV cache, one call a layer): a
  // fixed time per call and the share of HBM bandwidth it reads the KV cache at, fitted to
  // measured per-operation data (docs/serving.md "Decode attention"); latency 0: the
  // roofline. MLA models keep the roofline (their kernels were not measured). `decode_attention`
  // is the calibrated chip's (H100 SXM), used on chips without their own in
  // `decode_attention_on`.
  SmallGemm decode_attention;
  std::map<std::string, SmallGemm> decode_attention_on; // measured on other chips, by preset
  std::string decode_attention_source;
  // The engine's MoE expert kernels (routing, permutation, the two grouped GEMMs, SwiGLU and the
  // weighted un-permutation) where they are compute-bound: the share of the chip's peak FLOP/s at
  // its dtype they reach, per chip (hardware preset name) and dtype (fp8_block: block-scaled FP8,
  // fp8_recipe blockwise), fitted to measured MoE layers (docs/serving.md "MoE experts"). 0, or
  // a chip without a fit: the chip's dense GEMM efficiency.
  struct MoeEfficiency {
    double bf16 = 0, fp8 = 0, fp8_block = 0, fp4 = 0;
  };
  std::map<std::string, MoeEfficiency> moe_on;
  std::string moe_source;
  // The engine's context (prefill) attention kernels: the share of the chip's bf16 peak they
  // reach on a prompt's causal attention, per chip (hardware preset name), for GQA over a bf16
  // and an FP8 KV cache and for MLA over each (docs/serving.md "Prefill attention"). 0, or a
  // chip without a fit: the chip's attention_efficiency.
  struct ContextAttention {
    double bf16 = 0, fp8 = 0, mla_bf16 = 0, mla_fp8 = 0;
  };
  std::map<std::string, ContextAttention> context_attention_on;
  std::string context_attention_source;
  // How the engine sizes its KV cache from its memory fraction f (workload.scheduler
  // .memory_fraction, the engine's own argument): `hbm`, f x HBM less the weights and the
  // activations (vLLM gpu_memory_utilization); `static_pool`, f x HBM less the weights, the
  // activations in the other 1 - f (SGLang mem_fraction_static); `free`, f of what the weights
  // and the activations leave (TensorRT-LLM free_gpu_memory_fraction). kv_cache_room.
  enum class KvMemory { hbm, static_pool, free };
  KvMemory kv_memory = KvMemory::hbm;
  std::string source;
};

// Speculative decoding (workload.speculative; Leviathan et al. 2023, Chen et al. 2023): each
// decode iteration a draft proposes k tokens a sequence, the model verifies them and its own
// next token in one pass (1 + k queries a sequence), and keeps the drafts up to the first
// rejection. Drafts: mtp, the model's multi-token-prediction layer (DeepSeek-V3 sec. 2.2: one
// transformer block sharing the embedding and the head); eagle, an EAGLE-3 head (Li et al.
// 2025: one decoder layer over the model's hidden states, its own small vocabulary); draft, a
// smaller model of the family (draft_model, a model preset).
enum class SpecMethod { mtp, eagle, draft };
struct SpeculativeSpec {
  SpecMethod method = SpecMethod::mtp;
  i64 draft_tokens = 1;
  // The probability that each successive draft token is accepted, per position (one value:
  // every position); the last value carries on past the list.
  std::vector<double> acceptance;
  std::string draft_model;                // the preset (method draft)
  std::shared_ptr<const ModelSpec> draft; // resolved from draft_model
};

// One request of a trace (workload.trace): an array [arrival_s, prompt_len, gen_len] or an
// object {"t", "prompt", "gen", "session", "think"}. A row naming a session is a turn of that
// conversation: its prompt begins with the session's earlier turns (prefix reuse); a later turn
// may give `think` in place of `t`: sent that many seconds after its previous turn completes.
struct TraceRow {
  double t = 0; // arrival (s); a `think` row's is set by the simulation
  i64 prompt = 0, gen = 0;
  std::string session; // "" : none
  double think = -1;   // >= 0: sent this long after the session's previous turn completes
  i64 adapter = -1;    // workload.lora: the adapter it uses (-1: drawn by popularity)
  // Mooncake's traces (kvcache-ai/Mooncake FAST25-release): a chained hash per 512-token block
  // of the prompt; equal ids hold equal tokens, and everything before them.
  std::shared_ptr<const std::vector<std::uint64_t>> hash_ids = nullptr;
};

// Tokens per hash id of a trace row's hash_ids (Mooncake's traces hash 512-token blocks).
constexpr i64 kTraceHashTokens = 512;

// Multi-turn sessions (workload.sessions): each client of a closed loop runs conversations of
// `turns` turns one after another; a turn's prompt is the conversation so far (the shared
// prefix, the earlier turns' new tokens and outputs) plus `new_tokens`, sent think_time s after
// the previous turn's last token.
struct SessionsSpec {
  i64 turns = 1;
  i64 new_tokens = 1;
  double think_time = 0;
};

// KV-cache tiers below HBM (workload.scheduler.kv_offload), per GPU: host memory and a local
// disk, each a capacity and the bandwidth blocks come back at (host_bw 0: the cluster's
// host link, cluster.host_bw). HBM evicts its least recently used blocks to host memory, host
// memory to disk (vLLM's CPU offloading connector, SGLang HiCache, LMCache).
struct KvOffloadSpec {
  double host_bytes = 0, host_bw = 0, disk_bytes = 0, disk_bw = 0;
};

// Many LoRA adapters on one base model (workload.lora): `adapters` in all, each request using
// one (Zipf popularity of exponent zipf: 0 uniform; a session keeps its adapter), rank `rank`
// on attention and dense MLP matrices; `resident` of them fit in each instance's GPU slots at
// once (vLLM --max-loras, SGLang --max-loras-per-batch), the others loaded from host memory
// when a request needs one (vLLM --max-cpu-loras).
struct LoraSpec {
  i64 adapters = 1, rank = 16, resident = 1;
  double zipf = 0;
};

// A request stream and the scheduler that serves it (workload.mode "serve").
struct ServeSpec {
  double request_rate = 1; // requests/s (Poisson arrivals; 0 with a closed loop)
  // Closed loop (vLLM bench --max-concurrency, SGLang bench_serving, genai-perf): this many
  // clients, each sending its next request think_time s after its previous one completes.
  i64 concurrency = 0;
  double think_time = 0;
  EngineSpec engine;
  i64 requests = 1000;
  // Closed loop as a benchmark runs it: each client sends this many requests (0: `requests`
  // in all; InferenceMAX runs `--num-prompts` = 10 x concurrency), and the statistics count
  // every one, the opening burst of all C clients starting together among them (vLLM's
  // `bench serve` without warm-ups), instead of the steady state alone.
  i64 requests_per_client = 0;
  bool count_warmup = false;
  LengthDist length_dist = LengthDist::fixed; // of prompt_len and gen_len (their means)
  // Uniform lengths lie on [range_ratio, 1] x their largest, about their mean (the benchmark
  // clients' --random-range-ratio); 0: on [1, 2 x mean - 1].
  double range_ratio = 0;
  std::vector<TraceRow> trace;       // replaces the above
  std::uint64_t seed = 1;            // random stream of arrivals and lengths
  double slo_ttft = 0, slo_tpot = 0; // s (0: no target)
  double slo_attainment = 0.9;       // fraction of requests that must meet both targets (DistServe)
  SchedulerPolicy policy = SchedulerPolicy::continuous;
  i64 max_batch = 256;          // sequences running at once (vLLM max_num_seqs)
  i64 max_tokens = 8192;        // tokens per iteration (vLLM max_num_batched_tokens)
  i64 chunk = 512;              // prefill chunk per request per iteration (Sarathi-Serve)
  i64 block_size = 16;          // KV tokens per paged block (vLLM block_size)
  double memory_fraction = 0.9; // of HBM the engine may use (vLLM gpu_memory_utilization)
  i64 prefill_instances = 0;    // > 0: disaggregated, this many replicas only prefill
  // Recorded from the engine preset, not yet modelled apart (the fitted iteration_overhead
  // carries them): the largest batch replayed as a CUDA graph (0: none) and whether the host
  // schedules the next batch while the GPU runs this one (SGLang's overlap scheduler).
  i64 cuda_graph_max_batch = 0;
  bool overlap_schedule = false;
  // An iteration carries prefill chunks and decodes together (vLLM V1, TensorRT-LLM in-flight
  // batching); false: an iteration is all prefill or all decode, prefill first while any prompt
  // waits (SGLang without --enable-mixed-chunk, python/sglang/srt/managers/scheduler.py).
  bool mixed_prefill = true;
  // SGLang --scheduler-recv-interval: the scheduler takes new requests once every this many
  // decode iterations; an iteration with prefill, or an idle engine, takes them at once
  // (python/sglang/srt/managers/scheduler_recv_skipper.py). 0 or 1: every iteration.
  i64 recv_interval = 0;
  // TensorRT-LLM batch waiting (batch_wait_timeout_iters, batch_wait_max_tokens_ratio;
  // tensorrt_llm/_torch/pyexecutor/py_executor.py `_waiting_requests`): while sequences
  // decode, new prompts are held until the iteration's scheduled tokens would reach
  // ratio x max_tokens or they have been held batch_wait_iters iterations. 0: no waiting.
  i64 batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  // TensorRT-LLM's attention-DP balance (attention_dp_config enable_balance, timeout_iters,
  // batching_wait_iters; tensorrt_llm/_torch/pyexecutor/py_executor.py
  // `_balance_adp_requests`): with attention DP, an iteration schedules context requests only
  // once every rank has one, its counter of iterations without reaching adp_balance_iters (or
  // a rank with nothing decoding); with every rank decoding too, adp_batching_wait_iters more.
  // 0: no balance.
  i64 adp_balance_iters = 0, adp_batching_wait_iters = 0;
  std::optional<SpeculativeSpec> speculative;
  // Prefix reuse: every prompt begins with the same shared_prefix tokens (a system prompt,
  // workload.prefix.shared_tokens); sessions: multi-turn conversations (closed loop).
  i64 shared_prefix = 0;
  std::optional<SessionsSpec> sessions;
  // The engine keeps the KV blocks of finished requests and reuses them for a later prompt
  // with the same prefix (vLLM automatic prefix caching, SGLang RadixAttention, TensorRT-LLM
  // KV-cache block reuse: on by default in each), evicting the least recently used.
  bool prefix_cache = true;
  std::optional<KvOffloadSpec> kv_offload;
  Routing routing = Routing::none;
  std::optional<LoraSpec> lora;
};

// The requests a serving simulation runs: requests_per_client x concurrency when both are set,
// else `requests`.
inline i64 simulated_requests(const ServeSpec &s) {
  return s.requests_per_client > 0 && s.concurrency > 0 ? s.requests_per_client * s.concurrency
                                                        : s.requests;
}

// Checkpoints of a training run (docs/formulas.md "Failures and checkpoints"): every interval_s
// (0: Daly's optimum for the run's mean time between interruptions), each device writing its
// shard of the weights and optimizer states at write_bw (B/s; Llama 3's 2 TB/s sustained over
// 16,384 GPUs), synchronously or asynchronously (Megatron-LM --async-save: the step waits only
// for the copy to host memory at cluster.host_bw); restart_s to resume after an interruption.
struct CheckpointSpec {
  double interval_s = 0;
  double write_bw = 2e12 / 16384;
  bool async = false;
  double restart_s = 600;
};

// Fine-tuning (workload.finetune): full (every weight trained), LoRA (Hu et al. 2021: a rank-r
// adapter B A beside each targeted weight, the base frozen) or QLoRA (Dettmers et al. 2023:
// LoRA over a base stored in NF4 and dequantised for each GEMM).
enum class FinetuneMethod { full, lora, qlora };
// How a frozen base is stored: bf16, fp8 (1 B), or NF4 (QLoRA's 4-bit NormalFloat in blocks of
// 64 with double-quantised scales: 4.127 bits a weight).
enum class BaseDtype { bf16, fp8, nf4 };
struct FinetuneSpec {
  FinetuneMethod method = FinetuneMethod::lora;
  i64 rank = 16;
  // Targets: the Q, K, V projections (MLA: its down and up projections), the attention output,
  // the MLP's matrices (an MoE layer's every expert and shared expert).
  bool qkv = true, o = true, mlp = false;
  // The frozen base's storage: bf16, fp8, or nf4 (QLoRA: 4.127 bits a weight with double
  // quantisation); embeddings, head and norms stay bf16.
  BaseDtype base_dtype = BaseDtype::bf16;
  bool adapters() const { return method != FinetuneMethod::full; }
};

struct WorkloadSpec {
  Mode mode = Mode::train;
  // train
  i64 global_batch = 0; // sequences
  i64 seq_len = 0;
  Dtype precision = Dtype::bf16;
  // Gradients accumulated and reduced in fp32 (Megatron-LM forces it for bf16:
  // --accumulate-allreduce-grads-in-fp32); the parser defaults it on for bf16 and fp8.
  bool fp32_grads = false;
  // Adam's first and second moments kept in BF16 (DeepSeek-V3 sec. 3.3.3; Megatron-LM
  // --use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16): 8 B of
  // optimizer state a parameter (the fp32 master 4, m 2, v 2) instead of 12.
  bool bf16_moments = false;
  // The module weights kept in the GEMMs' FP8 (Megatron-LM --fp8-param-gather, NeMo
  // fp8_params): 1 byte a weight in memory and in the data-parallel all-gather; fp8/mxfp8 only.
  bool fp8_params = false;
  // The cross-entropy fused into one pass over the logits (Megatron-LM
  // --cross-entropy-loss-fusion; core/time/loss_and_routing).
  bool ce_fusion = false;
  // The FP8 scaling recipe of precision fp8 (core/time/quantize: the kernels it adds).
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  // Training: the framework the layout must launch on (its rules in the planner and
  // estimate); any: the core's rules alone.
  Framework framework = Framework::any;
  // Transformer layers at the start and the end of the model kept in BF16 under an FP8/FP4
  // precision (Megatron-LM --first-last-layers-bf16 --num-layers-at-start-in-bf16 /
  // --num-layers-at-end-in-bf16): their GEMMs, casts and saved inputs are bf16's.
  i64 bf16_first_layers = 0, bf16_last_layers = 0;
  // FlashAttention skips the masked half of a causal decoder's scores (on by default; only
  // with flash attention). MFU is reported both ways (docs/formulas.md "MFU").
  bool causal_skip = true;
  // MoE routing: tokens on the busiest expert-parallel rank over the mean (1: uniform), capped
  // by moe_capacity_factor when that is set (> 0: tokens beyond it are dropped).
  double moe_imbalance = 1;
  double moe_capacity_factor = 0;
  // The MoE dispatch's forward payload and the combine's backward gradient sent in FP8 under
  // an FP8/FP4 precision (DeepSeek-V3 sec. 3.3.2; Megatron-LM --moe-dispatch-fwd-dtype /
  // --moe-combine-bwd-dtype mxfp8); the combine forward and the dispatch backward stay bf16.
  bool moe_fp8_dispatch = false;
  double train_tokens = 0; // the token budget of the run (0: not given): time and cost to train
  // A power cap per GPU (W; 0: none): the clock and the step time it implies
  // (hardware.power_clock_exponent).
  double power_cap_w = 0;
  CheckpointSpec checkpoint;
  std::optional<FinetuneSpec> finetune; // absent: pre-training (every weight trained)
  // The planners' hardware choices ("name" or "name@cluster"; empty: the config's own), and
  // the training planner's device counts (empty: the cluster's) and deadline (days, 0: none):
  // "what should I run on".
  std::vector<std::string> hardware_options;
  std::vector<i64> device_options;
  // The serving planner's other choices: engine presets ("vllm", "sglang@0.5.1.post1") and
  // precisions (each sets weight_dtype, and precision for a GEMM dtype; int4 is weight-only).
  // Empty: the configuration's own.
  std::vector<std::string> engine_options;
  std::vector<Dtype> precision_options;
  double deadline_days = 0;
  // infer
  i64 batch = 0;
  i64 prompt_len = 0;
  i64 gen_len = 0;
  Dtype weight_dtype = Dtype::bf16;
  Dtype kv_dtype = Dtype::bf16;
  double request_rate = 0; // requests/s for disaggregated serving (0: not asked)
  double ttft_target = 0;  // s
  double tpot_target = 0;  // s
  ServingBound bound = ServingBound::achievable;
  KvSharding kv_sharding = KvSharding::replicate;
  // serve
  ServeSpec serve;
  // tx8 op
  std::optional<Tx8OpSpec> op;
  // video
  double seconds = 0;
  i64 frames = 0;
  i64 height = 0, width = 0;
  i64 text_tokens = 300;
  i64 steps = 30;
  bool fusion = false; // video: norm + modulate fused (output stays in SRAM)
};

enum class CpKind { ring, ulysses, usp };
enum class Recompute { none, selective, full };
// dualpipe / dualpipev: DeepSeek-V3's bidirectional schedule (arXiv:2412.19437 sec. 3.2.1,
// github.com/deepseek-ai/DualPipe) and its V-shaped cut-in-half form (Sea AI Lab; PyTorch
// ScheduleDualPipeV).
enum class PpSchedule { one_f_one_b, interleaved, gpipe, dualpipe, dualpipev };
// DeepSeek's two (DualPipe and its V): what they share (legality, chunk times, exports).
constexpr bool is_dualpipe(PpSchedule s) {
  return s == PpSchedule::dualpipe || s == PpSchedule::dualpipev;
}
enum class SpKind { dsp, ulysses, ring, megatron_sp, usp };

// Every knob is optional: a missing one is free for the planner; `estimate` fills defaults.
struct ParallelSpec {
  std::optional<i64> dp, tp, pp, vpp, cp, ulysses, ep, zero, microbatch;
  // Serving MoE layouts: attention data parallelism inside one instance (SGLang
  // --enable-dp-attention; the instance holds tp x attention_dp x pp GPUs) and the experts'
  // tensor parallelism (Megatron --expert-tensor-parallel-size); moe_tp x ep = tp x attention_dp.
  std::optional<i64> attention_dp, moe_tp;
  std::optional<CpKind> cp_kind;
  std::optional<bool> sp, flash_attention;
  std::optional<bool> uneven_pp; // allow pp that does not divide the layers
  // Megatron's --decoder-first/last-pipeline-num-layers: layers on the first / last stage,
  // the other stages an equal share of the rest (Llama 3 405B: 7, 8 x 14, 7 on 126 layers).
  std::optional<i64> first_stage_layers, last_stage_layers;
  // Overlap of communication with compute (step-time model): TP/SP collectives with the
  // GEMMs (Megatron tp-comm-overlap), DP gradient/parameter sync with backward/forward,
  // pipeline sends with the next micro-batch.
  std::optional<bool> overlap_tp, overlap_dp, overlap_pp;
  // EP dispatch/combine AllToAll overlapped with another micro-batch's computation
  // (DeepSeek-V3's DualPipe, Megatron-Core --overlap-moe-expert-parallel-comm); off by default.
  std::optional<bool> overlap_ep;
  // Axis order, innermost first (Megatron notation): "tp-cp-dp-pp" places TP groups on
  // neighbouring devices (inside a node) and PP stages farthest apart. EP lives in dp.
  std::optional<std::vector<std::string>> order;
  std::optional<Recompute> recompute;
  // What selective recompute reruns beside the attention core (Megatron-LM
  // --recompute-modules core_attn layernorm mla_up_proj moe_act): the norms (their outputs,
  // the linear layers' inputs, not kept), MLA's up-projections (Q, K, V not kept), the MoE
  // experts' activation function (its output not kept). No effect unless recompute is
  // selective.
  std::optional<bool> recompute_norm, recompute_mla_up, recompute_moe_act;
  // Layers whose stored activations go to host memory in the forward and come back for the
  // backward (Megatron-LM --cpu-offloading-num-layers, Transformer Engine's CPU offload):
  // fewer than the model's layers, pp 1, no recompute (transformer_config.py). 0: none.
  std::optional<i64> offload_layers;
  // The optimizer states (fp32 master, Adam moments) and their update in host memory
  // (DeepSpeed ZeRO-Offload, Ren et al. 2021): gradients go down and weights come back over
  // cluster.host_bw every step; needs host_bw.
  std::optional<bool> offload_optimizer;
  std::optional<PpSchedule> pp_schedule;
  std::optional<SpKind> sp_kind;
  // tx8 die mesh pipeline stages (LLMPerf-for-TiledArch): flattened (first, last) block pairs and
  // (num_x, num_y, loc_x, loc_y) sub-mesh quadruples, one per stage.
  std::vector<i64> stage_ids;
  std::vector<i64> submeshes;
};

struct Config {
  ModelSpec model;
  HardwareSpec hardware;
  ClusterSpec cluster;
  WorkloadSpec workload;
  ParallelSpec parallel;
};

} // namespace rl
