#include "web/exports.hpp"

#include "core/error.hpp"
#include "core/io/config_json.hpp"
#include "core/io/estimate_json.hpp"
#include "core/io/serve_json.hpp"
#include "core/io/tx8_json.hpp"
#include "core/jobs/export.hpp"
#include "core/parallel/frameworks.hpp"
#include "core/schema/choices.hpp"
#include "web/platform.hpp"
#include "web/table_text.hpp"
#include "web/widgets.hpp"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace rl::web {

namespace {

// [SECTION] requests: chosen in one frame, carried out in the next
enum class Sink { user, script }; // user: clipboard or download; script: kept for result()

struct Request {
  std::string id, format; // format: csv, markdown (tables); png, svg (plots)
  Sink sink = Sink::user;
  bool table() const { return format == "csv" || format == "markdown"; }
};

std::optional<Request> g_pending; // chosen this frame
std::optional<Request> g_active;  // being carried out this frame
bool g_in_frame = false;          // before_new_frame ran, after_present not yet

// The table being captured (this frame's last pass wins).
bool g_capturing = false;
ImGuiID g_table_id = 0;
std::optional<std::string> g_table_text;
int g_table_columns = 0;

// The plot being captured: its rectangle and the draw list it was drawn into.
struct PlotCapture {
  ImVec2 p0, p1;
  ImDrawList *dl = nullptr;
};
std::optional<PlotCapture> g_plot;

// Anti-aliasing as the theme set it (an SVG frame turns it off).
struct AntiAliasing {
  bool lines, lines_tex, fill;
};
std::optional<AntiAliasing> g_saved_aa;

std::map<std::string, std::string> g_results;                  // "id:format" -> text, for scripts
std::map<std::string, std::pair<std::string, double>> g_notes; // id -> note, shown until

constexpr double kNoteSeconds = 1.0;

void note(const std::string &id, const std::string &text) {
  g_notes[id] = {text, ImGui::GetTime() + kNoteSeconds};
}

// The note for `id` while it shows, else nullptr.
const std::string *note_of(const std::string &id) {
  const auto it = g_notes.find(id);
  if (it == g_notes.end())
    return nullptr;
  if (ImGui::GetTime() > it->second.second) {
    g_notes.erase(it);
    return nullptr;
  }
  return &it->second.first;
}

void queue(const std::string &id, const std::string &format) {
  if (!g_pending)
    g_pending = Request{id, format, Sink::user};
}

// [SECTION] SVG from a draw list
std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(v));
  std::string s = buf;
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.')
    s.pop_back();
  return s == "-0" ? "0" : s;
}

// fill="#rrggbb" plus fill-opacity when not opaque (ImU32 is ABGR: red in the low byte).
std::string fill(ImU32 c) {
  char buf[64];
  const unsigned r = c & 0xFF, g = (c >> 8) & 0xFF, b = (c >> 16) & 0xFF, a = (c >> 24) & 0xFF;
  std::snprintf(buf, sizeof buf, "fill=\"#%02x%02x%02x\"", r, g, b);
  std::string s = buf;
  if (a < 255)
    s += " fill-opacity=\"" + num(static_cast<float>(a) / 255.0f) + "\"";
  return s;
}

std::string xml_char(unsigned cp) {
  switch (cp) {
  case '&':
    return "&amp;";
  case '<':
    return "&lt;";
  case '>':
    return "&gt;";
  case '"':
    return "&quot;";
  default:
    break;
  }
  if (cp >= 0x20 && cp < 0x7F)
    return std::string(1, static_cast<char>(cp));
  char buf[16];
  std::snprintf(buf, sizeof buf, "&#x%X;", cp);
  return buf;
}

struct GlyphRef {
  const ImFont *font;
  const ImFontGlyph *glyph;
};

std::uint64_t uv_key(ImVec2 uv) {
  const auto q = [](float v) { return static_cast<std::uint64_t>(std::lround(v * 1.0e6f)); };
  return (q(uv.x) << 32) | q(uv.y);
}

// A run of glyphs on one baseline in one colour and size: one <text> with a position per
// character, so the browser's font places each where Dear ImGui drew it.
struct TextRun {
  std::string chars;
  std::vector<float> xs;
  float baseline = 0, size = 0, next_x = 0; // next_x: where the next glyph would start
  ImU32 col = 0;
};

void emit_text(std::string &out, const TextRun &r) {
  if (r.xs.empty())
    return;
  out += "<text x=\"";
  for (std::size_t i = 0; i < r.xs.size(); ++i)
    out += (i ? " " : "") + num(r.xs[i]);
  out += "\" y=\"" + num(r.baseline) + "\" font-size=\"" + num(r.size) + "\" " + fill(r.col) + ">" +
         r.chars + "</text>\n";
}

