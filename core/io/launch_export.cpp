#include "core/io/launch_export.hpp"

#include "core/schema/printable.hpp"

#include "core/schema/choices.hpp"
#include "core/schema/fields.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/json_reader.hpp"
#include "core/parallel/frameworks.hpp"
#include "core/serve/requests.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

// Every flag, key and override below was checked against the framework's own argument
// definitions: Megatron-LM megatron/training/arguments.py (NVIDIA/Megatron-LM, 2025),
// TorchTitan torchtitan/config/job_config.py (--section.field overrides of the toml job
// config) and vLLM vllm/engine/arg_utils.py (EngineArgs -> `vllm serve` flags); the
// DeepSpeed keys against DeepSpeed's documented ds_config.json ("DeepSpeed Configuration
// JSON": train_batch_size, zero_optimization, bf16, data_types, activation_checkpointing).
namespace rl::io {

namespace {

std::string s(i64 v) {
  return std::to_string(v);
}

// Text for a comment line: a control character (a newline would end the comment and start
// a command when the launch is pasted into a shell) is written as a visible escape.
std::string comment_text(const std::string &t) {
  return schema::printable(t);
}

std::string name_of_cp(const Layout &l) {
  return l.cp_kind == CpKind::ulysses ? "Ulysses" : l.cp_kind == CpKind::usp ? "USP" : "ring";
}

// `torchrun --nproc_per_node N --nnodes M` for a training launch.
std::string torchrun_line(const ClusterSpec &c) {
  const i64 per_node = std::max<i64>(c.devices_per_node, 1);
  return "torchrun --nproc_per_node " + s(std::min(c.devices, per_node)) + " --nnodes " +
         s(std::max<i64>(1, c.devices / per_node));
}

// Where the nodes go when the job holds part of each NVLink domain: that many nodes per domain
// (Slurm's --segment on a block topology, as GB200 NVL72 clusters are scheduled); "" otherwise.
std::string placement_note(const ClusterSpec &c) {
  const i64 held = c.nvlink_devices(), per_node = std::max<i64>(c.devices_per_node, 1);
  if (c.nvlink_domain <= held || c.devices <= held)
    return "";
  return "# placement: " + s(held) + " GPUs (" + s(held / per_node) + " nodes) in each of " +
         s(c.devices / held) + " NVLink domains of " + s(c.nvlink_domain) +
         " (Slurm: --segment=" + s(held / per_node) + ")\n";
}

// The adapters as Hugging Face PEFT names them (LoraConfig.target_modules for Llama-style
// checkpoints); torchtune's and Megatron-Bridge's below.
std::vector<std::string> peft_modules(const FinetuneSpec &f) {
  std::vector<std::string> m;
  if (f.qkv)
    m.insert(m.end(), {"q_proj", "k_proj", "v_proj"});
  if (f.o)
    m.push_back("o_proj");
  if (f.mlp)
    m.insert(m.end(), {"gate_proj", "up_proj", "down_proj"});
  return m;
}

std::string quoted_list(const std::vector<std::string> &v, const char *quote) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::string(quote) + v[i] + quote;
  return s + "]";
}

// Megatron-Bridge's PEFT (src/megatron/bridge/peft/lora.py: LoRA(target_modules, dim, alpha)):
// Megatron-LM's pretrain_gpt.py has no adapters; a Megatron-Bridge fine-tuning recipe takes
// the same parallel layout with cfg.peft set.
std::string megatron_bridge_peft(const FinetuneSpec &f) {
  std::vector<std::string> t;
  if (f.qkv)
    t.push_back("linear_qkv");
  if (f.o)
    t.push_back("linear_proj");
  if (f.mlp)
    t.insert(t.end(), {"linear_fc1", "linear_fc2"});
  return "# fine-tune: Megatron-LM's pretrain_gpt.py trains every weight; run the layout above "
         "through a\n# Megatron-Bridge fine-tuning recipe with\n#   cfg.peft = "
         "LoRA(target_modules=" +
         quoted_list(t, "\"") + ", dim=" + s(f.rank) + ", alpha=" + s(2 * f.rank) +
         ")\n# note: Megatron-Bridge adapts the fused QKV projection with one adapter (ridgeline "
         "counts PEFT's three)\n";
}

// Hugging Face PEFT and bitsandbytes for a fine-tune launched with DeepSpeed (transformers'
// Trainer): LoraConfig(r, lora_alpha, target_modules), BitsAndBytesConfig for an NF4 base.
std::string peft_block(const FinetuneSpec &f) {
  std::string o = "# Hugging Face PEFT (peft.LoraConfig) for the model the Trainer wraps:\n";
  o += "#   LoraConfig(r=" + s(f.rank) + ", lora_alpha=" + s(2 * f.rank) +
       ", target_modules=" + quoted_list(peft_modules(f), "\"") + ", task_type=\"CAUSAL_LM\")\n";
  if (f.base_dtype == BaseDtype::nf4)
    o += "#   BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", "
         "bnb_4bit_use_double_quant=True,\n#     bnb_4bit_compute_dtype=torch.bfloat16, "
         "bnb_4bit_quant_storage=torch.bfloat16)\n";
  else if (f.base_dtype == BaseDtype::fp8)
    o += "# note: an FP8 base has no bitsandbytes twin (8-bit is LLM.int8()): the estimate "
         "assumed 1 B a weight\n";
  return o;
}

std::string megatron(const Config &c, const Layout &l) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  std::ostringstream o;
  std::vector<std::string> notes;
  o << "# Megatron-LM (Megatron-Core) launch for " << comment_text(m.name) << " on "
    << c.cluster.devices << " x " << comment_text(c.hardware.name) << ", layout dp " << l.dp
    << " x tp " << l.tp << " x pp " << l.pp << " x cp " << l.cp << "\n";
  o << placement_note(c.cluster) << torchrun_line(c.cluster) << " pretrain_gpt.py \\\n";
  std::vector<std::string> a;
  auto add = [&](const std::string &x) { a.push_back(x); };
  // model
  add("--num-layers " + s(m.layers));
  add("--hidden-size " + s(m.hidden));
  add("--ffn-hidden-size " + s(m.ffn));
  add("--num-attention-heads " + s(m.heads));
  if (m.kv_heads != m.heads && !m.mla)
    add("--group-query-attention --num-query-groups " + s(m.kv_heads));
  if (!m.mla && m.head_dim * m.heads != m.hidden)
    add("--kv-channels " + s(m.head_dim));
  if (m.mla) {
    add("--multi-latent-attention");
    if (m.mla->q_lora_rank > 0)
      add("--q-lora-rank " + s(m.mla->q_lora_rank));
    add("--kv-lora-rank " + s(m.mla->kv_lora_rank));
    add("--qk-head-dim " + s(m.mla->qk_nope_head_dim));
    add("--qk-pos-emb-head-dim " + s(m.mla->qk_rope_head_dim));
    add("--v-head-dim " + s(m.mla->v_head_dim));
  }
  const i64 seq = w.mode == Mode::train ? w.seq_len : w.prompt_len + w.gen_len;
  add("--seq-length " + s(seq));
  add("--max-position-embeddings " + s(std::max(m.max_seq, seq)));
  if (m.gated_mlp)
    add("--swiglu");
  if (m.norm == Norm::rmsnorm)
    add("--normalization RMSNorm");
  if (!m.qkv_bias && !m.o_bias && !m.mlp_bias)
    add("--disable-bias-linear");
  else if (m.qkv_bias && !m.o_bias && !m.mlp_bias)
    add("--disable-bias-linear --add-qkv-bias");
  if (!m.tied_embeddings)
    add("--untie-embeddings-and-output-weights");
  add(m.learned_pos_emb ? "--position-embedding-type learned_absolute"
                        : "--position-embedding-type rope");
  if (!m.learned_pos_emb) {
    // Megatron's --rotary-base is an int (default 10000); LLaMA-3 needs 500000.
    if (m.rope_theta > 0 && m.rope_theta == std::floor(m.rope_theta))
      add("--rotary-base " + s(static_cast<i64>(m.rope_theta)));
    else
      notes.push_back(m.rope_theta > 0 ? "rope_theta " + std::to_string(m.rope_theta) +
                                             " is not an integer; Megatron's --rotary-base is"
                                       : "model.rope_theta not given: Megatron's --rotary-base "
                                         "defaults to 10000; set it to the checkpoint's value");
  }
  // Llama 3.x (megatron/training/arguments.py: --use-rope-scaling, --rope-scaling-factor)
  if (!m.learned_pos_emb && m.rope_scaling > 0) {
    std::ostringstream f;
    f << m.rope_scaling;
    add("--use-rope-scaling --rope-scaling-factor " + f.str());
  }
  if (!m.dropout)
    add("--attention-dropout 0.0 --hidden-dropout 0.0");
  if (m.moe) {
    add("--num-experts " + s(m.moe->experts));
    add("--moe-router-topk " + s(m.moe->top_k));
    add("--moe-ffn-hidden-size " + s(m.moe->expert_ffn));
    if (m.moe->shared_experts > 0)
      add("--moe-shared-expert-intermediate-size " + s(m.moe->expert_ffn * m.moe->shared_experts));
    if (m.moe->first_dense > 0 || m.moe->every > 1)
      notes.push_back("dense/MoE layer pattern (first_dense " + s(m.moe->first_dense) + ", every " +
                      s(m.moe->every) + "): set --moe-layer-freq accordingly");
  }
  // parallelism
  add("--tensor-model-parallel-size " + s(l.tp));
  if (l.sp && l.tp > 1)
    add("--sequence-parallel");
  add("--pipeline-model-parallel-size " + s(l.pp));
  if (l.vpp > 1) {
    // A virtual stage holds layers / (pp x vpp) layers (Narayanan et al. 2021, sec. 2.2.2).
    // Uneven stages have no such count: give the number of virtual stages per rank instead.
    if (m.layers % (l.pp * l.vpp) == 0 && l.first_layers == 0 && l.last_layers == 0)
      add("--num-layers-per-virtual-pipeline-stage " + s(m.layers / (l.pp * l.vpp)));
    else
      add("--num-virtual-stages-per-pipeline-rank " + s(l.vpp));
  }
  if (l.schedule == PpSchedule::gpipe)
    notes.push_back(
        "GPipe has no Megatron flag: Megatron runs 1F1B (fewer micro-batches in flight)");
  // The first and last stage counts: with interleaving, a split of layers + 2 that counts the
  // embedding and the loss as layers is written as Megatron-Bridge's recipes write it (each
  // stage's vpp virtual stages equal, the first and last one layer short); otherwise as counts.
  const PipelineSplitFlags split = megatron_split_flags(m.layers, l);
  if (split.any() && l.vpp > 1) {
    if (split.embedding)
      add("--account-for-embedding-in-pipeline-split");
    if (split.loss)
      add("--account-for-loss-in-pipeline-split");
  } else {
    if (l.first_layers > 0)
      add("--decoder-first-pipeline-num-layers " + s(l.first_layers));
    if (l.last_layers > 0)
      add("--decoder-last-pipeline-num-layers " + s(l.last_layers));
  }
  if (l.uneven_pp)
    notes.push_back("uneven stages: set --decoder-first-pipeline-num-layers / "
                    "--decoder-last-pipeline-num-layers to the split you want");
  if (l.cp > 1) {
    add("--context-parallel-size " + s(l.cp));
    add(l.cp_kind == CpKind::ring ? "--cp-comm-type p2p"
        : l.cp_kind == CpKind::ulysses
            ? "--cp-comm-type a2a"
            : "--cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes " + s(l.ulysses) + " " +
                  s(l.ring));
  }
  if (l.ep > 1)
    add("--expert-model-parallel-size " + s(l.ep));
  if (l.expert_folding) // MoE parallel folding: the experts' own TP degree
    add("--expert-tensor-parallel-size " + s(l.moe_tp));
  if (l.zero >= 1 && l.zero <= 2)
    add("--use-distributed-optimizer");
  if (l.zero == 2)
    notes.push_back("ZeRO-2: Megatron's distributed optimizer shards optimizer states; gradients "
                    "are reduce-scattered into it (memory as ridgeline's ZeRO-2 only with "
                    "--overlap-grad-reduce buckets freed)");
  if (l.zero == 3)
    add("--use-torch-fsdp2");
  // batch, recompute, precision, kernels, overlap
  add("--micro-batch-size " + s(l.microbatch));
  add("--global-batch-size " + s(w.mode == Mode::train ? w.global_batch : w.batch));
  if (l.recompute == Recompute::selective) {
    add("--recompute-granularity selective");
    // Megatron-LM's default module list is core_attn alone
    if (l.recompute_norm || l.recompute_mla_up || l.recompute_moe_act)
      add(std::string("--recompute-modules core_attn") + (l.recompute_norm ? " layernorm" : "") +
          (l.recompute_mla_up ? " mla_up_proj" : "") + (l.recompute_moe_act ? " moe_act" : ""));
  } else if (l.recompute == Recompute::full)
    add("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
  if (l.offload_layers > 0)
    add("--cpu-offloading-num-layers " + s(l.offload_layers));
  // Megatron-LM's FP8/FP4 recipes (Transformer Engine): --fp8-recipe mxfp8, --fp4-recipe
  // nvfp4 | mxfp4 with --fp4-format e2m1.
  // delayed is Megatron's default recipe; blockwise takes E4M3 everywhere (DeepSeek-V3 sec.
  // 3.3.2).
  if (w.precision == Dtype::fp8 && w.fp8_recipe == Fp8Recipe::blockwise)
    add("--bf16 --fp8-format e4m3 --fp8-recipe blockwise");
  else if (w.precision == Dtype::fp8)
    add(std::string("--bf16 --fp8-format hybrid") +
        (w.fp8_recipe == Fp8Recipe::tensorwise ? " --fp8-recipe tensorwise" : ""));
  else if (w.precision == Dtype::mxfp8)
    add("--bf16 --fp8-format e4m3 --fp8-recipe mxfp8");
  else if (is_fp4(w.precision))
    add(std::string("--bf16 --fp4-format e2m1 --fp4-recipe ") +
        (w.precision == Dtype::nvfp4 ? "nvfp4" : "mxfp4"));
  else if (w.precision == Dtype::fp16)
    add("--fp16");
  else
    add("--bf16");
  // Megatron-LM's defaults are 1 and 1: both counts written
  if (const Bf16Layers hp = bf16_layers(w); hp.first > 0 || hp.last > 0)
    add("--first-last-layers-bf16 --num-layers-at-start-in-bf16 " + std::to_string(hp.first) +
        " --num-layers-at-end-in-bf16 " + std::to_string(hp.last));
  if (w.fp8_params)
    add("--fp8-param-gather");
  // FP8 on the wire needs Megatron-LM's flex dispatcher on NCCL EP with TE's fused grouped MLP
  // (TransformerConfig's checks)
  if (c.model.moe && w.moe_fp8_dispatch)
    add("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend ncclep "
        "--moe-grouped-gemm --use-transformer-engine-op-fuser --moe-dispatch-fwd-dtype mxfp8 "
        "--moe-combine-bwd-dtype mxfp8");
  if (w.ce_fusion)
    add("--cross-entropy-loss-fusion");
  if (w.fp32_grads)
    add("--accumulate-allreduce-grads-in-fp32");
  if (w.bf16_moments) // Transformer Engine's FusedAdam with BF16 moments
    add("--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16");
  add(l.flash ? "--attention-backend flash" : "--attention-backend unfused");
  if (l.overlap_dp)
    add(l.zero >= 1 ? "--overlap-grad-reduce --overlap-param-gather" : "--overlap-grad-reduce");
  if (l.overlap_tp && l.tp > 1)
    add("--tp-comm-overlap");
  if (l.order != std::vector<std::string>{"tp", "cp", "dp", "pp"})
    notes.push_back("axis order: Megatron places tp innermost, then cp, dp, pp; ridgeline's "
                    "order differs");
  for (std::size_t i = 0; i < a.size(); ++i)
    o << "  " << a[i] << (i + 1 < a.size() ? " \\\n" : "\n");
  for (const auto &n : notes)
    o << "# note: " << n << "\n";
  if (w.finetune && w.finetune->adapters())
    o << megatron_bridge_peft(*w.finetune);
  o << "# plus your data, tokenizer, optimizer and schedule arguments\n";
  return o.str();
}

std::string deepspeed(const Config &c, const Layout &l) {
  const WorkloadSpec &w = c.workload;
  const i64 B = w.mode == Mode::train ? w.global_batch : w.batch;
  nlohmann::json ds = {
      {"train_batch_size", B},
      {"train_micro_batch_size_per_gpu", l.microbatch},
      {"gradient_accumulation_steps", l.num_micro},
      {"zero_optimization",
       {{"stage", l.zero}, {"overlap_comm", l.overlap_dp}, {"contiguous_gradients", true}}}};
  if (w.precision == Dtype::fp16)
    ds["fp16"] = {{"enabled", true}};
  else
    ds["bf16"] = {{"enabled", true}};
  if (w.fp32_grads)
    ds["data_types"] = {{"grad_accum_dtype", "fp32"}};
  if (l.offload_optimizer) // ZeRO-Offload (deepspeed/runtime/zero/offload_config.py)
    ds["zero_optimization"]["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (l.recompute != Recompute::none)
    ds["activation_checkpointing"] = {{"partition_activations", l.tp > 1},
                                      {"contiguous_memory_optimization", true}};
  std::ostringstream o;
  o << "# DeepSpeed config (ds_config.json) for " << comment_text(c.model.name) << ": dp " << l.dp
    << " x tp " << l.tp << " x pp " << l.pp << " x cp " << l.cp
    << "; train_batch_size = micro-batch x "
    << "gradient_accumulation_steps x dp (" << l.microbatch << " x " << l.num_micro << " x " << l.dp
    << ")\n";
  o << dump(ds, 2) << "\n";
  if (l.tp > 1 || l.pp > 1 || l.cp > 1) {
    o << "# Megatron-DeepSpeed arguments for the model-parallel axes:\n#  "
         "--tensor-model-parallel-size "
      << l.tp << " --pipeline-model-parallel-size " << l.pp;
    if (l.cp > 1)
      o << " --ds-sequence-parallel-size " << l.cp;
    o << "\n";
    if (l.cp > 1 && l.cp_kind != CpKind::ulysses)
      o << "# note: DeepSpeed's sequence parallelism is Ulysses; ridgeline's " << name_of_cp(l)
        << " has no DeepSpeed twin\n";
  }
  if (l.recompute == Recompute::selective)
    o << "# note: DeepSpeed checkpoints whole layers; selective (attention-only) recompute needs "
         "Megatron-DeepSpeed's --recompute-granularity selective\n";
  if (l.ep > 1)
    o << "# note: experts: DeepSpeed-MoE with ep_size " << l.ep << " in the model's MoE layers\n";
  if (w.finetune && w.finetune->adapters())
    o << peft_block(*w.finetune);
  if (w.precision != Dtype::bf16 && w.precision != Dtype::fp16)
    o << "# note: " << name_of(w.precision)
      << " training is not expressible in ds_config.json (its precision sections are fp16 and "
         "bf16): the GEMMs run in bf16 unless the model code uses Transformer Engine's "
         "fp8_autocast; the estimate assumed "
      << name_of(w.precision) << "\n";
  return o.str();
}

std::string torchtitan(const Config &c, const Layout &l) {
  const WorkloadSpec &w = c.workload;
  const i64 B = w.mode == Mode::train ? w.global_batch : w.batch;
  const i64 seq = w.mode == Mode::train ? w.seq_len : w.prompt_len;
  // TorchTitan shards with FSDP2: ZeRO-3 = shard over dp; ZeRO-1/2 ~ shard but keep the
  // gathered weights after forward; ZeRO-0 = pure replication (DDP).
  const i64 shard = l.zero >= 1 ? l.dp : 1, replicate = l.zero >= 1 ? 1 : l.dp;
  std::vector<std::string> a = {"--parallelism.data_parallel_replicate_degree " + s(replicate),
                                "--parallelism.data_parallel_shard_degree " + s(shard),
                                "--parallelism.tensor_parallel_degree " + s(l.tp),
                                "--parallelism.pipeline_parallel_degree " + s(l.pp),
                                "--parallelism.context_parallel_degree " + s(l.cp),
                                "--training.local_batch_size " + s(B / l.dp),
                                "--training.global_batch_size " + s(B),
                                "--training.seq_len " + s(seq),
                                std::string("--activation_checkpoint.mode ") +
                                    name_of(l.recompute)};
  if (l.zero == 1 || l.zero == 2)
    a.push_back("--parallelism.fsdp_reshard_after_forward never");
  if (l.pp > 1) {
    a.push_back(std::string("--parallelism.pipeline_parallel_schedule ") +
                (l.schedule == PpSchedule::interleaved ? "Interleaved1F1B"
                 : l.schedule == PpSchedule::gpipe     ? "GPipe"
                 : l.schedule == PpSchedule::dualpipev ? "DualPipeV"
                                                       : "1F1B"));
    a.push_back("--parallelism.pipeline_parallel_microbatch_size " + s(l.microbatch));
    // Looped schedules take their stages per rank from the layers per (virtual) stage; the V,
    // two stages a rank.
    const i64 stages = l.pp * model_chunks(l);
    if (stages > l.pp && c.model.layers % stages == 0)
      a.push_back("--parallelism.pipeline_parallel_layers_per_stage " + s(c.model.layers / stages));
  }
  if (l.ep > 1)
    a.push_back("--parallelism.expert_parallel_degree " + s(l.ep));
  // Low precision as model converters (torchtitan/config/job_config.py, Quantize: float8
  // with tensorwise or rowwise scaling, MX with mxfp8; torchtitan/components/quantization)
  std::vector<std::string> notes;
  const bool moe = c.model.moe.has_value();
  if (w.precision == Dtype::fp8) {
    const bool rowwise = w.fp8_recipe == Fp8Recipe::blockwise;
    a.push_back("--model.converters quantize.linear.float8");
    a.push_back(std::string("--quantize.linear.float8.recipe_name ") +
                (rowwise ? "rowwise" : "tensorwise"));
    if (w.fp8_params && l.zero >= 1 && !rowwise)
      a.push_back("--quantize.linear.float8.enable_fsdp_float8_all_gather");
    if (rowwise)
      notes.push_back("fp8 blockwise (1x128 / 128x128 scales) has no TorchTitan recipe: rowwise "
                      "is the nearest");
    else if (w.fp8_recipe != Fp8Recipe::tensorwise)
      notes.push_back("fp8 delayed scaling has no TorchTitan recipe: dynamic tensorwise is the "
                      "nearest");
    if (moe)
      notes.push_back("the experts' grouped GEMMs stay in bf16 under quantize.linear.float8");
  } else if (w.precision == Dtype::mxfp8) {
    a.push_back(std::string("--model.converters quantize.linear.mx") +
                (moe ? ",quantize.grouped_mm.mx" : ""));
    a.push_back("--quantize.linear.mx.recipe_name mxfp8_cublas");
    if (moe)
      a.push_back("--quantize.grouped_mm.mx.fqns experts "
                  "--quantize.grouped_mm.mx.recipe_name mxfp8");
  } else if (w.precision != Dtype::bf16) {
    notes.push_back(std::string(name_of(w.precision)) +
                    " training is not expressible as a TorchTitan converter: as written it "
                    "trains in bf16, slower than the estimate");
  }
  std::ostringstream o;
  o << "# TorchTitan overrides for " << comment_text(c.model.name)
    << " (pick the matching model flavour in "
    << "your train config)\n";
  o << placement_note(c.cluster) << torchrun_line(c.cluster) << " -m torchtitan.train \\\n";
  for (std::size_t i = 0; i < a.size(); ++i)
    o << "  " << a[i] << (i + 1 < a.size() ? " \\\n" : "\n");
  if (l.cp > 1 && l.cp_kind != CpKind::ring)
    o << "# note: TorchTitan's context parallelism is ring attention; ridgeline's " << name_of_cp(l)
      << " has no TorchTitan twin\n";
  if (l.tp > 1 && !l.sp)
    o << "# note: TorchTitan's TP always runs sequence parallel (SP) for norms\n";
  for (const auto &n : notes)
    o << "# note: " << n << "\n";
  return o.str();
}

// torchtune (recipes/lora_finetune_{single_device,distributed}.py, full_finetune_*): `tune run`
// with config overrides; the model builder is the recipe config's (lora_ / qlora_ prefix).
std::string torchtune(const Config &c, const Layout &l) {
  const WorkloadSpec &w = c.workload;
  const bool one = l.devices() == 1;
  const bool adapters = w.finetune && w.finetune->adapters();
  const std::string recipe = std::string(adapters ? "lora_finetune_" : "full_finetune_") +
                             (one ? "single_device" : "distributed");
  std::vector<std::string> a;
  if (adapters) {
    const FinetuneSpec &f = *w.finetune;
    std::vector<std::string> attn;
    if (f.qkv)
      attn.insert(attn.end(), {"q_proj", "k_proj", "v_proj"});
    if (f.o)
      attn.push_back("output_proj");
    a.push_back("model.lora_attn_modules=" + quoted_list(attn, "'"));
    a.push_back(std::string("model.apply_lora_to_mlp=") + (f.mlp ? "True" : "False"));
    a.push_back("model.lora_rank=" + s(f.rank));
    a.push_back("model.lora_alpha=" + s(2 * f.rank));
  }
  a.push_back("batch_size=" + s(l.microbatch));
  a.push_back("gradient_accumulation_steps=" + s(l.num_micro));
  a.push_back("tokenizer.max_seq_len=" + s(w.seq_len));
  a.push_back(std::string("enable_activation_checkpointing=") +
              (l.recompute != Recompute::none ? "True" : "False"));
  a.push_back(std::string("dtype=") + (w.precision == Dtype::fp32 ? "fp32" : "bf16"));
  const i64 per_node = std::max<i64>(c.cluster.devices_per_node, 1);
  std::ostringstream o;
  o << "# torchtune " << recipe << " for " << comment_text(c.model.name);
  if (adapters)
    o << " (config: the model's " << (w.finetune->base_dtype == BaseDtype::nf4 ? "qlora" : "lora")
      << " recipe, whose builder is qlora_* for an NF4 base)";
  o << "\n" << placement_note(c.cluster) << "tune run";
  if (!one)
    o << " --nproc_per_node " << std::min(c.cluster.devices, per_node) << " --nnodes "
      << std::max<i64>(1, c.cluster.devices / per_node);
  o << " " << recipe << " --config <model>/<config> \\\n";
  for (std::size_t i = 0; i < a.size(); ++i)
    o << "  " << a[i] << (i + 1 < a.size() ? " \\\n" : "\n");
  if (l.recompute == Recompute::selective)
    o << "# note: torchtune checkpoints whole layers; selective recompute has no twin\n";
  if (adapters && w.finetune->base_dtype == BaseDtype::fp8)
    o << "# note: torchtune has no FP8 base for LoRA: the estimate assumed 1 B a weight\n";
  if (w.precision != Dtype::bf16 && w.precision != Dtype::fp32)
    o << "# note: " << name_of(w.precision)
      << " GEMMs have no torchtune recipe flag: it trains in bf16\n";
  return o.str();
}

// The longest prompt + output a request of the workload can have (vLLM --max-model-len).
i64 longest_request(const WorkloadSpec &w) {
  const ServeSpec &sv = w.serve;
  if (w.mode == Mode::serve && !sv.trace.empty()) {
    double most = 0;
    for (const TraceRow &e : sv.trace)
      most = std::max(most, static_cast<double>(e.prompt + e.gen));
    return static_cast<i64>(most);
  }
  // a conversation's last turn holds the shared prefix and every turn
  if (w.mode == Mode::serve && sv.sessions)
    return sv.shared_prefix + sv.sessions->turns * (length_bounds(sv, sv.sessions->new_tokens).hi +
                                                    length_bounds(sv, w.gen_len).hi);
  if (w.mode != Mode::serve)
    return w.prompt_len + w.gen_len;
  return length_bounds(sv, w.prompt_len).hi + length_bounds(sv, w.gen_len).hi;
}

// A word the shell reads as itself: as it is when it holds only safe characters, else in
// single quotes (a pasted config's name, "qwen2 (64 layers, 5120 hidden)").
std::string shell_word(const std::string &w) {
  const bool safe = !w.empty() && std::all_of(w.begin(), w.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) ||
           (ch != '\0' && std::strchr("-_./:@+=,", ch));
  });
  if (safe)
    return w;
  std::string q = "'";
  for (const char ch : w)
    q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

const char *vllm_dtype(Dtype d) {
  return d == Dtype::fp16 ? "float16" : "bfloat16";
}

// What every serving launch shares: one engine instance of tp x attention DP x pp devices,
// the replicas of it the cluster holds, the longest request and the checkpoint to load.
struct ServingLaunch {
  i64 instance = 1, replicas = 1, max_len = 0, longest = 0;
  bool clamped = false; // the longest request is past the model's context
  bool serve = false;   // workload.mode serve (the scheduler's settings apply)
  std::string model;    // the checkpoint argument
  std::vector<std::string> args, notes, shared_notes; // the engine's; every engine's
  void add(const std::string &v) { args.push_back(v); }
};

// The load balancer in front of the replicas, by workload.routing, as SGLang's model gateway
// (sgl-model-gateway; vLLM's router is its fork) names its policies.
std::string router_note(const ServeSpec &s, i64 replicas) {
  const std::string front = "route the " + std::to_string(replicas) + " replicas ";
  switch (s.routing) {
  case Routing::prefix_aware:
    return front + "by cached prefix, as planned: SGLang's model gateway --policy cache_aware "
                   "(its defaults --cache-threshold 0.3 --balance-abs-threshold 64 "
                   "--balance-rel-threshold 1.5)";
  case Routing::round_robin:
    return front + "in turn: SGLang's model gateway --policy round_robin";
  case Routing::least_loaded:
    return front + "to the one with the fewest requests outstanding (NGINX least_conn)";
  case Routing::none:
    break;
  }
  if (pins_streams(s))
    return front + "keeping each session or client on one replica, as planned: SGLang's model "
                   "gateway --policy consistent_hashing on a session header";
  return front + "at random, as planned: SGLang's model gateway --policy random";
}

ServingLaunch serving_launch(const Config &c, const Layout &l) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  ServingLaunch x;
  x.serve = w.mode == Mode::serve;
  x.instance = std::max<i64>(1, l.tp * l.attention_dp * l.pp);
  x.replicas = std::max<i64>(1, c.cluster.devices / x.instance);
  // Engines refuse a maximum length above the checkpoint's max_position_embeddings: the
  // longest request is clamped to the context.
  x.longest = longest_request(w);
  x.clamped = m.max_seq > 0 && x.longest > m.max_seq;
  x.max_len = x.clamped ? m.max_seq : x.longest;
  // the checkpoint is the command's first operand: a name read as an option would change it
  if (m.hf_id.empty() && !m.name.empty() && m.name.front() == '-')
    throw ConfigError("model.name", "\"" + comment_text(m.name) +
                                        "\" starts with '-': an engine would read it as an "
                                        "option; set model.hf_id to the checkpoint");
  x.model = m.hf_id.empty() ? shell_word(comment_text(m.name)) : m.hf_id;
  // fp8: vLLM and SGLang quantize a bf16 checkpoint when loading it (--quantization fp8)
  // and read an FP8 one's own config; the other dtypes need a checkpoint quantized to them.
  const Dtype wd = w.weight_dtype;
  if (wd != Dtype::bf16 && wd != Dtype::fp16 && wd != Dtype::fp32 && wd != Dtype::fp8)
    x.shared_notes.push_back(
        std::string(name_of(wd)) + " weights: " +
        (m.hf_id.empty() ? std::string("the model argument")
                         : "\"" + m.hf_id + "\" is the checkpoint as published;") +
        " serve a checkpoint quantized to " + name_of(wd) +
        " in its place (the engine reads the method from its config: ModelOpt NVFP4 for fp4, "
        "gpt-oss's MXFP4 for mxfp4, GPTQ/AWQ for int4, W8A8 for int8)");
  if (x.clamped)
    x.shared_notes.push_back("the maximum length is the model's context " + s(m.max_seq) +
                             " (max_position_embeddings), which the engine will not exceed; the "
                             "workload's longest request, " +
                             s(x.longest) + " tokens, is longer: the engine rejects such requests");
  if (w.mode == Mode::serve && x.replicas > 1 && w.serve.prefill_instances == 0)
    x.shared_notes.push_back(router_note(w.serve, x.replicas));
  if (w.mode == Mode::serve && w.serve.prefill_instances > 0)
    x.shared_notes.push_back(
        "disaggregated: " + s(w.serve.prefill_instances) + " of the " + s(x.replicas) +
        " instances only prefill; the engine needs its KV-transfer set-up for that");
  return x;
}

