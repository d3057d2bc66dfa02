#include "web/widgets.hpp"

#include "core/io/units.hpp"
#include "web/exports.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <variant>

namespace rl::web::ui {

namespace {
std::optional<FieldError> g_error; // this frame's error
bool g_claimed = false;            // a field already showed it

bool path_matches(const std::string &error_path, const std::string &path) {
  if (path.empty() || error_path == path) // "" is the whole configuration
    return true;
  if (error_path.size() <= path.size() || error_path.compare(0, path.size(), path) != 0)
    return false;
  const char next = error_path[path.size()];
  return next == '.' || next == '[';
}

void show_error_text(const std::string &text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color::error);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

// Red frame for a field whose path the error names; pops in end_field_style.
int begin_field_style(const std::string &path) {
  if (!error_at(path))
    return 0;
  const bool light = light_theme();
  ImGui::PushStyleColor(ImGuiCol_FrameBg, light ? ImVec4(1.0f, 0.88f, 0.88f, 1.0f)
                                                : ImVec4(0.42f, 0.12f, 0.13f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_FrameBgHovered, light ? ImVec4(1.0f, 0.82f, 0.82f, 1.0f)
                                                       : ImVec4(0.52f, 0.16f, 0.17f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_Border, color::error);
  return 3;
}
} // namespace

ImU32 u32(const ImVec4 &c, float alpha_scale) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c.x, c.y, c.z, c.w * alpha_scale));
}

namespace {
bool g_light = false;
std::map<std::string, std::array<float, 4>> g_rects; // widget path -> screen rectangle
} // namespace

void note_rect(const std::string &name, ImVec2 min, ImVec2 max) {
  g_rects[name] = {min.x, min.y, max.x, max.y};
}

void note_rect(const std::string &name) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  g_rects[name] = {a.x, a.y, b.x, b.y};
}

std::optional<std::array<float, 4>> widget_rect(const std::string &name) {
  const auto it = g_rects.find(name);
  if (it == g_rects.end())
    return std::nullopt;
  return it->second;
}

bool light_theme() {
  return g_light;
}

ImVec4 ink(float alpha) {
  return g_light ? ImVec4(0.08f, 0.09f, 0.11f, alpha) : ImVec4(1, 1, 1, alpha);
}

ImVec4 paper(float alpha) {
  return g_light ? ImVec4(0.98f, 0.98f, 0.99f, alpha) : ImVec4(0.05f, 0.06f, 0.08f, alpha);
}

