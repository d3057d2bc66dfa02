#include "web/report_view.hpp"

#include "web/exports.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace rl::web::ui {

namespace {
const ImVec4 *mark_color(Mark m) {
  switch (m) {
  case Mark::total:
    return &color::accent;
  case Mark::warn:
    return &color::warn;
  case Mark::dim:
    return &color::dim;
  case Mark::ok:
    return &color::ok;
  case Mark::none:
    break;
  }
  return nullptr;
}

// A fraction as a small bar (red beyond 1) with its text at the right.
void fraction_bar(const ReportCell &c) {
  const float text_w = ImGui::CalcTextSize("000.0%").x;
  const float w = std::max(10.0f, ImGui::GetContentRegionAvail().x - text_w - 6);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight() * 0.55f;
  const float y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
  const double frac = std::max(0.0, c.value);
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + w, y + h), u32(ink(0.07f)));
  dl->AddRectFilled(ImVec2(p.x, y),
                    ImVec2(p.x + w * static_cast<float>(std::min(frac, 1.0)), y + h),
                    u32(frac <= 1.0 ? color::ok : color::error, 0.8f));
  ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
  ImGui::SameLine(0, 6);
  text_right(c.text);
}
} // namespace

int report_table(const ReportTable &t, const TableView &view) {
  if (t.rows.empty() || t.columns.empty())
    return -1;
  ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  // Many columns scroll sideways (no column stretches then); otherwise the first bar column,
  // or else the first column, takes the room left. A table whose other columns leave the
  // first less than its widest word scrolls sideways too, its rows all shown.
  float height = view.height;
  bool wide = t.columns.size() > 7 && height > 0;
  if (!wide) {
    const float pad = ImGui::GetStyle().CellPadding.x * 2;
    float others = 0, first = ImGui::CalcTextSize(t.columns[0].head.c_str()).x;
    for (std::size_t k = 1; k < t.columns.size(); ++k) {
      float w = ImGui::CalcTextSize(t.columns[k].head.c_str()).x;
      for (const ReportLine &row : t.rows)
        if (k < row.cells.size())
          w = std::max(w, ImGui::CalcTextSize(row.cells[k].text.c_str()).x);
      others += (t.columns[k].bar ? ImGui::CalcTextSize("000.0%").x + 50 : w) + pad;
    }
    for (const ReportLine &row : t.rows)
      if (!row.cells.empty()) {
        const std::string &txt = row.cells[0].text;
        const std::size_t sp = txt.find(' ');
        first = std::max(first, ImGui::CalcTextSize(txt.substr(0, sp).c_str()).x);
      }
    if (others + first + pad > ImGui::GetContentRegionAvail().x) {
      wide = true;
      if (height <= 0) {
        const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
        height =
            row_h * static_cast<float>(t.rows.size() + 1) + ImGui::GetStyle().ScrollbarSize + 4;
      }
    }
  }
  if (height > 0)
    flags |= ImGuiTableFlags_ScrollY;
  if (wide)
    flags |= ImGuiTableFlags_ScrollX;
  table_export(t.key.c_str());
  if (!ImGui::BeginTable(t.key.c_str(), static_cast<int>(t.columns.size()), flags,
                         ImVec2(0, height)))
    return -1;
  if (height > 0)
    ImGui::TableSetupScrollFreeze(1, 1);
  int stretch = 0;
  for (std::size_t k = 0; k < t.columns.size(); ++k)
    if (t.columns[k].bar) {
      stretch = static_cast<int>(k);
      break;
    }
  for (std::size_t k = 0; k < t.columns.size(); ++k) {
    const ReportColumn &col = t.columns[k];
    if (col.bar)
      ImGui::TableSetupColumn(col.head.c_str(),
                              !wide && static_cast<int>(k) == stretch
                                  ? ImGuiTableColumnFlags_WidthStretch
                                  : ImGuiTableColumnFlags_WidthFixed,
                              ImGui::CalcTextSize("000.0%").x + 50);
    else
      ImGui::TableSetupColumn(col.head.c_str(), !wide && static_cast<int>(k) == stretch
                                                    ? ImGuiTableColumnFlags_WidthStretch
                                                    : 0);
  }
  ImGui::TableHeadersRow();
  // The chosen row scrolls into view when the choice changes (per table).
  static std::map<std::string, int> shown;
  int clicked = -1;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ReportLine &row = t.rows[i];
    const bool chosen = static_cast<int>(i) == view.chosen;
    ImGui::TableNextRow();
    if (chosen && shown[t.key] != view.chosen) {
      shown[t.key] = view.chosen;
      ImGui::SetScrollHereY(0.5f);
    }
    if (view.selectable) {
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::Selectable("##row", chosen || static_cast<int>(i) == view.highlight,
                            ImGuiSelectableFlags_SpanAllColumns |
                                ImGuiSelectableFlags_AllowItemOverlap))
        clicked = static_cast<int>(i);
      if (view.hovered && ImGui::IsItemHovered())
        *view.hovered = static_cast<int>(i);
      note_rect(t.key + " " + std::to_string(i + 1)); // the e2e test clicks rows by rank
      ImGui::PopID();
      ImGui::SameLine(0, 0);
    }
    for (std::size_t k = 0; k < row.cells.size() && k < t.columns.size(); ++k) {
      ImGui::TableSetColumnIndex(static_cast<int>(k));
      const ReportCell &cell = row.cells[k];
      const ImVec4 *c =
          chosen ? &color::ok : mark_color(cell.mark != Mark::none ? cell.mark : row.mark);
      if (t.columns[k].bar) {
        fraction_bar(cell);
      } else if (k == 0) {
        const std::string text = chosen ? "\xe2\x86\x92 " + cell.text : cell.text;
        // A label wider than its column wraps (with room for its "(?)").
        // (A sideways-scrolling table's columns fit their cells: nothing to wrap.)
        const ImVec4 &ink = c ? *c : ImGui::GetStyleColorVec4(ImGuiCol_Text);
        const auto label = [&](const std::string &help) {
          if (wide) {
            text_colored(ink, text);
            if (!help.empty())
              help_marker(help);
          } else {
            text_with_help(text, help, ink);
          }
        };
        if (!t.hover_help) {
          label(row.help);
        } else {
          label("");
          if (!row.help.empty() && ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", row.help.c_str());
        }
      } else if (t.columns[k].text) {
        text_colored(c ? *c : color::dim, cell.text);
      } else { // a marked cell (what bounds, a missed SLO) also says so in text, as the CLI's
        text_right(cell.mark == Mark::warn ? cell.text + "*" : cell.text, c);
      }
    }
  }
  ImGui::EndTable();
  table_export_end();
  return clicked;
}

int report_section(const ReportTable &t, const TableView &view) {
  if (!t.title.empty()) {
    ImGui::TextUnformatted(t.title.c_str());
    if (!t.help.empty())
      help_marker(t.help);
  }
  const int clicked = report_table(t, view);
  if (!t.note.empty())
    text_dim_wrapped(t.note);
  return clicked;
}

std::vector<Segment> report_segments(const ReportTable &t, const std::string &col,
                                     const SegmentColors &colors) {
  std::vector<Segment> out;
  const int k = t.column(col);
  if (k < 0)
    return out;
  for (const ReportLine &row : t.rows)
    for (const auto &[key, c] : colors)
      if (row.key == key) {
        std::string name = row.cells[0].text;
        if (!name.empty())
          name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        out.push_back({name, row.cells[static_cast<std::size_t>(k)].value, c, row.help});
      }
  return out;
}

} // namespace rl::web::ui
