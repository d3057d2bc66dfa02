// ridgeline serve: speculative decoding's arithmetic (workload.speculative; docs/serving.md
// "Speculative decoding").
#pragma once

#include "core/config.hpp"

namespace rl {

// The probability that draft token `position` (1..k) is accepted given the ones before it
// were: the list's value there, or its last value past its end.
double draft_acceptance(const SpeculativeSpec &s, i64 position);

// Tokens a sequence keeps per iteration (Leviathan et al. 2023, eq. 1 generalised to a
// per-position rate): 1 + sum_{i=1..k} prod_{j=1..i} a_j; with one rate a, (1 - a^{k+1}) / (1 - a).
double committed_tokens(const SpeculativeSpec &s);

// The draft module as a model the iteration model can time: mtp, one transformer block of the
// model (an MoE block when the model has experts); eagle, one dense decoder layer of the
// model's width over a draft vocabulary of kEagleDraftVocab (its fc fusing three hidden
// states, 3 h^2 weights, not counted); draft, the draft_model preset.
ModelSpec draft_module(const ModelSpec &m, const SpeculativeSpec &s);

// The acceptance rate a method is given when workload.speculative sets none: MTP's fit to the
// calibration pairs (docs/serving.md "Speculative decoding"); no measured pair runs an EAGLE-3
// head or a draft model, so theirs must be given (0 here: the parser asks for it).
double default_acceptance(SpecMethod m);
// The fit (docs/serving.md "Speculative decoding"): DeepSeek-R1's MTP on TensorRT-LLM and
// SGLang, 8 x B200, random-token prompts.
constexpr double kMtpAcceptance = 0.64;

// EAGLE-3's draft vocabulary (Li et al. 2025; SpecForge's draft_vocab_size 32000).
constexpr i64 kEagleDraftVocab = 32000;

} // namespace rl
