// ridgeline io: configuration parsing and printing.
// [SECTION] enum tables  [SECTION] helpers  [SECTION] model  [SECTION] Hugging Face
// [SECTION] hardware  [SECTION] cluster  [SECTION] workload  [SECTION] parallel
// [SECTION] config  [SECTION] printing
#include "core/io/config_json.hpp"

#include "core/serve/requests.hpp"
#include "core/serve/speculative.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/presets.hpp"
#include "core/io/schema_json.hpp"
#include "core/model/params.hpp"
#include "core/parallel/frameworks.hpp"
#include "core/parallel/layout.hpp"
#include "core/time/step_time.hpp"

namespace rl::io {

// [SECTION] enum tables
namespace {
// An optional enum read by its names (core/schema/choices).
template <class E> std::optional<E> opt_enum(ObjectReader &r, const std::string &key) {
  if (const auto v = r.opt_choice(key, schema::choices<E>()))
    return static_cast<E>(*v);
  return std::nullopt;
}
// A required integer that the parser reads itself (a custom row: required, or ranged by
// another field), by its schema row's key; `hi` when the row's range is not the bound.
template <class S> i64 req_row(ObjectReader &r, i64 S::*m, std::optional<i64> hi = std::nullopt) {
  const schema::FieldInfo &f = schema::row_of(m);
  return r.req_int(f.key, static_cast<i64>(f.lo), hi.value_or(static_cast<i64>(f.hi)));
}
} // namespace

const char *name_of(Mode m) {
  return schema::choice_name(m);
}
const char *name_of(Dtype d) {
  return schema::choice_name(d);
}
const char *name_of(CpKind k) {
  return schema::choice_name(k);
}
const char *name_of(Recompute r) {
  return schema::choice_name(r);
}
const char *name_of(PpSchedule s) {
  return schema::choice_name(s);
}
const char *name_of(SpKind s) {
  return schema::choice_name(s);
}
const char *name_of(Norm n) {
  return schema::choice_name(n);
}
const char *name_of(HardwareKind k) {
  return schema::choice_name(k);
}
const char *name_of(Topology t) {
  return schema::choice_name(t);
}
const char *name_of(ServingBound b) {
  return schema::choice_name(b);
}
const char *name_of(KvSharding k) {
  return schema::choice_name(k);
}
const char *name_of(LengthDist d) {
  return schema::choice_name(d);
}
const char *name_of(SchedulerPolicy p) {
  return schema::choice_name(p);
}
const char *name_of(ModelFamily f) {
  return schema::choice_name(f);
}

// [SECTION] helpers
namespace {
// Sanity bounds: beyond these a value is a typo, not a model.
using schema::kMaxDim;
using schema::kMaxLayers;
// The physical limits of devices, rates and bands: the schema's (core/schema/fields.hpp).
using schema::kMaxBw;
using schema::kMaxBytes;
using schema::kMaxCount;
using schema::kMaxFlops;
using schema::kMinBw;
using schema::kMinBytes;
using schema::kMinFlops;

// An optional peak: absent or 0 (not supported), else within [kMinFlops, kMaxFlops].
double opt_peak(ObjectReader &r, const char *key) {
  const double v = r.opt_num(key, 0.0, kMaxFlops).value_or(0);
  if (v > 0 && v < kMinFlops)
    throw ConfigError(r.path_of(key), "must be 0 (not supported) or at least 1e+06 FLOP/s");
  return v;
}

// A preset name, or an object that may start from a preset ("base") and override fields.
json resolve_object(const json &j, const std::string &kind, const std::string &path) {
  if (j.is_string())
    return preset_json(kind, j.get<std::string>(), path);
  if (!j.is_object())
    throw ConfigError(path, "expected a preset name or an object, got " + json_type_name(j));
  const auto it = j.find("base");
  if (it == j.end())
    return j;
  if (!it->is_string())
    throw ConfigError(join_path(path, "base"), "expected a preset name");
  json merged = preset_json(kind, it->get<std::string>(), join_path(path, "base"));
  json patch = j;
  patch.erase("base");
  merged.merge_patch(patch);
  return merged;
}

Link parse_link(const json &j, const std::string &path) {
  ObjectReader r(j, path);
  Link l;
  l.bw = r.req_num("bw", kMinBw, kMaxBw);
  read_fields(r, l, schema::link_fields());
  r.finish();
  return l;
}

std::vector<i64> parse_int_array(const json &j, const std::string &path, i64 lo, i64 hi,
                                 std::size_t min_len, std::size_t max_len) {
  if (!j.is_array())
    throw ConfigError(path, "expected an array, got " + json_type_name(j));
  if (j.size() < min_len || j.size() > max_len)
    throw ConfigError(path, "expected " + std::to_string(min_len) + " to " +
                                std::to_string(max_len) + " entries, got " +
                                std::to_string(j.size()));
  std::vector<i64> out;
  for (std::size_t i = 0; i < j.size(); ++i)
    out.push_back(read_int(j[i], path + "[" + std::to_string(i) + "]", lo, hi));
  return out;
}
} // namespace

// [SECTION] model
namespace {
// Hugging Face's repository ids: owner/name, each of letters, digits, '-', '_' and '.', at
// most 96 characters (huggingface_hub validate_repo_id). Also what keeps the id safe on the
// `vllm serve` line.
bool is_hf_id(const std::string &id) {
  const std::size_t slash = id.find('/');
  if (id.empty() || id.size() > 96 || slash == 0 || slash == std::string::npos ||
      slash + 1 == id.size() || id.find('/', slash + 1) != std::string::npos ||
      id.find("..") != std::string::npos)
    return false;
  for (const char ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.' &&
        ch != '/')
      return false;
  return true;
}

MoeSpec parse_moe(const json &j, const std::string &path, i64 layers) {
  ObjectReader r(j, path);
  MoeSpec m;
  m.experts = r.req_int("experts", 1, 1 << 20);
  m.top_k = r.req_int("top_k", 1, m.experts);
  m.expert_ffn = r.req_int("expert_ffn", 1, kMaxDim);
  read_fields(r, m, schema::moe_fields(), "moe");
  m.every = r.opt_int("every", 1, layers).value_or(1);
  m.first_dense = r.opt_int("first_dense", 0, layers).value_or(0);
  r.finish();
  return m;
}

MlaSpec parse_mla(const json &j, const std::string &path) {
  ObjectReader r(j, path);
  MlaSpec m;
  m.q_lora_rank = r.opt_int("q_lora_rank", 0, kMaxDim).value_or(0);
  m.kv_lora_rank = r.req_int("kv_lora_rank", 1, kMaxDim);
  m.qk_nope_head_dim = r.req_int("qk_nope_head_dim", 1, kMaxDim);
  m.qk_rope_head_dim = r.req_int("qk_rope_head_dim", 0, kMaxDim);
  m.v_head_dim = r.req_int("v_head_dim", 1, kMaxDim);
  r.finish();
  return m;
}

DitSpec parse_dit(const json &j, const std::string &path) {
  ObjectReader r(j, path);
  DitSpec d;
  d.in_channels = r.opt_int("in_channels", 1, 4096).value_or(d.in_channels);
  d.caption_channels = r.opt_int("caption_channels", 1, kMaxDim).value_or(d.caption_channels);
  if (const json *p = r.opt_child("patch")) {
    const auto v = parse_int_array(*p, r.path_of("patch"), 1, 64, 3, 3);
    d.patch_t = v[0];
    d.patch_h = v[1];
    d.patch_w = v[2];
  }
  r.finish();
  return d;
}

ModelSpec parse_model_object(const json &j, const std::string &path) {
  ObjectReader r(j, path);
  ModelSpec m;
  m.name = r.opt_str("name").value_or("custom");
  m.family = opt_enum<ModelFamily>(r, "family").value_or(ModelFamily::decoder);
  const bool dit = m.family == ModelFamily::stdit3;
  m.layers = req_row(r, &ModelSpec::layers);
  m.hidden = req_row(r, &ModelSpec::hidden);
  m.heads = req_row(r, &ModelSpec::heads, m.hidden);
  const char *kv = schema::row_of(&ModelSpec::kv_heads).key;
  m.kv_heads = r.opt_int(kv, 1, m.heads).value_or(m.heads);
  if (m.heads % m.kv_heads != 0)
    throw ConfigError(r.path_of(kv), std::to_string(m.kv_heads) + " does not divide heads " +
                                         std::to_string(m.heads));
  if (const auto d = r.opt_int("head_dim", 1, kMaxDim)) {
    m.head_dim = *d;
  } else {
    if (m.hidden % m.heads != 0)
      throw ConfigError(r.path_of("head_dim"), "is required: heads " + std::to_string(m.heads) +
                                                   " does not divide hidden " +
                                                   std::to_string(m.hidden));
    m.head_dim = m.hidden / m.heads;
  }
  if (const json *moe = r.opt_child("moe"))
    m.moe = parse_moe(*moe, r.path_of("moe"), m.layers);
  if (const json *mla = r.opt_child("mla"))
    m.mla = parse_mla(*mla, r.path_of("mla"));
  if (const json *d = r.opt_child("dit"))
    m.dit = parse_dit(*d, r.path_of("dit"));
  else if (dit)
    m.dit = DitSpec{};
  const bool all_moe = m.moe && m.moe->every == 1 && m.moe->first_dense == 0;
  if (const auto f = r.opt_int("ffn", 1, kMaxDim))
    m.ffn = *f;
  else if (all_moe)
    m.ffn = m.moe->expert_ffn;
  else if (dit)
    m.ffn = 4 * m.hidden; // STDiT3 mlp_ratio 4
  else
    throw ConfigError(r.path_of("ffn"), "is required");
  m.vocab = dit ? r.opt_int("vocab", 0, kMaxDim).value_or(0) : r.req_int("vocab", 1, kMaxDim);
  m.gated_mlp = r.opt_bool("gated_mlp").value_or(!dit);
  // "bias" switches every bias (GPT style); the three below refine it (Qwen2: qkv only).
  const bool bias = r.opt_bool("bias").value_or(dit);
  m.qkv_bias = r.opt_bool("qkv_bias").value_or(bias);
  m.o_bias = r.opt_bool("o_bias").value_or(bias);
  m.mlp_bias = r.opt_bool("mlp_bias").value_or(bias);
  m.norm = opt_enum<Norm>(r, "norm").value_or(dit ? Norm::layernorm : Norm::rmsnorm);
  read_fields(r, m, schema::model_fields()); // dropout, tied_embeddings, learned_pos_emb
  m.max_seq = r.opt_int("max_seq", 0, kMaxCount).value_or(0);
  if (m.learned_pos_emb && m.max_seq == 0)
    throw ConfigError(r.path_of("max_seq"), "is required with learned_pos_emb");
  m.rope_theta = r.opt_num("rope_theta", 1.0, 1e12).value_or(0);
  m.rope_scaling = r.opt_num("rope_scaling", 1.0, 1e6).value_or(0);
  if (const auto id = r.opt_str("hf_id")) {
    if (!is_hf_id(*id))
      throw ConfigError(r.path_of("hf_id"),
                        "\"" + *id +
                            "\" is not a Hugging Face repository id (owner/name of "
                            "letters, digits, '-', '_' and '.')");
    m.hf_id = *id;
  }
  m.source = r.opt_str("source").value_or("");
  r.opt_str("notes");
  r.finish();
  return m;
}
} // namespace

namespace {
// A model whose parameter count passes kMaxParams is refused here, before any work.
ModelSpec within_size_limit(ModelSpec m, const std::string &path) {
  try {
    model_params(m);
  } catch (const ConfigError &e) {
    throw ConfigError(path, e.message());
  }
  return m;
}
} // namespace

ModelSpec parse_model(const json &j, const std::string &path) {
  if (j.is_object() && j.contains("hf_config")) {
    if (j.size() != 1)
      throw ConfigError(path, "hf_config must be the only field of the model");
    return within_size_limit(model_from_hf_config(j.at("hf_config"), join_path(path, "hf_config")),
                             path);
  }
  return within_size_limit(parse_model_object(resolve_object(j, "model", path), path), path);
}

// [SECTION] Hugging Face
// Maps a Hugging Face config.json (LLaMA, Mistral, Qwen2, Mixtral, DeepSeek-V3 field names)
// onto ModelSpec. Fields that do not change parameter, FLOP or memory counts (rope scaling,
// token ids, initializer range, ...) are ignored on purpose: this is a foreign format.
ModelSpec model_from_hf_config(const json &hf, const std::string &path) {
  if (!hf.is_object())
    throw ConfigError(path, "expected the object of a config.json, got " + json_type_name(hf));
  auto req = [&](const char *key, i64 lo, i64 hi) {
    if (!hf.contains(key))
      throw ConfigError(join_path(path, key), "is required");
    return read_int(hf.at(key), join_path(path, key), lo, hi);
  };
  auto opt = [&](const char *key, i64 lo, i64 hi, i64 dflt) {
    if (!hf.contains(key) || hf.at(key).is_null())
      return dflt;
    return read_int(hf.at(key), join_path(path, key), lo, hi);
  };
  auto flag = [&](const char *key, bool dflt) {
    if (!hf.contains(key) || hf.at(key).is_null())
      return dflt;
    if (!hf.at(key).is_boolean())
      throw ConfigError(join_path(path, key), "expected true or false");
    return hf.at(key).get<bool>();
  };
  const std::string type = hf.contains("model_type") && hf.at("model_type").is_string()
                               ? hf.at("model_type").get<std::string>()
                               : "";
  ModelSpec m;
  m.layers = req("num_hidden_layers", 1, kMaxLayers);
  m.hidden = req("hidden_size", 1, kMaxDim);
  // The name: the checkpoint's own (_name_or_path, which transformers writes on save_pretrained
  // and which is also the Hugging Face id when it has that form); a config.json from the Hub
  // carries none, so the name then says the family and the shape ("qwen2 (64 layers, 5120
  // hidden)"): two pasted configs of one family read apart.
  const std::string own = hf.contains("_name_or_path") && hf.at("_name_or_path").is_string()
                              ? hf.at("_name_or_path").get<std::string>()
                              : "";
  m.name = !own.empty() ? own
                        : (type.empty() ? "hf-model" : type) + " (" + std::to_string(m.layers) +
                              " layers, " + std::to_string(m.hidden) + " hidden)";
  if (is_hf_id(own))
    m.hf_id = own;
  m.heads = req("num_attention_heads", 1, m.hidden);
  m.kv_heads = opt("num_key_value_heads", 1, m.heads, m.heads);
  if (m.heads % m.kv_heads != 0)
    throw ConfigError(join_path(path, "num_key_value_heads"),
                      std::to_string(m.kv_heads) + " does not divide num_attention_heads " +
                          std::to_string(m.heads));
  m.head_dim = opt("head_dim", 1, kMaxDim, m.hidden / m.heads);
  m.vocab = req("vocab_size", 1, kMaxDim);
  m.max_seq = opt("max_position_embeddings", 0, kMaxCount, 0);
  m.tied_embeddings = flag("tie_word_embeddings", false);
  if (hf.contains("rope_theta") && !hf.at("rope_theta").is_null())
    m.rope_theta = read_num(hf.at("rope_theta"), join_path(path, "rope_theta"), 1.0, 1e12);
  // Llama 3.x: {"rope_type": "llama3", "factor": 8.0, ...} (older files say "type")
  if (const auto rs = hf.find("rope_scaling"); rs != hf.end() && rs->is_object()) {
    const auto type = rs->contains("rope_type") ? rs->find("rope_type") : rs->find("type");
    if (type != rs->end() && type->is_string() && type->get<std::string>() == "llama3" &&
        rs->contains("factor"))
      m.rope_scaling = read_num(rs->at("factor"), join_path(path, "rope_scaling.factor"), 1.0, 1e6);
  }
  m.gated_mlp = true; // all the listed families use SwiGLU
  m.norm = Norm::rmsnorm;
  // gpt-oss's experts carry biases (gate_up_proj_bias, down_proj_bias) with no mlp_bias key.
  m.mlp_bias = flag("mlp_bias", type == "gpt_oss");
  // LLaMA: attention_bias covers q,k,v,o; Qwen2 carries q,k,v biases only.
  const bool attn_bias = flag("attention_bias", false);
  m.qkv_bias = attn_bias || type == "qwen2" || type == "qwen2_moe";
  m.o_bias = attn_bias;
  if (hf.contains("n_routed_experts") || hf.contains("num_local_experts") ||
      hf.contains("num_experts")) {
    MoeSpec moe;
    const char *ek = hf.contains("n_routed_experts")    ? "n_routed_experts"
                     : hf.contains("num_local_experts") ? "num_local_experts"
                                                        : "num_experts";
    moe.experts = req(ek, 1, 1 << 20);
    moe.top_k = req("num_experts_per_tok", 1, moe.experts);
    moe.expert_ffn = hf.contains("moe_intermediate_size") ? req("moe_intermediate_size", 1, kMaxDim)
                                                          : req("intermediate_size", 1, kMaxDim);
    moe.shared_experts = opt("n_shared_experts", 0, 1024, 0);
    moe.every = opt("moe_layer_freq", 1, m.layers, 1);
    moe.first_dense = opt("first_k_dense_replace", 0, m.layers, 0);
    m.moe = moe;
  }
  m.ffn = req("intermediate_size", 1, kMaxDim);
  if (hf.contains("kv_lora_rank") && !hf.at("kv_lora_rank").is_null()) {
    MlaSpec mla;
    mla.q_lora_rank = opt("q_lora_rank", 0, kMaxDim, 0);
    mla.kv_lora_rank = req("kv_lora_rank", 1, kMaxDim);
    mla.qk_nope_head_dim = req("qk_nope_head_dim", 1, kMaxDim);
    mla.qk_rope_head_dim = req("qk_rope_head_dim", 0, kMaxDim);
    mla.v_head_dim = req("v_head_dim", 1, kMaxDim);
    m.mla = mla;
    m.head_dim = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
  }
  m.source = "Hugging Face config.json";
  return m;
}

json hf_config_used(const json &hf) {
  // Every key model_from_hf_config reads (tests/test_url.cpp checks nothing else matters).
  static const char *const used[] = {"model_type",
                                     "_name_or_path",
                                     "num_hidden_layers",
                                     "hidden_size",
                                     "num_attention_heads",
                                     "num_key_value_heads",
                                     "head_dim",
                                     "vocab_size",
                                     "max_position_embeddings",
                                     "tie_word_embeddings",
                                     "mlp_bias",
                                     "attention_bias",
                                     "n_routed_experts",
                                     "num_local_experts",
                                     "num_experts",
                                     "num_experts_per_tok",
                                     "moe_intermediate_size",
                                     "n_shared_experts",
                                     "moe_layer_freq",
                                     "first_k_dense_replace",
                                     "intermediate_size",
                                     "kv_lora_rank",
                                     "q_lora_rank",
                                     "qk_nope_head_dim",
                                     "qk_rope_head_dim",
                                     "v_head_dim",
                                     "rope_theta",
                                     "rope_scaling"};
  if (!hf.is_object())
    return hf;
  json out = json::object();
  for (const char *k : used)
    if (hf.contains(k))
      out[k] = hf.at(k);
  if (const auto rs = out.find("rope_scaling"); rs != out.end() && rs->is_object()) {
    json kept = json::object(); // what the reader takes: the type and the factor
    for (const char *k : {"rope_type", "type", "factor"})
      if (rs->contains(k))
        kept[k] = rs->at(k);
    *rs = kept;
  }
  return out;
}

namespace {
// The dtypes of an engine's MoE efficiencies by their JSON names (workload.engine.moe).
std::array<std::pair<const char *, double *>, 4>
moe_efficiency_fields(EngineSpec::MoeEfficiency &f) {
  return {{{"bf16", &f.bf16}, {"fp8", &f.fp8}, {"fp8_block", &f.fp8_block}, {"fp4", &f.fp4}}};
}

// The KV cases of an engine's context attention by their JSON names
// (workload.engine.context_attention).
std::array<std::pair<const char *, double *>, 4>
context_attention_fields(EngineSpec::ContextAttention &f) {
  return {{{"bf16", &f.bf16}, {"fp8", &f.fp8}, {"mla_bf16", &f.mla_bf16}, {"mla_fp8", &f.mla_fp8}}};
}

// An engine fit's measurements on other chips: {"on": {hardware preset: fit}}, each fit read
// by read(chip, its reader).
template <class F> void read_on_chips(ObjectReader &o, F &&read) {
  const json *on = o.opt_child("on");
  if (!on)
    return;
  if (!on->is_object())
    throw ConfigError(o.path_of("on"), "must be an object of hardware preset names");
  for (const auto &[hw, fit] : on->items()) {
    ObjectReader h(fit, o.path_of("on") + "." + hw);
    read(hw, h);
    h.finish();
  }
}
} // namespace

// A serving engine: a preset name ("vllm", or "vllm@0.10.1" naming its version) or an object
// that may start from one ("base") and override fields.
EngineSpec parse_engine(const json &j0, const std::string &path, ServeSpec *scheduler) {
  json j0n = j0;
  std::string want_version;
  if (j0.is_string()) {
    const std::string s = j0.get<std::string>();
    if (const auto at = s.find('@'); at != std::string::npos) {
      j0n = s.substr(0, at);
      want_version = s.substr(at + 1);
    }
  }
  const json j = resolve_object(j0n, "engine", path);
  ObjectReader r(j, path);
  EngineSpec e;
  e.name = r.opt_str("name").value_or("custom");
  e.version = r.opt_str("version").value_or("");
  e.iteration_overhead = r.opt_num("iteration_overhead", 0.0, 1.0).value_or(0);
  e.tpot_uncertainty = r.opt_num("tpot_uncertainty", 0.0, schema::kMaxEngineUncertainty)
                           .value_or(e.tpot_uncertainty);
  e.ttft_uncertainty = r.opt_num("ttft_uncertainty", 0.0, schema::kMaxEngineUncertainty)
                           .value_or(e.ttft_uncertainty);
  e.request_overhead = r.opt_num("request_overhead", 0.0, 10.0).value_or(0);
  e.allreduce_latency = r.opt_num("allreduce_latency", 0.0, 1e-2).value_or(0);
  e.allreduce_bw = r.opt_num("allreduce_bw", 0.0, kMaxBw).value_or(0);
  e.allreduce_max_bytes = r.opt_num("allreduce_max_bytes", 0.0, 1e12).value_or(0);
  e.allreduce_source = r.opt_str("allreduce_source").value_or("");
  e.fp8_quant_fused = r.opt_bool("fp8_quant_fused").value_or(false);
  if (const json *a = r.opt_child("decode_attention")) {
    ObjectReader o(*a, r.path_of("decode_attention"));
    // {"latency", "bw_efficiency"}: one chip's fit
    auto read = [](ObjectReader &in, EngineSpec::SmallGemm &f) {
      f.latency = in.req_num("latency", 0.0, 1e-3);
      f.bw_efficiency = in.req_num("bw_efficiency", 0.01, 2.0);
    };
    read(o, e.decode_attention);
    read_on_chips(
        o, [&](const std::string &hw, ObjectReader &h) { read(h, e.decode_attention_on[hw]); });
    e.decode_attention_source = o.opt_str("source").value_or("");
    o.finish();
  }
  if (const json *g = r.opt_child("gemm")) {
    ObjectReader o(*g, r.path_of("gemm"));
    // {"bf16": {"latency", "bw_efficiency"}, "fp8": {...}}: one chip's fits
    auto read = [](ObjectReader &in, EngineSpec::GemmFits &out) {
      for (const char *dtype : {"bf16", "fp8", "fp4"})
        if (const json *d = in.opt_child(dtype)) {
          ObjectReader x(*d, in.path_of(dtype));
          const std::string k = dtype;
          EngineSpec::SmallGemm &f = k == "bf16" ? out.bf16 : k == "fp8" ? out.fp8 : out.fp4;
          f.latency = x.req_num("latency", 0.0, 1e-3);
          f.bw_efficiency = x.req_num("bw_efficiency", 0.01, 2.0);
          x.finish();
        }
    };
    read(o, e.gemm);
    read_on_chips(o, [&](const std::string &hw, ObjectReader &h) { read(h, e.gemm_on[hw]); });
    e.gemm_source = o.opt_str("source").value_or("");
    o.finish();
  }
  // {"on": {chip: {name: share, ...}}, "source"}: the MoE experts' and the context attention's
  // shares of peak per chip, each field by its JSON name
  const auto read_shares = [&](const char *key, auto &on, std::string &source, auto fields) {
    if (const json *g = r.opt_child(key)) {
      ObjectReader o(*g, r.path_of(key));
      read_on_chips(o, [&](const std::string &hw, ObjectReader &h) {
        for (auto [name, v] : fields(on[hw]))
          *v = h.opt_num(name, 0.01, 1.0).value_or(0);
      });
      source = o.opt_str("source").value_or("");
      o.finish();
    }
  };
  read_shares("moe", e.moe_on, e.moe_source,
              [](EngineSpec::MoeEfficiency &f) { return moe_efficiency_fields(f); });
  read_shares("context_attention", e.context_attention_on, e.context_attention_source,
              [](EngineSpec::ContextAttention &f) { return context_attention_fields(f); });
  if (const auto k = r.opt_str("kv_memory")) {
    if (const auto v = schema::value_in(schema::choices<EngineSpec::KvMemory>(), *k))
      e.kv_memory = static_cast<EngineSpec::KvMemory>(*v);
    else
      throw ConfigError(r.path_of("kv_memory"),
                        "must be \"hbm\" (vLLM gpu_memory_utilization), \"static\" (SGLang "
                        "mem_fraction_static) or \"free\" (TensorRT-LLM "
                        "free_gpu_memory_fraction), not \"" +
                            *k + "\"");
  }
  e.source = r.opt_str("source").value_or("");
  r.opt_str("notes");
  r.opt_str("scheduler_source");
  // The engine's scheduler defaults (its own engine arguments: presets/engines name the
  // source file and version); the configuration's workload.scheduler is read after them.
  if (const json *sc = r.opt_child("scheduler")) {
    ObjectReader o(*sc, r.path_of("scheduler"));
    ServeSpec ignored;
    read_fields(o, scheduler ? *scheduler : ignored, schema::serve_fields(), "scheduler");
    o.finish();
  }
  r.finish();
  if (!want_version.empty() && want_version != e.version)
    throw ConfigError(path, "engine \"" + e.name + "\" is calibrated for version " +
                                (e.version.empty() ? "(none)" : e.version) + ", not " +
                                want_version);
  return e;
}

// [SECTION] hardware
HardwareSpec parse_hardware(const json &j0, const std::string &path) {
  const json j = resolve_object(j0, "hardware", path);
  ObjectReader r(j, path);
  HardwareSpec h;
  h.name = r.opt_str("name").value_or("custom");
  h.kind = opt_enum<HardwareKind>(r, "kind").value_or(HardwareKind::gpu);
  if (const json *pf = r.opt_child("peak_flops")) {
    ObjectReader p(*pf, r.path_of("peak_flops"));
    h.peak.bf16 = p.req_num("bf16", kMinFlops, kMaxFlops);
    h.peak.fp8 = opt_peak(p, "fp8");
    h.peak.int8 = opt_peak(p, "int8");
    h.peak.int4 = opt_peak(p, "int4");
    h.peak.fp32 = opt_peak(p, "fp32");
    h.peak.fp4 = opt_peak(p, "fp4");
    p.finish();
  } else if (h.kind != HardwareKind::tx8) {
    throw ConfigError(r.path_of("peak_flops"), "is required");
  }
  h.hbm_bytes = r.opt_num("hbm_bytes", kMinBytes, kMaxBytes).value_or(0);
  h.hbm_bw = r.opt_num("hbm_bw", kMinBw, kMaxBw).value_or(0);
  h.memory_reserve =
      r.opt_num("memory_reserve", 0.0, kMaxBytes).value_or(default_memory_reserve(h.hbm_bytes));
  if (h.hbm_bytes > 0 && h.memory_reserve >= h.hbm_bytes)
    throw ConfigError(r.path_of("memory_reserve"), "must be below hbm_bytes");
  read_fields(r, h, schema::hardware_fields());
  if (const json *t = r.opt_child("tx8")) {
    ObjectReader x(*t, r.path_of("tx8"));
    Tx8Spec s;
    if (const json *mesh = x.opt_child("mesh")) {
      const auto v = parse_int_array(*mesh, x.path_of("mesh"), 1, 64, 2, 2);
      s.mesh_x = v[0];
      s.mesh_y = v[1];
    }
    s.tiles = x.opt_int("tiles", 1, 4096).value_or(s.mesh_x * s.mesh_y);
    if (s.tiles != s.mesh_x * s.mesh_y)
      throw ConfigError(x.path_of("tiles"), std::to_string(s.tiles) + " != mesh " +
                                                std::to_string(s.mesh_x) + " x " +
                                                std::to_string(s.mesh_y));
    read_fields(x, s, schema::tx8_fields(), "tx8");
    s.sram_usable_bytes = x.opt_num("sram_usable_bytes", 1024.0, 1e10)
                              .value_or(std::min(s.sram_usable_bytes, s.sram_bytes));
    if (s.sram_usable_bytes > s.sram_bytes)
      throw ConfigError(x.path_of("sram_usable_bytes"),
                        std::to_string(static_cast<i64>(s.sram_usable_bytes)) + " B > sram_bytes " +
                            std::to_string(static_cast<i64>(s.sram_bytes)) + " B");
    x.finish();
    h.tx8 = s;
    if (h.peak.bf16 == 0)
      h.peak.bf16 = static_cast<double>(s.tiles) * s.gemm_flops;
    if (h.hbm_bw == 0)
      h.hbm_bw = s.dram_bw;
  } else if (h.kind == HardwareKind::tx8) {
    throw ConfigError(r.path_of("tx8"), "is required for kind tx8");
  }
  if (h.kind != HardwareKind::tx8) {
    if (h.hbm_bytes <= 0)
      throw ConfigError(r.path_of("hbm_bytes"), "is required and must be > 0");
    if (h.hbm_bw <= 0)
      throw ConfigError(r.path_of("hbm_bw"), "is required and must be > 0");
  }
  h.source = r.opt_str("source").value_or("");
  r.opt_str("notes");
  r.finish();
  return h;
}

// [SECTION] cluster
ClusterSpec parse_cluster(const json &j0, const std::string &path) {
  const json j = resolve_object(j0, "cluster", path);
  ObjectReader r(j, path);
  ClusterSpec c;
  c.name = r.opt_str("name").value_or("custom");
  c.topology = opt_enum<Topology>(r, "topology").value_or(Topology::switched);
  if (const json *t = r.opt_child("torus")) {
    c.torus_axes = parse_int_array(*t, r.path_of("torus"), 1, 4096, 1, 3);
    c.topology = Topology::torus;
  }
  if (const json *w = r.opt_child("wraparound")) {
    if (w->is_boolean()) {
      c.wraparound.assign(c.torus_axes.size(), w->get<bool>());
    } else if (w->is_array() && w->size() == c.torus_axes.size()) {
      for (std::size_t i = 0; i < w->size(); ++i) {
        if (!(*w)[i].is_boolean())
          throw ConfigError(r.path_of("wraparound") + "[" + std::to_string(i) + "]",
                            "expected true or false");
        c.wraparound.push_back((*w)[i].get<bool>());
      }
    } else {
      throw ConfigError(r.path_of("wraparound"),
                        "expected a boolean or one boolean per torus axis");
    }
  } else {
    // TPU slices wrap around an axis of full extent (>= 16 on v4/v5p); How to Scale Your Model
    // ch. 2.
    for (const i64 a : c.torus_axes)
      c.wraparound.push_back(a >= 16);
  }
  if (const json *m = r.opt_child("mesh")) {
    c.mesh = parse_int_array(*m, r.path_of("mesh"), 1, 1024, 2, 2);
    c.topology = Topology::mesh;
  }
  i64 implied = 0;
  c.slices = r.opt_int("slices", 1, 1 << 16).value_or(1);
  if (c.slices > 1 && c.torus_axes.empty())
    throw ConfigError(r.path_of("slices"), "needs a torus (slices of a TPU pod)");
  if (!c.torus_axes.empty()) {
    implied = c.slices;
    for (const i64 a : c.torus_axes)
      implied *= a;
  } else if (!c.mesh.empty()) {
    implied = c.mesh[0] * c.mesh[1];
  }
  if (const auto d = r.opt_int("devices", 1, kMaxCount)) {
    c.devices = *d;
    if (implied && c.devices != implied)
      throw ConfigError(r.path_of("devices"),
                        std::to_string(c.devices) + " != product of the axes" +
                            (c.slices > 1 ? " x slices " : " ") + std::to_string(implied));
  } else if (implied) {
    c.devices = implied;
  } else {
    throw ConfigError(r.path_of("devices"), "is required");
  }
  c.devices_per_node =
      r.opt_int("devices_per_node", 1, 1 << 16).value_or(std::min<i64>(c.devices, 8));
  if (const auto d = r.opt_int("nvlink_domain", 1, 1 << 16)) {
    c.nvlink_domain = *d;
    if (*d % c.devices_per_node != 0)
      throw ConfigError(r.path_of("nvlink_domain"), std::to_string(*d) +
                                                        " is not a whole number of nodes of " +
                                                        std::to_string(c.devices_per_node));
  }
  if (const auto d = r.opt_int("devices_per_domain", 1, 1 << 16)) {
    const std::string at = r.path_of("devices_per_domain");
    if (c.nvlink_domain <= 0)
      throw ConfigError(at, "needs cluster.nvlink_domain (GPUs on one NVLink fabric)");
    if (*d > c.nvlink_domain)
      throw ConfigError(at, std::to_string(*d) + " is more than the NVLink domain's " +
                                std::to_string(c.nvlink_domain));
    if (*d % c.devices_per_node != 0)
      throw ConfigError(at, std::to_string(*d) + " is not a whole number of nodes of " +
                                std::to_string(c.devices_per_node));
    c.devices_per_domain = *d;
  }
  if (const ClusterSizeFault f = cluster_size_fault(c, c.devices); !f.ok())
    throw ConfigError(r.path_of(f.key), f.message);
  if (const auto bw = r.opt_num("host_bw", 0.0, kMaxBw)) {
    if (*bw > 0 && *bw < kMinBw) // (0: unknown; else a bandwidth, as every link's)
      throw ConfigError(r.path_of("host_bw"), "must be 0 (unknown) or at least 1e6 B/s");
    c.host_bw = *bw;
  }
  read_fields(r, c, schema::cluster_fields()); // energy, interruptions, the host's Adam
  auto link = [&](const char *key, Link &out) {
    if (const json *l = r.opt_child(key))
      out = parse_link(*l, r.path_of(key));
  };
  link("intra_node", c.intra_node);
  link("inter_node", c.inter_node);
  link("ici", c.ici);
  link("dcn", c.dcn);
  link("d2d", c.d2d);
  if (c.topology == Topology::switched && c.intra_node.bw <= 0)
    throw ConfigError(r.path_of("intra_node"), "is required for a switched cluster");
  if (c.topology == Topology::switched && c.devices > c.nvlink_devices() && c.inter_node.bw <= 0)
    throw ConfigError(r.path_of("inter_node"),
                      c.nvlink_domain > 0 ? "is required when devices span several NVLink domains"
                                          : "is required when devices span several nodes");
  if (c.topology == Topology::torus && c.ici.bw <= 0)
    throw ConfigError(r.path_of("ici"), "is required for a torus");
  if (c.slices > 1 && c.dcn.bw <= 0)
    throw ConfigError(r.path_of("dcn"),
                      "is required to join " + std::to_string(c.slices) + " slices");
  if (c.topology == Topology::mesh && c.d2d.bw <= 0)
    throw ConfigError(r.path_of("d2d"), "is required for a die mesh");
  c.source = r.opt_str("source").value_or("");
  r.opt_str("notes");
  r.finish();
  return c;
}

// [SECTION] workload
namespace {
// Limits that keep one simulation bounded (issue: bounded work): requests and tokens.
constexpr i64 kMaxRequests = 1'000'000;
constexpr i64 kMaxSeqTokens = 10'000'000;
constexpr double kMaxServeTokens = 1e8; // output tokens of one simulation (~2 s natively)

// workload.trace: rows [arrival_s, prompt_len, gen_len] or {"t", "prompt", "gen", "session",
// "think"}: a row naming a session is a turn of it; a later turn may give `think` (sent that long
// after the session's previous turn completes) in place of `t`.
std::vector<TraceRow> parse_trace(const json &t, const std::string &tp) {
  std::vector<TraceRow> out;
  std::map<std::string, double> session_t; // each session's last turn's arrival (-1: a think row)
  double last = 0;
  const auto length = [](const json &v, const std::string &at, const char *what) {
    const double x = v.is_number() ? v.get<double>() : -1;
    if (!(x >= 1 && x <= kMaxSeqTokens && x == std::floor(x)))
      throw ConfigError(at, std::string(what) + " " + v.dump() + " is not an integer in [1, 1e7]");
    return static_cast<i64>(x);
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const json &e = t[i];
    const std::string ep = tp + "[" + std::to_string(i) + "]";
    TraceRow row;
    bool timed = true;
    if (e.is_object()) {
      ObjectReader o(e, ep);
      for (const char *k : {"prompt", "gen"})
        if (!o.opt_child(k))
          throw ConfigError(o.path_of(k), "is required (tokens)");
      row.prompt = length(*o.opt_child("prompt"), o.path_of("prompt"), "prompt");
      row.gen = length(*o.opt_child("gen"), o.path_of("gen"), "gen");
      if (const json *sid = o.opt_child("session")) {
        if (sid->is_string() && !sid->get<std::string>().empty() &&
            sid->get<std::string>().size() <= 256)
          row.session = sid->get<std::string>();
        else if (sid->is_number_integer() && sid->get<i64>() >= 0)
          row.session = std::to_string(sid->get<i64>());
        else
          throw ConfigError(o.path_of("session"),
                            "must be a session id: a non-negative integer or a string of 1-256 "
                            "characters");
      }
      if (const auto a = o.opt_int("adapter", 0, 99999))
        row.adapter = *a;
      if (const json *h = o.opt_child("hash_ids")) {
        const std::string hp = o.path_of("hash_ids");
        const auto most =
            static_cast<std::size_t>((row.prompt + kTraceHashTokens - 1) / kTraceHashTokens);
        if (!h->is_array() || h->size() > most)
          throw ConfigError(hp, "must be an array of at most " + std::to_string(most) +
                                    " block hashes (one per 512 tokens of the prompt)");
        auto ids = std::make_shared<std::vector<std::uint64_t>>();
        for (std::size_t k = 0; k < h->size(); ++k) {
          const json &v = (*h)[k];
          if (!v.is_number_integer() || v.get<i64>() < 0 || v.get<i64>() > (i64{1} << 53))
            throw ConfigError(hp + "[" + std::to_string(k) + "]",
                              "must be a block hash: an integer in [0, 2^53]");
          ids->push_back(static_cast<std::uint64_t>(v.get<i64>()));
        }
        row.hash_ids = std::move(ids);
      }
      const auto at = o.opt_num("t", 0, 1e9);
      const auto think = o.opt_num("think", 0, 86400);
      if (at && think)
        throw ConfigError(o.path_of("think"), "give t (an arrival) or think (after the "
                                              "session's previous turn), not both");
      if (think) {
        if (row.session.empty())
          throw ConfigError(o.path_of("think"), "is the pause after the session's previous "
                                                "turn: the row needs a session");
        if (!session_t.count(row.session))
          throw ConfigError(o.path_of("session"),
                            "\"" + row.session +
                                "\" has no earlier turn: its first row gives its arrival t");
        row.think = *think;
        timed = false;
      } else if (!at) {
        throw ConfigError(o.path_of("t"), "is required (the arrival, s), or think after a "
                                          "session's earlier turn");
      } else {
        row.t = *at;
      }
      o.finish();
    } else if (e.is_array() && e.size() == 3 && e[0].is_number() && e[1].is_number() &&
               e[2].is_number()) {
      row.t = e[0].get<double>();
      if (!(row.t >= 0 && row.t <= 1e9))
        throw ConfigError(ep, "arrival " + e[0].dump() + " s is not in [0, 1e9]");
      row.prompt = length(e[1], ep, "prompt_len");
      row.gen = length(e[2], ep, "gen_len");
    } else {
      throw ConfigError(ep, "must be [arrival_s, prompt_len, gen_len] (three numbers) or an "
                            "object {\"t\", \"prompt\", \"gen\", \"session\", \"think\"}");
    }
    if (timed) {
      if (row.t < last)
        throw ConfigError(ep, "arrival " + json(row.t).dump() + " s is before the previous one (" +
                                  json(last).dump() + " s): sort the trace by arrival");
      if (!row.session.empty() && session_t.count(row.session) && session_t[row.session] < 0)
        throw ConfigError(ep, "session \"" + row.session +
                                  "\": a turn at a fixed time after one sent on completion "
                                  "(think); give its think time");
      last = row.t;
    }
    if (!row.session.empty())
      session_t[row.session] = timed ? row.t : -1;
    out.push_back(row);
  }
  return out;
}

// workload.speculative: the method, k, the acceptance (one number or one per position; default
// the method's fit, docs/serving.md "Speculative decoding") and, for a draft model, its preset.
SpeculativeSpec parse_speculative(const json &j, const std::string &path) {
  ObjectReader o(j, path);
  SpeculativeSpec s;
  read_fields(o, s, schema::speculative_fields(), "speculative");
  if (const json *a = o.opt_child("acceptance")) {
    const std::string at = o.path_of("acceptance");
    const json list = a->is_array() ? *a : json::array({*a});
    if (list.empty() || static_cast<i64>(list.size()) > s.draft_tokens)
      throw ConfigError(at, "must be one number or up to draft_tokens (" +
                                std::to_string(s.draft_tokens) + ") numbers in [0, 1]");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json &x = list[i];
      const std::string xp = a->is_array() ? at + "[" + std::to_string(i) + "]" : at;
      if (!x.is_number() || !(x.get<double>() >= 0 && x.get<double>() <= 1))
        throw ConfigError(xp, "must be a probability in [0, 1]");
      s.acceptance.push_back(x.get<double>());
    }
  } else if (default_acceptance(s.method) <= 0) {
    throw ConfigError(o.path_of("acceptance"),
                      std::string("is required with method ") + schema::choice_name(s.method) +
                          " (no measured pair sets its rate; mtp's is fitted)");
  } else {
    s.acceptance = {default_acceptance(s.method)};
  }
  if (const json *d = o.opt_child("draft_model")) {
    if (s.method != SpecMethod::draft)
      throw ConfigError(o.path_of("draft_model"), "is the draft of method draft, not of " +
                                                      std::string(schema::choice_name(s.method)));
    if (!d->is_string())
      throw ConfigError(o.path_of("draft_model"), "must be a model preset name");
    s.draft_model = d->get<std::string>();
    s.draft = std::make_shared<const ModelSpec>(parse_model(*d, o.path_of("draft_model")));
  } else if (s.method == SpecMethod::draft) {
    throw ConfigError(o.path_of("draft_model"), "is required with method draft (a model preset)");
  }
  o.finish();
  return s;
}

void parse_serve(ObjectReader &r, WorkloadSpec &w) {
  ServeSpec &s = w.serve;
  if (const json *e = r.opt_child("engine"))
    s.engine = parse_engine(*e, r.path_of("engine"), &s); // its scheduler defaults
  // precision, weight_dtype, kv_dtype, bound, kv_sharding
  read_fields(r, w, schema::workload_fields(), "", schema::mode_bit(Mode::serve));
  if (const json *px = r.opt_child("prefix")) {
    ObjectReader o(*px, r.path_of("prefix"));
    read_fields(o, s, schema::serve_fields(), "prefix");
    o.finish();
  }
  if (const json *ss = r.opt_child("sessions")) {
    ObjectReader o(*ss, r.path_of("sessions"));
    s.sessions.emplace();
    read_fields(o, *s.sessions, schema::sessions_fields(), "sessions");
    o.finish();
    if (r.opt_child("trace"))
      throw ConfigError(r.path_of("sessions"),
                        "give sessions or a trace whose rows name their session, not both");
    if (r.opt_child("prompt_len"))
      throw ConfigError(r.path_of("prompt_len"),
                        "is set by workload.sessions: each turn's prompt is the conversation so "
                        "far plus sessions.new_tokens");
  }
  if (const json *t = r.opt_child("trace")) {
    const std::string tp = r.path_of("trace");
    if (!t->is_array() || t->empty())
      throw ConfigError(tp, "must be a non-empty array of [arrival_s, prompt_len, gen_len] or "
                            "{\"t\", \"prompt\", \"gen\", \"session\", \"think\"}");
    if (static_cast<i64>(t->size()) > kMaxRequests)
      throw ConfigError(tp, "has " + std::to_string(t->size()) + " requests, over the limit of " +
                                std::to_string(kMaxRequests));
    s.trace = parse_trace(*t, tp);
    read_fields(r, s, schema::serve_fields(), "", schema::mode_bit(Mode::serve), "routing");
    w.prompt_len = 0;
    w.gen_len = 0;
    for (const TraceRow &e : s.trace) {
      w.prompt_len = std::max<i64>(w.prompt_len, e.prompt);
      w.gen_len = std::max<i64>(w.gen_len, e.gen);
    }
    s.requests = static_cast<i64>(s.trace.size());
    double out = 0;
    for (const TraceRow &e : s.trace)
      out += static_cast<double>(e.gen);
    if (out > kMaxServeTokens)
      throw ConfigError(r.path_of("trace"), "asks for " + json(out).dump() +
                                                " output tokens, over the limit of 1e8 per "
                                                "simulation (a few seconds of work)");
  } else {
    if (const auto cc = r.opt_int("concurrency", 1, 1'000'000)) {
      s.concurrency = *cc;
      s.request_rate = 0;
      if (r.opt_child("request_rate"))
        throw ConfigError(r.path_of("request_rate"),
                          "give request_rate (open loop) or concurrency (closed loop), not both");
    } else {
      s.request_rate = r.req_num("request_rate", 1e-6, 1e6);
    }
    read_fields(r, s, schema::serve_fields(), ""); // requests, length_dist, think_time
    w.gen_len = r.req_int("gen_len", 1, kMaxSeqTokens);
    // with sessions, the mean turn's prompt
    w.prompt_len = s.sessions ? std::max<i64>(1, mean_session_prompt(s, w.gen_len))
                              : r.req_int("prompt_len", 1, kMaxSeqTokens);
    if (!s.sessions && s.shared_prefix >= w.prompt_len)
      throw ConfigError(r.path_of("prefix") + ".shared_tokens",
                        std::to_string(s.shared_prefix) + " is not below prompt_len " +
                            std::to_string(w.prompt_len) +
                            ": a prompt is the shared prefix and its own tokens");
    s.seed = static_cast<std::uint64_t>(r.opt_int("seed", 0, i64{1} << 53).value_or(1));
    if (s.range_ratio > 0 && s.length_dist != LengthDist::uniform)
      throw ConfigError(r.path_of("range_ratio"),
                        "applies to length_dist uniform (the benchmark's random lengths), not " +
                            std::string(name_of(s.length_dist)));
    // the longest output a request may draw
    const double per = static_cast<double>(length_bounds(s, w.gen_len).hi);
    const i64 n = simulated_requests(s);
    if (static_cast<double>(n) > 1e6)
      throw ConfigError(r.path_of("requests_per_client"),
                        std::to_string(n) + " requests in all (requests_per_client x "
                                            "concurrency) exceed the limit of 1,000,000");
    if (static_cast<double>(n) * per > kMaxServeTokens)
      throw ConfigError(
          r.path_of(s.requests_per_client > 0 && s.concurrency > 0 ? "requests_per_client"
                                                                   : "requests"),
          std::to_string(n) + " requests of up to " + std::to_string(static_cast<i64>(per)) +
              " output tokens exceed the limit of 1e8 output tokens per "
              "simulation (a few seconds of work); simulate fewer requests");
  }
  if (const json *slo = r.opt_child("slo")) {
    ObjectReader o(*slo, r.path_of("slo"));
    read_fields(o, s, schema::serve_fields(), "slo");
    o.finish();
  }
  if (const json *sc = r.opt_child("scheduler")) {
    ObjectReader o(*sc, r.path_of("scheduler"));
    read_fields(o, s, schema::serve_fields(), "scheduler"); // policy, max_batch, ...
    if (const json *ko = o.opt_child("kv_offload")) {
      ObjectReader k(*ko, o.path_of("kv_offload"));
      s.kv_offload.emplace();
      read_fields(k, *s.kv_offload, schema::kv_offload_fields(), "scheduler.kv_offload");
      k.finish();
      if (s.kv_offload->disk_bytes > 0 && s.kv_offload->disk_bw <= 0)
        throw ConfigError(k.path_of("disk_bw"), "is required with disk_bytes");
      if (!s.prefix_cache)
        throw ConfigError(o.path_of("kv_offload"),
                          "holds blocks the prefix cache evicts: it needs prefix_cache on");
    }
    o.finish();
    if (s.max_tokens < s.max_batch && s.policy == SchedulerPolicy::continuous)
      throw ConfigError(o.path_of("max_tokens"),
                        std::to_string(s.max_tokens) + " is below max_batch " +
                            std::to_string(s.max_batch) +
                            ": every running sequence decodes one token per iteration");
  }
  if (const json *sp = r.opt_child("speculative"))
    s.speculative = parse_speculative(*sp, r.path_of("speculative"));
  if (const json *lo = r.opt_child("lora")) {
    ObjectReader o(*lo, r.path_of("lora"));
    s.lora.emplace();
    read_fields(o, *s.lora, schema::lora_fields(), "lora");
    o.finish();
    if (s.lora->resident > s.lora->adapters)
      throw ConfigError(o.path_of("resident"), std::to_string(s.lora->resident) +
                                                   " is more than the adapters (" +
                                                   std::to_string(s.lora->adapters) + ")");
  }
  for (std::size_t i = 0; i < s.trace.size(); ++i)
    if (s.trace[i].adapter >= (s.lora ? s.lora->adapters : 0))
      throw ConfigError(r.path_of("trace") + "[" + std::to_string(i) + "].adapter",
                        s.lora ? "is not one of the " + std::to_string(s.lora->adapters) +
                                     " adapters of workload.lora (0 to " +
                                     std::to_string(s.lora->adapters - 1) + ")"
                               : std::string("names an adapter: give workload.lora"));
}

// The planners' choices: hardware presets ("name" or "name@cluster") and, for training,
// device counts (a list, or {"min", "max"}: min, 2 min, 4 min, ... up to max) and a deadline.
// A list field given one item alone ("hardware_options": "b200", as a link's
// workload.hardware_options=b200 decodes) is that one-item list.
json as_list(const json &j) {
  return j.is_array() ? j : json::array({j});
}

void parse_options(ObjectReader &r, WorkloadSpec &w, bool train) {
  json lists[3];
  const json *ho = nullptr, *eo = nullptr, *po = nullptr;
  const char *keys[3] = {"hardware_options", "engine_options", "precision_options"};
  const json **ptrs[3] = {&ho, &eo, &po};
  for (int k = 0; k < 3; ++k)
    if (const json *x = r.opt_child(keys[k]); x && (k == 0 || !train)) {
      lists[k] = as_list(*x);
      *ptrs[k] = &lists[k];
    }
  if (ho) {
    const std::string hp = r.path_of("hardware_options");
    if (!ho->is_array() || ho->size() > 32)
      throw ConfigError(hp, "must be an array of at most 32 hardware preset names");
    for (std::size_t i = 0; i < ho->size(); ++i) {
      if (!(*ho)[i].is_string())
        throw ConfigError(hp + "[" + std::to_string(i) + "]", "must be a hardware preset name");
      const std::string name = (*ho)[i].get<std::string>();
      const std::string hw = name.substr(0, name.find('@'));
      if (!is_preset("hardware", hw))
        throw ConfigError(hp + "[" + std::to_string(i) + "]",
                          "\"" + hw + "\" is not a hardware preset");
      if (name.find('@') != std::string::npos &&
          !is_preset("cluster", name.substr(name.find('@') + 1)))
        throw ConfigError(hp + "[" + std::to_string(i) + "]",
                          "\"" + name.substr(name.find('@') + 1) + "\" is not a cluster preset");
      w.hardware_options.push_back(name);
    }
  }
  if (!train) {
    if (eo) {
      const std::string ep = r.path_of("engine_options");
      if (!eo->is_array() || eo->size() > 16)
        throw ConfigError(ep, "must be an array of at most 16 engine preset names");
      for (std::size_t i = 0; i < eo->size(); ++i) {
        const std::string at = ep + "[" + std::to_string(i) + "]";
        if (!(*eo)[i].is_string())
          throw ConfigError(at, "must be an engine preset name (vllm, sglang, trtllm)");
        parse_engine((*eo)[i], at, nullptr); // the preset and its version exist
        w.engine_options.push_back((*eo)[i].get<std::string>());
      }
    }
    if (po) {
      const std::string pp = r.path_of("precision_options");
      if (!po->is_array() || po->size() > 9)
        throw ConfigError(pp, "must be an array of at most 9 dtype names");
      for (std::size_t i = 0; i < po->size(); ++i) {
        const std::string at = pp + "[" + std::to_string(i) + "]";
        const auto &list = schema::choices<Dtype>();
        const auto d = (*po)[i].is_string() ? schema::value_in(list, (*po)[i].get<std::string>())
                                            : std::nullopt;
        if (!d)
          throw ConfigError(at, "must be one of " + schema::names_text(list));
        w.precision_options.push_back(static_cast<Dtype>(*d));
      }
    }
    return;
  }
  if (const json *d = r.opt_child("device_options")) {
    const std::string dp = r.path_of("device_options");
    if (d->is_object()) {
      ObjectReader o(*d, dp);
      const i64 lo = o.req_int("min", 1, kMaxCount);
      const i64 hi = o.req_int("max", 1, kMaxCount);
      o.finish();
      if (hi < lo)
        throw ConfigError(o.path_of("max"),
                          std::to_string(hi) + " is below min " + std::to_string(lo));
      for (i64 n = lo; n <= hi && w.device_options.size() < 32; n *= 2)
        w.device_options.push_back(n);
    } else {
      w.device_options = parse_int_array(as_list(*d), dp, 1, kMaxCount, 1, 32);
    }
  }
  w.deadline_days = r.opt_num("deadline_days", 1e-3, 1e5).value_or(0);
  if (w.deadline_days > 0 && w.train_tokens <= 0)
    throw ConfigError(r.path_of("deadline_days"),
                      "needs workload.train_tokens (the deadline is for training them)");
}
} // namespace

