// ridgeline web: the input sections (model, hardware & cluster, workload, parallel layout).
// Every edit goes through AppState, which keeps presets as "base" + overrides and recomputes.
// [SECTION] helpers  [SECTION] model  [SECTION] hardware & cluster  [SECTION] workload
// [SECTION] parallel layout
#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/presets.hpp"
#include "core/io/units.hpp"
#include "core/parallel/layout.hpp"
#include "core/schema/fields.hpp"
#include "web/panels.hpp"
#include "web/widgets.hpp"

#include <imgui_stdlib.h>

#include <cstdlib>

#include <algorithm>
#include <sstream>

namespace rl::web {

// [SECTION] helpers
namespace {

const std::vector<std::string> &presets_of(const std::string &kind) {
  static std::vector<std::string> model = io::preset_names("model");
  static std::vector<std::string> hardware = io::preset_names("hardware");
  static std::vector<std::string> cluster = io::preset_names("cluster");
  static std::vector<std::string> none;
  if (kind == "model")
    return model;
  if (kind == "hardware")
    return hardware;
  if (kind == "cluster")
    return cluster;
  return none;
}

i64 as_int(const json &v, i64 dflt = 0) {
  return v.is_number_integer() || v.is_number_unsigned() ? v.get<i64>() : dflt;
}
double as_num(const json &v, double dflt = 0) {
  return v.is_number() ? v.get<double>() : dflt;
}
bool as_bool(const json &v, bool dflt = false) {
  return v.is_boolean() ? v.get<bool>() : dflt;
}
std::string as_str(const json &v, const std::string &dflt = "") {
  return v.is_string() ? v.get<std::string>() : dflt;
}

// The preset combo of a section; the "(?)" shows where the preset's numbers come from.
void preset_combo(AppState &s, const char *section, const char *label) {
  const std::string path = std::string(section) + ".base";
  const std::string source = as_str(s.field(section, "source"));
  ui::row_label(label, path, source.empty() ? nullptr : source.c_str());
  ImGui::PushID(section);
  const std::string current = s.preset_label(section);
  const std::string base = s.preset_base(section);
  ui::note_combo_fit(path, current);
  if (ImGui::BeginCombo("##preset", current.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const auto &name : presets_of(section)) {
      const bool selected = name == current;
      if (ImGui::Selectable(name.c_str(), selected || name == base) && !selected)
        s.set_preset(section, name);
      if (selected)
        ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  ImGui::PopID();
  ui::field_error(path);
  ui::field_error_exact(section); // "model: ..." itself: an unknown preset, a wrong type
}

// The Hugging Face config.json paste box (a modal: it needs room, and is used rarely).
void hf_config_popup(AppState &s, UiState &ui) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(720.0f, display.x * 0.9f), 0));
  ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.42f), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal("Hugging Face config.json", nullptr,
                              ImGuiWindowFlags_NoSavedSettings))
    return;
  ImGui::PushTextWrapPos(0.0f);
  ui::text_dim("Paste a model's config.json (Ctrl+V). LLaMA, Mistral, Qwen2, Mixtral and "
               "DeepSeek field names are read: num_hidden_layers, hidden_size, "
               "intermediate_size, num_attention_heads, num_key_value_heads, head_dim, "
               "vocab_size, tie_word_embeddings, the expert counts and MLA ranks. The model "
               "becomes {\"hf_config\": {...}} and travels in the URL.");
  ImGui::PopTextWrapPos();
  if (ImGui::IsWindowAppearing())
    ImGui::SetKeyboardFocusHere();
  ImGui::InputTextMultiline("##hf", &ui.hf_text, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 16),
                            ImGuiInputTextFlags_AllowTabInput);
  if (!ui.hf_error.empty())
    ui::text_colored(ui::color::error, ui.hf_error);
  if (ImGui::Button("Apply as model")) {
    if (const auto err = s.apply_hf_text(ui.hf_text)) {
      ui.hf_error = err->message;
    } else {
      ui.hf_error.clear();
      ImGui::CloseCurrentPopup();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    ui.hf_error.clear();
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void int_field(AppState &s, const char *section, const char *key, const char *label,
               const char *help, i64 step = 0) {
  i64 v = as_int(s.field(section, key));
  if (ui::input_int(label, std::string(section) + "." + key, v, help, step))
    s.set_field(section, key, v);
}

void scaled_field(AppState &s, const char *section, const char *key, const char *label,
                  double scale, const char *format, const char *help) {
  const json cur = s.field(section, key);
  if (cur.is_null())
    return;
  double v = as_num(cur);
  if (ui::input_scaled(label, std::string(section) + "." + key, v, scale, format, help))
    s.set_field(section, key, v);
}

void string_field(AppState &s, const char *section, const char *key, const char *label,
                  const std::vector<std::string> &items, const char *dflt, const char *help) {
  std::string v = as_str(s.field(section, key), dflt);
  if (ui::combo_string(label, std::string(section) + "." + key, v, items, help))
    s.set_field(section, key, v);
}

void bool_field(AppState &s, const char *section, const char *key, const char *label,
                const char *help) {
  bool v = as_bool(s.field(section, key));
  if (ui::checkbox(label, std::string(section) + "." + key, v, help))
    s.set_field(section, key, v);
}

// The bit of a workload mode named as the configuration names it (io::name_of).
schema::Modes mode_bit_of(const std::string &mode) {
  for (unsigned i = 0; (schema::kAllModes >> i) != 0; ++i)
    if (mode == io::name_of(static_cast<Mode>(i)))
      return 1u << i;
  return schema::mode_bit(Mode::train);
}

// A workload number that may be left out (an omit_zero row: 0 means not given): a value
// below its range removes it from the configuration.
void optional_number_row(AppState &s, const schema::FieldInfo &i) {
  double v = as_num(s.field("workload", i.key), 0);
  // 0 is "not given": the field says so (typing a number over it sets it).
  if (!ui::input_scaled(i.label, std::string("workload.") + i.key, v, i.scale,
                        v == 0 ? "not set" : i.format, i.help))
    return;
  if (v >= i.lo) {
    s.set_field("workload", i.key, v);
  } else if (s.effective().contains("workload") && s.effective().at("workload").is_object()) {
    json wl = s.effective().at("workload");
    wl.erase(i.key);
    s.set_workload(wl);
  }
}

// One row of the schema (core/schema/fields.hpp) as the widget of its type; `key` is its
// path below the section, `label` what the row says; `dflt` a choice's default name.
void schema_row(AppState &s, const char *section, const schema::FieldInfo &i,
                const std::string &key, const std::string &label, const char *dflt = "") {
  if (i.omit_zero && i.type == schema::FieldType::number && std::string(section) == "workload" &&
      !*i.object) {
    optional_number_row(s, i);
    return;
  }
  switch (i.type) {
  case schema::FieldType::integer:
    int_field(s, section, key.c_str(), label.c_str(), i.help, i.step);
    break;
  case schema::FieldType::number:
    scaled_field(s, section, key.c_str(), label.c_str(), i.scale, i.format, i.help);
    break;
  case schema::FieldType::boolean:
    bool_field(s, section, key.c_str(), label.c_str(), i.help);
    break;
  case schema::FieldType::choice: // the names of core/schema/choices
    if (i.choices)
      string_field(s, section, key.c_str(), label.c_str(), schema::names(*i.choices), dflt, i.help);
    break;
  }
}

// Whether a row's FieldInfo::shown_with holds: "key=a|b", the section's key one of the values.
bool shown(const AppState &s, const char *section, const schema::FieldInfo &f) {
  const std::string cond = f.shown_with;
  const std::size_t eq = cond.find('=');
  if (eq == std::string::npos)
    return true;
  const json v = s.field(section, cond.substr(0, eq));
  const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
  std::stringstream values(cond.substr(eq + 1));
  for (std::string one; std::getline(values, one, '|');)
    if (one == value)
      return true;
  return false;
}

// The rows of a table in one object and page group that apply to the workload's mode, in
// table order; consecutive checkboxes two to a line.
template <class S>
void schema_rows(AppState &s, const char *section, const std::vector<schema::Field<S>> &t,
                 const char *object, const char *group) {
  const schema::Modes mode = mode_bit_of(as_str(s.field("workload", "mode"), "train"));
  int checkboxes = 0;
  for (const schema::Field<S> &f : t) {
    if (std::string(f.info.object) != object || std::string(f.info.group) != group ||
        !(f.info.modes & mode) || !shown(s, section, f.info))
      continue;
    if (f.info.type != schema::FieldType::boolean)
      checkboxes = 0;
    else if (checkboxes++ % 2)
      ImGui::SameLine(ui::kSecondColumn);
    schema_row(s, section, f.info, f.info.path(), f.info.label,
               f.get ? schema::name_in(*f.info.choices, f.get(S{})) : "");
  }
}

// A folded group of rows ("Efficiencies (calibrated)"); `rect` names it for the e2e flows.
template <class S>
void schema_group(AppState &s, const char *section, const std::vector<schema::Field<S>> &t,
                  const char *object, const char *group, const char *rect) {
  const bool open = ImGui::TreeNode(group);
  ui::note_rect(rect);
  if (open) {
    schema_rows(s, section, t, object, group);
    ImGui::TreePop();
  }
}

// The workload row of that key in the workload's mode.
void workload_row(AppState &s, const char *key) {
  const schema::Modes mode = mode_bit_of(as_str(s.field("workload", "mode"), "train"));
  for (const auto &f : schema::workload_fields())
    if (std::string(f.info.key) == key && (f.info.modes & mode))
      schema_row(s, "workload", f.info, key, f.info.label,
                 f.get ? schema::name_in(*f.info.choices, f.get(WorkloadSpec{})) : "");
}

// A cluster link's rows (bandwidth, latency, efficiency), labelled "Intra-node GB/s".
void link_rows(AppState &s, const char *link, const char *name) {
  if (!s.field("cluster", link).is_object())
    return;
  for (const schema::Field<Link> &f : schema::link_fields())
    schema_row(s, "cluster", f.info, std::string(link) + "." + f.info.key,
               std::string(name) + " " + f.info.label);
}

} // namespace

// [SECTION] model
void draw_model_section(AppState &s, UiState &ui) {
  // One tx8 operator needs no model.
  if (const auto &cfg = s.view_config();
      cfg && cfg->workload.mode == Mode::tx8_op && cfg->model.name == kNoModel) {
    ui::text_dim("One operator on one die: no model.");
    ui::section_error("model");
    return;
  }
  preset_combo(s, "model", "Preset");
  // The checkpoint the shape is read from (model.hf_id: `ridgeline export --format vllm`
  // serves it), and the button that pastes another one's config.json.
  {
    ui::row_label("Hugging Face", "model.hf_id",
                  "The Hugging Face repository this model's shape is read from; the vLLM "
                  "export serves it. config.json: paste a model's config.json to use its "
                  "shape.");
    const char *button = "config.json";
    const ImGuiStyle &st = ImGui::GetStyle();
    const float bw = ImGui::CalcTextSize(button).x + st.FramePadding.x * 2;
    const float room = ImGui::GetContentRegionAvail().x - bw - st.ItemSpacing.x;
    std::string id = as_str(s.field("model", "hf_id"), "(none)");
    const std::string full = id;
    if (ImGui::CalcTextSize(id.c_str()).x > room && id.find('/') != std::string::npos)
      id = id.substr(id.find('/') + 1); // the repository's name without its owner
    ui::text_dim(id);
    if (id != full && ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", full.c_str());
    ImGui::SameLine(0, 0);
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() +
                         std::max(st.ItemSpacing.x, ImGui::GetContentRegionAvail().x - bw));
    if (ImGui::Button(button))
      ImGui::OpenPopup("Hugging Face config.json");
    ui::note_rect("model.config.json");
  }
  hf_config_popup(s, ui);
  // A video DiT (STDiT3) has no KV cache, vocabulary or LM head: its rows are the modes'.
  schema_rows(s, "model", schema::model_fields(), "", "");
  if (as_str(s.field("model", "family")) == "stdit3") {
    ui::text_dim_wrapped("STDiT3 video DiT: each layer is a spatial + a temporal block.");
    ui::section_error("model");
    return;
  }
  schema_group(s, "model", schema::model_fields(), "", "More", "model.more");
  if (s.field("model", "moe").is_object()) {
    ui::text_dim("Mixture of experts");
    schema_rows(s, "model", schema::moe_fields(), "moe", "");
  }
  if (s.field("model", "mla").is_object())
    ui::text_dim_wrapped(
        "Multi-head latent attention (MLA): KV cache holds the compressed latent.");

  ui::section_error("model");
}

// [SECTION] hardware & cluster
void draw_hardware_section(AppState &s) {
  preset_combo(s, "hardware", "Accelerator");
  const bool tx8 = as_str(s.field("hardware", "kind")) == "tx8";
  if (tx8) { // a tx8 die: tiles with SRAM, DRAM shared by the die, a NoC between the tiles
    schema_rows(s, "hardware", schema::tx8_fields(), "tx8", "");
    schema_group(s, "hardware", schema::tx8_fields(), "tx8", "Tile details",
                 "hardware.tile_details");
  } else {
    scaled_field(s, "hardware", "peak_flops.bf16", "bf16 TFLOP/s", 1e-12, "%.1f",
                 "Dense bf16 tensor throughput per device (datasheet, no sparsity).");
    schema_rows(s, "hardware", schema::hardware_fields(), "", "");
    schema_group(s, "hardware", schema::hardware_fields(), "", "Efficiencies (calibrated)",
                 "hardware.efficiencies");
    schema_group(s, "hardware", schema::hardware_fields(), "", "Energy", "hardware.energy");
  }
  ui::section_error("hardware");

  ImGui::Spacing();
  preset_combo(s, "cluster", "Cluster");
  const json die_mesh = s.field("cluster", "mesh");
  if (die_mesh.is_array() && die_mesh.size() == 2) { // tx8 dies on a mesh
    ui::row_label("Die mesh", "cluster.mesh",
                  "Dies in an x by y mesh, joined by die-to-die links.");
    ImGui::Text("%lld x %lld = %lld dies", static_cast<long long>(as_int(die_mesh[0])),
                static_cast<long long>(as_int(die_mesh[1])),
                static_cast<long long>(as_int(die_mesh[0]) * as_int(die_mesh[1])));
    link_rows(s, "d2d", "D2D");
    ui::section_error("cluster");
    return;
  }
  // +/- step by a node (an NVL72 rack's 4-GPU compute tray).
  const i64 per_node = s.view_config()
                           ? s.device_step()
                           : std::max<i64>(1, as_int(s.field("cluster", "devices_per_node"), 1));
  {
    // +/- step through the counts the layout allows (whole nodes that tp x pp x cp divides,
    // with a dp that divides the batch); a typed count is taken as it is.
    const i64 old = as_int(s.field("cluster", "devices"));
    i64 v = old;
    if (ui::input_int("Devices", "cluster.devices", v,
                      "Accelerators in the job: dp x tp x pp x cp must equal it. +/- step "
                      "through the legal counts.",
                      per_node)) {
      if (v == old + per_node || v == old - per_node) {
        const i64 next = s.step_devices(old, v > old ? 1 : -1);
        v = next > 0 ? next : old;
      }
      if (v != old)
        s.set_field("cluster", "devices", v);
    }
  }
  int_field(s, "cluster", "devices_per_node", "Devices / node", "Devices in one host (node).", 1);
  if (as_int(s.field("cluster", "nvlink_domain"), 0) > 0)
    int_field(s, "cluster", "nvlink_domain", "NVLink domain",
              "Devices one NVLink switch fabric joins across nodes (GB200/GB300 NVL72: 72 "
              "GPUs in 18 trays of 4); the intra-node link serves the whole domain.",
              as_int(s.field("cluster", "devices_per_node"), 1));
  if (as_int(s.field("cluster", "nvlink_domain"), 0) > 0) {
    // Shown as the job holds it: set, or derived from the device count (domain_devices_of).
    const json set = s.field("cluster", "devices_per_domain");
    i64 v = set.is_null() && s.view_config() ? s.view_config()->cluster.nvlink_devices()
                                             : as_int(set, 0);
    if (ui::input_int("GPUs per domain", "cluster.devices_per_domain", v,
                      "GPUs the job holds in each NVLink domain, whole nodes: 256 GPUs on NVL72 "
                      "racks run as 64 in each of 4 racks. Unset, it is the most whole nodes "
                      "of one domain that divide the devices.",
                      as_int(s.field("cluster", "devices_per_node"), 1)))
      s.set_field("cluster", "devices_per_domain", v);
  }
  scaled_field(s, "cluster", "host_bw", "Host link GB/s", 1e-9, "%.1f",
               "Bytes/s one GPU moves to or from host memory, each direction (GB200: NVLink-C2C, "
               "225 GB/s; DGX: PCIe 5.0 x16, 63 GB/s): what activation offload "
               "(parallel.offload_layers) runs at.");
  schema_rows(s, "cluster", schema::cluster_fields(), "", "Collectives"); // train only
  schema_group(s, "cluster", schema::cluster_fields(), "", "Energy", "cluster.energy");
  link_rows(s, "intra_node", "Intra-node");
  link_rows(s, "inter_node", "Inter-node");
  link_rows(s, "ici", "ICI link");
  link_rows(s, "dcn", "DCN");
  const json torus = s.field("cluster", "torus");
  if (torus.is_array()) {
    std::string axes;
    for (const auto &a : torus)
      axes += (axes.empty() ? "" : " x ") + std::to_string(as_int(a));
    ui::text_dim("Topology: torus " + axes);
  }
  ui::section_error("cluster");
}

// [SECTION] workload
namespace {

// An optional workload object chosen by its method (workload.finetune, workload.speculative): a
// combo of "none" and E's names. "none" removes the object; a method sets it, `adjust` filling
// what that method needs. Returns the method shown ("none" when the object is absent).
template <class E, class Adjust>
std::string method_combo(AppState &s, const char *key, const schema::FieldInfo &f_method,
                         const char *dflt, const char *none_help, Adjust adjust) {
  const json cur = s.field("workload", key);
  std::string method = cur.is_object() ? as_str(cur.value("method", json(dflt)), dflt) : "none";
  std::vector<std::string> items = {"none"};
  for (const std::string &n : schema::names(schema::choices<E>()))
    items.push_back(n);
  if (ui::combo_string(f_method.label, std::string("workload.") + key + ".method", method, items,
                       (std::string(f_method.help) + none_help).c_str())) {
    if (method == "none") {
      json wl = s.effective().at("workload");
      wl.erase(key);
      s.set_workload(wl);
    } else {
      json o = cur.is_object() ? cur : json::object();
      o["method"] = method;
      adjust(o, method);
      s.set_field("workload", key, o);
    }
  }
  return method;
}

// Fine-tuning (workload.finetune): none (pre-training), full, LoRA or QLoRA; with adapters
// their rank, targets and the base's storage.
void draw_finetune(AppState &s) {
  const json cur = s.field("workload", "finetune");
  const std::string method =
      method_combo<FinetuneMethod>(s, "finetune", schema::finetune_fields().front().info, "lora",
                                   " none: pre-training.", [](json &f, const std::string &m) {
                                     if (m == "qlora")
                                       f["base_dtype"] = "nf4";
                                     else if (f.value("base_dtype", json("bf16")) == "nf4")
                                       f["base_dtype"] = "bf16";
                                   });
  if (!cur.is_object() || method == "full")
    return;
  schema_rows(s, "workload", schema::finetune_fields(), "finetune", "finetune");
  // targets: three checkboxes over the list
  json targets = cur.value("targets", json::array({"qkv", "o"}));
  const char *names[] = {"qkv", "o", "mlp"};
  const char *labels[] = {"Adapt Q, K, V", "Adapt O", "Adapt MLP"};
  for (int k = 0; k < 3; ++k) {
    bool on = false;
    for (const auto &t : targets)
      on = on || (t.is_string() && t.get<std::string>() == names[k]);
    if (k % 2)
      ImGui::SameLine(ui::kSecondColumn);
    if (ui::checkbox(labels[k], std::string("workload.finetune.targets[") + names[k] + "]", on,
                     "The weights LoRA adapts: Q, K and V (each its own adapter, as Hugging "
                     "Face PEFT's q_proj, k_proj, v_proj), the attention output, the MLP's "
                     "matrices (every expert's in an MoE layer).")) {
      json next = json::array();
      for (int j = 0; j < 3; ++j) {
        bool was = false;
        for (const auto &t : targets)
          was = was || (t.is_string() && t.get<std::string>() == names[j]);
        if (j == k ? on : was)
          next.push_back(names[j]);
      }
      if (!next.empty()) {
        json f = cur;
        f["targets"] = next;
        s.set_field("workload", "finetune", f);
      }
    }
  }
  ui::field_error("workload.finetune.targets");
}

// Mode video: an STDiT3 request (Open-Sora).
void draw_video_workload(AppState &s) {
  workload_row(s, "batch");
  workload_row(s, s.field("workload", "frames").is_number() ? "frames" : "seconds");
  const json res = s.field("workload", "resolution");
  if (res.is_array() && res.size() == 2) {
    i64 h = as_int(res[0]), w = as_int(res[1]);
    // Each its own widget ID (the element's path); an error names the pair.
    if (ui::input_int("Height", "workload.resolution[0]", h, "Pixels; latent H/8.", 16))
      s.set_field("workload", "resolution", json::array({h, w}));
    if (ui::input_int("Width", "workload.resolution[1]", w, "Pixels; latent W/8.", 16))
      s.set_field("workload", "resolution", json::array({h, w}));
    ui::field_error_exact("workload.resolution");
  }
  for (const char *key : {"text_tokens", "steps", "fusion"})
    workload_row(s, key);
  ui::section_error("workload");
}

// Mode tx8-op: one operator on one die.
void draw_tx8_op_workload(AppState &s) {
  const std::string type = as_str(s.field("workload", "op.type"));
  ui::row_label("Operator", "workload.op.type", "gemm, vector or flash_attention.");
  ImGui::TextUnformatted(type.c_str());
  // the type's rows (m, k, n; rows, width, ...; heads, seq_q, ...), then the SRAM fusion flags
  schema_rows(s, "workload", schema::op_fields(), "op", type.c_str());
  schema_rows(s, "workload", schema::op_fields(), "op", "");
  ui::section_error("workload");
}

// A planner's choices, workload.<field>: one checkbox per name, three to a row under the
// label. An entry counts for the name before its '@' (a hardware option's cluster).
void option_checkboxes(AppState &s, const char *label, const std::string &field, const char *help,
                       const std::vector<std::string> &names) {
  ui::row_label(label, "workload." + field, help);
  ui::text_dim("the planner may pick");
  json opts = s.field("workload", field);
  if (!opts.is_array())
    opts = json::array();
  bool changed = false;
  int n = 0;
  auto key_of = [](const json &o) {
    const std::string v = o.is_string() ? o.get<std::string>() : "";
    return v.substr(0, v.find('@'));
  };
  for (const std::string &name : names) {
    bool on =
        std::any_of(opts.begin(), opts.end(), [&](const json &o) { return key_of(o) == name; });
    // three to a row under the label, each a third of the panel's width
    const float cell = std::floor(ImGui::GetContentRegionAvail().x / 3);
    if (n % 3 != 0)
      ImGui::SameLine(ImGui::GetStyle().WindowPadding.x + cell * static_cast<float>(n % 3));
    ++n;
    ImGui::PushID(field.c_str());
    if (ImGui::Checkbox(name.c_str(), &on)) {
      changed = true;
      if (on) {
        opts.push_back(name);
      } else {
        json keep = json::array();
        for (const auto &o : opts)
          if (key_of(o) != name)
            keep.push_back(o);
        opts = keep;
      }
    }
    ImGui::PopID();
  }
  if (changed)
    s.set_field("workload", field, opts);
  ui::field_error("workload." + field);
}

// The comma-separated items of a typed list, each trimmed; empty ones left out.
std::vector<std::string> comma_items(const std::string &text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    std::string cell = text.substr(pos, end - pos);
    cell.erase(0, cell.find_first_not_of(" \t"));
    cell.erase(cell.find_last_not_of(" \t") + 1);
    if (!cell.empty())
      out.push_back(cell);
    pos = end + 1;
  }
  return out;
}

// The workload's list field set to `list`, or left out when the list is empty.
void set_workload_list(AppState &s, const char *key, const json &list) {
  if (!list.empty()) {
    s.set_field("workload", key, list);
    return;
  }
  json wl = s.effective().value("workload", json::object());
  wl.erase(key);
  s.set_workload(wl);
}

// The hardware a planner may choose from (workload.hardware_options). Shared by the serving
// planner and the training planner.
void plan_on_row(AppState &s, const char *help) {
  std::vector<std::string> names;
  for (const std::string &name : io::preset_names("hardware"))
    if (name != "tx8")
      names.push_back(name);
  option_checkboxes(s, "Plan on", "hardware_options", help, names);
  // The same list as text, where a chip takes its own cluster ("b200@dgx-b200",
  // "gb200@gb200-nvl72": its nodes, links and NVLink domain), as `ridgeline plan` reads it.
  json cur = s.field("workload", "hardware_options");
  std::string text;
  if (cur.is_array())
    for (const auto &v : cur)
      if (v.is_string())
        text += (text.empty() ? "" : ", ") + v.get<std::string>();
  ui::row_label("Plan on (list)", "workload.hardware_options",
                "The chips to plan on as a list, each optionally on its own cluster preset: "
                "b200@dgx-b200, gb200@gb200-nvl72 (name@cluster; without one, the cluster "
                "above). Enter applies.");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputText("##hardware_options_text", &text, ImGuiInputTextFlags_EnterReturnsTrue))
    set_workload_list(s, "hardware_options", json(comma_items(text)));
}