// The launch text: a header line, the command and its arguments one per line, the notes.
std::string launch_text(const std::string &header, const std::string &command,
                        const ServingLaunch &x, const Config &c) {
  std::ostringstream o;
  o << "# " << comment_text(header) << "\n" << command << (x.args.empty() ? "\n" : " \\\n");
  for (std::size_t i = 0; i < x.args.size(); ++i)
    o << "  " << x.args[i] << (i + 1 < x.args.size() ? " \\\n" : "\n");
  for (const auto *list : {&x.notes, &x.shared_notes})
    for (const auto &n : *list)
      o << "# note: " << comment_text(n) << "\n";
  if (c.model.hf_id.empty())
    o << "# note: the model has no hf_id: " << comment_text(shell_word(c.model.name))
      << " stands for the checkpoint's path or Hugging Face id\n";
  return o.str();
}

std::string serving_header(const char *engine, const Config &c, const Layout &l,
                           const ServingLaunch &x) {
  return std::string(engine) + " launch for " + comment_text(c.model.name) + " on " +
         s(c.cluster.devices) + " x " + comment_text(c.hardware.name) + ": one engine of tp " +
         s(l.tp) + (l.attention_dp > 1 ? " x attention DP " + s(l.attention_dp) : "") + " x pp " +
         s(l.pp) + " = " + s(x.instance) + " devices; run " + s(x.replicas) +
         " of them behind a load balancer";
}