namespace {
// workload.finetune: the method, rank and base dtype rows, and the targets list.
FinetuneSpec parse_finetune(const json &j, const std::string &path, const WorkloadSpec &w) {
  ObjectReader o(j, path);
  FinetuneSpec f;
  read_fields(o, f, schema::finetune_fields(), "finetune");
  if (const json *t = o.opt_child("targets")) {
    const std::string at = o.path_of("targets");
    if (!t->is_array() || t->empty())
      throw ConfigError(at, "must be a non-empty list of \"qkv\", \"o\", \"mlp\"");
    f.qkv = f.o = f.mlp = false;
    for (std::size_t i = 0; i < t->size(); ++i) {
      const json &x = (*t)[i];
      const std::string name = x.is_string() ? x.get<std::string>() : "";
      bool *slot = name == "qkv" ? &f.qkv : name == "o" ? &f.o : name == "mlp" ? &f.mlp : nullptr;
      if (!slot)
        throw ConfigError(at + "[" + std::to_string(i) + "]", "must be one of qkv, o, mlp");
      *slot = true;
    }
  }
  o.finish();
  if (f.method == FinetuneMethod::qlora && !j.contains("base_dtype"))
    f.base_dtype = BaseDtype::nf4; // QLoRA's base unless given
  const bool nf4 = f.base_dtype == BaseDtype::nf4;
  if (f.method == FinetuneMethod::full && f.base_dtype != BaseDtype::bf16)
    throw ConfigError(o.path_of("base_dtype"),
                      "a full fine-tune trains every weight: its base is the precision's, not "
                      "a frozen " +
                          std::string(schema::choice_name(f.base_dtype)) + " copy");
  if (f.method == FinetuneMethod::qlora && !nf4)
    throw ConfigError(o.path_of("base_dtype"), "qlora's base is nf4 (Dettmers et al. 2023)");
  if (f.method == FinetuneMethod::lora && nf4)
    throw ConfigError(o.path_of("method"), "an nf4 base is QLoRA: set method qlora");
  if (f.adapters() && w.fp8_params)
    throw ConfigError(o.path_of("method"),
                      "adapters train over a frozen base: fp8_params (Megatron's FP8 weights) "
                      "is a full-training option; use base_dtype fp8");
  return f;
}
} // namespace