// Speculative decoding (workload.speculative): none, or a draft with its tokens and acceptance.
void draw_speculative(AppState &s) {
  const json cur = s.field("workload", "speculative");
  const std::string method =
      method_combo<SpecMethod>(s, "speculative", schema::speculative_fields().front().info, "mtp",
                               " none: plain decoding.", [](json &sp, const std::string &m) {
                                 if (m != "draft")
                                   sp.erase("draft_model");
                                 if (m != "mtp" && !sp.contains("acceptance"))
                                   sp["acceptance"] =
                                       0.6; // a starting value to edit: only mtp's is fitted
                                 if (m == "draft" && !sp.contains("draft_model"))
                                   sp["draft_model"] = "llama3.1-8b";
                               });
  if (!cur.is_object())
    return;
  schema_rows(s, "workload", schema::speculative_fields(), "speculative", "speculative");
  if (s.field("workload", "speculative.acceptance").is_number())
    scaled_field(s, "workload", "speculative.acceptance", "Acceptance", 100, "%.0f %%",
                 "The probability each successive draft token is accepted (one rate for every "
                 "position; a list in the JSON sets one per position). mtp's default is the fit "
                 "to the measured pairs (docs/serving.md).");
  if (method == "draft")
    string_field(s, "workload", "speculative.draft_model", "Draft model", io::preset_names("model"),
                 "",
                 "The draft: a smaller model of the family (its tokenizer must be the model's).");
  ui::field_error("workload.speculative");
}