void apply_theme(bool light) {
  g_light = light;
  if (light)
    ImGui::StyleColorsLight();
  else
    ImGui::StyleColorsDark();
  ImGuiStyle &s = ImGui::GetStyle();
  s.WindowRounding = 0.0f;
  s.ChildRounding = 3.0f;
  s.FrameRounding = 3.0f;
  s.PopupRounding = 3.0f;
  s.GrabRounding = 3.0f;
  s.TabRounding = 3.0f;
  s.ScrollbarRounding = 3.0f;
  s.WindowBorderSize = 1.0f;
  s.FrameBorderSize = 1.0f;
  s.WindowPadding = ImVec2(10, 8);
  s.FramePadding = ImVec2(6, 2);
  s.ItemSpacing = ImVec2(8, 3);
  s.CellPadding = ImVec2(6, 3);
  s.IndentSpacing = 16.0f;
  s.ScrollbarSize = 13.0f;
  s.WindowTitleAlign = ImVec2(0.0f, 0.5f);

  // Semantic colours: the light theme's are darker, for contrast on white.
  color::error = light ? ImVec4(0.78f, 0.12f, 0.12f, 1) : ImVec4(1.00f, 0.45f, 0.42f, 1);
  color::ok = light ? ImVec4(0.10f, 0.50f, 0.20f, 1) : ImVec4(0.42f, 0.86f, 0.52f, 1);
  color::warn = light ? ImVec4(0.70f, 0.42f, 0.00f, 1) : ImVec4(0.98f, 0.76f, 0.32f, 1);
  color::dim = light ? ImVec4(0.38f, 0.41f, 0.46f, 1) : ImVec4(0.60f, 0.64f, 0.70f, 1);
  color::accent = light ? ImVec4(0.10f, 0.36f, 0.78f, 1) : ImVec4(0.45f, 0.70f, 1.00f, 1);

  ImVec4 *c = s.Colors;
  const ImVec4 accent{0.26f, 0.52f, 0.90f, 1.0f};
  if (light) {
    c[ImGuiCol_Text] = ImVec4(0.10f, 0.11f, 0.13f, 1.0f);
    c[ImGuiCol_TextDisabled] = ImVec4(0.45f, 0.48f, 0.53f, 1.0f);
    c[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.98f, 1.0f);
    c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_PopupBg] = ImVec4(1.0f, 1.0f, 1.0f, 0.98f);
    c[ImGuiCol_Border] = ImVec4(0.78f, 0.80f, 0.84f, 1.0f);
    c[ImGuiCol_FrameBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    c[ImGuiCol_FrameBgHovered] = ImVec4(0.90f, 0.93f, 0.98f, 1.0f);
    c[ImGuiCol_FrameBgActive] = ImVec4(0.84f, 0.89f, 0.97f, 1.0f);
    c[ImGuiCol_Header] = ImVec4(0.84f, 0.89f, 0.97f, 1.0f);
    c[ImGuiCol_HeaderHovered] = ImVec4(0.76f, 0.84f, 0.96f, 1.0f);
    c[ImGuiCol_HeaderActive] = ImVec4(0.68f, 0.79f, 0.95f, 1.0f);
    c[ImGuiCol_Button] = ImVec4(0.86f, 0.90f, 0.96f, 1.0f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.74f, 0.82f, 0.95f, 1.0f);
    c[ImGuiCol_ButtonActive] = ImVec4(0.62f, 0.74f, 0.93f, 1.0f);
    c[ImGuiCol_CheckMark] = accent;
    c[ImGuiCol_TableHeaderBg] = ImVec4(0.90f, 0.92f, 0.95f, 1.0f);
    c[ImGuiCol_TableRowBgAlt] = ink(0.035f);
    c[ImGuiCol_Tab] = ImVec4(0.88f, 0.90f, 0.94f, 1.0f);
    c[ImGuiCol_TabHovered] = ImVec4(0.74f, 0.82f, 0.95f, 1.0f);
    c[ImGuiCol_TabActive] = ImVec4(0.80f, 0.86f, 0.96f, 1.0f);
    c[ImGuiCol_ModalWindowDimBg] = ImVec4(0.2f, 0.2f, 0.25f, 0.35f);
    return;
  }
  const ImVec4 bg{0.085f, 0.095f, 0.115f, 1.0f};
  const ImVec4 panel{0.105f, 0.118f, 0.140f, 1.0f};
  const ImVec4 frame{0.165f, 0.185f, 0.220f, 1.0f};
  c[ImGuiCol_Text] = ImVec4(0.92f, 0.94f, 0.96f, 1.0f);
  c[ImGuiCol_TextDisabled] = ImVec4(0.55f, 0.59f, 0.65f, 1.0f);
  c[ImGuiCol_WindowBg] = panel;
  c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_PopupBg] = ImVec4(0.12f, 0.135f, 0.16f, 1.0f);
  c[ImGuiCol_Border] = ImVec4(0.24f, 0.27f, 0.32f, 1.0f);
  c[ImGuiCol_FrameBg] = frame;
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.21f, 0.24f, 0.29f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.24f, 0.28f, 0.34f, 1.0f);
  c[ImGuiCol_TitleBg] = bg;
  c[ImGuiCol_TitleBgActive] = bg;
  c[ImGuiCol_TitleBgCollapsed] = bg;
  c[ImGuiCol_MenuBarBg] = bg;
  c[ImGuiCol_Header] = ImVec4(0.19f, 0.24f, 0.32f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.23f, 0.32f, 0.45f, 1.0f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.26f, 0.38f, 0.55f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.20f, 0.30f, 0.45f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.25f, 0.40f, 0.62f, 1.0f);
  c[ImGuiCol_ButtonActive] = accent;
  c[ImGuiCol_CheckMark] = ImVec4(0.50f, 0.75f, 1.0f, 1.0f);
  c[ImGuiCol_SliderGrab] = accent;
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.40f, 0.65f, 1.0f, 1.0f);
  c[ImGuiCol_Separator] = ImVec4(0.24f, 0.27f, 0.32f, 1.0f);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.15f, 0.17f, 0.21f, 1.0f);
  c[ImGuiCol_TableBorderStrong] = ImVec4(0.26f, 0.29f, 0.34f, 1.0f);
  c[ImGuiCol_TableBorderLight] = ImVec4(0.20f, 0.22f, 0.26f, 1.0f);
  c[ImGuiCol_TableRowBg] = ImVec4(0, 0, 0, 0);
  c[ImGuiCol_TableRowBgAlt] = ink(0.03f);
  c[ImGuiCol_Tab] = frame;
  c[ImGuiCol_TabHovered] = ImVec4(0.25f, 0.40f, 0.62f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.20f, 0.34f, 0.55f, 1.0f);
  c[ImGuiCol_ScrollbarBg] = ImVec4(0, 0, 0, 0.15f);
  c[ImGuiCol_ModalWindowDimBg] = ImVec4(0, 0, 0, 0.55f);
}