WorkloadSpec parse_workload(const json &j, const std::string &path) {
  ObjectReader r(j, path);
  WorkloadSpec w;
  w.mode = opt_enum<Mode>(r, "mode").value_or(Mode::train);
  switch (w.mode) {
  case Mode::train:
    w.global_batch = req_row(r, &WorkloadSpec::global_batch);
    w.seq_len = req_row(r, &WorkloadSpec::seq_len);
    // precision, causal_skip, moe_imbalance, moe_capacity_factor, train_tokens
    read_fields(r, w, schema::workload_fields(), "", schema::mode_bit(Mode::train));
    w.fp32_grads = r.opt_bool("fp32_grads")
                       .value_or(w.precision == Dtype::bf16 || is_scaled_float(w.precision));
    if (w.framework != Framework::any && !trains(w.framework))
      throw ConfigError(r.path_of("framework"),
                        std::string(schema::choice_name(w.framework)) +
                            " is a serving engine; a training layout launches on megatron, "
                            "deepspeed, torchtitan or torchtune (or any)");
    if (w.fp8_params && w.precision != Dtype::fp8 && w.precision != Dtype::mxfp8)
      throw ConfigError(r.path_of("fp8_params"),
                        std::string("keeps the weights in the GEMMs' FP8: it needs precision "
                                    "fp8 or mxfp8, not ") +
                            name_of(w.precision));
    if (w.fp8_recipe != Fp8Recipe::delayed && w.precision != Dtype::fp8)
      throw ConfigError(r.path_of("fp8_recipe"),
                        std::string("is the scaling of precision fp8 (mxfp8 and the FP4 formats "
                                    "carry their own), not of ") +
                            name_of(w.precision));
    if (w.bf16_first_layers > 0 || w.bf16_last_layers > 0) {
      const char *key = schema::row_of(w.bf16_first_layers > 0 ? &WorkloadSpec::bf16_first_layers
                                                               : &WorkloadSpec::bf16_last_layers)
                            .key;
      if (!is_scaled_float(w.precision))
        throw ConfigError(r.path_of(key), std::string("keeps layers in BF16 under an FP8 or FP4 "
                                                      "precision, not under ") +
                                              name_of(w.precision));
      if (w.precision == Dtype::fp8 && w.fp8_recipe == Fp8Recipe::delayed)
        throw ConfigError(r.path_of(key), "needs fp8_recipe tensorwise or blockwise: Megatron-LM "
                                          "refuses BF16 layers with delayed scaling");
    }
    if (w.moe_fp8_dispatch && !is_scaled_float(w.precision))
      throw ConfigError(r.path_of(schema::row_of(&WorkloadSpec::moe_fp8_dispatch).key),
                        std::string("sends the dispatch in FP8 under an FP8 or FP4 precision, not "
                                    "under ") +
                            name_of(w.precision));
    if (w.moe_capacity_factor > 0 && w.moe_capacity_factor < 1)
      throw ConfigError(r.path_of("moe_capacity_factor"), "must be 0 (no dropping) or at least 1");
    if (const json *k = r.opt_child("checkpoint")) {
      ObjectReader o(*k, r.path_of("checkpoint"));
      read_fields(o, w.checkpoint, schema::checkpoint_fields(), "checkpoint");
      o.finish();
    }
    if (const json *f = r.opt_child("finetune"))
      w.finetune = parse_finetune(*f, r.path_of("finetune"), w);
    parse_options(r, w, true);
    break;
  case Mode::infer:
    w.batch = req_row(r, &WorkloadSpec::batch);
    w.prompt_len = req_row(r, &WorkloadSpec::prompt_len);
    // gen_len, causal_skip, request_rate, ttft_target, tpot_target, the dtypes, bound,
    // kv_sharding
    read_fields(r, w, schema::workload_fields(), "", schema::mode_bit(Mode::infer));
    if (w.request_rate > 0 && (w.ttft_target <= 0 || w.tpot_target <= 0))
      throw ConfigError(r.path_of(w.ttft_target <= 0 ? "ttft_target" : "tpot_target"),
                        "is required (> 0) with request_rate");
    break;
  case Mode::serve:
    parse_serve(r, w);
    parse_options(r, w, false);
    break;
  case Mode::tx8_op: {
    const json *o = r.opt_child("op");
    if (!o)
      throw ConfigError(r.path_of("op"), "is required for mode tx8-op");
    ObjectReader op(*o, r.path_of("op"));
    Tx8OpSpec s;
    const auto type = op.opt_str("type");
    if (!type)
      throw ConfigError(op.path_of("type"), "is required");
    s.type = *type;
    s.name = op.opt_str("name").value_or("");
    read_fields(op, s, schema::op_fields(), "op", schema::kAllModes, ""); // in_sram, out_sram
    const std::size_t tiling_len = s.type == "vector" ? 1 : s.type == "gemm" ? 3 : 2;
    if (const json *t = op.opt_child("tiling"))
      s.tiling = parse_int_array(*t, op.path_of("tiling"), 1, kMaxCount,
                                 s.type == "gemm" ? 2 : tiling_len, tiling_len);
    if (s.type == "gemm") {
      s.m = op.req_int("m", 1, kMaxCount);
      s.k = op.req_int("k", 1, kMaxCount);
      s.n = op.req_int("n", 1, kMaxCount);
      s.fuse = op.opt_str("fuse").value_or("");
      if (!s.fuse.empty() && s.fuse != "silu")
        throw ConfigError(op.path_of("fuse"), "\"" + s.fuse + "\" is not one of silu");
      s.stationary = op.opt_str("stationary").value_or("");
      if (!s.stationary.empty() && s.stationary != "input" && s.stationary != "weight")
        throw ConfigError(op.path_of("stationary"),
                          "\"" + s.stationary + "\" is not one of input, weight");
    } else if (s.type == "vector") {
      s.rows = op.req_int("rows", 1, kMaxCount);
      s.width = op.req_int("width", 1, kMaxCount);
      // inputs, ops_per_element, ops_per_row, params
      read_fields(op, s, schema::op_fields(), "op", schema::kAllModes, "vector");
    } else if (s.type == "flash_attention") {
      read_fields(op, s, schema::op_fields(), "op", schema::kAllModes,
                  "flash_attention"); // batch, heads_fused
      s.heads = op.req_int("heads", 1, kMaxDim);
      s.seq_q = op.req_int("seq_q", 1, kMaxCount);
      s.seq_kv = op.opt_int("seq_kv", 1, kMaxCount).value_or(s.seq_q);
      s.head_dim = op.req_int("head_dim", 1, kMaxDim);
      s.loop_order = op.opt_str("loop_order").value_or("");
      if (!s.loop_order.empty() && s.loop_order != "a" && s.loop_order != "b" &&
          s.loop_order != "broadcast" && s.loop_order != "packed")
        throw ConfigError(op.path_of("loop_order"),
                          "\"" + s.loop_order + "\" is not one of a, b, broadcast, packed");
    } else {
      throw ConfigError(op.path_of("type"),
                        "\"" + s.type + "\" is not one of gemm, vector, flash_attention");
    }
    op.finish();
    w.op = s;
    break;
  }
  case Mode::video: {
    w.batch = r.opt_int("batch", 1, 1 << 16).value_or(1);
    const auto sec = r.opt_num("seconds", 0.0, 3600.0);
    const auto frames = r.opt_int("frames", 1, 1 << 20);
    if (sec && frames)
      throw ConfigError(r.path_of("frames"), "give seconds or frames, not both");
    if (!sec && !frames)
      throw ConfigError(r.path_of("seconds"), "is required (or frames)");
    if (sec && *sec <= 0)
      throw ConfigError(r.path_of("seconds"), "must be > 0");
    w.seconds = sec.value_or(0);
    w.frames = frames.value_or(0);
    const json *res = r.opt_child("resolution");
    if (!res)
      throw ConfigError(r.path_of("resolution"), "is required ([height, width])");
    const auto hw = parse_int_array(*res, r.path_of("resolution"), 16, 16384, 2, 2);
    w.height = hw[0];
    w.width = hw[1];
    read_fields(r, w, schema::workload_fields(), "", schema::mode_bit(Mode::video));
    break;
  }
  }
  if (w.power_cap_w > 0 && w.power_cap_w < 1)
    throw ConfigError(r.path_of("power_cap_w"), "must be 0 (no cap) or at least 1 W");
  r.finish();
  return w;
}