// Traffic: independent requests of prompt_len, or multi-turn sessions (workload.sessions),
// each turn's prompt the conversation so far.
void draw_sessions(AppState &s) {
  const bool on = s.field("workload", "sessions").is_object();
  std::string kind = on ? "sessions" : "independent";
  if (ui::combo_string("Traffic", "workload.sessions", kind, {"independent", "sessions"},
                       "independent: each request a fresh prompt of prompt_len. sessions: "
                       "multi-turn conversations (chat, agents); a turn's prompt is the "
                       "conversation so far plus its new tokens, so the prefix cache finds the "
                       "earlier turns (workload.sessions).")) {
    json wl = s.effective().at("workload");
    if (kind == "sessions") {
      const i64 prompt = as_int(wl.value("prompt_len", json(2048)), 2048);
      wl.erase("prompt_len");
      wl["sessions"] = {
          {"turns", 10}, {"new_tokens", std::min<i64>(prompt, 2048)}, {"think_time", 30.0}};
    } else {
      const i64 t = as_int(wl["sessions"].value("new_tokens", json(2048)), 2048);
      wl.erase("sessions");
      wl["prompt_len"] = t;
    }
    s.set_workload(wl);
    return;
  }
  if (on)
    schema_rows(s, "workload", schema::sessions_fields(), "sessions", "sessions");
  else
    workload_row(s, "prompt_len");
  ui::field_error("workload.sessions");
}