void help_marker(const char *text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void text_with_help(const std::string &text, const std::string &help, const ImVec4 &color) {
  const float marker =
      help.empty() ? 0.0f : ImGui::CalcTextSize("(?)").x + ImGui::GetStyle().ItemSpacing.x;
  const float room = ImGui::GetContentRegionAvail().x - marker;
  const bool wrap = room > 0 && ImGui::CalcTextSize(text.c_str()).x > room;
  if (wrap)
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + room);
  text_colored(color, text);
  if (wrap)
    ImGui::PopTextWrapPos();
  if (!help.empty())
    help_marker(help);
}

void help_marker(const std::string &text) {
  help_marker(text.c_str());
}

namespace {
std::vector<Clip> g_clips; // this frame's
} // namespace

const std::vector<Clip> &clips() {
  return g_clips;
}

void note_combo_fit(const std::string &where, const std::string &preview) {
  const ImGuiStyle &st = ImGui::GetStyle();
  const float room = ImGui::CalcItemWidth() - ImGui::GetFrameHeight() - st.FramePadding.x * 2;
  const float need = ImGui::CalcTextSize(preview.c_str(), nullptr, true).x;
  if (need > room + 1.5f)
    g_clips.push_back({where, "combo shows \"" + preview + "\" cut", need - room});
}

void begin_frame_errors(const std::optional<FieldError> &error) {
  g_error = error;
  g_claimed = false;
  g_clips.clear();
}

bool error_at(const std::string &path) {
  return g_error && path_matches(g_error->path, path);
}

void field_error(const std::string &path) {
  if (!error_at(path))
    return;
  show_error_text(g_error->message);
  g_claimed = true;
}

void field_error_exact(const std::string &path) {
  if (!g_error || g_error->path != path)
    return;
  show_error_text(g_error->message);
  g_claimed = true;
}

void section_error(const std::string &section) {
  if (!g_error || g_claimed || !path_matches(g_error->path, section))
    return;
  show_error_text(g_error->text());
  g_claimed = true;
}

void row_label(const char *label, const std::string &path, const char *help) {
  ImGui::AlignTextToFramePadding();
  if (error_at(path))
    ImGui::TextColored(color::error, "%s", label);
  else
    ImGui::TextUnformatted(label);
  if (help)
    help_marker(help);
  const float over = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetScrollX() -
                     (kLabelWidth - 2.0f); // the field starts at kLabelWidth
  if (over > 1.5f)
    g_clips.push_back({path, std::string("label \"") + label + "\" runs into its field", over});
  ImGui::SameLine(kLabelWidth);
  ImGui::SetNextItemWidth(-FLT_MIN);
}

namespace {
// A typed number applies on Enter, on focus loss or after this pause in typing, never on an
// intermediate keystroke (typing 512 passes through 5 and 51). Esc drops what was typed.
constexpr double kTypingPause = 0.8; // s

// The number being typed into the one active field: ImGui keeps the text while the field is
// active; this keeps the value it parses to until it is applied.
struct Typing {
  ImGuiID id = 0;
  std::variant<i64, double> value; // the parsed value
  double edited = 0;               // ImGui::GetTime() of the last keystroke
  bool applied = true;
};
Typing g_typing;

// An InputScalar whose typed value is held back until the user is done (kTypingPause); a
// +/- step applies at once. True when `value` takes a new value this frame.
template <class T>
bool deferred_scalar(ImGuiDataType type, T &value, const T *step, const T *step_fast,
                     const char *format) {
  const ImGuiID text_id = ImGui::GetID("##v"); // InputScalar's text field (PushID(label) + "")
  T shown = value;
  // a real number takes scientific notation (15e12): ImGui's default filter drops the 'e'
  const ImGuiInputTextFlags flags =
      type == ImGuiDataType_Double ? ImGuiInputTextFlags_CharsScientific : 0;
  const bool edited = ImGui::InputScalar("##v", type, &shown, step, step_fast, format, flags);
  const bool typing = ImGui::GetActiveID() == text_id;
  const double now = ImGui::GetTime();
  if (edited && typing) { // a keystroke: remember it, apply later
    g_typing = Typing{text_id, shown, now, false};
    return false;
  }
  if (edited) { // a +/- step
    if (g_typing.id == text_id)
      g_typing = Typing{};
    value = shown;
    return true;
  }
  if (g_typing.id != text_id || g_typing.applied)
    return false;
  if (!typing && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    g_typing = Typing{}; // Esc: ImGui put the old text back
    return false;
  }
  if (typing && now - g_typing.edited < kTypingPause)
    return false;
  // Enter, focus loss, or a pause: apply once.
  g_typing.applied = true;
  if (!typing)
    g_typing.id = 0;
  const T next = std::get<T>(g_typing.value);
  if (next == value)
    return false;
  value = next;
  return true;
}
} // namespace