// [SECTION] parallel
ParallelSpec parse_parallel(const json &j, const std::string &path) {
  ObjectReader r(j, path);
  ParallelSpec p;
  read_fields(r, p, schema::parallel_fields()); // the integer, boolean and choice knobs
  if (const auto o = r.opt_str("order")) {
    std::vector<std::string> axes;
    std::size_t pos = 0;
    while (pos <= o->size()) {
      const std::size_t dash = std::min(o->find('-', pos), o->size());
      axes.push_back(o->substr(pos, dash - pos));
      pos = dash + 1;
    }
    std::vector<std::string> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != std::vector<std::string>{"cp", "dp", "pp", "tp"})
      throw ConfigError(r.path_of("order"),
                        "\"" + *o + "\" is not an order of tp, cp, dp, pp (e.g. tp-cp-dp-pp)");
    p.order = axes;
  }
  // Flattened so that the URL codec (no nested arrays) carries them.
  if (const json *s = r.opt_child("stage_ids")) {
    p.stage_ids = parse_int_array(*s, r.path_of("stage_ids"), 0, kMaxLayers, 2, 2 * 1024);
    if (p.stage_ids.size() % 2 != 0)
      throw ConfigError(r.path_of("stage_ids"), "expected (first, last) pairs, got " +
                                                    std::to_string(p.stage_ids.size()) +
                                                    " numbers");
  }
  if (const json *s = r.opt_child("submeshes")) {
    p.submeshes = parse_int_array(*s, r.path_of("submeshes"), 0, 1024, 4, 4 * 1024);
    if (p.submeshes.size() % 4 != 0)
      throw ConfigError(r.path_of("submeshes"),
                        "expected (num_x, num_y, loc_x, loc_y) quadruples, got " +
                            std::to_string(p.submeshes.size()) + " numbers");
  }
  if (p.ulysses && p.cp_kind && *p.cp_kind != CpKind::usp)
    throw ConfigError(r.path_of("ulysses"), "is the Ulysses degree inside USP: needs cp_kind usp");
  r.finish();
  return p;
}