// An optional workload object switched by a checkbox (workload.scheduler.kv_offload,
// workload.lora): on, it starts from `start` and shows its schema rows; off, it is removed.
template <class S>
void optional_object(AppState &s, const char *label, const std::string &key, const char *help,
                     const json &start, const std::vector<schema::Field<S>> &rows,
                     const char *object, const char *group) {
  bool on = s.field("workload", key).is_object();
  if (ui::checkbox(label, "workload." + key, on, help)) {
    if (on) {
      s.set_field("workload", key, start);
    } else {
      json wl = s.effective().at("workload");
      json *parent = &wl;
      std::string rest = key;
      for (auto dot = rest.find('.'); dot != std::string::npos && parent->is_object();
           dot = rest.find('.')) {
        parent = &(*parent)[rest.substr(0, dot)];
        rest = rest.substr(dot + 1);
      }
      if (parent->is_object())
        parent->erase(rest);
      s.set_workload(wl);
    }
    return;
  }
  if (on)
    schema_rows(s, "workload", rows, object, group);
  ui::field_error("workload." + key);
}

// KV-cache tiers below HBM (workload.scheduler.kv_offload): off, or host memory and disk.
void draw_kv_offload(AppState &s) {
  optional_object(s, "KV offload", "scheduler.kv_offload",
                  "Blocks the prefix cache evicts from HBM go to host memory (and from there to "
                  "a local disk), and come back on a hit when that is sooner than computing "
                  "them again (vLLM --kv-offloading-size, SGLang HiCache, TensorRT-LLM "
                  "host_cache_size).",
                  json{{"host_bytes", 200e9}}, schema::kv_offload_fields(), "scheduler.kv_offload",
                  "kv_offload");
}