std::string svg_of(const ImDrawList &dl, ImVec2 p0, ImVec2 p1) {
  const ImGuiIO &io = ImGui::GetIO();
  const ImVec2 white = io.Fonts->TexUvWhitePixel;
  std::unordered_map<std::uint64_t, GlyphRef> glyphs;
  for (const ImFont *f : io.Fonts->Fonts)
    for (const ImFontGlyph &g : f->Glyphs)
      if (g.Visible)
        glyphs.emplace(uv_key(ImVec2(g.U0, g.V0)), GlyphRef{f, &g});

  const float w = p1.x - p0.x, h = p1.y - p0.y;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(w) + "\" height=\"" + num(h) + "\" viewBox=\"0 0 " + num(w) + " " + num(h) +
                    "\" xml:space=\"preserve\">\n";
  out += "<rect width=\"" + num(w) + "\" height=\"" + num(h) + "\" " +
         fill(ImGui::GetColorU32(ImGuiCol_WindowBg)) + "/>\n";
  out += "<g font-family=\"'Liberation Sans', Arial, Helvetica, sans-serif\">\n";

  const auto same_uv = [](ImVec2 a, ImVec2 b) {
    return std::fabs(a.x - b.x) < 1e-6f && std::fabs(a.y - b.y) < 1e-6f;
  };
  const auto inside = [&](ImVec2 v) {
    return v.x >= p0.x - 1 && v.x <= p1.x + 1 && v.y >= p0.y - 1 && v.y <= p1.y + 1;
  };

  // Triangles fanning from one vertex in one colour (Dear ImGui's rectangles, convex fills
  // and line quads) merge into one polygon.
  struct Poly {
    std::vector<unsigned> idx;
    bool white = true;
  };
  TextRun run;
  const auto flush_run = [&] {
    emit_text(out, run);
    run = TextRun{};
  };
  const auto flush_poly = [&](Poly &poly) {
    if (poly.idx.empty())
      return;
    const ImDrawVert &a = dl.VtxBuffer[static_cast<int>(poly.idx[0])];
    if (poly.white) {
      out += "<polygon points=\"";
      for (std::size_t i = 0; i < poly.idx.size(); ++i) {
        const ImDrawVert &v = dl.VtxBuffer[static_cast<int>(poly.idx[i])];
        out += (i ? " " : "") + num(v.pos.x - p0.x) + "," + num(v.pos.y - p0.y);
      }
      out += "\" " + fill(a.col) + "/>\n";
    } else if (const auto it = glyphs.find(uv_key(a.uv)); it != glyphs.end()) {
      // A glyph quad: its top-left vertex carries (U0, V0); the drawn size gives the scale.
      const ImFontGlyph &g = *it->second.glyph;
      const ImFont &f = *it->second.font;
      float top = a.pos.y, bottom = a.pos.y, left = a.pos.x;
      for (const unsigned i : poly.idx) {
        const ImVec2 p = dl.VtxBuffer[static_cast<int>(i)].pos;
        top = std::min(top, p.y);
        bottom = std::max(bottom, p.y);
        left = std::min(left, p.x);
      }
      const float scale = g.Y1 > g.Y0 ? (bottom - top) / (g.Y1 - g.Y0) : 1.0f;
      const float x = left - g.X0 * scale - p0.x;
      const float baseline = top - g.Y0 * scale + f.Ascent * scale - p0.y;
      const float size = f.FontSize * scale;
      const bool joins = !run.xs.empty() && run.col == a.col &&
                         std::fabs(run.baseline - baseline) < 0.5f &&
                         std::fabs(run.size - size) < 0.01f && x >= run.next_x - 0.5f;
      if (!joins) {
        flush_run();
        run.baseline = baseline;
        run.size = size;
        run.col = a.col;
      } else if (x > run.next_x + 0.5f) { // a space (it draws no quad)
        run.chars += ' ';
        run.xs.push_back(run.next_x);
      }
      run.chars += xml_char(g.Codepoint);
      run.xs.push_back(x);
      run.next_x = x + g.AdvanceX * scale;
    }
    poly = Poly{};
  };

  Poly poly;
  for (const ImDrawCmd &cmd : dl.CmdBuffer) {
    if (cmd.UserCallback || cmd.ElemCount == 0)
      continue;
    const ImVec4 clip = cmd.ClipRect;
    for (unsigned t = 0; t + 2 < cmd.ElemCount; t += 3) {
      unsigned i[3];
      for (unsigned k = 0; k < 3; ++k)
        i[k] = dl.IdxBuffer[static_cast<int>(cmd.IdxOffset + t + k)] + cmd.VtxOffset;
      const ImDrawVert *v[3];
      bool in = true;
      float x0 = FLT_MAX, y0 = FLT_MAX, x1 = -FLT_MAX, y1 = -FLT_MAX;
      for (unsigned k = 0; k < 3; ++k) {
        v[k] = &dl.VtxBuffer[static_cast<int>(i[k])];
        in = in && inside(v[k]->pos);
        x0 = std::min(x0, v[k]->pos.x);
        y0 = std::min(y0, v[k]->pos.y);
        x1 = std::max(x1, v[k]->pos.x);
        y1 = std::max(y1, v[k]->pos.y);
      }
      bool is_white = true;
      for (unsigned k = 0; k < 3; ++k)
        is_white = is_white && same_uv(v[k]->uv, white);
      // Outside the plot, clipped away, or invisible: not part of the picture.
      if (!in || x1 <= clip.x || x0 >= clip.z || y1 <= clip.y || y0 >= clip.w ||
          (v[0]->col >> 24) == 0) {
        flush_poly(poly);
        continue;
      }
      const bool joins = !poly.idx.empty() && poly.idx.front() == i[0] && poly.idx.back() == i[1] &&
                         poly.white == is_white && v[0]->col == v[1]->col &&
                         v[0]->col == v[2]->col &&
                         dl.VtxBuffer[static_cast<int>(poly.idx.front())].col == v[0]->col;
      if (joins) {
        poly.idx.push_back(i[2]);
        continue;
      }
      flush_poly(poly);
      poly.idx = {i[0], i[1], i[2]};
      poly.white = is_white;
    }
    flush_poly(poly);
  }
  flush_run();
  out += "</g>\n</svg>\n";
  return out;
}

