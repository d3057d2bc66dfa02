#include "core/parallel/layout.hpp"

#include "core/parallel/frameworks.hpp"

#include "core/schema/fields.hpp"

#include "core/error.hpp"
#include "core/model/params.hpp"

#include <algorithm>
#include <string>

namespace rl {

namespace {
std::string s(i64 v) {
  return std::to_string(v);
}

LayoutCheck fail(LayoutFault f, std::string path, std::string message) {
  return {f, std::move(path), std::move(message)};
}

bool divides(i64 d, i64 n) {
  return d > 0 && n % d == 0;
}
std::string not_dividing(i64 d, const std::string &what, i64 n) {
  return s(d) + " does not divide " + what + " " + s(n);
}

// Megatron's first/last stage rule: the stages without a count split the rest evenly.
LayoutCheck check_stage_split(const ModelSpec &m, const Layout &l) {
  const i64 set = (l.first_layers > 0 ? 1 : 0) + (l.last_layers > 0 ? 1 : 0);
  if (set == 0)
    return {};
  const std::string path =
      l.first_layers > 0 ? "parallel.first_stage_layers" : "parallel.last_stage_layers";
  if (l.uneven_pp)
    return fail(LayoutFault::pipeline, "parallel.uneven_pp",
                "is the other uneven split: use it or first/last stage layers, not both");
  if (l.pp < 2)
    return fail(LayoutFault::pipeline, path, "needs pp >= 2");
  const i64 rest = m.layers - l.first_layers - l.last_layers;
  const i64 middle = l.pp - set;
  if (rest < 0 || (middle == 0 && rest != 0) || (middle > 0 && (rest < middle || rest % middle)))
    return fail(LayoutFault::pipeline, path,
                "first " + s(l.first_layers) + " + last " + s(l.last_layers) + " leaves " +
                    s(rest) + " layers of " + s(m.layers) + ", not an equal share for " +
                    s(middle) + " other stages");
  const i64 share = middle > 0 ? rest / middle : l.vpp;
  const i64 fewest = std::min({share, l.first_layers > 0 ? l.first_layers : share,
                               l.last_layers > 0 ? l.last_layers : share});
  if (fewest < l.vpp)
    return fail(LayoutFault::pipeline, "parallel.vpp",
                "vpp " + s(l.vpp) + " exceeds the " + s(fewest) + " layers of the smallest stage");
  return {};
}

LayoutCheck check_layout(const Config &c, Layout &l, bool explain);
} // namespace

const char *name_of(LayoutFault f) {
  switch (f) {
  case LayoutFault::none:
    return "none";
  case LayoutFault::heads:
    return "heads";
  case LayoutFault::divisibility:
    return "divisibility";
  case LayoutFault::pipeline:
    return "pipeline";
  case LayoutFault::experts:
    return "experts";
  case LayoutFault::devices:
    return "devices";
  case LayoutFault::batch:
    return "batch";
  case LayoutFault::framework:
    return "framework";
  }
  return "?";
}

std::string knob_error(const Config &c, const std::string &knob, i64 value) {
  Config x = c;
  ParallelSpec &p = x.parallel;
  p.dp.reset();
  const auto *f = schema::parallel_field(knob); // any of the layout's integer knobs
  if (!f || !f->integer)
    return "unknown knob " + knob;
  p.*(f->integer) = value;
  if (knob == "vpp" && !c.parallel.pp_schedule)
    p.pp_schedule.reset(); // the schedule follows vpp unless pinned
  Layout l;
  const LayoutCheck r = fill_layout(x, l);
  return r.ok() ? std::string() : r.message;
}

i64 axis_stride(const Layout &l, const std::string &axis) {
  i64 stride = 1;
  for (const auto &a : l.order) {
    if (a == axis)
      return stride;
    stride *= a == "tp" ? l.tp * l.attention_dp : a == "cp" ? l.cp : a == "dp" ? l.dp : l.pp;
  }
  return stride;
}

i64 derived_dp(i64 devices, i64 tp, i64 pp, i64 cp) {
  const i64 model_par = tp * pp * cp;
  return model_par > 0 && devices % model_par == 0 ? devices / model_par : 0;
}

i64 expert_dp(const Layout &l) {
  if (l.ep_in_instance)
    return l.dp * l.cp;
  if (l.expert_folding)
    return l.tp * l.cp * l.dp / (l.ep * l.moe_tp);
  return l.dp * l.cp / l.ep;
}

ExpertShare expert_share(const MoeSpec &e, i64 tp, bool sp, bool folding, i64 moe_tp, double tok,
                         double imbalance) {
  const double rep = sp && tp > 1 ? static_cast<double>(tp) : 1.0;
  const i64 etp = folding ? moe_tp : (sp && tp > 1 ? tp : 1);
  ExpertShare x;
  x.dispatched = tok / rep * static_cast<double>(e.top_k) * imbalance;
  x.gathered_over = etp;
  x.routed = x.dispatched * static_cast<double>(etp);
  x.ffn = static_cast<double>(e.expert_ffn) / static_cast<double>(folding ? moe_tp : tp);
  return x;
}

ExpertShare expert_share(const ModelSpec &m, const Layout &l, double tok, double imbalance) {
  if (!m.moe)
    return {};
  return expert_share(*m.moe, l.tp, l.sp, l.expert_folding, l.moe_tp, tok, imbalance);
}

LayoutGroups layout_groups(const Layout &l) {
  const i64 s_tp = axis_stride(l, "tp"), s_cp = axis_stride(l, "cp");
  const i64 s_dp = axis_stride(l, "dp"), s_pp = axis_stride(l, "pp");
  LayoutGroups g;
  g.tp = {l.tp, s_tp};
  g.uly = {l.ulysses, s_cp};
  g.ring = {l.ring, s_cp * l.ulysses};
  g.dp = {l.dp * l.cp, s_cp * l.cp == s_dp ? s_cp : s_dp};
  g.instance = {l.tp * l.attention_dp, s_tp};
  if (l.ep_in_instance) { // Megatron MoE parallel folding (arXiv 2504.14960): moe_tp inside ep
    g.ep = {l.ep, s_tp * l.moe_tp};
    g.edp = {expert_dp(l), s_dp};
  } else if (l.expert_folding) { // training: moe_tp x ep x expert-dp over tp x cp x dp
    g.ep = {l.ep, s_tp * l.moe_tp};
    g.edp = {expert_dp(l), s_tp * l.moe_tp * l.ep};
  } else {
    g.ep = {l.ep, s_dp};
    g.edp = {expert_dp(l), s_dp * l.ep};
  }
  g.pp = {l.pp, s_pp};
  g.etp = l.expert_folding || l.ep_in_instance ? Group{l.moe_tp, s_tp} : g.tp;
  return g;
}

i64 heads_per_rank(const ModelSpec &m, i64 tp) {
  return m.heads / tp;
}

i64 kv_heads_per_rank(const ModelSpec &m, i64 tp) {
  return m.kv_heads % tp == 0 ? m.kv_heads / tp : 1; // replicated when tp > kv_heads
}

std::vector<i64> stage_layer_counts(i64 layers, i64 pp) {
  std::vector<i64> out(static_cast<std::size_t>(pp), layers / pp);
  for (i64 j = 0; j < layers % pp; ++j)
    ++out[static_cast<std::size_t>(j)];
  return out;
}

i64 model_chunks(const Layout &l) {
  switch (l.schedule) {
  case PpSchedule::interleaved:
    return l.vpp;
  case PpSchedule::dualpipe:
  case PpSchedule::dualpipev:
    return 2;
  case PpSchedule::one_f_one_b:
  case PpSchedule::gpipe:
    break;
  }
  return 1;
}

i64 chunk_device(const Layout &l, i64 c) {
  if (l.schedule == PpSchedule::dualpipe && c >= l.pp) // the second copy, fed from the far end
    return l.pp - 1 - (c - l.pp);
  if (l.schedule == PpSchedule::dualpipev && c >= l.pp) // the V's second leg, coming back
    return 2 * l.pp - 1 - c;
  return c % l.pp;
}

double pass_share(const Layout &l) {
  return l.schedule == PpSchedule::dualpipe ? 0.5 : 1.0;
}

i64 chunk_passes(const Layout &l) {
  return l.schedule == PpSchedule::dualpipe ? 1 : model_chunks(l);
}

bool holds_embedding(const Layout &l, i64 device) {
  return device == 0 || (l.schedule == PpSchedule::dualpipe && device == l.pp - 1);
}

bool holds_head(const Layout &l, i64 device) {
  if (l.schedule == PpSchedule::dualpipev)
    return device == 0;
  return device == l.pp - 1 || (l.schedule == PpSchedule::dualpipe && device == 0);
}

std::vector<i64> chunk_layer_counts(i64 layers, const Layout &l) {
  if (l.schedule == PpSchedule::dualpipe) { // each copy split as one 1F1B pipeline
    Layout one = l;
    one.schedule = PpSchedule::one_f_one_b;
    std::vector<i64> out = chunk_layer_counts(layers, one);
    out.insert(out.end(), out.begin(), out.end());
    return out;
  }
  if (l.schedule == PpSchedule::dualpipev) // 2p stages (first/last stage layers refused)
    return stage_layer_counts(layers, 2 * l.pp);
  if (l.first_layers <= 0 && l.last_layers <= 0)
    return stage_layer_counts(layers, l.pp * l.vpp);
  const i64 set = (l.first_layers > 0 ? 1 : 0) + (l.last_layers > 0 ? 1 : 0);
  const i64 middle = l.pp - set;
  const i64 share = middle > 0 ? (layers - l.first_layers - l.last_layers) / middle : 0;
  std::vector<i64> out(static_cast<std::size_t>(l.pp * l.vpp));
  for (i64 j = 0; j < l.pp; ++j) {
    const i64 n = j == 0 && l.first_layers > 0         ? l.first_layers
                  : j == l.pp - 1 && l.last_layers > 0 ? l.last_layers
                                                       : share;
    for (i64 k = 0; k < l.vpp; ++k)
      out[static_cast<std::size_t>(k * l.pp + j)] = n / l.vpp + (k < n % l.vpp ? 1 : 0);
  }
  return out;
}

std::vector<i64> stage_layers(i64 layers, const Layout &l, i64 stage) {
  std::vector<i64> out;
  const auto counts = chunk_layer_counts(layers, l);
  i64 start = 0;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    const i64 n = counts[c];
    if (chunk_device(l, static_cast<i64>(c)) == stage)
      for (i64 i = 0; i < n; ++i)
        out.push_back(start % layers + i); // DualPipe's second copy counts from layer 0 again
    start += n;
  }
  return out;
}

