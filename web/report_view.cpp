#include "web/report_view.hpp"

#include "web/exports.hpp"

#include <algorithm>
#include <cctype>

namespace rl::web::ui {

namespace {
const ImVec4 *mark_color(Mark m) {
  switch (m) {
  case Mark::total:
    return &color::accent;
  case Mark::warn:
    return &color::warn;
  case Mark::none:
    break;
  }
  return nullptr;
}

// A share of the memory as a small bar, its text on hover.
void share_bar(const ReportCell &c) {
  const float w = ImGui::GetContentRegionAvail().x;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight() * 0.6f;
  const float y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
  const double frac = c.value;
  ImDrawList *dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + w, y + h), u32(ink(0.06f)));
  dl->AddRectFilled(ImVec2(p.x, y),
                    ImVec2(p.x + w * static_cast<float>(std::min(frac, 1.0)), y + h),
                    u32(frac <= 1.0 ? color::ok : color::error, 0.8f));
  ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s of HBM", c.text.c_str());
}
} // namespace

int report_table(const ReportTable &t, float height, bool selectable) {
  if (t.rows.empty() || t.columns.empty())
    return -1;
  ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  // Many columns scroll sideways (no column stretches then); otherwise the bar column, or
  // else the first, takes the room left.
  const bool wide = t.columns.size() > 7 && height > 0;
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
  const int bar = t.column("hbm");
  for (std::size_t k = 0; k < t.columns.size(); ++k) {
    const int ki = static_cast<int>(k);
    const char *head = t.columns[k].head.c_str();
    if (wide && ki == bar)
      ImGui::TableSetupColumn(head, ImGuiTableColumnFlags_WidthFixed,
                              ImGui::CalcTextSize("000000000").x);
    else if (!wide && (bar >= 0 ? ki == bar : k == 0))
      ImGui::TableSetupColumn(head, ImGuiTableColumnFlags_WidthStretch);
    else
      ImGui::TableSetupColumn(head);
  }
  ImGui::TableHeadersRow();
  int clicked = -1;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ReportLine &row = t.rows[i];
    ImGui::TableNextRow();
    if (selectable) {
      ImGui::TableSetColumnIndex(0);
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::Selectable("##row", false,
                            ImGuiSelectableFlags_SpanAllColumns |
                                ImGuiSelectableFlags_AllowItemOverlap))
        clicked = static_cast<int>(i);
      note_rect(t.key + " " + std::to_string(i + 1)); // the e2e test clicks rows by rank
      ImGui::PopID();
      ImGui::SameLine(0, 0);
    }
    for (std::size_t k = 0; k < row.cells.size() && k < t.columns.size(); ++k) {
      ImGui::TableSetColumnIndex(static_cast<int>(k));
      const ImVec4 *c = mark_color(row.cells[k].mark != Mark::none ? row.cells[k].mark : row.mark);
      const std::string &text = row.cells[k].text;
      if (static_cast<int>(k) == bar) {
        share_bar(row.cells[k]);
      } else if (k == 0) {
        text_colored(c ? *c : ImGui::GetStyleColorVec4(ImGuiCol_Text), text);
        if (!row.help.empty())
          help_marker(row.help);
      } else if (t.columns[k].text) {
        text_dim(text);
      } else {
        text_right(text, c);
      }
    }
  }
  ImGui::EndTable();
  table_export_end();
  return clicked;
}

void report_section(const ReportTable &t, float height) {
  if (!t.title.empty()) {
    ImGui::TextUnformatted(t.title.c_str());
    if (!t.help.empty())
      help_marker(t.help);
  }
  report_table(t, height);
  if (!t.note.empty())
    text_dim_wrapped(t.note);
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