// [SECTION] delivery
std::string base64_decode(const std::string &s) {
  std::string out;
  unsigned buf = 0;
  int bits = 0;
  for (const char ch : s) {
    int v = -1;
    if (ch >= 'A' && ch <= 'Z')
      v = ch - 'A';
    else if (ch >= 'a' && ch <= 'z')
      v = ch - 'a' + 26;
    else if (ch >= '0' && ch <= '9')
      v = ch - '0' + 52;
    else if (ch == '+')
      v = 62;
    else if (ch == '/')
      v = 63;
    if (v < 0)
      continue;
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xFF);
    }
  }
  return out;
}

std::string file_name(const std::string &id, const std::string &ext) {
  std::string s = "ridgeline-";
  for (const char ch : id)
    s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
  return s + "." + ext;
}

void deliver(const Request &r, const std::string &text) {
  if (r.sink == Sink::script) {
    g_results[r.id + ":" + r.format] = text;
    return;
  }
  if (r.table()) {
    ImGui::SetClipboardText(text.c_str());
    note(r.id, "copied");
  } else if (r.format == "svg") {
    platform::download(file_name(r.id, "svg"), "image/svg+xml", text);
    note(r.id, "saved");
  } else if (r.format == "png") {
    const std::size_t comma = text.find(',');
    if (comma == std::string::npos)
      return;
    platform::download(file_name(r.id, "png"), "image/png", base64_decode(text.substr(comma + 1)));
    note(r.id, "saved");
  }
}

// A right-aligned small button on the current line, or its note while one shows. Returns
// true when clicked.
bool corner_button(const std::string &id, const char *label) {
  const float pad = ImGui::GetStyle().FramePadding.x * 2;
  if (const std::string *n = note_of(id)) {
    ImGui::SetCursorPosX(
        ImGui::GetCursorPosX() +
        std::max(0.0f, ImGui::CalcTextSize(label).x + pad - ImGui::CalcTextSize(n->c_str()).x));
    ui::text_colored(ui::color::ok, *n);
    return false;
  }
  return ImGui::SmallButton(label);
}

} // namespace

// [SECTION] tables
namespace ui {

void table_export(const char *id) {
  const std::string sid = id;
  const float w = ImGui::CalcTextSize("Copy").x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SameLine();
  const float avail = ImGui::GetContentRegionAvail().x;
  if (avail < w + 8) // no room after the previous item: a line of its own, right-aligned
    ImGui::NewLine();
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() +
                       std::max(0.0f, ImGui::GetContentRegionAvail().x - w));
  ImGui::PushID(id);
  if (corner_button(sid, "Copy"))
    ImGui::OpenPopup("##table_export");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Copy this table as CSV or Markdown");
  if (ImGui::BeginPopup("##table_export")) {
    if (ImGui::MenuItem("Copy as CSV"))
      queue(sid, "csv");
    if (ImGui::MenuItem("Copy as Markdown"))
      queue(sid, "markdown");
    ImGui::EndPopup();
  }
  ImGui::PopID();
  if (g_active && g_active->table() && g_active->id == sid && !GImGui->LogEnabled) {
    g_table_id = ImGui::GetID(id); // BeginTable(id) gets the same
    ImGui::LogToBuffer();
    g_capturing = true;
  }
}