Bf16Layers bf16_layers(const WorkloadSpec &w) {
  if (w.mode != Mode::train || !is_scaled_float(w.precision))
    return {};
  return {w.bf16_first_layers, w.bf16_last_layers};
}

std::vector<StageLayerCount> stage_layer_mix(const ModelSpec &m, const Layout &l, Bf16Layers bf16) {
  std::vector<StageLayerCount> out(static_cast<std::size_t>(l.pp));
  const auto counts = chunk_layer_counts(m.layers, l);
  // layers [0, first) and [L - last, L) are BF16; a layer in both counts once
  const i64 lo = std::min(bf16.first, m.layers), hi = std::max(lo, m.layers - bf16.last);
  i64 start = 0;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    StageLayerCount &st = out[static_cast<std::size_t>(chunk_device(l, static_cast<i64>(c)))];
    if (start == m.layers) // DualPipe's second copy
      start = 0;
    const i64 end = start + counts[c];
    const i64 moe = moe_layers_in(m, start, end);
    st.moe += moe;
    st.dense += counts[c] - moe;
    for (const auto &[a, b] :
         {std::pair{start, std::min(end, lo)}, std::pair{std::max(start, hi), end}})
      if (b > a) {
        const i64 moe16 = moe_layers_in(m, a, b);
        st.moe_bf16 += moe16;
        st.dense_bf16 += b - a - moe16;
      }
    start = end;
  }
  return out;
}