// An EAGLE-3 head is not a model preset (workload.speculative.draft_model names a draft model's
// only), so a launch writes this in its place and a note says what goes there.
constexpr const char *kEagleHead = "<eagle3-draft>";
constexpr const char *kEagleHeadNote =
    "<eagle3-draft>: the path or Hugging Face id of the EAGLE-3 head trained for this model";

// The draft's checkpoint (unquoted): a draft model's Hugging Face id (else its preset name), or
// kEagleHead. An EAGLE-3 launch also takes kEagleHeadNote.
std::string draft_checkpoint(const SpeculativeSpec &sp) {
  if (sp.method == SpecMethod::draft)
    return sp.draft && !sp.draft->hf_id.empty() ? sp.draft->hf_id : sp.draft_model;
  return kEagleHead;
}

// vLLM (`vllm serve`, flags from vllm/engine/arg_utils.py EngineArgs): one engine instance;
// attention DP is its --data-parallel-size, its experts spread over tp x dp ranks.

std::string vllm(const Config &c, const Layout &l) {
  const WorkloadSpec &w = c.workload;
  const ServeSpec &sv = w.serve;
  ServingLaunch x = serving_launch(c, l);
  x.add("--tensor-parallel-size " + s(l.tp));
  x.add("--pipeline-parallel-size " + s(l.pp));
  if (l.attention_dp > 1)
    x.add("--data-parallel-size " + s(l.attention_dp));
  if (l.ep > 1) {
    x.add("--enable-expert-parallel");
    if (l.ep != l.tp * l.attention_dp)
      x.notes.push_back("expert parallelism: vLLM places experts over the engine's tp x dp "
                        "ranks (" +
                        s(l.tp * l.attention_dp) + "); ridgeline's ep " + s(l.ep) +
                        " has no separate flag");
  }
  if (x.serve) {
    // The scheduler's rows that vLLM has an engine argument for (core/schema/fields).
    for (const schema::Field<ServeSpec> &fd : schema::serve_fields()) {
      if (!*fd.info.vllm)
        continue;
      std::ostringstream f;
      if (fd.integer)
        f << sv.*fd.integer;
      else if (fd.num)
        f << sv.*fd.num;
      x.add(std::string(fd.info.vllm) + " " + f.str());
    }
  } else {
    x.add("--max-num-seqs " + s(w.batch));
  }
  x.add("--max-model-len " + s(x.max_len));
  if (x.serve && sv.policy == SchedulerPolicy::continuous)
    x.add("--enable-chunked-prefill");
  // Activations run in bf16 unless the weights are fp16 (quantized weights dequantize to it).
  x.add(std::string("--dtype ") +
        vllm_dtype(w.weight_dtype == Dtype::fp16 ? Dtype::fp16 : Dtype::bf16));
  if (w.kv_dtype == Dtype::fp8)
    x.add("--kv-cache-dtype fp8");
  if (w.weight_dtype == Dtype::fp8)
    x.add("--quantization fp8");
  if (w.kv_dtype != Dtype::fp8 && w.kv_dtype != Dtype::bf16 && w.kv_dtype != Dtype::fp16 &&
      w.kv_dtype != Dtype::fp32)
    x.notes.push_back(std::string("KV cache in ") + name_of(w.kv_dtype) +
                      ": vLLM's quantized KV cache is fp8 (--kv-cache-dtype fp8)");
  if (x.serve && sv.block_size != 8 && sv.block_size != 16 && sv.block_size != 32 &&
      sv.block_size != 64 && sv.block_size != 128)
    x.notes.push_back("block size " + s(sv.block_size) +
                      " is not one of vLLM's 8, 16, 32, 64, 128");
  if (x.serve && sv.policy == SchedulerPolicy::continuous)
    x.notes.push_back("prefill chunk " + s(sv.chunk) +
                      " per request has no vLLM flag: chunked prefill fills each step's "
                      "--max-num-batched-tokens");
  if (x.serve && sv.policy == SchedulerPolicy::static_batch)
    x.notes.push_back("static batching has no vLLM flag: vLLM always batches continuously");
  if (x.serve && sv.speculative) { // vllm/config/speculative.py: method, num_speculative_tokens
    const SpeculativeSpec &sp = *sv.speculative;
    nlohmann::json cfg = {{"method", sp.method == SpecMethod::mtp     ? "mtp"
                                     : sp.method == SpecMethod::eagle ? "eagle3"
                                                                      : "draft_model"},
                          {"num_speculative_tokens", sp.draft_tokens}};
    if (sp.method != SpecMethod::mtp)
      cfg["model"] = draft_checkpoint(sp);
    x.add("--speculative-config " + shell_word(cfg.dump()));
    if (sp.method == SpecMethod::draft)
      x.notes.push_back("vLLM 0.11-0.13 refuse method draft_model (NotImplementedError): serve "
                        "it with SGLang's STANDALONE algorithm");
    if (sp.method == SpecMethod::eagle)
      x.notes.push_back(kEagleHeadNote);
  }
  if (x.serve && (sv.recv_interval > 1 || sv.batch_wait_iters > 0 || sv.adp_balance_iters > 0))
    x.notes.push_back("the receive interval (SGLang's), batch waiting and the attention-DP "
                      "balance (TensorRT-LLM's) have no vLLM option: vLLM takes new requests "
                      "every iteration");
  if (x.serve && !sv.prefix_cache)
    x.add("--no-enable-prefix-caching");
  else if (x.serve && shares_prefixes(sv))
    x.add("--enable-prefix-caching"); // vLLM V1's default, said for the workload that needs it
  if (x.serve && sv.lora)             // vllm/config/lora.py: max_loras (GPU slots), max_cpu_loras
    x.add("--enable-lora --max-loras " + s(sv.lora->resident) + " --max-lora-rank " +
          s(sv.lora->rank) + " --max-cpu-loras " + s(sv.lora->adapters));
  if (x.serve && sv.kv_offload) { // vllm/config/cache.py kv_offloading_size: GiB over the TP ranks
    const KvOffloadSpec &o = *sv.kv_offload;
    std::ostringstream g;
    g << o.host_bytes * static_cast<double>(l.tp * l.pp * l.attention_dp) / (1024.0 * 1024 * 1024);
    x.add("--kv-offloading-backend native --kv-offloading-size " + g.str());
    if (o.disk_bytes > 0)
      x.notes.push_back("the disk tier: LMCache's local disk (--kv-offloading-backend lmcache with "
                        "LMCACHE_LOCAL_DISK and LMCACHE_MAX_LOCAL_DISK_SIZE); vLLM's native "
                        "offloading keeps host memory only");
  }
  return launch_text(serving_header("vLLM", c, l, x), "vllm serve " + x.model, x, c);
}