// [SECTION] config
json expand_scenario(const json &j) {
  if (j.is_string())
    return preset_json("scenario", j.get<std::string>(), "");
  if (!j.is_object())
    throw ConfigError("", "expected a configuration object, got " + json_type_name(j));
  if (const auto it = j.find("scenario"); it != j.end()) {
    if (!it->is_string())
      throw ConfigError("scenario", "expected a preset name");
    json merged = preset_json("scenario", it->get<std::string>(), "scenario");
    json patch = j;
    patch.erase("scenario");
    // The scenario's model, hardware and cluster are bases the fields given merge into (one
    // rule with workload and parallel): a preset name there becomes {"base": name} first.
    for (const char *section : {"model", "hardware", "cluster"}) {
      const auto m = merged.find(section);
      const auto p = patch.find(section);
      if (m != merged.end() && m->is_string() && p != patch.end() && p->is_object() &&
          !p->contains("base") && !p->contains("hf_config"))
        *m = json{{"base", m->get<std::string>()}};
    }
    const auto pw = patch.find("workload");
    const auto mw = merged.find("workload");
    if (pw != patch.end() && pw->is_object() && mw != merged.end()) {
      const bool conc = pw->contains("concurrency"), rate = pw->contains("request_rate");
      if (conc != rate) // one load given: it replaces the scenario's other one
        keep_one_load(*mw, conc ? "concurrency" : "request_rate");
    }
    merged.merge_patch(patch);
    return merged;
  }
  return j;
}

