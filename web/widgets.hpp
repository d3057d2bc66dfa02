// ridgeline web: small Dear ImGui helpers shared by the panels: theme and colours, "(?)"
// help markers, form rows whose label and frame turn red when the current error names their
// field path, and combos that list a knob's legal values.
#pragma once

#include "web/app_state.hpp"

#include <imgui.h>

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rl::web::ui {

// [SECTION] colours
// The semantic colours; apply_theme sets them for the dark or the light theme.
namespace color {
inline ImVec4 error{1.00f, 0.45f, 0.42f, 1.0f};
inline ImVec4 ok{0.42f, 0.86f, 0.52f, 1.0f};
inline ImVec4 warn{0.98f, 0.76f, 0.32f, 1.0f};
inline ImVec4 dim{0.60f, 0.64f, 0.70f, 1.0f};
inline ImVec4 accent{0.45f, 0.70f, 1.00f, 1.0f};
inline ImVec4 weights{0.30f, 0.56f, 0.92f, 1.0f};
inline ImVec4 gradients{0.62f, 0.46f, 0.90f, 1.0f};
inline ImVec4 optimizer{0.20f, 0.72f, 0.66f, 1.0f};
inline ImVec4 activations{0.96f, 0.62f, 0.24f, 1.0f};
inline ImVec4 kv_cache{0.92f, 0.38f, 0.58f, 1.0f};
inline ImVec4 forward{0.32f, 0.58f, 0.95f, 1.0f};
inline ImVec4 backward{0.36f, 0.78f, 0.50f, 1.0f};
inline ImVec4 weight_grad{0.80f, 0.70f, 0.30f, 1.0f}; // DualPipe's deferred weight gradients
inline ImVec4 bubble{0.55f, 0.16f, 0.18f, 0.55f};
} // namespace color

ImU32 u32(const ImVec4 &c, float alpha_scale = 1.0f);

// Dark (the default) or light; the page follows the system preference
// (prefers-color-scheme) until the user picks one in the top bar.
void apply_theme(bool light = false);
bool light_theme();
// The foreground at an alpha (grid lines, frames, labels drawn on plots): white on the dark
// theme, near-black on the light one. paper(): the window background.
ImVec4 ink(float alpha);
ImVec4 paper(float alpha);

// [SECTION] help and errors
// A dimmed "(?)" on the same line; hovering shows the text (formula and source).
// A widget whose text does not fit where it is drawn (web/layout_check reads these).
struct Clip {
  std::string where, what;
  float over = 0; // px past the room
};
const std::vector<Clip> &clips();
// Notes a combo whose preview will be cut: call just before BeginCombo (after
// SetNextItemWidth, if any), with the preview it shows.
void note_combo_fit(const std::string &where, const std::string &preview);

// Text and its "(?)" help (none when help is empty) in the room left on the line: text wider
// than that wraps, leaving room for the marker, rather than run past the edge.
void text_with_help(const std::string &text, const std::string &help, const ImVec4 &color);

void help_marker(const char *text);
void help_marker(const std::string &text);

// The error of the current frame; field widgets claim it when its path is theirs.
void begin_frame_errors(const std::optional<FieldError> &error);
// Does the current error name this field (or a field inside it)?
bool error_at(const std::string &path);
// The error message in red under the field, when it names this path.
void field_error(const std::string &path);
// The error message when it names exactly this path (not a field inside it).
void field_error_exact(const std::string &path);
// An error inside `section` that no field showed (e.g. "parallel" or "model.hf_config.x").
void section_error(const std::string &section);

// [SECTION] form rows: label column, then a full-width widget.
inline constexpr float kLabelWidth = 156.0f;
// Where the second checkbox of a row starts.
inline constexpr float kSecondColumn = 200.0f;
void row_label(const char *label, const std::string &path, const char *help = nullptr);

bool input_int(const char *label, const std::string &path, i64 &value, const char *help = nullptr,
               i64 step = 0);
// `scale` converts the stored value to the shown one (e.g. 1e-9 for bytes shown in GB).
bool input_scaled(const char *label, const std::string &path, double &value, double scale,
                  const char *format, const char *help = nullptr);
bool checkbox(const char *label, const std::string &path, bool &value, const char *help = nullptr);
bool combo_string(const char *label, const std::string &path, std::string &value,
                  const std::vector<std::string> &items, const char *help = nullptr);

// One candidate value of a knob; why_not is empty when the value is legal now.
struct Choice {
  i64 value = 0;
  std::string why_not;
};
// Lists the candidates only while the combo is open; values the other knobs forbid are
// dimmed with the reason beside them and can still be picked (the page then moves the other
// knobs). `preview` overrides the closed combo's text.
bool combo_int(const char *label, const std::string &path, i64 &value,
               const std::function<std::vector<Choice>()> &choices, const char *help = nullptr,
               const std::string &preview = "");

// [SECTION] widget rectangles (for scripted clicks in the e2e test)
// Records the last item's screen rectangle under `name` (form widgets record their path).
void note_rect(const std::string &name);
void note_rect(const std::string &name, ImVec2 min, ImVec2 max); // an area drawn by hand
// [x0, y0, x1, y1] of the widget last drawn under `name`.
std::optional<std::array<float, 4>> widget_rect(const std::string &name);

// [SECTION] text helpers
void text_colored(const ImVec4 &c, const std::string &s);
void text_dim(const std::string &s);
void text_dim_wrapped(const std::string &s);
// Right-aligned text in the current table cell or column.
void text_right(const std::string &s, const ImVec4 *c = nullptr);

// [SECTION] stacked bars
// One part of a stacked bar: its name, value, colour and "(?)" text.
struct Segment {
  std::string name;
  double value;
  ImVec4 color;
  std::string help;
};
// A horizontal stacked bar over [0, scale_max]; `marker` >= 0 draws a labelled line there.
void stacked_bar(const std::vector<Segment> &segs, double scale_max, double marker,
                 const std::string &marker_label, std::string (*format)(double));
// Colour swatch, name (?), value, share of `total`.
void legend(const char *id, const std::vector<Segment> &segs, double total,
            std::string (*format)(double));

// Divisors of n in increasing order (at most `limit`).
std::vector<i64> divisors(i64 n, std::size_t limit = 256);

} // namespace rl::web::ui