bool input_int(const char *label, const std::string &path, i64 &value, const char *help, i64 step) {
  row_label(label, path, help);
  const int styles = begin_field_style(path);
  ImGui::PushID(path.c_str());
  const i64 step_fast = step * 10;
  const bool changed = deferred_scalar<i64>(ImGuiDataType_S64, value, step ? &step : nullptr,
                                            step ? &step_fast : nullptr, "%lld");
  note_rect(path);
  ImGui::PopID();
  ImGui::PopStyleColor(styles);
  field_error(path);
  return changed;
}

bool input_scaled(const char *label, const std::string &path, double &value, double scale,
                  const char *format, const char *help) {
  row_label(label, path, help);
  const int styles = begin_field_style(path);
  ImGui::PushID(path.c_str());
  double shown = value * scale;
  const bool changed =
      deferred_scalar<double>(ImGuiDataType_Double, shown, nullptr, nullptr, format);
  note_rect(path);
  ImGui::PopID();
  ImGui::PopStyleColor(styles);
  field_error(path);
  if (changed && std::isfinite(shown))
    value = shown / scale;
  return changed && std::isfinite(shown);
}

bool checkbox(const char *label, const std::string &path, bool &value, const char *help) {
  const int styles = begin_field_style(path);
  ImGui::PushID(path.c_str());
  const bool changed = ImGui::Checkbox(label, &value);
  note_rect(path);
  ImGui::PopID();
  ImGui::PopStyleColor(styles);
  if (help)
    help_marker(help);
  field_error(path);
  return changed;
}

