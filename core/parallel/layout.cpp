#include "core/parallel/layout.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <string>

namespace rl {

namespace {
std::string s(i64 v) {
  return std::to_string(v);
}

void require_divides(i64 d, i64 n, const std::string &path, const std::string &what) {
  if (d <= 0 || n % d != 0)
    throw ConfigError(path, s(d) + " does not divide " + what + " " + s(n));
}
} // namespace

std::string knob_error(const Config &c, const std::string &knob, i64 value) {
  Config x = c;
  ParallelSpec &p = x.parallel;
  p.dp.reset();
  if (knob == "tp")
    p.tp = value;
  else if (knob == "pp")
    p.pp = value;
  else if (knob == "vpp")
    p.vpp = value;
  else if (knob == "cp")
    p.cp = value;
  else if (knob == "ulysses")
    p.ulysses = value;
  else if (knob == "ep")
    p.ep = value;
  else if (knob == "microbatch")
    p.microbatch = value;
  else
    return "unknown knob " + knob;
  if (knob == "vpp" && !c.parallel.pp_schedule)
    p.pp_schedule.reset(); // the schedule follows vpp unless pinned
  try {
    resolve_layout(x);
  } catch (const ConfigError &e) {
    return e.message();
  }
  return "";
}

i64 axis_stride(const Layout &l, const std::string &axis) {
  i64 stride = 1;
  for (const auto &a : l.order) {
    if (a == axis)
      return stride;
    stride *= a == "tp" ? l.tp : a == "cp" ? l.cp : a == "dp" ? l.dp : l.pp;
  }
  return stride;
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

std::vector<i64> stage_layers(i64 layers, const Layout &l, i64 stage) {
  std::vector<i64> out;
  const i64 chunks = l.pp * l.vpp;
  const auto counts = stage_layer_counts(layers, chunks);
  i64 start = 0;
  for (i64 c = 0; c < chunks; ++c) {
    const i64 n = counts[static_cast<std::size_t>(c)];
    if (c % l.pp == stage)
      for (i64 i = 0; i < n; ++i)
        out.push_back(start + i);
    start += n;
  }
  return out;
}

Layout resolve_layout(const Config &c) {
  const ModelSpec &m = c.model;
  const ParallelSpec &p = c.parallel;
  const WorkloadSpec &w = c.workload;
  Layout l;
  l.tp = p.tp.value_or(1);
  l.pp = p.pp.value_or(1);
  l.vpp = p.vpp.value_or(1);
  l.cp = p.cp.value_or(1);
  l.ep = p.ep.value_or(1);
  l.zero = p.zero.value_or(0);
  l.microbatch = p.microbatch.value_or(1);
  l.flash = p.flash_attention.value_or(true);
  l.recompute = p.recompute.value_or(Recompute::none);
  l.uneven_pp = p.uneven_pp.value_or(false);
  l.overlap_tp = p.overlap_tp.value_or(false);
  l.overlap_dp = p.overlap_dp.value_or(true);
  l.overlap_pp = p.overlap_pp.value_or(false);
  if (p.order)
    l.order = *p.order;
  l.sp = p.sp.value_or(l.tp > 1);
  l.cp_kind = p.cp_kind.value_or(CpKind::ring);
  l.schedule =
      p.pp_schedule.value_or(l.vpp > 1 ? PpSchedule::interleaved : PpSchedule::one_f_one_b);

  // Tensor parallel: heads, KV heads (or replicate them), MLP width.
  require_divides(l.tp, m.heads, "parallel.tp", "heads");
  if (m.kv_heads % l.tp != 0 && l.tp % m.kv_heads != 0)
    throw ConfigError("parallel.tp",
                      s(l.tp) + " neither divides nor is a multiple of kv_heads " + s(m.kv_heads));
  require_divides(l.tp, m.ffn, "parallel.tp", "ffn");
  if (m.moe)
    require_divides(l.tp, m.moe->expert_ffn, "parallel.tp", "moe.expert_ffn");

  // Sequence parallel (context): ring, Ulysses, USP.
  switch (l.cp_kind) {
  case CpKind::ring:
    if (p.ulysses && *p.ulysses != 1)
      throw ConfigError("parallel.ulysses", "needs cp_kind usp");
    l.ring = l.cp;
    break;
  case CpKind::ulysses:
    l.ulysses = l.cp;
    break;
  case CpKind::usp:
    l.ulysses = p.ulysses.value_or(1);
    require_divides(l.ulysses, l.cp, "parallel.ulysses", "cp");
    l.ring = l.cp / l.ulysses;
    break;
  }
  if (l.ulysses > 1 && m.heads % (l.tp * l.ulysses) != 0)
    throw ConfigError(l.cp_kind == CpKind::usp ? "parallel.ulysses" : "parallel.cp",
                      "Ulysses " + s(l.ulysses) + " x tp " + s(l.tp) + " does not divide heads " +
                          s(m.heads));
  const i64 seq = w.mode == Mode::train ? w.seq_len : w.prompt_len;
  if (l.cp > 1 && seq % l.cp != 0)
    throw ConfigError("parallel.cp", s(l.cp) + " does not divide sequence length " + s(seq));

  // Pipeline.
  if (l.pp > m.layers)
    throw ConfigError("parallel.pp", s(l.pp) + " exceeds layers " + s(m.layers));
  if (!l.uneven_pp && m.layers % (l.pp * l.vpp) != 0)
    throw ConfigError(l.vpp > 1 ? "parallel.vpp" : "parallel.pp",
                      "pp " + s(l.pp) + " x vpp " + s(l.vpp) + " does not divide layers " +
                          s(m.layers) + " (set parallel.uneven_pp to allow uneven stages)");
  if (l.pp * l.vpp > m.layers)
    throw ConfigError("parallel.vpp",
                      "pp x vpp = " + s(l.pp * l.vpp) + " exceeds layers " + s(m.layers));
  if (l.vpp > 1 && l.pp == 1)
    throw ConfigError("parallel.vpp", "interleaving needs pp > 1");
  if (l.schedule == PpSchedule::interleaved && l.vpp < 2)
    throw ConfigError("parallel.pp_schedule", "interleaved needs vpp >= 2");
  if (l.schedule != PpSchedule::interleaved && l.vpp > 1)
    throw ConfigError("parallel.pp_schedule",
                      "vpp " + s(l.vpp) + " needs the interleaved schedule");

  // Experts.
  if (!m.moe && l.ep != 1)
    throw ConfigError("parallel.ep", "is " + s(l.ep) + " but the model has no experts");
  if (m.moe)
    require_divides(l.ep, m.moe->experts, "parallel.ep", "experts");

  // Data parallel: after the divisibility rules above, so an error names its real cause
  // (tp 3 against heads 64, not the dp product it also breaks).
  const i64 devices = c.cluster.devices;
  const i64 model_par = l.tp * l.pp * l.cp;
  if (p.dp) {
    l.dp = *p.dp;
    if (l.dp * model_par != devices)
      throw ConfigError("parallel.dp", "dp " + s(l.dp) + " x tp " + s(l.tp) + " x pp " + s(l.pp) +
                                           " x cp " + s(l.cp) + " = " + s(l.dp * model_par) +
                                           " != devices " + s(devices));
  } else {
    if (devices % model_par != 0)
      throw ConfigError("parallel", "tp " + s(l.tp) + " x pp " + s(l.pp) + " x cp " + s(l.cp) +
                                        " = " + s(model_par) + " does not divide devices " +
                                        s(devices));
    l.dp = devices / model_par;
  }

  // Experts (the dp x cp rule waits for dp).
  if (m.moe)
    require_divides(l.ep, l.dp * l.cp, "parallel.ep", "dp x cp");

  // Batch: B = dp x b x m (a serving engine batches its requests itself).
  if (w.mode == Mode::serve) {
    if (l.cp > 1)
      throw ConfigError("parallel.cp", "context parallelism is not modelled for serving");
    return l;
  }
  const i64 batch = w.mode == Mode::train ? w.global_batch : w.batch;
  if (batch % (l.dp * l.microbatch) != 0)
    throw ConfigError("parallel.microbatch",
                      "dp " + s(l.dp) + " x microbatch " + s(l.microbatch) + " = " +
                          s(l.dp * l.microbatch) + " does not divide " +
                          (w.mode == Mode::train ? "global_batch " : "batch ") + s(batch));
  l.num_micro = batch / (l.dp * l.microbatch);
  if (l.schedule == PpSchedule::interleaved && l.num_micro % l.pp != 0)
    throw ConfigError("parallel.microbatch", "interleaving needs micro-batches " + s(l.num_micro) +
                                                 " to be a multiple of pp " + s(l.pp));
  return l;
}

} // namespace rl