// SGLang (`python -m sglang.launch_server`, flags from python/sglang/srt/server_args.py):
// attention DP is --dp-size with --enable-dp-attention inside one tp group of tp x dp GPUs.
std::string sglang(const Config &c, const Layout &l) {
  const WorkloadSpec &w = c.workload;
  ServingLaunch x = serving_launch(c, l);
  x.add("--model-path " + x.model);
  // SGLang's --tp-size counts every GPU of the engine; DP attention splits it into dp groups.
  x.add("--tp-size " + s(l.tp * l.attention_dp));
  if (l.attention_dp > 1)
    x.add("--dp-size " + s(l.attention_dp) + " --enable-dp-attention");
  if (l.pp > 1)
    x.add("--pp-size " + s(l.pp));
  if (l.ep > 1)
    x.add("--ep-size " + s(l.ep));
  x.add("--max-running-requests " + s(x.serve ? w.serve.max_batch : w.batch));
  if (x.serve) {
    x.add("--chunked-prefill-size " + s(w.serve.max_tokens));
    std::ostringstream f;
    f << w.serve.memory_fraction;
    x.add("--mem-fraction-static " + f.str());
    x.add("--page-size " + s(w.serve.block_size));
    if (w.serve.recv_interval > 1)
      x.add("--scheduler-recv-interval " + s(w.serve.recv_interval));
    if (w.serve.batch_wait_iters > 0)
      x.notes.push_back("batch waiting (scheduler.batch_wait_iters) is TensorRT-LLM's: SGLang "
                        "has no such option");
    if (w.serve.adp_balance_iters > 0)
      x.notes.push_back("the attention-DP balance (scheduler.adp_balance_iters) is "
                        "TensorRT-LLM's: SGLang has no such option");
    if (!w.serve.prefix_cache)
      x.add("--disable-radix-cache");
    if (w.serve.lora) // python/sglang/srt/server_args.py
      x.add("--enable-lora --max-loras-per-batch " + s(w.serve.lora->resident) +
            " --max-lora-rank " + s(w.serve.lora->rank) + " --lora-target-modules all");
    if (w.serve.kv_offload) { // HiCache: host memory per GPU in GB
      std::ostringstream g;
      g << w.serve.kv_offload->host_bytes / 1e9;
      x.add("--enable-hierarchical-cache --hicache-size " + g.str());
      if (w.serve.kv_offload->disk_bytes > 0)
        x.add("--hicache-storage-backend file");
    }
  }
  x.add("--context-length " + s(x.max_len));
  if (w.kv_dtype == Dtype::fp8)
    x.add("--kv-cache-dtype fp8_e4m3");
  if (w.weight_dtype == Dtype::fp8)
    x.add("--quantization fp8");
  if (x.serve && w.serve.policy == SchedulerPolicy::static_batch)
    x.notes.push_back("static batching has no SGLang flag: SGLang always batches continuously");
  if (x.serve && w.serve.speculative) {
    // python/sglang/srt/server_args.py: EAGLE over the model's own MTP layer (NEXTN is its
    // alias), EAGLE3 with a head, STANDALONE with a draft model; with top-k 1 the draft tokens
    // are the steps + 1 (the verified token among them)
    const SpeculativeSpec &sp = *w.serve.speculative;
    x.add(std::string("--speculative-algorithm ") + (sp.method == SpecMethod::mtp ? "EAGLE"
                                                     : sp.method == SpecMethod::eagle
                                                         ? "EAGLE3"
                                                         : "STANDALONE"));
    if (sp.method != SpecMethod::mtp)
      x.add("--speculative-draft-model-path " + shell_word(draft_checkpoint(sp)));
    if (sp.method == SpecMethod::eagle)
      x.notes.push_back(kEagleHeadNote);
    x.add("--speculative-num-steps " + s(sp.draft_tokens) + " --speculative-eagle-topk 1" +
          " --speculative-num-draft-tokens " + s(sp.draft_tokens + 1));
  }
  return launch_text(serving_header("SGLang", c, l, x), "python -m sglang.launch_server", x, c);
}