// The two loads of a serving workload, each the other's replacement.
constexpr const char *kLoads[2] = {"concurrency", "request_rate"};

void keep_one_load(json &workload, const std::string &given) {
  if (!workload.is_object())
    return;
  for (int k = 0; k < 2; ++k)
    if (given == kLoads[k])
      workload.erase(kLoads[1 - k]);
}

void drop_replaced_load(json &workload_patch) {
  if (!workload_patch.is_object())
    return;
  for (int k = 0; k < 2; ++k) {
    const auto given = workload_patch.find(kLoads[k]), other = workload_patch.find(kLoads[1 - k]);
    if (given != workload_patch.end() && !given->is_null() && other != workload_patch.end() &&
        other->is_null())
      workload_patch.erase(other);
  }
}

std::string workload_mode_of(const json &config) {
  if (!config.is_object())
    return "";
  const auto w = config.find("workload");
  if (w == config.end() || !w->is_object())
    return "";
  const auto m = w->find("mode");
  return m != w->end() && m->is_string() ? m->get<std::string>() : "";
}

Config parse_config(const json &j0) {
  const json j = expand_scenario(j0);
  ObjectReader r(j, "");
  Config c;
  r.opt_str("name");
  r.opt_str("source");
  r.opt_str("notes");
  const json *model = r.opt_child("model");
  // One tx8 operator needs no model (ridgeline tx8).
  const bool op_only = workload_mode_of(j) == "tx8-op";
  if (model)
    c.model = parse_model(*model, "model");
  else if (op_only)
    c.model.name = kNoModel;
  else
    throw ConfigError("model", "is required");
  const json *hw = r.opt_child("hardware");
  if (!hw)
    throw ConfigError("hardware", "is required");
  c.hardware = parse_hardware(*hw, "hardware");
  if (const json *cl = r.opt_child("cluster"))
    c.cluster = parse_cluster(*cl, "cluster");
  else
    c.cluster.name = "single", c.cluster.devices = 1, c.cluster.intra_node = {1e12, 0};
  const json *wl = r.opt_child("workload");
  if (!wl)
    throw ConfigError("workload", "is required");
  c.workload = parse_workload(*wl, "workload");
  if (const json *p = r.opt_child("parallel"))
    c.parallel = parse_parallel(*p, "parallel");
  r.finish();
  if (c.hardware.kind != HardwareKind::tx8)
    check_precision_peak(c.hardware, c.workload.precision);
  // A served prompt past the model's context is refused by every engine (vLLM's
  // --max-model-len): an error, not a run whose every request is dropped.
  if (const ServeSpec &sv = c.workload.serve;
      c.workload.mode == Mode::serve && sv.sessions && c.model.max_seq > 0) {
    // a conversation's last turn: the shared prefix, every turn's new tokens, all answers but
    // its own (at their means)
    const SessionsSpec &x = *sv.sessions;
    const double last = static_cast<double>(sv.shared_prefix) +
                        static_cast<double>(x.turns) * static_cast<double>(x.new_tokens) +
                        static_cast<double>(x.turns - 1) * static_cast<double>(c.workload.gen_len);
    if (last > static_cast<double>(c.model.max_seq))
      throw ConfigError("workload.sessions.turns",
                        std::to_string(x.turns) + " turns reach a prompt of " +
                            std::to_string(static_cast<i64>(last)) +
                            " tokens, past the model's context " + std::to_string(c.model.max_seq) +
                            " (model.max_seq)");
  } else if (c.workload.mode == Mode::serve && c.workload.serve.trace.empty() &&
             c.model.max_seq > 0 && c.workload.prompt_len > c.model.max_seq)
    throw ConfigError("workload.prompt_len", std::to_string(c.workload.prompt_len) +
                                                 " tokens exceed the model's context " +
                                                 std::to_string(c.model.max_seq) +
                                                 " (model.max_seq)");
  return c;
}

