// ridgeline tx8: the Open-Sora STDiT3 workload (Open-Sora "Sora Inference Modeling"). A
// video request (batch, seconds or frames, resolution, text tokens, steps) becomes latent
// and token shapes, and each block becomes the Open-Sora operator list, on the share of the
// work one die computes (the sharding comes from core/tx8/sp.hpp).
#pragma once

#include "core/config.hpp"
#include "core/tx8/flash.hpp"
#include "core/tx8/gemm.hpp"
#include "core/tx8/vector.hpp"

#include <string>
#include <vector>

namespace rl::tx8 {

// Open-Sora: 1 s of video = 25.5 frames (floor).
i64 video_frames(double seconds);
// Open-Sora: the VAE keeps num_frame*5//17 latent frames.
i64 latent_frames(i64 frames);

struct VideoShape {
  i64 batch = 1;
  i64 frames = 0;                         // video frames
  i64 latent_t = 0;                       // frames*5//17
  i64 latent_h = 0, latent_w = 0;         // H/8, W/8
  i64 grid_t = 0, grid_h = 0, grid_w = 0; // tokens after the (1,2,2) patch (rounded up)
  i64 text = 300;                         // T5 tokens (Open-Sora: padded to 300)
  i64 steps = 30;
  i64 spatial() const { return grid_h * grid_w; }   // tokens per frame (H*W/256)
  i64 tokens() const { return grid_t * spatial(); } // tokens per sample
};

// The largest request mapped: video tokens of one step, all samples (a stated limit, ~300x
// an hour of 1080p video; rows x any model width then stays below 2^63).
constexpr i64 kMaxVideoRows = i64{1} << 36;

// The request's shapes; ConfigError on a request too short or too small for one token, or
// with more than kMaxVideoRows tokens per step.
VideoShape video_shape(const ModelSpec &m, const WorkloadSpec &w);

// What one die computes of one block (spatial or temporal), whatever the sharding.
struct Shard {
  i64 vec_rows = 0;  // rows of the row-wise vector ops (norms, modulate, residuals)
  i64 gemm_rows = 0; // rows of the projections and the FFN
  i64 tp = 1;        // Megatron-SP: weights split tp ways (column N/tp, row K/tp)
  i64 heads = 0;     // attention heads on this die (q/k norms)
  i64 text_rows = 0; // B x text tokens for the cross-attention K/V projection
  FlashOp self_attn;
  FlashOp cross_attn;
};

enum class OpKind { gemm, vector, flash };
const char *name_of(OpKind k);

// Open-Sora preset tilings: projections TmTn (256, 32), FFN-down (4, 128), flash attention
// Tx_Ty (256, 256) with the outer loop over K/V (order B).
enum class SeedPreset { none, projection, ffn_down, attention };

struct OpSpec {
  std::string name;  // "spatial.qkv_proj"
  std::string block; // spatial | temporal | embed | final
  double count = 1;  // times per step on this die
  OpKind kind = OpKind::gemm;
  GemmOp gemm;
  VectorOp vec;
  FlashOp flash;
  SeedPreset preset = SeedPreset::none;
  bool self_attention = false; // ring K/V passing overlaps with it
};

// The Open-Sora operator list of one STDiT3 block ("spatial" or "temporal"): norm1 +
// modulate, QKV, q/k RMSNorm, self attention, O, gate-residual, cross Q, cross K/V (text),
// cross attention, cross O, residual, norm2 + modulate, FFN up + SiLU, FFN down,
// gate-residual. `fusion` keeps the norm output in SRAM for the modulate.
std::vector<OpSpec> block_ops(const Tx8Spec &a, const ModelSpec &m, const std::string &block,
                              const Shard &s, bool fusion, double count);
// Per step, once: patch embedding, positional add, caption MLP (4096 -> h -> h), timestep
// MLP and t_block; `rows` tokens on this die.
std::vector<OpSpec> embed_ops(const Tx8Spec &a, const ModelSpec &m, const VideoShape &v, i64 rows,
                              i64 tp);
// Per step, once: T2IFinalLayer (norm + modulate, linear h -> patch volume x 2 x channels)
// and the sampler update of the latent.
std::vector<OpSpec> final_ops(const Tx8Spec &a, const ModelSpec &m, i64 rows);

} // namespace rl::tx8
