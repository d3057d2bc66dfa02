#include "core/parallel/frameworks.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace rl {

namespace {
// The refusal; its message is built only when explained (the planner counts kinds alone).
template <class Message>
LayoutCheck framework_refusal(const std::string &path, bool explain, Message &&message) {
  return {LayoutFault::framework, path, explain ? message() : std::string()};
}
std::string n_of(i64 v) {
  return std::to_string(v);
}
} // namespace

PipelineSplitFlags megatron_split_flags(i64 layers, const Layout &l) {
  const bool a = l.first_layers > 0, b = l.last_layers > 0;
  if ((!a && !b) || l.pp < 2)
    return {};
  const i64 n = layers + (a ? 1 : 0) + (b ? 1 : 0), v = std::max<i64>(l.vpp, 1);
  if (n % l.pp != 0 || (n / l.pp) % v != 0)
    return {};
  const i64 per = n / l.pp;
  if ((a && l.first_layers != per - 1) || (b && l.last_layers != per - 1))
    return {};
  return {a, b};
}

bool trains(Framework f) {
  return f == Framework::megatron || f == Framework::deepspeed || f == Framework::torchtitan ||
         f == Framework::torchtune;
}

// A fine-tune's rules by framework: who runs adapters, an NF4 base, the optimizer on the host.
LayoutCheck check_finetune(const Config &c, const Layout &l, Framework f, bool explain) {
  const std::optional<FinetuneSpec> &ft = c.workload.finetune;
  const bool adapters = ft && ft->adapters();
  const bool nf4 = ft && ft->base_dtype == BaseDtype::nf4;
  // Only DeepSpeed's ZeRO-Offload moves the optimizer alone to the host (Megatron-LM keeps its
  // distributed optimizer on the GPUs; torchtune's fsdp_cpu_offload moves the parameters too).
  if (l.offload_optimizer && f != Framework::deepspeed && f != Framework::any)
    return framework_refusal("parallel.offload_optimizer", explain, [] {
      return std::string("this framework does not offload the optimizer alone (DeepSpeed's "
                         "ZeRO-Offload does): export to deepspeed, or set it false");
    });
  switch (f) {
  case Framework::megatron: // Megatron-Bridge's PEFT (megatron/bridge/peft/lora.py) has no NF4
    if (nf4)
      return framework_refusal("workload.finetune.base_dtype", explain, [] {
        return std::string("Megatron-Core has no NF4 base (QLoRA): export to torchtune or "
                           "deepspeed (Hugging Face PEFT with bitsandbytes)");
      });
    break;
  case Framework::torchtitan:
    if (adapters)
      return framework_refusal("workload.finetune.method", explain, [] {
        return std::string("TorchTitan trains every weight (no LoRA): export a fine-tune with "
                           "adapters to torchtune");
      });
    break;
  case Framework::deepspeed: // deepspeed/runtime/zero/config.py: offload_optimizer, stages 1-3
    if (l.offload_optimizer && l.zero < 1)
      return framework_refusal("parallel.zero", explain, [] {
        return std::string("DeepSpeed offloads the optimizer under ZeRO stage 1, 2 or 3, not 0");
      });
    break;
  case Framework::torchtune:
    // recipes/lora_finetune_distributed.py, full_finetune_distributed.py: FSDP2 data
    // parallelism (fully sharded), one GPU without it.
    if (l.tp > 1 || l.pp > 1 || l.cp > 1 || l.ep > 1)
      return framework_refusal(l.tp > 1   ? "parallel.tp"
                               : l.pp > 1 ? "parallel.pp"
                               : l.cp > 1 ? "parallel.cp"
                                          : "parallel.ep",
                               explain, [] {
                                 return std::string("torchtune's LoRA and fine-tuning recipes "
                                                    "shard by FSDP2 data parallelism: set tp, pp, "
                                                    "cp and ep to 1");
                               });
    if (l.dp > 1 && l.zero < 3)
      return framework_refusal("parallel.zero", explain, [] {
        return std::string("torchtune's distributed recipes shard with FSDP2 (ZeRO-3): set "
                           "zero 3");
      });
    break;
  case Framework::any:
  case Framework::vllm:
  case Framework::sglang:
  case Framework::trtllm:
    break;
  }
  return {};
}