// TensorRT-LLM (`trtllm-serve`, flags from tensorrt_llm/commands/serve.py; attention DP is
// the LLM API's enable_attention_dp, passed in the --extra_llm_api_options YAML).
std::string trtllm(const Config &c, const Layout &l) {
  const WorkloadSpec &w = c.workload;
  ServingLaunch x = serving_launch(c, l);
  x.add("--backend pytorch");
  // TensorRT-LLM's tp_size counts every GPU of the engine (attention DP splits it).
  x.add("--tp_size " + s(l.tp * l.attention_dp));
  x.add("--pp_size " + s(l.pp));
  if (l.ep > 1)
    x.add("--ep_size " + s(l.ep));
  x.add("--max_batch_size " + s(x.serve ? w.serve.max_batch : w.batch));
  if (x.serve)
    x.add("--max_num_tokens " + s(w.serve.max_tokens));
  x.add("--max_seq_len " + s(x.max_len));
  if (x.serve) {
    std::ostringstream f;
    f << w.serve.memory_fraction;
    x.add("--kv_cache_free_gpu_memory_fraction " + f.str());
    if (w.serve.engine.kv_memory != EngineSpec::KvMemory::free)
      x.notes.push_back("--kv_cache_free_gpu_memory_fraction is a share of the memory the "
                        "weights and activations leave; this plan's engine sizes its KV cache "
                        "from HBM: lower it if the KV cache comes out larger than planned");
  }
  const auto &spec = w.serve.speculative;
  const bool wait = x.serve && w.serve.batch_wait_iters > 0;
  if (l.attention_dp > 1 || (x.serve && spec) || wait)
    x.add("--extra_llm_api_options extra.yaml");
  if (l.attention_dp > 1)
    x.notes.push_back("extra.yaml holds \"enable_attention_dp: true\"");
  if (x.serve && l.attention_dp > 1 && w.serve.adp_balance_iters > 0) // AttentionDpConfig
    x.notes.push_back("extra.yaml holds \"attention_dp_config: {enable_balance: true, "
                      "timeout_iters: " +
                      s(w.serve.adp_balance_iters) +
                      ", batching_wait_iters: " + s(w.serve.adp_batching_wait_iters) + "}\"");
  if (wait) { // tensorrt_llm/llmapi/llm_args.py TorchLlmArgs
    std::ostringstream r;
    r << w.serve.batch_wait_tokens_ratio;
    x.notes.push_back(
        "extra.yaml holds \"batch_wait_timeout_iters: " + s(w.serve.batch_wait_iters) +
        "\" and \"batch_wait_max_tokens_ratio: " + r.str() + "\"");
  }
  if (x.serve && w.serve.recv_interval > 1)
    x.notes.push_back("the receive interval (scheduler.recv_interval) is SGLang's: TensorRT-LLM "
                      "takes new requests every iteration");
  if (wait && l.attention_dp > 1)
    x.notes.push_back("TensorRT-LLM skips batch waiting under attention DP (py_executor.py "
                      "_schedule): the estimate did too");
  if (x.serve && spec) { // tensorrt_llm/llmapi/llm_args.py: MTPDecodingConfig, EagleDecodingConfig
    if (spec->method == SpecMethod::mtp)
      x.notes.push_back("extra.yaml holds \"speculative_config: {decoding_type: MTP, "
                        "num_nextn_predict_layers: " +
                        s(spec->draft_tokens) + "}\"");
    else if (spec->method == SpecMethod::eagle)
      x.notes.push_back("extra.yaml holds \"speculative_config: {decoding_type: Eagle, "
                        "max_draft_len: " +
                        s(spec->draft_tokens) + ", speculative_model_dir: " + kEagleHead +
                        ", eagle3_one_model: true}\"; " + kEagleHeadNote);
    else
      x.notes.push_back("a draft model: TensorRT-LLM's draft-target option is not verified "
                        "here; the estimate assumed one of " +
                        s(spec->draft_tokens) + " tokens");
  }
  if (w.kv_dtype == Dtype::fp8)
    x.notes.push_back("FP8 KV cache: \"kv_cache_config: {dtype: fp8}\" in the extra options "
                      "YAML");
  // tensorrt_llm/llmapi/llm_args.py KvCacheConfig: enable_block_reuse (on by default),
  // host_cache_size (bytes of host memory per rank for blocks evicted from the GPU)
  if (x.serve && !w.serve.prefix_cache)
    x.notes.push_back("prefix caching off: \"kv_cache_config: {enable_block_reuse: false}\" in "
                      "the extra options YAML");
  if (x.serve && w.serve.lora) // tensorrt_llm/lora_helper.py LoraConfig
    x.notes.push_back("LoRA: \"lora_config: {max_lora_rank: " + s(w.serve.lora->rank) +
                      ", max_loras: " + s(w.serve.lora->resident) + ", max_cpu_loras: " +
                      s(w.serve.lora->adapters) + "}\" in the extra options YAML");
  if (x.serve && w.serve.kv_offload) {
    std::ostringstream b;
    b << std::fixed << std::setprecision(0) << w.serve.kv_offload->host_bytes;
    x.notes.push_back("host memory tier: \"kv_cache_config: {host_cache_size: " + b.str() +
                      "}\" (bytes per GPU) in the extra options YAML");
    if (w.serve.kv_offload->disk_bytes > 0)
      x.notes.push_back("the disk tier has no TensorRT-LLM option: serve it through Dynamo's KV "
                        "block manager or leave disk_bytes out");
  }
  if (w.weight_dtype == Dtype::fp8)
    x.notes.push_back("fp8 weights: TensorRT-LLM reads them from an FP8 checkpoint (its "
                      "config's quantization): serve one (e.g. quantized with ModelOpt)");
  return launch_text(serving_header("TensorRT-LLM", c, l, x), "trtllm-serve " + x.model, x, c);
}

} // namespace

