#include "core/tx8/stdit3.hpp"

#include "core/error.hpp"
#include "core/tx8/arch.hpp"

#include <cmath>

namespace rl::tx8 {

// Open-Sora: "生成 1s 的视频为 25.5 frames".
i64 video_frames(double seconds) {
  return static_cast<i64>(std::floor(seconds * 25.5 + 1e-9));
}

// Open-Sora: num_frame*5//17.
i64 latent_frames(i64 frames) {
  return frames * 5 / 17;
}

const char *name_of(OpKind k) {
  switch (k) {
  case OpKind::gemm:
    return "gemm";
  case OpKind::vector:
    return "vector";
  case OpKind::flash:
    return "flash_attention";
  }
  return "?";
}

VideoShape video_shape(const ModelSpec &m, const WorkloadSpec &w) {
  if (m.family != ModelFamily::stdit3 || !m.dit)
    throw ConfigError("model.family",
                      "a video request needs an stdit3 model, got \"" + m.name + "\"");
  VideoShape v;
  v.batch = w.batch;
  v.frames = w.frames ? w.frames : video_frames(w.seconds);
  v.latent_t = latent_frames(v.frames);
  if (v.latent_t < 1)
    throw ConfigError(w.frames ? "workload.frames" : "workload.seconds",
                      std::to_string(v.frames) + " video frames keep " +
                          std::to_string(v.latent_t) +
                          " latent frames (frames*5//17): at least 4 frames are needed");
  // Open-Sora: z = (B, 4, frames*5//17, H/8, W/8)
  v.latent_h = w.height / 8;
  v.latent_w = w.width / 8;
  const DitSpec &d = *m.dit;
  // Open-Sora pads the latent up to whole patches.
  v.grid_t = ceil_div(v.latent_t, d.patch_t);
  v.grid_h = ceil_div(v.latent_h, d.patch_h);
  v.grid_w = ceil_div(v.latent_w, d.patch_w);
  v.text = w.text_tokens;
  v.steps = w.steps;
  // Checked before any work: token rows of one step (all samples) within kMaxVideoRows, so
  // every i64 product of rows and a model width stays exact.
  const double rows = static_cast<double>(v.batch) * static_cast<double>(v.grid_t) *
                      static_cast<double>(v.grid_h) * static_cast<double>(v.grid_w);
  if (rows > static_cast<double>(kMaxVideoRows))
    throw ConfigError("workload", "the request has " + std::to_string(static_cast<i64>(rows)) +
                                      " video tokens per step (batch x latent frames x patches); "
                                      "the limit is 2^36 = " +
                                      std::to_string(kMaxVideoRows));
  return v;
}

namespace {
OpSpec gemm_op(std::string name, const std::string &block, double count, i64 m, i64 k, i64 n,
               SeedPreset preset, bool silu = false) {
  OpSpec o;
  o.name = std::move(name);
  o.block = block;
  o.count = count;
  o.kind = OpKind::gemm;
  o.gemm = {m, k, n, silu, false, false};
  o.preset = preset;
  return o;
}
OpSpec vector_op(std::string name, const std::string &block, double count, const VectorOp &v) {
  OpSpec o;
  o.name = std::move(name);
  o.block = block;
  o.count = count;
  o.kind = OpKind::vector;
  o.vec = v;
  return o;
}
OpSpec flash_op(std::string name, const std::string &block, double count, const FlashOp &f,
                bool self) {
  OpSpec o;
  o.name = std::move(name);
  o.block = block;
  o.count = count;
  o.kind = OpKind::flash;
  o.flash = f;
  o.preset = SeedPreset::attention;
  o.self_attention = self;
  return o;
}
std::string dot(const std::string &a, const char *b) {
  return a + "." + b;
}
} // namespace

std::vector<OpSpec> block_ops(const Tx8Spec &a, const ModelSpec &m, const std::string &b,
                              const Shard &s, bool fusion, double count) {
  const i64 H = m.hidden, F = m.ffn, d = m.head_dim, tp = s.tp;
  const i64 rows = s.gemm_rows, vr = s.vec_rows;
  std::vector<OpSpec> ops;
  VectorOp norm1 = vector_rmsnorm(a, vr, H), mod1 = vector_modulate(vr, H);
  if (fusion)
    norm1.out_sram = mod1.in_sram = true;
  ops.push_back(vector_op(dot(b, "norm1"), b, count, norm1));
  ops.push_back(vector_op(dot(b, "modulate1"), b, count, mod1));
  ops.push_back(gemm_op(dot(b, "qkv_proj"), b, count, rows, H, 3 * H / tp, SeedPreset::projection));
  // STDiT3 qk_norm: RMSNorm over each head's d of q and of k.
  ops.push_back(vector_op(dot(b, "q_norm"), b, count, vector_rmsnorm(a, rows * s.heads, d)));
  ops.push_back(vector_op(dot(b, "k_norm"), b, count, vector_rmsnorm(a, rows * s.heads, d)));
  ops.push_back(flash_op(dot(b, "self_attention"), b, count, s.self_attn, true));
  ops.push_back(gemm_op(dot(b, "o_proj"), b, count, rows, H / tp, H, SeedPreset::projection));
  ops.push_back(vector_op(dot(b, "gate_residual1"), b, count, vector_gate_residual(vr, H)));
  ops.push_back(gemm_op(dot(b, "cross_q_proj"), b, count, rows, H, H / tp, SeedPreset::projection));
  ops.push_back(gemm_op(dot(b, "cross_kv_proj"), b, count, s.text_rows, H, 2 * H / tp,
                        SeedPreset::projection));
  ops.push_back(flash_op(dot(b, "cross_attention"), b, count, s.cross_attn, false));
  ops.push_back(gemm_op(dot(b, "cross_o_proj"), b, count, rows, H / tp, H, SeedPreset::projection));
  ops.push_back(vector_op(dot(b, "cross_residual"), b, count, vector_add(vr, H, 2)));
  VectorOp norm2 = vector_rmsnorm(a, vr, H), mod2 = vector_modulate(vr, H);
  if (fusion)
    norm2.out_sram = mod2.in_sram = true;
  ops.push_back(vector_op(dot(b, "norm2"), b, count, norm2));
  ops.push_back(vector_op(dot(b, "modulate2"), b, count, mod2));
  // Open-Sora: FFN up with the activation fused (SiLU in LLMPerf-for-TiledArch; STDiT3 uses
  // GELU-tanh, the same exp + 2 cost class).
  ops.push_back(
      gemm_op(dot(b, "ffn_up_silu"), b, count, rows, H, F / tp, SeedPreset::projection, true));
  ops.push_back(gemm_op(dot(b, "ffn_down"), b, count, rows, F / tp, H, SeedPreset::ffn_down));
  ops.push_back(vector_op(dot(b, "gate_residual2"), b, count, vector_gate_residual(vr, H)));
  return ops;
}

std::vector<OpSpec> embed_ops(const Tx8Spec &, const ModelSpec &m, const VideoShape &v, i64 rows,
                              i64 tp) {
  const DitSpec &d = *m.dit;
  const i64 H = m.hidden, patch = d.in_channels * d.patch_t * d.patch_h * d.patch_w;
  const i64 text_rows = v.batch * v.text;
  std::vector<OpSpec> ops;
  // PatchEmbed3D: a (1,2,2) conv = a GEMM over patches.
  ops.push_back(gemm_op("embed.patch", "embed", 1, rows, patch, H, SeedPreset::projection));
  ops.push_back(vector_op("embed.pos_add", "embed", 1, vector_add(rows, H, 2)));
  // Caption embedder: Mlp(4096 -> h, GELU, h -> h) on the padded 300 T5 tokens.
  ops.push_back(gemm_op("embed.caption_fc1", "embed", 1, text_rows, d.caption_channels, H / tp,
                        SeedPreset::projection, true));
  ops.push_back(
      gemm_op("embed.caption_fc2", "embed", 1, text_rows, H / tp, H, SeedPreset::projection));
  // Timestep embedder (256 -> h -> h) and t_block (SiLU, h -> 6h): one row per sample.
  ops.push_back(
      gemm_op("embed.timestep_fc1", "embed", 1, v.batch, 256, H, SeedPreset::projection, true));
  ops.push_back(gemm_op("embed.timestep_fc2", "embed", 1, v.batch, H, H, SeedPreset::projection));
  ops.push_back(
      gemm_op("embed.t_block", "embed", 1, v.batch, H, 6 * H, SeedPreset::projection, true));
  return ops;
}

std::vector<OpSpec> final_ops(const Tx8Spec &a, const ModelSpec &m, i64 rows) {
  const DitSpec &d = *m.dit;
  const i64 H = m.hidden, patch = d.patch_t * d.patch_h * d.patch_w;
  std::vector<OpSpec> ops;
  VectorOp nm = vector_rmsnorm(a, rows, H);
  nm.ops_per_element += 2; // + modulate
  nm.params = 2;
  ops.push_back(vector_op("final.norm_modulate", "final", 1, nm));
  // T2IFinalLayer: h -> patch volume x out channels (2 x in: pred_sigma).
  ops.push_back(gemm_op("final.linear", "final", 1, rows, H, patch * 2 * d.in_channels,
                        SeedPreset::projection));
  // Sampler update x <- x + v*dt on this die's latent.
  VectorOp upd = vector_add(rows, patch * d.in_channels, 2);
  upd.ops_per_element = 2;
  ops.push_back(vector_op("sampler.update", "final", 1, upd));
  return ops;
}

} // namespace rl::tx8
