#include "core/serve/speculative.hpp"

#include <algorithm>

namespace rl {

double draft_acceptance(const SpeculativeSpec &s, i64 position) {
  if (s.acceptance.empty() || position < 1)
    return 0;
  const std::size_t i = std::min(static_cast<std::size_t>(position - 1), s.acceptance.size() - 1);
  return s.acceptance[i];
}

double committed_tokens(const SpeculativeSpec &s) {
  double kept = 1, run = 1;
  for (i64 i = 1; i <= s.draft_tokens; ++i) {
    run *= draft_acceptance(s, i); // the first i drafts all accepted
    kept += run;
  }
  return kept;
}

double default_acceptance(SpecMethod m) {
  switch (m) {
  case SpecMethod::mtp:
    return kMtpAcceptance;
  case SpecMethod::eagle:
  case SpecMethod::draft:
    break;
  }
  return 0;
}

ModelSpec draft_module(const ModelSpec &m, const SpeculativeSpec &s) {
  if (s.method == SpecMethod::draft && s.draft)
    return *s.draft;
  ModelSpec d = m;
  d.layers = 1;
  if (s.method ==
      SpecMethod::mtp) { // DeepSeek-V3's MTP module: a full block (MoE when the model has it)
    d.name = m.name + " MTP";
    if (d.moe) {
      d.moe->first_dense = 0;
      d.moe->every = 1;
    }
    return d;
  }
  // EAGLE-3: one Llama-style decoder layer of the model's width: a GQA model's own layer shape
  // (the published Llama 3.1 EAGLE-3 heads); over MLA, 128-wide heads with 8 KV heads as
  // SpecForge's DeepSeek-V3 draft has them
  d.name = m.name + " EAGLE-3";
  if (m.mla) {
    d.head_dim = 128;
    d.heads = std::max<i64>(1, m.hidden / 128);
    d.kv_heads = std::min<i64>(8, d.heads);
  }
  d.mla.reset();
  d.moe.reset();
  if (d.ffn <= 0 && m.moe)
    d.ffn = m.moe->expert_ffn * (m.moe->top_k + m.moe->shared_experts);
  if (d.kv_heads <= 0)
    d.kv_heads = d.heads;
  if (d.head_dim <= 0)
    d.head_dim = d.hidden / std::max<i64>(d.heads, 1);
  d.vocab = kEagleDraftVocab;
  d.tied_embeddings = false;
  return d;
}

} // namespace rl