std::string launch_export(const Config &c, const Layout &l, const std::string &format) {
  const Framework f = check_export_format(c, format);
  if (const LayoutCheck k = check_framework(c, l, f); !k.ok())
    throw ConfigError(k.path, k.message + " (--format " + format + ")");
  switch (f) {
  case Framework::any:
    break;
  case Framework::megatron:
    return megatron(c, l);
  case Framework::deepspeed:
    return deepspeed(c, l);
  case Framework::torchtitan:
    return torchtitan(c, l);
  case Framework::torchtune:
    return torchtune(c, l);
  case Framework::vllm:
    return vllm(c, l);
  case Framework::sglang:
    return sglang(c, l);
  case Framework::trtllm:
    return trtllm(c, l);
  }
  return vllm(c, l);
}

Framework check_export_format(const Config &c, const std::string &format) {
  const schema::ChoiceList &list = schema::choices<Framework>();
  const std::optional<int> v = schema::value_in(list, format);
  if (!v || static_cast<Framework>(*v) == Framework::any) {
    std::string known; // every framework but "any"
    for (const std::string &n : schema::names(list))
      if (n != "any")
        known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("--format", "\"" + format + "\" is not one of " + known);
  }
  const Framework f = static_cast<Framework>(*v);
  const bool train = trains(f);
  const Mode mode = c.workload.mode;
  if (mode != Mode::train && mode != Mode::infer && mode != Mode::serve)
    throw ConfigError("workload.mode", std::string("export writes launches for train, infer and "
                                                   "serve configurations, not ") +
                                           name_of(mode));
  if (train && mode != Mode::train)
    throw ConfigError("--format", "\"" + format + "\" writes training launches; workload.mode is " +
                                      name_of(mode) + ": use --format vllm, sglang or trtllm");
  if (!train && mode == Mode::train)
    throw ConfigError("--format", "\"" + format +
                                      "\" writes serving launches; workload.mode is train: use "
                                      "--format megatron, deepspeed, torchtitan or torchtune");
  return f;
}

} // namespace rl::io