LayoutCheck check_framework(const Config &c, const Layout &l, Framework f, bool explain) {
  const i64 layers = c.model.layers;
  if (LayoutCheck k = check_finetune(c, l, f, explain); !k.ok())
    return k;
  // DeepSeek's DualPipe: its own repository's schedule (github.com/deepseek-ai/DualPipe);
  // of the frameworks, PyTorch's pipelining runs the V form (torch/distributed/pipelining/
  // schedules.py, ScheduleDualPipeV, TorchTitan's "DualPipeV"); Megatron-Core's schedules are
  // 1F1B and interleaved 1F1B (megatron/core/pipeline_parallel/schedules.py
  // get_forward_backward_func), DeepSpeed's TrainSchedule 1F1B.
  // Adam's moments in BF16: Megatron-LM's precision-aware optimizer (--exp-avg-dtype,
  // megatron/training/arguments.py); DeepSpeed's, TorchTitan's and torchtune's Adam keep them
  // in the parameters' fp32
  if (c.workload.bf16_moments && trains(f) && f != Framework::megatron)
    return framework_refusal("workload.bf16_moments", explain, [] {
      return std::string("only Megatron-LM's precision-aware optimizer keeps Adam's moments in "
                         "BF16 (--exp-avg-dtype bf16): export to Megatron-LM, or set it off");
    });
  const bool dual = is_dualpipe(l.schedule);
  if (dual && trains(f) && !(f == Framework::torchtitan && l.schedule == PpSchedule::dualpipev))
    return framework_refusal("parallel.pp_schedule", explain, [&] {
      return std::string(f == Framework::torchtitan
                             ? "TorchTitan runs DualPipeV (PyTorch's ScheduleDualPipeV), not "
                               "DualPipe's two model copies: set pp_schedule dualpipev"
                         : f == Framework::megatron
                             ? "Megatron-Core's pipeline schedules are 1F1B and interleaved "
                               "1F1B: set pp_schedule 1f1b or interleaved, or export DualPipeV "
                               "to TorchTitan"
                             : "this framework's pipeline runs 1F1B: set pp_schedule 1f1b, or "
                               "export DualPipeV to TorchTitan");
    });
  switch (f) {
  case Framework::megatron: {
    // megatron/training/arguments.py: without --decoder-first/last-pipeline-num-layers the
    // layers split evenly over pp x vpp; an uneven split is expressed only by the first and
    // last stage counts.
    if (l.uneven_pp && layers % (l.pp * l.vpp) != 0)
      return framework_refusal("parallel.uneven_pp", explain, [&] {
        return "Megatron-Core splits " + n_of(layers) + " layers evenly over pp " + n_of(l.pp) +
               " x vpp " + n_of(l.vpp) +
               " or by --decoder-first/last-pipeline-num-layers: set "
               "parallel.first_stage_layers / last_stage_layers instead";
      });
    // megatron/core/transformer/transformer_config.py (__post_init__): with interleaving, the
    // first, the last and each middle stage's layer count must each be divisible by the
    // virtual pipeline degree ("number of layers at middle stage: 32 must be divisible by
    // virtual pipeline parallel degree 31").
    // (A split Megatron expresses by counting the embedding and the loss as layers passes.)
    if (l.vpp > 1 && (l.first_layers > 0 || l.last_layers > 0) &&
        !megatron_split_flags(layers, l).any()) {
      const i64 set = (l.first_layers > 0 ? 1 : 0) + (l.last_layers > 0 ? 1 : 0);
      const i64 middle = l.pp - set;
      const i64 share = middle > 0 ? (layers - l.first_layers - l.last_layers) / middle : 0;
      const std::pair<const char *, i64> stages[] = {
          {"first", l.first_layers}, {"middle", share}, {"last", l.last_layers}};
      for (const auto &[which, n] : stages)
        if (n > 0 && n % l.vpp != 0)
          return framework_refusal("parallel.vpp", explain, [&, n = n, which = which] {
            return "vpp " + n_of(l.vpp) + " does not divide the " + n_of(n) + " layers of the " +
                   which + " stage (Megatron-Core splits each stage into vpp equal virtual stages)";
          });
    }
    break;
  }
  case Framework::deepspeed:
  case Framework::torchtitan:
    if (l.offload_layers > 0)
      return framework_refusal("parallel.offload_layers", explain, [&] {
        return std::string(f == Framework::deepspeed ? "DeepSpeed" : "TorchTitan") +
               " has no per-layer activation offload like Megatron-Core's "
               "--cpu-offloading-num-layers: export to Megatron-LM, or set 0";
      });
    if (f == Framework::torchtitan)
      break;
    // deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline
    // parallelism" (asserted when the pipeline has more than one stage); its schedule
    // (deepspeed/runtime/pipe/schedule.py TrainSchedule) is 1F1B without interleaving.
    if (l.pp > 1 && l.zero >= 2)
      return framework_refusal("parallel.zero", explain, [&] {
        return "DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 with pp " + n_of(l.pp) +
               " (ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism)";
      });
    if (l.vpp > 1)
      return framework_refusal("parallel.vpp", explain, [] {
        return std::string("DeepSpeed's pipeline engine has no interleaved schedule");
      });
    break;
  case Framework::torchtune: // check_finetune
  case Framework::any:
  case Framework::vllm:
  case Framework::sglang:
  case Framework::trtllm:
    break;
  }
  return {};
}

} // namespace rl