// [SECTION] printing
json to_json(const ModelSpec &m) {
  json j = {{"name", m.name}, {"family", name_of(m.family)}, {"norm", name_of(m.norm)}};
  write_fields(j, m, schema::model_fields());
  if (m.rope_theta <= 0)
    j.erase("rope_theta"); // not given
  if (m.rope_scaling <= 0)
    j.erase("rope_scaling"); // none
  if (m.moe) {
    json e = json::object();
    write_fields(e, *m.moe, schema::moe_fields(), "moe");
    j["moe"] = e;
  }
  if (m.mla)
    j["mla"] = {{"q_lora_rank", m.mla->q_lora_rank},
                {"kv_lora_rank", m.mla->kv_lora_rank},
                {"qk_nope_head_dim", m.mla->qk_nope_head_dim},
                {"qk_rope_head_dim", m.mla->qk_rope_head_dim},
                {"v_head_dim", m.mla->v_head_dim}};
  if (m.dit)
    j["dit"] = {{"in_channels", m.dit->in_channels},
                {"caption_channels", m.dit->caption_channels},
                {"patch", {m.dit->patch_t, m.dit->patch_h, m.dit->patch_w}}};
  if (!m.hf_id.empty())
    j["hf_id"] = m.hf_id;
  if (!m.source.empty())
    j["source"] = m.source;
  return j;
}

json to_json(const HardwareSpec &h) {
  json j = {
      {"name", h.name},
      {"kind", name_of(h.kind)},
      {"peak_flops",
       {{"bf16", h.peak.bf16},
        {"fp8", h.peak.fp8},
        {"int8", h.peak.int8},
        {"int4", h.peak.int4},
        {"fp32", h.peak.fp32},
        {"fp4", h.peak.fp4}}},
  };
  write_fields(j, h, schema::hardware_fields());
  if (h.tx8) {
    json t = {{"mesh", {h.tx8->mesh_x, h.tx8->mesh_y}}};
    write_fields(t, *h.tx8, schema::tx8_fields(), "tx8");
    j["tx8"] = t;
  }
  if (!h.source.empty())
    j["source"] = h.source;
  return j;
}