// The knobs a ParallelSpec sets (defaults for the rest), then complete_layout.
ClusterSizeFault cluster_size_fault(const ClusterSpec &c, i64 devices) {
  if (c.devices_per_node > 0 && devices > c.devices_per_node && devices % c.devices_per_node != 0)
    return {"devices_per_node", s(c.devices_per_node) + " does not divide devices " + s(devices)};
  // A job may hold part of each NVLink domain (domain_devices_of): only a count it sets must
  // divide the devices.
  if (c.devices_per_domain > 0 && devices > c.devices_per_domain &&
      devices % c.devices_per_domain != 0)
    return {"devices_per_domain",
            s(c.devices_per_domain) + " does not divide devices " + s(devices)};
  return {};
}

i64 whole_node_instances(const ClusterSpec &c, i64 instance, i64 n) {
  // n' x instance is a multiple of the domain (or node) at the latest at n' = n + domain
  const i64 span = std::max<i64>({c.devices_per_node, c.nvlink_domain, 1});
  for (i64 k = n; k <= n + span; ++k)
    if (cluster_size_fault(c, k * instance).ok())
      return k;
  return n + span;
}

LayoutCheck fill_layout(const Config &c, Layout &l) {
  const ParallelSpec &p = c.parallel;
  l = Layout{};
  l.tp = p.tp.value_or(1);
  l.pp = p.pp.value_or(1);
  l.vpp = p.vpp.value_or(1);
  l.cp = p.cp.value_or(1);
  l.ep = p.ep.value_or(1);
  l.attention_dp = p.attention_dp.value_or(1);
  l.zero = p.zero.value_or(0);
  l.microbatch = p.microbatch.value_or(1);
  l.flash = p.flash_attention.value_or(true);
  l.recompute = p.recompute.value_or(Recompute::none);
  l.recompute_norm = p.recompute_norm.value_or(false);
  l.recompute_mla_up = p.recompute_mla_up.value_or(false);
  l.recompute_moe_act = p.recompute_moe_act.value_or(false);
  l.offload_layers = p.offload_layers.value_or(0);
  l.offload_optimizer = p.offload_optimizer.value_or(false);
  l.uneven_pp = p.uneven_pp.value_or(false);
  l.first_layers = p.first_stage_layers.value_or(0);
  l.last_layers = p.last_stage_layers.value_or(0);
  l.overlap_tp = p.overlap_tp.value_or(false);
  l.overlap_dp = p.overlap_dp.value_or(true);
  l.overlap_pp = p.overlap_pp.value_or(false);
  l.overlap_ep = p.overlap_ep.value_or(false);
  if (p.order)
    l.order = *p.order;
  l.sp = p.sp.value_or(l.tp > 1);
  l.cp_kind = p.cp_kind.value_or(CpKind::ring);
  l.schedule =
      p.pp_schedule.value_or(l.vpp > 1 ? PpSchedule::interleaved : PpSchedule::one_f_one_b);
  if (l.cp_kind == CpKind::ring && p.ulysses && *p.ulysses != 1)
    return fail(LayoutFault::divisibility, "parallel.ulysses", "needs cp_kind usp");
  l.ulysses = l.cp_kind == CpKind::usp ? p.ulysses.value_or(1) : 1;
  l.dp = p.dp.value_or(0);
  return complete_layout(c, l);
}