// Many LoRA adapters on the base model (workload.lora): off, or their count, rank and slots.
void draw_lora(AppState &s) {
  optional_object(s, "LoRA adapters", "lora",
                  "Requests each use one of many LoRA adapters of the base model: their GPU "
                  "slots beside the KV cache, the batched adapter kernels (Punica SGMV, "
                  "S-LoRA), loads from host memory when an adapter is not resident (vLLM "
                  "--enable-lora --max-loras, SGLang --max-loras-per-batch).",
                  json{{"adapters", 100}, {"rank", 16}, {"resident", 8}}, schema::lora_fields(),
                  "lora", "lora");
}

// workload.mode "serve": the request stream, the SLO and the scheduler (`ridgeline serve`).
void draw_serve_workload(AppState &s) {
  if (s.field("workload", "trace").is_array()) {
    ui::text_dim("Requests from a trace of " + std::to_string(s.field("workload", "trace").size()) +
                 " entries.");
  } else {
    schema_rows(s, "workload", schema::serve_fields(), "", ""); // rate, requests
    draw_sessions(s);
    workload_row(s, "gen_len");
    schema_rows(s, "workload", schema::serve_fields(), "", "lengths");
  }
  schema_rows(s, "workload", schema::serve_fields(), "prefix", "");
  schema_rows(s, "workload", schema::serve_fields(), "", "routing");
  plan_on_row(s, "Hardware presets the Deployments tab searches (none ticked: the accelerator "
                 "above, on its cluster). Each runs on the cluster above.");
  option_checkboxes(s, "Engines", "engine_options",
                    "Engine presets the Deployments tab compares (none ticked: workload.engine).",
                    io::preset_names("engine"));
  option_checkboxes(s, "Precisions", "precision_options",
                    "Weight precisions the Deployments tab compares, each for the weights and "
                    "the GEMMs (FP4 on hardware with an FP4 peak; int4 weight-only). None "
                    "ticked: the workload's own.",
                    {"bf16", "fp8", "fp4", "mxfp4", "int4"});
  schema_rows(s, "workload", schema::serve_fields(), "slo", "");
  schema_rows(s, "workload", schema::serve_fields(), "scheduler", "");
  draw_kv_offload(s);
  draw_lora(s);
  schema_rows(s, "workload", schema::workload_fields(), "", "types"); // dtypes, time bound
  draw_speculative(s);
}

} // namespace

void draw_workload_section(AppState &s) {
  const std::string mode = as_str(s.field("workload", "mode"), "train");
  const bool dit = as_str(s.field("model", "family")) == "stdit3";
  ui::row_label("Mode", "workload.mode",
                "train: one optimizer step over the global batch (forward + backward). infer: "
                "prefill a prompt, then generate tokens with a KV cache. video: an Open-Sora "
                "STDiT3 request mapped on tx8 dies (`ridgeline tx8`; tx8 is a tiled AI "
                "accelerator: dies of 16 tiles with their own SRAM on a ring network-on-chip). "
                "Switching between a "
                "language model and the video model loads a scenario of the other kind "
                "(default, llama2-13b-v5e-infer, sora-720m-tx8-2x2).");
  int m = mode == "infer"    ? 1
          : mode == "video"  ? 2
          : mode == "tx8-op" ? 3
          : mode == "serve"  ? 4
                             : 0;
  const int before = m;
  // The buttons wrap under the first rather than run past a narrow panel's edge.
  const float x0 = ImGui::GetCursorPosX();
  const auto radio = [&](const char *label, int value, bool first) {
    if (!first) {
      ImGui::SameLine();
      const float w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x +
                      ImGui::CalcTextSize(label).x;
      if (ImGui::GetContentRegionAvail().x < w) {
        ImGui::NewLine();
        ImGui::SetCursorPosX(x0);
      }
    }
    ImGui::RadioButton(label, &m, value);
  };
  radio("train", 0, true);
  radio("infer", 1, false);
  radio("serve", 4, false);
  radio("video", 2, false);
  if (mode == "tx8-op")
    radio("tx8-op", 3, false);
  ui::field_error("workload.mode");
  if (m != before) {
    if (m == 4) {
      if (dit || mode == "tx8-op")
        s.load_scenario(kDefaultScenario);
      const i64 prompt =
          as_int(s.field("workload", "prompt_len"), as_int(s.field("workload", "seq_len"), 2048));
      s.set_workload({{"mode", "serve"},
                      {"request_rate", 4.0},
                      {"requests", 2000},
                      {"prompt_len", std::min<i64>(prompt, 8192)},
                      {"gen_len", 256},
                      {"length_dist", "exponential"},
                      {"slo", {{"ttft", 1.0}, {"tpot", 0.05}}}});
      s.set_parallel_object({{"tp", 8}});
      s.set_field("cluster", "devices", 8);
      return;
    }
    if (m == 2) {
      if (dit)
        s.set_workload({{"mode", "video"},
                        {"batch", 1},
                        {"seconds", 4},
                        {"resolution", {720, 1280}},
                        {"text_tokens", 300},
                        {"steps", 30}});
      else
        s.load_scenario("sora-720m-tx8-2x2");
    } else if (dit || mode == "tx8-op") {
      s.load_scenario(m == 1 ? "llama2-13b-v5e-infer" : kDefaultScenario);
    } else if (m == 1) {
      const i64 seq = as_int(s.field("workload", "seq_len"), 4096);
      s.set_workload({{"mode", "infer"}, {"batch", 32}, {"prompt_len", seq}, {"gen_len", 512}});
    } else if (m == 0) {
      const i64 prompt = as_int(s.field("workload", "prompt_len"), 4096);
      s.set_workload({{"mode", io::name_of(Mode::train)},
                      {schema::row_of(&WorkloadSpec::global_batch).key, 1024},
                      {schema::row_of(&WorkloadSpec::seq_len).key, prompt}});
    }
    return;
  }
  if (mode == "video") {
    draw_video_workload(s);
    return;
  }
  if (mode == "tx8-op") {
    draw_tx8_op_workload(s);
    return;
  }
  if (mode == "serve") {
    draw_serve_workload(s);
    ui::section_error("workload");
    return;
  }
  if (mode == "infer") {
    schema_rows(s, "workload", schema::workload_fields(), "", "shape");
    schema_rows(s, "workload", schema::workload_fields(), "", "types"); // dtypes, time bound
    schema_group(s, "workload", schema::workload_fields(), "", "Disaggregated deployment",
                 "workload.disaggregated");
  } else {
    schema_rows(s, "workload", schema::workload_fields(), "", "shape");
    schema_rows(s, "workload", schema::workload_fields(), "", "types"); // precision
    workload_row(s, "train_tokens"); // the run's token budget (optional)
    // "What should I run on": the planner searches these with the layout.
    plan_on_row(s, "Hardware presets the planner also searches, each with the layout (none "
                   "ticked: the accelerator above). Each runs on the cluster above, with the "
                   "same device count unless Devices to try lists others.");
    {
      json cur = s.field("workload", "device_options");
      std::string text;
      if (cur.is_array()) {
        for (const auto &v : cur)
          if (v.is_number_integer()) {
            if (!text.empty())
              text += ", ";
            text += std::to_string(v.get<i64>());
          }
      } else if (cur.is_object() && cur.value("min", json()).is_number_integer() &&
                 cur.value("max", json()).is_number_integer()) {
        text = std::to_string(cur["min"].get<i64>());
        text += "..";
        text += std::to_string(cur["max"].get<i64>());
      }
      ui::row_label("Devices to try", "workload.device_options",
                    "Device counts the planner searches (e.g. 512, 1024, 2048, or 512..4096 for "
                    "512 doubling up to 4096), each with the layout and every ticked "
                    "accelerator; empty: the cluster's.");
      ImGui::SetNextItemWidth(-1);
      if (ImGui::InputText("##device_options", &text, ImGuiInputTextFlags_EnterReturnsTrue)) {
        json list = json::array();
        const std::size_t dots = text.find("..");
        if (dots != std::string::npos) { // a range: min, 2 min, 4 min, ... up to max
          list = json::object();
          list["min"] = std::strtoll(text.substr(0, dots).c_str(), nullptr, 10);
          list["max"] = std::strtoll(text.substr(dots + 2).c_str(), nullptr, 10);
          text.clear();
        }
        for (const std::string &cell : comma_items(text)) {
          char *stop = nullptr;
          const long long v = std::strtoll(cell.c_str(), &stop, 10);
          if (stop != cell.c_str())
            list.push_back(v);
        }
        set_workload_list(s, "device_options", list);
      }
      ui::field_error("workload.device_options");
    }
    if (as_num(s.field("workload", "train_tokens"), 0) > 0)
      workload_row(s, "deadline_days");
    draw_finetune(s);
    // interruptions (the cluster's rate) and checkpoints: time to train counts them
    const bool open = ImGui::TreeNode("Failures and checkpoints");
    ui::note_rect("workload.failures");
    if (open) {
      schema_rows(s, "cluster", schema::cluster_fields(), "", "Failures");
      schema_rows(s, "workload", schema::checkpoint_fields(), "checkpoint", "Failures");
      ImGui::TreePop();
    }
  }
  if (mode == "train" || mode == "serve")
    workload_row(s, "power_cap_w");
  schema_rows(s, "workload", schema::workload_fields(), "", ""); // fp32 grads, causal skip
  if (mode == "train" && s.field("model", "moe").is_object())
    schema_rows(s, "workload", schema::workload_fields(), "", "moe");
  ui::section_error("workload");
}