void table_export_end() {
  if (!g_capturing)
    return;
  const std::string text = GImGui->LogBuffer.c_str(); // LogFinish clears it
  ImGui::LogFinish();
  g_capturing = false;
  const ImGuiTable *t = ImGui::TableFindByID(g_table_id);
  g_table_columns = t ? t->ColumnsEnabledCount : 0;
  g_table_text = text;
}

// [SECTION] plots
void plot_export(const char *id, ImVec2 p0, ImVec2 p1) {
  const std::string sid = id;
  if (g_active && !g_active->table() && g_active->id == sid) {
    g_plot = PlotCapture{p0, p1, ImGui::GetWindowDrawList()}; // drawn without its button
    return;
  }
  // The button sits in the plot's corner; the layout (the next SameLine included) and the
  // last item stay as the plot left them.
  ImGuiWindow *win = ImGui::GetCurrentWindow();
  const ImGuiWindowTempData keep = win->DC;
  const ImGuiLastItemData last = GImGui->LastItemData;
  const float w = ImGui::CalcTextSize("Save").x + ImGui::GetStyle().FramePadding.x * 2;
  ImGui::SetCursorScreenPos(ImVec2(p1.x - w - 2, p0.y + 2));
  ImGui::PushID(id);
  if (corner_button(sid, "Save"))
    ImGui::OpenPopup("##plot_export");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Save this plot as PNG or SVG");
  if (ImGui::BeginPopup("##plot_export")) {
    if (ImGui::MenuItem("Save as PNG"))
      queue(sid, "png");
    if (ImGui::MenuItem("Save as SVG"))
      queue(sid, "svg");
    ImGui::EndPopup();
  }
  ImGui::PopID();
  win->DC.CursorPos = keep.CursorPos;
  win->DC.CursorPosPrevLine = keep.CursorPosPrevLine;
  win->DC.PrevLineSize = keep.PrevLineSize;
  win->DC.PrevLineTextBaseOffset = keep.PrevLineTextBaseOffset;
  win->DC.CurrLineSize = keep.CurrLineSize;
  win->DC.CurrLineTextBaseOffset = keep.CurrLineTextBaseOffset;
  GImGui->LastItemData = last;
}

// [SECTION] the whole result
std::string result_json(const AppState &s) {
  nlohmann::json j;
  j["config"] = s.user();
  j["url"] = platform::page_url_with_query(s.url_query());
  if (s.estimate())
    j["estimate"] = io::to_json(*s.estimate());
  if (s.serve())
    j["serve"] = io::to_json(*s.serve());
  if (s.tx8())
    j["tx8"] = io::to_json(*s.tx8());
  if (const auto &e = s.error())
    j["error"] = {{"path", e->path}, {"message", e->message}};
  return j.dump(2) + "\n";
}