LayoutCheck complete_layout(const Config &c, Layout &l, bool explain) {
  LayoutCheck r = check_layout(c, l, explain);
  // the framework the plan is for (workload.framework): its own launch rules too
  if (r.ok() && c.workload.framework != Framework::any)
    r = check_framework(c, l, c.workload.framework, explain);
  if (!explain)
    r.message.clear();
  return r;
}

namespace {
// The rules, in the order resolve_layout reports them. Without `explain` a failure's
// message is never built: `fail` gets a lambda.
LayoutCheck check_layout(const Config &c, Layout &l, bool explain) {
  const ModelSpec &m = c.model;
  const WorkloadSpec &w = c.workload;
  using F = LayoutFault;
#define RL_FAIL(f, path, msg) return explain ? fail(f, path, msg) : fail(f, {}, {})

  // Tensor parallel: heads, KV heads (or replicate them), MLP width.
  if (!divides(l.tp, m.heads))
    RL_FAIL(F::heads, "parallel.tp", not_dividing(l.tp, "heads", m.heads));
  if (m.kv_heads % l.tp != 0 && l.tp % m.kv_heads != 0)
    RL_FAIL(F::heads, "parallel.tp",
            s(l.tp) + " neither divides nor is a multiple of kv_heads " + s(m.kv_heads));
  if (!divides(l.tp, m.ffn))
    RL_FAIL(F::divisibility, "parallel.tp", not_dividing(l.tp, "ffn", m.ffn));
  if (m.moe && !divides(l.tp, m.moe->expert_ffn))
    RL_FAIL(F::divisibility, "parallel.tp",
            not_dividing(l.tp, "moe.expert_ffn", m.moe->expert_ffn));

  // Sequence parallel (context): ring, Ulysses, USP.
  switch (l.cp_kind) {
  case CpKind::ring:
    l.ulysses = 1;
    l.ring = l.cp;
    break;
  case CpKind::ulysses:
    l.ulysses = l.cp;
    l.ring = 1;
    break;
  case CpKind::usp:
    if (!divides(l.ulysses, l.cp))
      RL_FAIL(F::divisibility, "parallel.ulysses", not_dividing(l.ulysses, "cp", l.cp));
    l.ring = l.cp / l.ulysses;
    break;
  }
  if (l.ulysses > 1 && m.heads % (l.tp * l.ulysses) != 0)
    RL_FAIL(F::heads, l.cp_kind == CpKind::usp ? "parallel.ulysses" : "parallel.cp",
            "Ulysses " + s(l.ulysses) + " x tp " + s(l.tp) + " does not divide heads " +
                s(m.heads));
  const i64 seq = w.mode == Mode::train ? w.seq_len : w.prompt_len;
  if (l.cp > 1 && seq % l.cp != 0)
    RL_FAIL(F::divisibility, "parallel.cp", not_dividing(l.cp, "sequence length", seq));

  // Pipeline.
  if (l.pp > m.layers)
    RL_FAIL(F::pipeline, "parallel.pp", s(l.pp) + " exceeds layers " + s(m.layers));
  const bool split = l.first_layers > 0 || l.last_layers > 0;
  if (!l.uneven_pp && !split && m.layers % (l.pp * l.vpp) != 0)
    RL_FAIL(F::pipeline, l.vpp > 1 ? "parallel.vpp" : "parallel.pp",
            "pp " + s(l.pp) + " x vpp " + s(l.vpp) + " does not divide layers " + s(m.layers) +
                " (set parallel.uneven_pp to allow uneven stages)");
  if (l.pp * l.vpp > m.layers)
    RL_FAIL(F::pipeline, "parallel.vpp",
            "pp x vpp = " + s(l.pp * l.vpp) + " exceeds layers " + s(m.layers));
  if (l.vpp > 1 && l.pp == 1)
    RL_FAIL(F::pipeline, "parallel.vpp", "interleaving needs pp > 1");
  if (l.schedule == PpSchedule::interleaved && l.vpp < 2)
    RL_FAIL(F::pipeline, "parallel.pp_schedule", "interleaved needs vpp >= 2");
  if (l.schedule != PpSchedule::interleaved && l.vpp > 1)
    RL_FAIL(F::pipeline, "parallel.pp_schedule",
            "vpp " + s(l.vpp) + " needs the interleaved schedule");
  if (const bool dual = l.schedule == PpSchedule::dualpipe;
      dual || l.schedule == PpSchedule::dualpipev) {
    // DeepSeek's DualPipe (dualpipe.py): an even number of ranks; both forms train only
    if (w.mode != Mode::train)
      RL_FAIL(F::pipeline, "parallel.pp_schedule", "DualPipe is a training schedule");
    if (dual ? l.pp < 2 || l.pp % 2 != 0 : l.pp < 2)
      RL_FAIL(F::pipeline, "parallel.pp_schedule",
              std::string(dual ? "dualpipe needs an even pp >= 2" : "dualpipev needs pp >= 2") +
                  ", not " + s(l.pp));
    if (!dual && (l.first_layers > 0 || l.last_layers > 0))
      RL_FAIL(F::pipeline, "parallel.first_stage_layers",
              "dualpipev splits its 2 x pp stages evenly (parallel.uneven_pp for the rest)");
    if (!dual && !l.uneven_pp && m.layers % (2 * l.pp) != 0)
      RL_FAIL(F::pipeline, "parallel.pp",
              "dualpipev's 2 x pp = " + s(2 * l.pp) + " stages do not divide layers " +
                  s(m.layers) + " (set parallel.uneven_pp to allow uneven stages)");
    if (!dual && 2 * l.pp > m.layers)
      RL_FAIL(F::pipeline, "parallel.pp",
              "dualpipev's 2 x pp = " + s(2 * l.pp) + " stages exceed layers " + s(m.layers));
  }
  if (LayoutCheck r = check_stage_split(m, l); !r.ok())
    return r;
  // Megatron-LM (TransformerConfig): BF16 layers at most num_layers // pp at each end
  if (const Bf16Layers hp = bf16_layers(w); std::max(hp.first, hp.last) > m.layers / l.pp)
    RL_FAIL(F::pipeline,
            hp.first > m.layers / l.pp ? "workload.bf16_first_layers" : "workload.bf16_last_layers",
            s(std::max(hp.first, hp.last)) + " exceeds layers / pp = " + s(m.layers / l.pp) +
                " (Megatron-LM's bound)");

  // Activation offload (megatron/core/transformer/transformer_config.py: fewer layers than the
  // model's, no pipeline parallelism, no recompute), over the host link.
  if (l.offload_layers > 0) {
    if (l.offload_layers >= m.layers)
      RL_FAIL(F::pipeline, "parallel.offload_layers",
              s(l.offload_layers) + " is not fewer than the model's " + s(m.layers) + " layers");
    if (l.pp > 1)
      RL_FAIL(F::pipeline, "parallel.offload_layers",
              "offloads activations with pp 1 only (Megatron-Core: no pipeline parallelism with "
              "CPU offloading), not pp " +
                  s(l.pp));
    if (l.recompute != Recompute::none)
      RL_FAIL(F::pipeline, "parallel.offload_layers",
              "offloads what recompute would drop: set parallel.recompute none (Megatron-Core: "
              "CPU offloading does not work with activation recomputation)");
    if (c.cluster.host_bw <= 0)
      RL_FAIL(F::devices, "cluster.host_bw",
              "is unknown: offloading activations needs the device-to-host bandwidth");
  }
  // ZeRO-Offload moves the optimizer's states and update to the host, over the host link.
  if (l.offload_optimizer && c.cluster.host_bw <= 0)
    RL_FAIL(F::devices, "cluster.host_bw",
            "is unknown: offloading the optimizer needs the device-to-host bandwidth");
  // QLoRA's NF4 base (bitsandbytes Linear4bit, torchao NF4Tensor) is sharded by data
  // parallelism (FSDP, ZeRO-3) only: no tensor, pipeline, context or expert split of it.
  if (w.finetune && w.finetune->base_dtype == BaseDtype::nf4 &&
      (l.tp > 1 || l.pp > 1 || l.cp > 1 || l.ep > 1)) {
    const char *knob = l.tp > 1   ? "parallel.tp"
                       : l.pp > 1 ? "parallel.pp"
                       : l.cp > 1 ? "parallel.cp"
                                  : "parallel.ep";
    RL_FAIL(F::framework, knob,
            "an NF4 base (QLoRA) is split by data parallelism only (FSDP or ZeRO-3, as "
            "bitsandbytes and torchao shard it): set tp, pp, cp and ep to 1");
  }

  // Experts.
  if (!m.moe && l.ep != 1)
    RL_FAIL(F::experts, "parallel.ep", "is " + s(l.ep) + " but the model has no experts");
  if (l.recompute_mla_up && !m.mla)
    RL_FAIL(F::divisibility, "parallel.recompute_mla_up",
            "reruns MLA's up-projections, but the model has no MLA (model.mla)");
  if (l.recompute_moe_act && !m.moe)
    RL_FAIL(F::experts, "parallel.recompute_moe_act",
            "reruns the experts' activation, but the model has no experts");
  if (m.moe && !divides(l.ep, m.moe->experts))
    RL_FAIL(F::experts, "parallel.ep", not_dividing(l.ep, "experts", m.moe->experts));

  // Data parallel: after the divisibility rules above, so an error names its real cause
  // (tp 3 against heads 64, not the dp product it also breaks).
  // Attention DP and expert TP (serving MoE layouts): refused for dense models and training.
  const bool serving = w.mode == Mode::serve || w.mode == Mode::infer;
  // the pin, else the layout's own (the planner's folded candidates; 0: derived below)
  l.moe_tp = c.parallel.moe_tp.value_or(l.moe_tp);
  if (l.attention_dp != 1 && !m.moe)
    RL_FAIL(F::experts, "parallel.attention_dp",
            "is " + s(l.attention_dp) + " but the model has no experts");
  if (l.attention_dp != 1 && !serving)
    RL_FAIL(F::experts, "parallel.attention_dp",
            "is " + s(l.attention_dp) + ": attention DP is modelled for serving (serve, infer)");
  if (l.moe_tp != 0 && !m.moe && l.moe_tp != l.tp)
    RL_FAIL(F::experts, "parallel.moe_tp", "is " + s(l.moe_tp) + " but the model has no experts");
  const i64 ia = l.tp * l.attention_dp;
  // the GPUs of one instance's attention (per stage)

  const i64 devices = c.cluster.devices;
  const i64 model_par = ia * l.pp * l.cp;
  const std::string tp_s = l.attention_dp > 1
                               ? "tp " + s(l.tp) + " x attention_dp " + s(l.attention_dp)
                               : "tp " + s(l.tp);
  if (l.dp > 0) {
    if (l.dp * model_par != devices)
      RL_FAIL(F::devices, "parallel.dp",
              "dp " + s(l.dp) + " x " + tp_s + " x pp " + s(l.pp) + " x cp " + s(l.cp) + " = " +
                  s(l.dp * model_par) + " != devices " + s(devices));
  } else {
    l.dp = derived_dp(devices, ia, l.pp, l.cp);
    if (l.dp == 0)
      RL_FAIL(F::devices, "parallel",
              tp_s + " x pp " + s(l.pp) + " x cp " + s(l.cp) + " = " + s(model_par) +
                  " does not divide devices " + s(devices));
  }

  // Experts (the dp x cp rule waits for dp). EP inside dp (Megatron) unless the serving
  // instance holds it: attention_dp or moe_tp set, or ep not dividing dp x cp.
  l.ep_in_instance = false;
  l.expert_folding = false;
  if (m.moe) {
    const bool in_dp = divides(l.ep, l.dp * l.cp);
    const bool legacy = l.attention_dp == 1 && (l.moe_tp == 0 || l.moe_tp == l.tp) && in_dp;
    if (!serving && l.moe_tp != 0 && l.moe_tp != l.tp) {
      // Megatron's MoE parallel folding: the experts' grid moe_tp x ep x expert-dp over the
      // stage's tp x cp x dp ranks; Megatron-LM asserts sequence parallelism for MoE with TP.
      const i64 grid = l.tp * l.cp * l.dp;
      if (l.tp > 1 && !l.sp)
        RL_FAIL(F::experts, "parallel.sp",
                "MoE with tp " + s(l.tp) + " needs sequence parallelism (sp) for moe_tp " +
                    s(l.moe_tp) + " (Megatron-LM)");
      if (!divides(l.moe_tp * l.ep, grid))
        RL_FAIL(F::experts, "parallel.moe_tp",
                "moe_tp " + s(l.moe_tp) + " x ep " + s(l.ep) + " = " + s(l.moe_tp * l.ep) +
                    " does not divide tp x cp x dp = " + s(grid));
      l.expert_folding = true;
    } else if (!serving || legacy || (l.ep == 1 && l.attention_dp == 1)) {
      if (!in_dp)
        RL_FAIL(F::experts, "parallel.ep", not_dividing(l.ep, "dp x cp", l.dp * l.cp));
      if (l.moe_tp != 0 && l.moe_tp != l.tp && l.ep == 1 && l.attention_dp == 1)
        RL_FAIL(F::experts, "parallel.moe_tp",
                "moe_tp " + s(l.moe_tp) + " x ep 1 != tp " + s(l.tp) + " x attention_dp 1");
      l.moe_tp = l.tp;
    } else { // SGLang/TensorRT-LLM: moe_tp x ep = tp x attention_dp inside one instance
      l.ep_in_instance = true;
      if (l.moe_tp == 0) {
        if (!divides(l.ep, ia))
          RL_FAIL(F::experts, "parallel.ep",
                  s(l.ep) + " divides neither " + tp_s + " (an instance's GPUs) nor dp x cp " +
                      s(l.dp * l.cp));
        l.moe_tp = ia / l.ep;
      }
      if (l.moe_tp * l.ep != ia)
        RL_FAIL(F::experts, "parallel.moe_tp",
                "moe_tp " + s(l.moe_tp) + " x ep " + s(l.ep) + " = " + s(l.moe_tp * l.ep) +
                    " != " + tp_s + " = " + s(ia));
    }
    if (!divides(l.moe_tp, m.moe->expert_ffn))
      RL_FAIL(F::divisibility, "parallel.moe_tp",
              not_dividing(l.moe_tp, "moe.expert_ffn", m.moe->expert_ffn));
  } else {
    l.moe_tp = l.tp;
  }

  // Batch: B = dp x b x m (a serving engine batches its requests itself).
  if (w.mode == Mode::serve) {
    if (l.cp > 1)
      RL_FAIL(F::divisibility, "parallel.cp", "context parallelism is not modelled for serving");
    return {};
  }
  const i64 batch = w.mode == Mode::train ? w.global_batch : w.batch;
  if (l.attention_dp > 1 && batch % (l.attention_replicas() * l.microbatch) != 0)
    RL_FAIL(F::batch, "parallel.attention_dp",
            "dp " + s(l.dp) + " x attention_dp " + s(l.attention_dp) + " does not divide batch " +
                s(batch));
  if (batch % (l.dp * l.microbatch) != 0)
    RL_FAIL(F::batch, "parallel.microbatch",
            "dp " + s(l.dp) + " x microbatch " + s(l.microbatch) + " = " + s(l.dp * l.microbatch) +
                " does not divide " + (w.mode == Mode::train ? "global_batch " : "batch ") +
                s(batch));
  l.num_micro = batch / (l.dp * l.microbatch);
  if (l.schedule == PpSchedule::interleaved && l.num_micro % l.pp != 0)
    RL_FAIL(F::batch, "parallel.microbatch",
            "interleaving needs micro-batches " + s(l.num_micro) + " to be a multiple of pp " +
                s(l.pp));
  // DualPipe (dualpipe.py, dualpipev.py): at least 2 x pp micro-batches; DualPipe's even,
  // half of them fed from each end
  if (is_dualpipe(l.schedule) &&
      (l.num_micro < 2 * l.pp || (l.schedule == PpSchedule::dualpipe && l.num_micro % 2 != 0)))
    RL_FAIL(F::batch, "parallel.microbatch",
            std::string(schema::choice_name(l.schedule)) + " needs " +
                (l.schedule == PpSchedule::dualpipe ? "an even number of " : "") +
                "micro-batches >= 2 x pp = " + s(2 * l.pp) + ", not " + s(l.num_micro));
  return {};
}
#undef RL_FAIL
} // namespace