bool combo_string(const char *label, const std::string &path, std::string &value,
                  const std::vector<std::string> &items, const char *help) {
  row_label(label, path, help);
  const int styles = begin_field_style(path);
  ImGui::PushID(path.c_str());
  bool changed = false;
  note_combo_fit(path, value);
  if (ImGui::BeginCombo("##v", value.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const auto &it : items) {
      const bool selected = it == value;
      if (ImGui::Selectable(it.c_str(), selected) && !selected) {
        value = it;
        changed = true;
      }
      if (selected)
        ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  note_rect(path);
  ImGui::PopID();
  ImGui::PopStyleColor(styles);
  field_error(path);
  return changed;
}

bool combo_int(const char *label, const std::string &path, i64 &value,
               const std::function<std::vector<Choice>()> &choices, const char *help,
               const std::string &preview) {
  row_label(label, path, help);
  const int styles = begin_field_style(path);
  ImGui::PushID(path.c_str());
  bool changed = false;
  const std::string shown = preview.empty() ? std::to_string(value) : preview;
  note_combo_fit(path, shown);
  if (ImGui::BeginCombo("##v", shown.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const Choice &c : choices()) {
      const bool selected = c.value == value;
      const std::string text = std::to_string(c.value);
      const bool legal = c.why_not.empty();
      // A value the other knobs forbid is dimmed with the reason, and still takes: the page
      // then moves the other knobs to legal values (AppState::repair_layout) and says so.
      if (!legal)
        ImGui::PushStyleColor(ImGuiCol_Text, color::dim);
      if (ImGui::Selectable(text.c_str(), selected) && !selected) {
        value = c.value;
        changed = true;
      }
      if (!legal) {
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Choosing %s moves the other knobs to legal values when it can.",
                            text.c_str());
        ImGui::SameLine(ImGui::GetFontSize() * 3.5f);
        ImGui::TextColored(color::dim, "%s", c.why_not.c_str());
      }
      if (selected)
        ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  note_rect(path);
  ImGui::PopID();
  ImGui::PopStyleColor(styles);
  field_error(path);
  return changed;
}

void text_colored(const ImVec4 &c, const std::string &s) {
  ImGui::PushStyleColor(ImGuiCol_Text, c);
  ImGui::TextUnformatted(s.c_str());
  ImGui::PopStyleColor();
}

void text_dim(const std::string &s) {
  text_colored(color::dim, s);
}

void text_dim_wrapped(const std::string &s) {
  ImGui::PushTextWrapPos(0.0f);
  text_dim(s);
  ImGui::PopTextWrapPos();
}

void text_right(const std::string &s, const ImVec4 *c) {
  const float w = ImGui::CalcTextSize(s.c_str()).x;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (avail > w)
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + avail - w);
  if (c)
    text_colored(*c, s);
  else
    ImGui::TextUnformatted(s.c_str());
}

// [SECTION] stacked bars
void stacked_bar(const std::vector<Segment> &segs, double scale_max, double marker,
                 const std::string &marker_label, std::string (*format)(double)) {
  ImDrawList *dl = ImGui::GetWindowDrawList();
  const float width = ImGui::GetContentRegionAvail().x;
  const float height = ImGui::GetFrameHeight() * 1.3f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const auto x_of = [&](double v) {
    return p0.x + static_cast<float>(std::min(v / scale_max, 1.0)) * width;
  };
  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), u32(ink(0.05f)), 3.0f);
  double at = 0;
  int hovered = -1;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Segment &sg = segs[i];
    if (sg.value <= 0)
      continue;
    const float x0 = x_of(at), x1 = x_of(at + sg.value);
    dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(x1, p0.y + height), u32(sg.color));
    dl->AddLine(ImVec2(x1, p0.y), ImVec2(x1, p0.y + height), u32(ImVec4(0, 0, 0, 0.6f)));
    if (mouse.x >= x0 && mouse.x < x1 && mouse.y >= p0.y && mouse.y < p0.y + height)
      hovered = static_cast<int>(i);
    if (ImGui::CalcTextSize(sg.name.c_str()).x + 8 < x1 - x0)
      dl->AddText(ImVec2(x0 + 4, p0.y + (height - ImGui::GetFontSize()) * 0.5f),
                  u32(ImVec4(0.05f, 0.05f, 0.07f, 1)), sg.name.c_str());
    at += sg.value;
  }
  if (marker >= 0) {
    if (at > marker) // the part beyond the marker (capacity), red
      dl->AddRectFilled(ImVec2(x_of(marker), p0.y), ImVec2(x_of(at), p0.y + height),
                        u32(ImVec4(1.0f, 0.2f, 0.2f, 0.35f)));
    const float cx = x_of(marker);
    dl->AddLine(ImVec2(cx, p0.y - 4), ImVec2(cx, p0.y + height + 4), u32(ink(0.95f)), 2.5f);
    ImGui::Dummy(ImVec2(width, height + 2));
    // The marker's label under it, kept inside the bar's width.
    const float cw = ImGui::CalcTextSize(marker_label.c_str()).x;
    const ImVec2 cur = ImGui::GetCursorScreenPos();
    dl->AddText(ImVec2(std::clamp(cx - cw * 0.5f, p0.x, p0.x + width - cw), cur.y), u32(ink(1)),
                marker_label.c_str());
    ImGui::Dummy(ImVec2(width, ImGui::GetTextLineHeight()));
  } else {
    ImGui::Dummy(ImVec2(width, height + 2));
  }
  if (hovered >= 0) {
    const Segment &sg = segs[static_cast<std::size_t>(hovered)];
    ImGui::SetTooltip("%s: %s", sg.name.c_str(), format(sg.value).c_str());
  }
}

void legend(const char *id, const std::vector<Segment> &segs, double total,
            std::string (*format)(double)) {
  ui::table_export(id);
  if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("000.00 GB").x);
  ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize("100.0%").x);
  ImDrawList *dl = ImGui::GetWindowDrawList();
  for (const Segment &sg : segs) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    const ImVec2 sp = ImGui::GetCursorScreenPos();
    const float sz = ImGui::GetFontSize() * 0.75f;
    const float off = (ImGui::GetTextLineHeight() - sz) * 0.5f;
    dl->AddRectFilled(ImVec2(sp.x, sp.y + off), ImVec2(sp.x + sz, sp.y + off + sz), u32(sg.color),
                      2.0f);
    ImGui::Dummy(ImVec2(sz + 2, sz));
    ImGui::SameLine();
    ImGui::TextUnformatted(sg.name.c_str());
    help_marker(sg.help);
    ImGui::TableSetColumnIndex(1);
    text_right(format(sg.value));
    ImGui::TableSetColumnIndex(2);
    text_right(units::percent(total > 0 ? sg.value / total : 0), &color::dim);
  }
  ImGui::EndTable();
  ui::table_export_end();
}

std::vector<i64> divisors(i64 n, std::size_t limit) {
  std::vector<i64> small, large;
  for (i64 d = 1; d * d <= n; ++d) {
    if (n % d != 0)
      continue;
    small.push_back(d);
    if (d != n / d)
      large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  if (small.size() > limit)
    small.resize(limit);
  return small;
}

} // namespace rl::web::ui