void result_json_button(const AppState &s) {
  if (const std::string *n = note_of("result-json")) {
    ImGui::AlignTextToFramePadding();
    text_colored(color::ok, *n);
    return;
  }
  if (ImGui::Button("Save JSON")) {
    platform::download("ridgeline-result.json", "application/json", result_json(s));
    note("result-json", "saved");
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Download the configuration and its result (as `ridgeline ... --json` "
                      "prints it) as ridgeline-result.json");
}

void launch_export_contents(const Config &c) {
  const Mode mode = c.workload.mode;
  if (mode != Mode::train && mode != Mode::infer && mode != Mode::serve) {
    text_dim("tx8 mappings have no framework launch.");
    return;
  }
  // the frameworks that launch this mode: training's or the serving engines (the schema's
  // names, core/parallel/frameworks trains())
  std::vector<std::string> formats;
  for (const schema::ChoiceName &n : schema::choices<Framework>()) {
    const auto f = static_cast<Framework>(n.value);
    if (!n.alias && f != Framework::any && trains(f) == (mode == Mode::train))
      formats.push_back(n.name);
  }
  static std::string format;
  if (std::find(formats.begin(), formats.end(), format) == formats.end())
    format = formats.front();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
  if (ImGui::BeginCombo("framework", format.c_str())) {
    for (const std::string &f : formats)
      if (ImGui::Selectable(f.c_str(), format == f))
        format = f;
    ImGui::EndCombo();
  }
  // The launch is made once per configuration and format (planning free knobs is a search).
  static std::string key, text, error;
  const std::string now = format + "\n" + io::to_json(c).dump();
  if (now != key) {
    key = now;
    text.clear();
    error.clear();
    try {
      text = jobs::export_launch(c, format).all();
    } catch (const ConfigError &e) {
      error = e.path().empty() ? e.message() : e.path() + ": " + e.message();
    } catch (const std::exception &e) {
      error = std::string("internal error: ") + e.what();
    }
  }
  if (!error.empty()) {
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 44);
    text_colored(color::error, error);
    ImGui::PopTextWrapPos();
    return;
  }
  const float w = ImGui::GetFontSize() * 44;
  ImGui::InputTextMultiline("##launch", &text, ImVec2(w, ImGui::GetTextLineHeight() * 18),
                            ImGuiInputTextFlags_ReadOnly);
  note_rect("launch-export"); // the e2e flows see the popup open by it
  if (ImGui::Button("Copy"))
    ImGui::SetClipboardText(text.c_str());
  ImGui::SameLine();
  if (ImGui::Button("Download"))
    platform::download("launch-" + format + ".sh", "text/plain", text);
  ImGui::SameLine();
  text_dim("as `ridgeline export CFG --format " + format + "`");
}

void launch_export_button(const Config &c) {
  if (ImGui::Button("Export"))
    ImGui::OpenPopup("##launch-export");
  note_rect("export"); // the e2e flows click it by this name
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The launch for a framework (Megatron-LM, DeepSpeed, TorchTitan; vLLM, "
                      "SGLang, TensorRT-LLM) of this configuration, as `ridgeline export` "
                      "writes it");
  if (ImGui::BeginPopup("##launch-export")) {
    launch_export_contents(c);
    ImGui::EndPopup();
  }
}

} // namespace ui

// [SECTION] frame hooks
namespace exports {

void before_new_frame() {
  if (!g_in_frame) {
    g_in_frame = true;
    g_active = std::move(g_pending);
    g_pending.reset();
    g_table_text.reset();
    g_plot.reset();
    if (g_active && g_active->format == "svg") {
      ImGuiStyle &st = ImGui::GetStyle();
      g_saved_aa = AntiAliasing{st.AntiAliasedLines, st.AntiAliasedLinesUseTex, st.AntiAliasedFill};
      st.AntiAliasedLines = st.AntiAliasedLinesUseTex = st.AntiAliasedFill = false;
    }
  }
  // A plot is captured as it looks without the mouse (no hover highlights or tooltips).
  if (g_active && !g_active->table())
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

void after_render() {
  if (g_capturing) { // a table_export without its table_export_end
    ImGui::LogFinish();
    g_capturing = false;
  }
  if (g_active && g_active->format == "svg" && g_plot && g_plot->dl)
    deliver(*g_active, svg_of(*g_plot->dl, g_plot->p0, g_plot->p1));
}

void after_present() {
  if (g_active && g_active->format == "png" && g_plot) {
    const ImVec2 s = ImGui::GetIO().DisplayFramebufferScale;
    const auto px = [](float v, float k) { return static_cast<int>(std::lround(v * k)); };
    const int x = px(g_plot->p0.x, s.x), y = px(g_plot->p0.y, s.y);
    deliver(*g_active,
            platform::canvas_png(x, y, px(g_plot->p1.x, s.x) - x, px(g_plot->p1.y, s.y) - y));
  }
  if (g_active && g_active->table() && g_table_text) {
    const auto rows = table_text::parse_logged_table(*g_table_text, g_table_columns);
    deliver(*g_active,
            g_active->format == "csv" ? table_text::to_csv(rows) : table_text::to_markdown(rows));
  }
  if (g_saved_aa) {
    ImGuiStyle &st = ImGui::GetStyle();
    st.AntiAliasedLines = g_saved_aa->lines;
    st.AntiAliasedLinesUseTex = g_saved_aa->lines_tex;
    st.AntiAliasedFill = g_saved_aa->fill;
    g_saved_aa.reset();
  }
  g_active.reset();
  g_in_frame = false;
}

bool request(const std::string &id, const std::string &format) {
  if (g_pending)
    return false;
  g_pending = Request{id, format, Sink::script};
  return true;
}

std::string result(const std::string &id, const std::string &format) {
  const auto it = g_results.find(id + ":" + format);
  return it == g_results.end() ? "" : it->second;
}

} // namespace exports

} // namespace rl::web