// [SECTION] parallel layout
namespace {

// A knob as displayed: the user's value, else the estimate's resolved layout (its JSON, the
// one `ridgeline estimate --json` prints), else the caller's default.
json knob_value(const AppState &s, const std::string &key) {
  if (const auto v = s.parallel_knob(key))
    return *v;
  if (const auto &e = s.estimate()) {
    const json l = io::to_json(e->layout);
    if (const auto it = l.find(key); it != l.end())
      return *it;
  }
  return nullptr;
}

i64 knob(const AppState &s, const std::string &key, i64 dflt) {
  const json v = knob_value(s, key);
  return v.is_number_integer() ? v.get<i64>() : dflt;
}

std::string knob_str(const AppState &s, const std::string &key, const std::string &dflt) {
  const json v = knob_value(s, key);
  return v.is_string() ? v.get<std::string>() : dflt;
}

bool knob_bool(const AppState &s, const std::string &key, bool dflt) {
  const json v = knob_value(s, key);
  return v.is_boolean() ? v.get<bool>() : dflt;
}

// The schema row of layout member M (core/schema/fields): the key, label and help every
// widget below draws from, and its page id "parallel.<key>".
using P = ParallelSpec;
template <auto M> const schema::FieldInfo &prow() {
  return schema::parallel_row<M>().info;
}
std::string pid(const schema::FieldInfo &f) {
  return "parallel." + f.path();
}
// The row's help with what the page adds about the values it offers.
std::string help_with(const schema::FieldInfo &f, const char *values) {
  return std::string(f.help) + " " + values;
}

} // namespace

namespace {

// The tx8 modes: the sequence-parallel scheme across the dies and the pipeline stages.
void draw_tx8_parallel_section(AppState &s) {
  const auto &cfg = s.view_config();
  if (!cfg || cfg->workload.mode == Mode::tx8_op) {
    ui::text_dim("One operator on one die: no parallel layout.");
    ui::section_error("parallel");
    return;
  }
  const std::vector<i64> mesh =
      cfg->cluster.mesh.empty() ? std::vector<i64>{1, 1} : cfg->cluster.mesh;
  const i64 dies = mesh[0] * mesh[1];
  static const std::vector<std::string> kinds = [] { // "planner's best", then the schemes
    std::vector<std::string> k = {"planner's best"};
    for (const std::string &n : schema::names(schema::choices<SpKind>()))
      k.push_back(n);
    return k;
  }();
  const auto &f_kind = prow<&P::sp_kind>(), &f_uly = prow<&P::ulysses>();
  const auto kind_knob = s.parallel_knob(f_kind.key);
  std::string kind =
      kind_knob && kind_knob->is_string() ? kind_knob->get<std::string>() : kinds.front();
  if (ui::combo_string(
          f_kind.label, pid(f_kind), kind, kinds,
          help_with(f_kind, "\"planner's best\": the fastest of the schemes table.").c_str())) {
    if (kind == kinds.front()) {
      s.erase_parallel(f_kind.key);
      s.erase_parallel(f_uly.key);
    } else {
      s.set_parallel(f_kind.key, kind);
    }
  }
  if (kind == io::name_of(SpKind::usp)) {
    const auto u = s.parallel_knob(f_uly.key);
    i64 v = u && u->is_number_integer() ? u->get<i64>() : 0;
    if (ui::combo_int(
            f_uly.label, pid(f_uly), v,
            [&] {
              std::vector<ui::Choice> out;
              for (const i64 d : ui::divisors(dies))
                if (d > 1 && d < dies)
                  out.push_back({d, cfg->model.heads % d == 0 ? "" : "does not divide heads"});
              return out;
            },
            "Dies of the Ulysses part of USP; the ring part is dies / ulysses.",
            v > 0 ? "" : "largest the heads allow"))
      s.set_parallel(f_uly.key, v);
  }
  const json sub = s.parallel_knob("submeshes").value_or(json());
  if (sub.is_array() && !sub.empty()) {
    ui::row_label("Stage sub-meshes", "parallel.submeshes",
                  "Explicit (num_x, num_y, loc_x, loc_y) per stage (LLMPerf-for-TiledArch).");
    std::string text;
    for (std::size_t i = 0; i + 3 < sub.size(); i += 4) {
      if (!text.empty())
        text += ", ";
      text += std::to_string(as_int(sub[i]));
      text += "x" + std::to_string(as_int(sub[i + 1])) + "@" + std::to_string(as_int(sub[i + 2])) +
              "," + std::to_string(as_int(sub[i + 3]));
    }
    ImGui::TextUnformatted(text.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("one stage"))
      s.erase_parallel("submeshes");
  } else {
    const auto &f_pp = prow<&P::pp>();
    const auto pp_knob = s.parallel_knob(f_pp.key);
    i64 pp = pp_knob && pp_knob->is_number_integer() ? pp_knob->get<i64>() : 1;
    if (ui::combo_int(
            "Pipeline stages", pid(f_pp), pp,
            [&] {
              std::vector<ui::Choice> out;
              for (const i64 d : ui::divisors(dies))
                out.push_back({d, cfg->model.layers % d == 0 ? "" : "does not divide layers"});
              return out;
            },
            "Stages of equal sub-meshes along the mesh, the blocks split evenly "
            "(LLMPerf-for-TiledArch "
            "stage_ids / submesh). Click a row of the schemes table for a given split."))
      s.set_parallel(f_pp.key, pp);
  }
  ui::section_error("parallel");
}

} // namespace