ParallelSpec spec_of(const Layout &l) {
  ParallelSpec p;
  p.dp = l.dp;
  p.tp = l.tp;
  p.pp = l.pp;
  p.vpp = l.vpp;
  p.cp = l.cp;
  p.cp_kind = l.cp_kind;
  if (l.cp_kind == CpKind::usp)
    p.ulysses = l.ulysses;
  p.ep = l.ep;
  if (l.expert_folding) // training's MoE parallel folding
    p.moe_tp = l.moe_tp;
  if (l.ep_in_instance) { // a serving instance's MoE split
    p.attention_dp = l.attention_dp;
    p.moe_tp = l.moe_tp;
  }
  p.sp = l.sp;
  p.zero = l.zero;
  p.microbatch = l.microbatch;
  p.recompute = l.recompute;
  if (l.recompute_norm)
    p.recompute_norm = true;
  if (l.recompute_mla_up)
    p.recompute_mla_up = true;
  if (l.recompute_moe_act)
    p.recompute_moe_act = true;
  if (l.offload_layers > 0)
    p.offload_layers = l.offload_layers;
  if (l.offload_optimizer)
    p.offload_optimizer = true;
  p.flash_attention = l.flash;
  p.pp_schedule = l.schedule;
  p.overlap_tp = l.overlap_tp;
  p.overlap_dp = l.overlap_dp;
  p.overlap_pp = l.overlap_pp;
  p.overlap_ep = l.overlap_ep;
  if (l.uneven_pp)
    p.uneven_pp = true;
  if (l.first_layers > 0)
    p.first_stage_layers = l.first_layers;
  if (l.last_layers > 0)
    p.last_stage_layers = l.last_layers;
  if (l.order != Layout{}.order)
    p.order = l.order;
  return p;
}

Layout resolve_layout(const Config &c) {
  Layout l;
  const LayoutCheck r = fill_layout(c, l);
  if (!r.ok())
    throw ConfigError(r.path, r.message);
  return l;
}

std::string recompute_modules_label(const Layout &l) {
  if (l.recompute != Recompute::selective)
    return "";
  std::string s;
  if (l.recompute_norm)
    s += " +norm";
  if (l.recompute_mla_up)
    s += " +mla_up";
  if (l.recompute_moe_act)
    s += " +moe_act";
  return s;
}

} // namespace rl
