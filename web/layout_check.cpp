#include "web/layout_check.hpp"

#include "web/widgets.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <nlohmann/json.hpp>

namespace rl::web {

namespace {
// A pixel and a half of slack: text extents round to whole pixels.
constexpr float kSlack = 1.5f;

bool shown_this_frame(const ImGuiWindow *w) {
  const ImGuiContext &g = *GImGui;
  return w->WasActive && !w->Hidden && w->LastFrameActive >= g.FrameCount - 1 &&
         (w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup)) == 0;
}
} // namespace

std::string layout_problems_json() {
  nlohmann::json out = nlohmann::json::array();
  ImGuiContext *ctx = ImGui::GetCurrentContext();
  if (!ctx)
    return out.dump();
  ImGuiContext &g = *ctx;
  const auto add = [&](const std::string &where, const std::string &what, float over) {
    out.push_back({{"where", where}, {"what", what}, {"over", over}});
  };
  // Windows: content wider than the window that cannot scroll sideways.
  for (const ImGuiWindow *w : g.Windows) {
    if (!shown_this_frame(w) || w->ScrollbarX)
      continue;
    // A table reaches its outer cell padding past the content region (Dear ImGui's EndTable):
    // not a cut.
    const float table_pad = 2 * ImGui::GetStyle().CellPadding.x;
    const float over = w->ContentSize.x - w->ContentRegionRect.GetWidth();
    if (over > kSlack + table_pad)
      add(w->Name, "content wider than the window", over);
  }
  // Tables: a column's cells or head wider than the column (a column scrolled out of view
  // keeps its width: that is a sideways scroll, not a cut).
  for (int i = 0; i < g.Tables.GetMapSize(); ++i) {
    ImGuiTable *t = g.Tables.TryGetMapData(i);
    if (!t || t->LastFrameActive < g.FrameCount - 1 || !t->OuterWindow ||
        !shown_this_frame(t->OuterWindow))
      continue;
    for (int c = 0; c < t->ColumnsCount; ++c) {
      const ImGuiTableColumn &col = t->Columns[c];
      if (!col.IsEnabled)
        continue;
      const float cells = std::max(col.ContentMaxXFrozen, col.ContentMaxXUnfrozen) - col.WorkMaxX;
      const float head = col.ContentMaxXHeadersIdeal - col.WorkMaxX;
      const char *name = ImGui::TableGetColumnName(t, c);
      const std::string where = std::string(t->OuterWindow->Name) + " table column " +
                                (name && *name ? name : "#") +
                                (name && *name ? "" : std::to_string(c));
      if (cells > kSlack)
        add(where, "cells wider than the column", cells);
      if (head > kSlack)
        add(where, "head wider than the column", head);
    }
  }
  for (const ui::Clip &c : ui::clips())
    add(c.where, c.what, c.over);
  return out.dump();
}

std::string window_scroll_json(const std::string &name) {
  const ImGuiWindow *w =
      ImGui::GetCurrentContext() ? ImGui::FindWindowByName(name.c_str()) : nullptr;
  if (!w)
    return "{}";
  return nlohmann::json{
      {"y", w->Scroll.y}, {"max", w->ScrollMax.y}, {"line", ImGui::GetTextLineHeight()}}
      .dump();
}

} // namespace rl::web
