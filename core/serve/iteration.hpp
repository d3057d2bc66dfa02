// ridgeline serve: the time of one engine iteration on one model instance (tp x pp x ep
// chips, or tp x attention_dp x pp) that mixes decode tokens and prefill chunks (continuous
// batching with chunked prefill: Sarathi-Serve, Agrawal et al. 2024; vLLM; TensorRT-LLM in-flight
// batching). Every term is an operator roofline: linear layers stream their weights and run 2 FLOPs
// per weight per token, attention reads the KV it attends to, element-wise kernels move
// activations, and TP/EP/PP collectives come from core/comm. Bandwidth and compute run at
// the chip's achievable fractions (hardware.hbm_efficiency, hardware.gemm_efficiency) or,
// with workload.bound "roofline", at the datasheet figures.
#pragma once

#include "core/comm/collective.hpp"
#include "core/config.hpp"
#include "core/memory/model_states.hpp"
#include "core/parallel/layout.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

namespace rl {

// The work of one iteration on one instance.
struct IterationLoad {
  double decode = 0;         // sequences decoding one token each
  double decode_context = 0; // sum of their KV lengths (tokens read by attention)
  double prefill = 0;        // prompt tokens prefilled (all chunks)
  double prefill_pairs = 0;  // sum over chunks of chunk x (prior + chunk/2): causal q-k pairs
  double prefill_kv = 0;     // sum over chunks of (prior + chunk): KV tokens read
  double outputs = 0;        // rows through the LM head (decodes + prefills that complete)
  double lora_adapters = 0;  // workload.lora: distinct adapters among the running sequences
  double tokens() const { return decode + prefill; }
};

struct IterationTime {
  double linear = 0;         // weight GEMMs: max(FLOPs at gemm efficiency, weight bytes at HBM)
  double linear_flops = 0;   // of which the compute side (for the compute-bound test)
  double linear_bytes = 0;   // and the weight-streaming side
  double linear_experts = 0; // and the routed experts at the engine's MoE efficiency
  double attention = 0;      // max(score FLOPs, KV bytes)
  double elementwise = 0;    // norms, residuals, activation function, rotary
  double head = 0;           // LM head on the output rows
  double comm = 0;           // TP AllReduce, EP AllToAll, KV batch-split AllToAll, PP sends
  double draft = 0;          // speculative decoding's draft: k steps over the decoding sequences
  double lora = 0;           // workload.lora: the adapters' shrink and expand kernels (SGMV)
  double engine = 0;         // the engine's host time per iteration (workload.engine)
  double total = 0;
};

// KV bytes of one token of one layer held by one chip of the instance: the layer's KV
// (docs/formulas.md: 2 k d bytes; MLA's latent) times the share a TP rank keeps. `replicate`:
// a rank keeps kv_heads_per_rank whole heads (vLLM/TensorRT-LLM replicate when tp > k);
// `batch`: 1/tp of it (the batch split of How to Scale Your Model ch. 7). MLA's latent is
// replicated.
double kv_share(const ModelSpec &m, i64 tp, KvSharding s);

// GEMM kernel calls of one layer as vLLM's model files issue them (vllm/model_executor/models/
// llama.py: fused QKV, o_proj, fused gate_up, down_proj; deepseek_v2.py MLA: fused q_a/kv_a,
// q_b, kv_b, o_proj; a MoE layer: the router, the experts' two grouped GEMMs and the shared
// experts' two).
double gemm_calls_per_layer(const ModelSpec &m, bool moe_layer);

// The engine's small-M GEMM fit for these GEMMs on this chip (its own when measured, else the
// calibrated chip's): bf16 for bf16/fp16 weights and GEMMs, fp8 for FP8 ones, fp4 for FP4 ones
// (nullptr: none, e.g. weight-only INT4, or FP4 on a chip without its fit).
// The dtype attention computes in: FP8 where the GEMMs run at FP8 or FP4 and the KV cache is
// FP8 (TensorRT-LLM's FP8 context FMHA, FlashInfer's and FlashAttention-3's FP8 kernels), else
// bf16. No attention kernel computes in FP4.
Dtype attention_dtype(const WorkloadSpec &w);
const EngineSpec::SmallGemm *small_gemm(const EngineSpec &e, const std::string &hardware,
                                        Dtype weights, Dtype precision);

// The engine's decode attention fit on this chip: its own where measured, else the calibrated
// chip's (EngineSpec::decode_attention_on, decode_attention).
const EngineSpec::SmallGemm &engine_decode_attention(const EngineSpec &e,
                                                     const std::string &hardware);

// The engine's measured MoE expert efficiency on this chip for this workload's dtype
// (EngineSpec::moe_on; fp8_block under fp8_recipe blockwise), 0 when none was measured.
double moe_efficiency(const EngineSpec &e, const std::string &hardware, const WorkloadSpec &w);
// The efficiency a configuration's routed experts run at: the above for a MoE model under the
// achievable bound, else 0 (the experts at the chip's dense GEMM efficiency).
double moe_efficiency(const Config &c);

// The engine's measured context (prefill) attention on the chip: the share of the bf16 peak its
// kernel reaches on a prompt's causal attention, GQA or MLA, over the KV cache's dtype (FP8 or
// not); 0 where the engine has no fit on that chip (docs/serving.md "Prefill attention").
double context_attention_efficiency(const EngineSpec &e, const std::string &hardware,
                                    const ModelSpec &m, Dtype kv_dtype);

// An engine's own all-reduce of `bytes` over n ranks (EngineSpec::allreduce_*), seconds.
double engine_allreduce_time(const EngineSpec &e, double bytes, i64 n);

// Under workload.speculative a decoding sequence runs 1 + k queries (its next token and the k
// drafts it verifies: linear layers, element-wise work, collectives and the LM head over all of
// them; attention's FLOPs 1 + k times its KV, read once), and the draft module runs k steps over
// the decoding sequences and one over the prompt chunks (core/serve/speculative). The draft's
// weights and KV sit beside the model's (mtp and eagle share its embedding; mtp its head too).
class IterationModel {
public:
  IterationModel(const Config &c, const Layout &l);
  ~IterationModel();
  IterationTime time(const IterationLoad &x);