void draw_parallel_section(AppState &s) {
  if (s.view() == View::tx8) {
    draw_tx8_parallel_section(s);
    return;
  }
  const auto &cfg = s.view_config();
  if (!cfg) {
    ui::text_dim("Fix the configuration above to choose a layout.");
    ui::section_error("parallel");
    return;
  }
  const ModelSpec &m = cfg->model;
  const WorkloadSpec &w = cfg->workload;
  const bool train = w.mode == Mode::train;
  const i64 devices = cfg->cluster.devices;
  const auto &f_tp = prow<&P::tp>(), &f_pp = prow<&P::pp>(), &f_cp = prow<&P::cp>(),
             &f_vpp = prow<&P::vpp>(), &f_dp = prow<&P::dp>();
  const i64 tp = knob(s, f_tp.key, 1), pp = knob(s, f_pp.key, 1), cp = knob(s, f_cp.key, 1);
  const i64 vpp = knob(s, f_vpp.key, 1);
  const i64 seq = train ? w.seq_len : w.prompt_len;
  const i64 batch = train ? w.global_batch : w.batch;
  const i64 dp = derived_dp(devices, tp, pp, cp);
  const auto &f_kind = prow<&P::cp_kind>();
  const std::string cp_kind = knob_str(s, f_kind.key, io::name_of(CpKind::ring));

  // Serving: instances of tp x attention_dp x pp chips (ep across instances or inside one:
  // core/parallel/layout); no sequence split, micro-batches or SP knobs.
  const bool serve = w.mode == Mode::serve;
  if (serve) {
    ui::row_label("Instances", pid(f_dp),
                  "Model instances serving requests = devices / GPUs per instance (tp x "
                  "attention DP x pp, times ep when the experts spread over instances); each "
                  "request goes to one of them.");
    std::optional<Layout> lay;
    std::string why;
    try {
      lay = resolve_layout(*cfg);
    } catch (const ConfigError &e) {
      why = e.message();
    }
    if (lay)
      ImGui::Text("%lld = %lld / %lld GPUs each", static_cast<long long>(lay->instances()),
                  static_cast<long long>(devices),
                  static_cast<long long>(devices / std::max<i64>(1, lay->instances())));
    else
      ui::text_with_help(why, "", ui::color::error);
  }
  // dp is derived; a dp pinned in the URL is shown with a way back to the derived value.
  if (!serve) {
    ui::row_label("dp (derived)", pid(f_dp),
                  "Data-parallel degree = devices / (tp x pp x cp). Includes ZeRO/FSDP sharding.");
    if (dp > 0)
      ImGui::Text("%lld = %lld / (%lld x %lld x %lld)", static_cast<long long>(dp),
                  static_cast<long long>(devices), static_cast<long long>(tp),
                  static_cast<long long>(pp), static_cast<long long>(cp));
    else
      ui::text_with_help("tp x pp x cp = " + std::to_string(tp * pp * cp) + " does not divide " +
                             std::to_string(devices) + " devices",
                         "", ui::color::error);
  }
  if (const auto pinned = s.parallel_knob(f_dp.key); pinned && *pinned != json(dp)) {
    ImGui::SameLine();
    ui::text_colored(ui::color::warn, "pinned " + pinned->dump());
    ImGui::SameLine();
    if (ImGui::SmallButton("derive"))
      s.erase_parallel(f_dp.key);
  }
  ui::field_error(pid(f_dp));

  // Every candidate is judged by the core's own legality check (resolve_layout).
  const auto why_not = [&](const char *knob, i64 v) { return knob_error(*cfg, knob, v); };

  i64 v_tp = tp;
  if (ui::combo_int(
          f_tp.label, pid(f_tp), v_tp,
          [&] {
            std::vector<ui::Choice> out;
            for (const i64 t : ui::divisors(m.heads))
              out.push_back({t, why_not(f_tp.key, t)});
            return out;
          },
          help_with(f_tp, "Values: divisors of the head count.").c_str()))
    s.set_parallel(f_tp.key, v_tp);
  const auto &f_sp = prow<&P::sp>(), &f_flash = prow<&P::flash_attention>();
  bool sp = knob_bool(s, f_sp.key, tp > 1);
  if (!serve && ui::checkbox(f_sp.label, pid(f_sp), sp, f_sp.help))
    s.set_parallel(f_sp.key, sp);
  if (!serve)
    ImGui::SameLine(ui::kSecondColumn);
  bool flash = knob_bool(s, f_flash.key, true);
  if (!serve && ui::checkbox(f_flash.label, pid(f_flash), flash, f_flash.help))
    s.set_parallel(f_flash.key, flash);
  if (!serve && train) {
    // Overlap of communication with compute (docs/formulas.md "Step time"): the schema's
    // "overlap" rows, each defaulting to Megatron-Core's behaviour.
    int col = 0;
    for (const auto &f : schema::parallel_fields()) {
      if (std::string(f.info.group) != "overlap" ||
          (f.member == &schema::member_tag<&P::overlap_ep> && !m.moe))
        continue;
      bool v = knob_bool(s, f.info.key, false); // the layout's value when the knob is absent
      if (col++ % 2)
        ImGui::SameLine(ui::kSecondColumn);
      if (ui::checkbox(f.info.label, pid(f.info), v, f.info.help))
        s.set_parallel(f.info.key, v);
    }
  }

  const auto &f_first = prow<&P::first_stage_layers>(), &f_last = prow<&P::last_stage_layers>();
  const bool uneven =
      s.parallel_knob(prow<&P::uneven_pp>().key).value_or(json(false)) == json(true) ||
      s.parallel_knob(f_first.key) || s.parallel_knob(f_last.key);
  i64 v_pp = pp;
  if (ui::combo_int(
          f_pp.label, pid(f_pp), v_pp,
          [&] {
            std::vector<ui::Choice> out;
            std::vector<i64> cands;
            if (uneven)
              for (i64 p = 1; p <= std::min<i64>(m.layers, 128); ++p)
                cands.push_back(p);
            else
              cands = ui::divisors(m.layers);
            for (const i64 p : cands)
              out.push_back({p, why_not(f_pp.key, p)});
            return out;
          },
          help_with(f_pp, "Values: divisors of the layer count (any, with uneven stages).")
              .c_str()))
    s.set_parallel(f_pp.key, v_pp);

  if (pp > 1 && !serve) {
    // Megatron's uneven stages: fewer layers on the first and last stages (the embedding
    // and the LM head sit there), the other stages an equal share of the rest.
    for (const schema::FieldInfo *f : {&f_first, &f_last}) {
      i64 v = knob(s, f->key, 0);
      if (ui::input_int(f->label, pid(*f), v, help_with(*f, "0: an even share.").c_str(), 1)) {
        if (v > 0)
          s.set_parallel(f->key, v);
        else
          s.erase_parallel(f->key);
      }
    }
  }

  if (train) {
    const auto &f_sched = prow<&P::pp_schedule>();
    const std::string interleaved = io::name_of(PpSchedule::interleaved),
                      one_f_one_b = io::name_of(PpSchedule::one_f_one_b);
    i64 v_vpp = vpp;
    if (ui::combo_int(
            f_vpp.label, pid(f_vpp), v_vpp,
            [&] {
              std::vector<ui::Choice> out;
              for (i64 v = 1; v <= m.layers / std::max<i64>(pp, 1) && out.size() < 64; ++v) {
                if (!uneven && m.layers % (pp * v) != 0)
                  continue;
                out.push_back({v, why_not(f_vpp.key, v)});
              }
              return out;
            },
            f_vpp.help)) {
      s.set_parallel(f_vpp.key, v_vpp);
      const auto sched = s.parallel_knob(f_sched.key);
      if (sched && v_vpp > 1 && *sched != json(interleaved))
        s.set_parallel(f_sched.key, interleaved);
      if (sched && v_vpp == 1 && *sched == json(interleaved))
        s.set_parallel(f_sched.key, one_f_one_b);
    }
    std::string sched = knob_str(s, f_sched.key, vpp > 1 ? interleaved : one_f_one_b);
    if (pp > 1 && ui::combo_string(f_sched.label, pid(f_sched), sched,
                                   schema::names(schema::choices<PpSchedule>()), f_sched.help))
      s.set_parallel(f_sched.key, sched);
  }

  i64 v_cp = cp;
  if (!serve && ui::combo_int(
                    f_cp.label, pid(f_cp), v_cp,
                    [&] {
                      std::vector<ui::Choice> out;
                      for (const i64 c : ui::divisors(seq, 64))
                        out.push_back({c, why_not(f_cp.key, c)});
                      return out;
                    },
                    help_with(f_cp, "Values: divisors of the sequence length.").c_str()))
    s.set_parallel(f_cp.key, v_cp);
  if (cp > 1 && !serve) {
    std::string kind = cp_kind;
    if (ui::combo_string(f_kind.label, pid(f_kind), kind, schema::names(schema::choices<CpKind>()),
                         f_kind.help))
      s.set_parallel(f_kind.key, kind);
    if (kind == io::name_of(CpKind::usp)) {
      const auto &f_uly = prow<&P::ulysses>();
      i64 u = knob(s, f_uly.key, 1);
      if (ui::combo_int(
              f_uly.label, pid(f_uly), u,
              [&] {
                std::vector<ui::Choice> out;
                for (const i64 d : ui::divisors(cp))
                  out.push_back({d, why_not(f_uly.key, d)});
                return out;
              },
              f_uly.help))
        s.set_parallel(f_uly.key, u);
    }
  }

  if (m.moe) {
    const auto &f_ep = prow<&P::ep>(), &f_mtp = prow<&P::moe_tp>();
    i64 ep = knob(s, f_ep.key, 1);
    if (ui::combo_int(
            f_ep.label, pid(f_ep), ep,
            [&] {
              std::vector<ui::Choice> out;
              for (const i64 e : ui::divisors(m.moe->experts))
                out.push_back({e, why_not(f_ep.key, e)});
              return out;
            },
            f_ep.help))
      s.set_parallel(f_ep.key, ep);
    if (!train) {
      // Serving MoE layouts inside one instance (SGLang --enable-dp-attention, TensorRT-LLM
      // attention DP; Megatron --expert-tensor-parallel-size): moe_tp x ep = tp x
      // attention_dp. A value the others forbid is marked on its field once chosen.
      const auto &f_adp = prow<&P::attention_dp>();
      const i64 devices = std::max<i64>(1, as_int(s.field("cluster", "devices"), 1));
      i64 adp = knob(s, f_adp.key, 1);
      if (ui::combo_int(
              f_adp.label, pid(f_adp), adp,
              [&] {
                std::vector<ui::Choice> out;
                for (const i64 d : ui::divisors(devices))
                  out.push_back({d, ""});
                return out;
              },
              f_adp.help))
        s.set_parallel(f_adp.key, adp);
      const i64 group = tp * adp;
      i64 mtp = knob(s, f_mtp.key, std::max<i64>(1, group / std::max<i64>(1, ep)));
      if (ui::combo_int(
              f_mtp.label, pid(f_mtp), mtp,
              [&] {
                std::vector<ui::Choice> out;
                for (const i64 d : ui::divisors(group))
                  out.push_back({d, d * ep == group ? std::string()
                                                    : "moe_tp x ep must equal tp x attention_dp"});
                return out;
              },
              f_mtp.help))
        s.set_parallel(f_mtp.key, mtp);
    } else {
      // Training: Megatron's MoE parallel folding (--expert-tensor-parallel-size): the experts'
      // own TP degree over the stage's tp x cp x dp ranks (tp: the attention's, no folding).
      i64 mtp = knob(s, f_mtp.key, tp);
      if (ui::combo_int(
              f_mtp.label, pid(f_mtp), mtp,
              [&] {
                std::vector<ui::Choice> out;
                for (const i64 d : ui::divisors(m.moe->expert_ffn))
                  if (d <= 64)
                    out.push_back({d, why_not(f_mtp.key, d)});
                return out;
              },
              f_mtp.help))
        s.set_parallel(f_mtp.key, mtp);
    }
  }

  const auto &f_mb = prow<&P::microbatch>();
  i64 mb = knob(s, f_mb.key, 1);
  const i64 per_replica = dp > 0 && batch % dp == 0 ? batch / dp : 0;
  if (!serve && ui::combo_int(
                    f_mb.label, pid(f_mb), mb,
                    [&] {
                      std::vector<ui::Choice> out;
                      if (per_replica > 0)
                        for (const i64 b : ui::divisors(per_replica, 64))
                          out.push_back({b, why_not(f_mb.key, b)});
                      else
                        out.push_back({mb, "batch not divisible by dp"});
                      return out;
                    },
                    f_mb.help,
                    per_replica > 0 && mb > 0 && per_replica % mb == 0
                        ? std::to_string(mb) + "  (m = " + std::to_string(per_replica / mb) + ")"
                        : ""))
    s.set_parallel(f_mb.key, mb);

  if (train) {
    const auto &f_zero = prow<&P::zero>(), &f_rc = prow<&P::recompute>();
    static const std::vector<std::string> zero_items = {"0: replicated", "1: optimizer sharded",
                                                        "2: + gradients", "3: + weights (FSDP)"};
    const i64 zero = std::clamp<i64>(knob(s, f_zero.key, 0), 0, 3);
    std::string z = zero_items[static_cast<std::size_t>(zero)];
    if (ui::combo_string(f_zero.label, pid(f_zero), z, zero_items, f_zero.help))
      s.set_parallel(f_zero.key, z[0] - '0');
    const std::string selective = io::name_of(Recompute::selective);
    std::string rc = knob_str(s, f_rc.key, io::name_of(Recompute::none));
    if (ui::combo_string(f_rc.label, pid(f_rc), rc, schema::names(schema::choices<Recompute>()),
                         f_rc.help))
      s.set_parallel(f_rc.key, rc);
    // Selective recompute's extra modules (the schema's "recompute" rows), offered where the
    // model has the module: MLA for the up-projections, experts for their activation; one a
    // row (their labels do not fit two to a row in the 1280-pixel layout).
    if (rc == selective) {
      for (const auto &f : schema::parallel_fields()) {
        if (std::string(f.info.group) != "recompute" ||
            (f.member == &schema::member_tag<&P::recompute_mla_up> && !m.mla) ||
            (f.member == &schema::member_tag<&P::recompute_moe_act> && !m.moe))
          continue;
        bool v = knob_bool(s, f.info.key, false);
        if (ui::checkbox(f.info.label, pid(f.info), v, f.info.help))
          s.set_parallel(f.info.key, v);
      }
    }
    // Host memory: activations of some layers (without recompute), the optimizer's states.
    if (rc == io::name_of(Recompute::none)) {
      const auto &f_off = prow<&P::offload_layers>();
      i64 n = knob(s, f_off.key, 0);
      if (ui::input_int(f_off.label, pid(f_off), n, f_off.help, 1))
        s.set_parallel(f_off.key, std::max<i64>(0, n));
    }
    const auto &f_opt = prow<&P::offload_optimizer>();
    bool off = knob_bool(s, f_opt.key, false);
    if (ui::checkbox(f_opt.label, pid(f_opt), off, f_opt.help))
      s.set_parallel(f_opt.key, off);
  }
  ui::section_error("parallel");
}

} // namespace rl::web