json to_json(const ClusterSpec &c) {
  auto link = [](const Link &l) {
    json j = json::object();
    write_fields(j, l, schema::link_fields());
    return j;
  };
  json j = {{"name", c.name},
            {"topology", name_of(c.topology)},
            {"devices", c.devices},
            {"devices_per_node", c.devices_per_node}};
  if (c.nvlink_domain > 0)
    j["nvlink_domain"] = c.nvlink_domain;
  if (c.devices_per_domain > 0)
    j["devices_per_domain"] = c.devices_per_domain;
  if (c.host_bw > 0)
    j["host_bw"] = c.host_bw;
  write_fields(j, c, schema::cluster_fields());
  if (c.intra_node.bw > 0)
    j["intra_node"] = link(c.intra_node);
  if (c.inter_node.bw > 0)
    j["inter_node"] = link(c.inter_node);
  if (!c.torus_axes.empty()) {
    j["torus"] = c.torus_axes;
    j["wraparound"] = c.wraparound;
    if (c.slices > 1)
      j["slices"] = c.slices;
  }
  if (c.ici.bw > 0)
    j["ici"] = link(c.ici);
  if (c.dcn.bw > 0)
    j["dcn"] = link(c.dcn);
  if (!c.mesh.empty())
    j["mesh"] = c.mesh;
  if (c.d2d.bw > 0)
    j["d2d"] = link(c.d2d);
  if (!c.source.empty())
    j["source"] = c.source;
  return j;
}

json to_json(const WorkloadSpec &w) {
  json j = {{"mode", name_of(w.mode)}};
  switch (w.mode) {
  case Mode::train:
    write_fields(j, w, schema::workload_fields(), "", schema::mode_bit(Mode::train));
    {
      json k = json::object();
      write_fields(k, w.checkpoint, schema::checkpoint_fields(), "checkpoint");
      j["checkpoint"] = k;
    }
    if (w.finetune) {
      json f = json::object();
      write_fields(f, *w.finetune, schema::finetune_fields(), "finetune");
      json t = json::array();
      for (const auto &[on, name] :
           {std::pair{w.finetune->qkv, "qkv"}, std::pair{w.finetune->o, "o"},
            std::pair{w.finetune->mlp, "mlp"}})
        if (on)
          t.push_back(name);
      f["targets"] = t;
      j["finetune"] = f;
    }
    if (!w.hardware_options.empty())
      j["hardware_options"] = w.hardware_options;
    if (!w.device_options.empty())
      j["device_options"] = w.device_options;
    break;
  case Mode::infer:
    write_fields(j, w, schema::workload_fields(), "", schema::mode_bit(Mode::infer));
    break;
  case Mode::serve: {
    const ServeSpec &s = w.serve;
    write_fields(j, w, schema::workload_fields(), "", schema::mode_bit(Mode::serve));
    if (!s.trace.empty()) {
      json t = json::array();
      for (const TraceRow &e : s.trace) {
        if (e.session.empty() && e.adapter < 0 && !e.hash_ids) {
          t.push_back({e.t, e.prompt, e.gen});
          continue;
        }
        json row = {{"prompt", e.prompt}, {"gen", e.gen}};
        if (!e.session.empty())
          row["session"] = e.session;
        if (e.adapter >= 0)
          row["adapter"] = e.adapter;
        if (e.hash_ids)
          row["hash_ids"] = *e.hash_ids;
        if (e.think >= 0)
          row["think"] = e.think;
        else
          row["t"] = e.t;
        t.push_back(row);
      }
      j["trace"] = t;
      j.erase("prompt_len"); // the trace's (its longest), not a field beside it
      j.erase("gen_len");
      write_fields(j, s, schema::serve_fields(), "", schema::mode_bit(Mode::serve), "routing");
    } else {
      write_fields(j, s, schema::serve_fields(), ""); // request_rate, requests, length_dist
      if (s.concurrency > 0)
        j.erase("request_rate");
      j.update({{"gen_len", w.gen_len}, {"seed", s.seed}});
      if (s.sessions) {
        json ss = json::object();
        write_fields(ss, *s.sessions, schema::sessions_fields(), "sessions");
        j["sessions"] = ss;
        j.erase("prompt_len"); // the sessions set it (the mean turn's)
      } else {
        j["prompt_len"] = w.prompt_len;
      }
    }
    if (json px = json::object();
        write_fields(px, s, schema::serve_fields(), "prefix"), !px.empty())
      j["prefix"] = px;
    if (s.engine.name != "none") {
      json e = {{"name", s.engine.name},
                {"iteration_overhead", s.engine.iteration_overhead},
                {"tpot_uncertainty", s.engine.tpot_uncertainty},
                {"ttft_uncertainty", s.engine.ttft_uncertainty}};
      if (s.engine.request_overhead > 0)
        e["request_overhead"] = s.engine.request_overhead;
      if (s.engine.kv_memory != EngineSpec::KvMemory::hbm)
        e["kv_memory"] = schema::choice_name(s.engine.kv_memory);
      if (s.engine.allreduce_bw > 0)
        e.update({{"allreduce_latency", s.engine.allreduce_latency},
                  {"allreduce_bw", s.engine.allreduce_bw},
                  {"allreduce_max_bytes", s.engine.allreduce_max_bytes}});
      if (!s.engine.allreduce_source.empty())
        e["allreduce_source"] = s.engine.allreduce_source;
      if (s.engine.fp8_quant_fused)
        e["fp8_quant_fused"] = true;
      if (s.engine.decode_attention.latency > 0) {
        e["decode_attention"] = {{"latency", s.engine.decode_attention.latency},
                                 {"bw_efficiency", s.engine.decode_attention.bw_efficiency}};
        for (const auto &[hw, f] : s.engine.decode_attention_on)
          e["decode_attention"]["on"][hw] = {{"latency", f.latency},
                                             {"bw_efficiency", f.bw_efficiency}};
        if (!s.engine.decode_attention_source.empty())
          e["decode_attention"]["source"] = s.engine.decode_attention_source;
      }
      auto fits = [](const EngineSpec::GemmFits &f) {
        json j = json::object();
        for (const auto &[dtype, g] : {std::make_pair("bf16", f.bf16), std::make_pair("fp8", f.fp8),
                                       std::make_pair("fp4", f.fp4)})
          if (g.latency > 0)
            j[dtype] = {{"latency", g.latency}, {"bw_efficiency", g.bw_efficiency}};
        return j;
      };
      json gemm = fits(s.engine.gemm);
      for (const auto &[hw, f] : s.engine.gemm_on)
        gemm["on"][hw] = fits(f);
      if (!gemm.empty() && !s.engine.gemm_source.empty())
        gemm["source"] = s.engine.gemm_source;
      if (!gemm.empty())
        e["gemm"] = gemm;
      // the shares per chip, those measured (> 0), with their source
      const auto shares = [&](const char *key, auto on, const std::string &source, auto fields) {
        json x = json::object();
        for (auto &[hw, f] : on)
          for (auto [name, v] : fields(f))
            if (*v > 0)
              x["on"][hw][name] = *v;
        if (!x.empty() && !source.empty())
          x["source"] = source;
        if (!x.empty())
          e[key] = x;
      };
      shares("moe", s.engine.moe_on, s.engine.moe_source,
             [](EngineSpec::MoeEfficiency &f) { return moe_efficiency_fields(f); });
      shares("context_attention", s.engine.context_attention_on, s.engine.context_attention_source,
             [](EngineSpec::ContextAttention &f) { return context_attention_fields(f); });
      if (!s.engine.version.empty())
        e["version"] = s.engine.version;
      if (!s.engine.source.empty())
        e["source"] = s.engine.source;
      j["engine"] = e;
    }
    json slo = json::object(), scheduler = json::object();
    write_fields(slo, s, schema::serve_fields(), "slo");
    write_fields(scheduler, s, schema::serve_fields(), "scheduler");
    if (s.kv_offload) {
      json ko = json::object();
      write_fields(ko, *s.kv_offload, schema::kv_offload_fields(), "scheduler.kv_offload");
      scheduler["kv_offload"] = ko;
    }
    j["slo"] = slo;
    j["scheduler"] = scheduler;
    if (s.lora) {
      json lo = json::object();
      write_fields(lo, *s.lora, schema::lora_fields(), "lora");
      j["lora"] = lo;
    }
    if (s.speculative) {
      json sp = json::object();
      write_fields(sp, *s.speculative, schema::speculative_fields(), "speculative");
      sp["acceptance"] = s.speculative->acceptance.size() == 1
                             ? json(s.speculative->acceptance.front())
                             : json(s.speculative->acceptance);
      if (!s.speculative->draft_model.empty())
        sp["draft_model"] = s.speculative->draft_model;
      j["speculative"] = sp;
    }
    if (!w.hardware_options.empty())
      j["hardware_options"] = w.hardware_options;
    if (!w.engine_options.empty())
      j["engine_options"] = w.engine_options;
    if (!w.precision_options.empty()) {
      json p = json::array();
      for (const Dtype d : w.precision_options)
        p.push_back(name_of(d));
      j["precision_options"] = p;
    }
    break;
  }
  case Mode::tx8_op: {
    const Tx8OpSpec &o = *w.op;
    json op = {{"type", o.type}};
    if (!o.name.empty())
      op["name"] = o.name;
    write_fields(op, o, schema::op_fields(), "op", schema::kAllModes, ""); // in/out_sram
    if (!o.tiling.empty())
      op["tiling"] = o.tiling;
    // the type's rows: gemm m, k, n; vector rows, width, inputs, ops_per_element (ops_per_row
    // and params when given); flash attention batch, heads, seq_q, seq_kv, head_dim
    // (heads_fused when given)
    write_fields(op, o, schema::op_fields(), "op", schema::kAllModes, o.type.c_str());
    if (o.type == "gemm") {
      if (!o.fuse.empty())
        op["fuse"] = o.fuse;
      if (!o.stationary.empty())
        op["stationary"] = o.stationary;
    } else if (o.type == "flash_attention") {
      if (!o.loop_order.empty())
        op["loop_order"] = o.loop_order;
    }
    j["op"] = op;
    break;
  }
  case Mode::video: // batch, seconds or frames, text_tokens, steps, fusion
    write_fields(j, w, schema::workload_fields(), "", schema::mode_bit(Mode::video));
    j["resolution"] = {w.height, w.width};
    break;
  }
  return j;
}

json to_json(const ParallelSpec &p) {
  json j = json::object();
  write_fields(j, p, schema::parallel_fields()); // the knobs that are set
  if (p.order) {
    std::string o;
    for (const auto &a : *p.order)
      o.append(o.empty() ? "" : "-").append(a);
    j["order"] = o;
  }
  if (!p.stage_ids.empty())
    j["stage_ids"] = p.stage_ids;
  if (!p.submeshes.empty())
    j["submeshes"] = p.submeshes;
  return j;
}

json to_json(const Config &c) {
  json j = {{"model", to_json(c.model)},
            {"hardware", to_json(c.hardware)},
            {"cluster", to_json(c.cluster)},
            {"workload", to_json(c.workload)},
            {"parallel", to_json(c.parallel)}};
  if (c.workload.mode == Mode::tx8_op && c.model.layers == 0)
    j.erase("model"); // one tx8 operator without a model
  return j;
}

} // namespace rl::io