  // Memory of one chip of the worst stage.
  double weight_bytes() const { return weight_bytes_; }
  // KV bytes per token (whole sequence, all layers of the worst stage) on one chip.
  double kv_bytes_per_token() const { return kv_token_bytes_; }
  // Tokens of KV the instance holds with `budget` bytes per chip for KV.
  double kv_tokens(double budget_per_chip) const;
  i64 devices() const { return devices_; }
  // The instance's attention-DP ranks (TensorRT-LLM, SGLang --enable-dp-attention); 1 without.
  i64 attention_ranks() const { return std::max<i64>(1, l_.attention_dp); }
  // Whole-model KV bytes of one token (what a disaggregated transfer sends).
  double kv_bytes_per_token_model() const { return kv_model_bytes_; }
  // The engine's measured small-M GEMM fit the weight GEMMs run with (nullopt: none, or the
  // roofline bound).
  const std::optional<EngineSpec::SmallGemm> &gemm_fit() const { return gemm_fit_; }
  // The share of the bf16 peak a prompt's attention runs at (0 under the roofline bound), and
  // whether it is the engine's measured context kernel (else the chip's attention_efficiency).
  double prefill_attention_efficiency() const { return ctx_share_; }
  bool prefill_attention_measured() const { return ctx_measured_; }

private:
  struct Stage {
    double dense_layers = 0, moe_layers = 0;
    bool last = false;
  };
  bool engine_allreduce(double bytes, const Group &g) const;
  double collective(Collective op, double bytes, const Group &g, std::vector<double> &cache,
                    double tokens);
  const Config &c_;
  Layout l_;
  std::vector<Stage> stages_;
  StageParams dense_lp_, moe_lp_;
  double peak_ = 0, eff_ = 1, bw_ = 0, wb_ = 2, act_b_ = 2;
  double attn_rate_ = 0;      // decode attention's FLOP/s: attention_dtype's peak x its efficiency
  double ctx_rate_ = 0;       // a prompt's attention FLOP/s: the engine's measured context kernel
  double ctx_share_ = 0;      // ctx_rate_'s share of the bf16 peak (0: roofline)
  bool ctx_measured_ = false; // ctx_share_ is the engine's measured context kernel
  std::optional<EngineSpec::SmallGemm> decode_attn_; // the engine's measured decode kernel
  double kv_layer_chip_ = 0;         // KV bytes of one token of one layer on one chip
  double attn_width_ = 0;            // a_l x (d_qk + d_v): score + value FLOPs per q-k pair / 2
  double elem_d_ = 0, elem_m_ = 0;   // element-wise bytes per token of a dense / MoE layer
  double bw_lin_ = 0;                // the bandwidth linear layers stream their weights at
  double calls_d_ = 0, calls_m_ = 0; // fixed GEMM time of a dense / MoE layer (calls x latency)
  double moe_eff_ = 0; // the routed experts' share of peak (moe_efficiency; 0: eff_ with the rest)
  std::optional<EngineSpec::SmallGemm> gemm_fit_;
  double head_params_ = 0; // LM head parameters on one chip
  // workload.lora: r x (in + out) of a dense / MoE layer's adapted matrices on one chip, and
  // the bf16 rate their kernels compute at
  double lora_d_ = 0, lora_m_ = 0, lora_rate_ = 0;
  double weight_bytes_ = 0, kv_token_bytes_ = 0, kv_model_bytes_ = 0;
  i64 devices_ = 1;
  Group tp_g_, ep_g_, pp_g_, inst_g_;
  double verify_ = 1, draft_steps_ = 0; // speculative: 1 + k queries a sequence, k draft steps
  std::unique_ptr<Config> draft_cfg_;   // the draft module's configuration
  std::unique_ptr<IterationModel> draft_;
  std::vector<double> cache_tp_, cache_ep_, cache_pp_, cache_kvsplit_, cache_ag_, cache_rs_;
};

} // namespace rl
