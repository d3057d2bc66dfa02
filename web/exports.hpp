// ridgeline web: export from the page. Any table copies as CSV or Markdown (Dear ImGui's own
// logging captures it, web/table_text.hpp converts), any plot saves as PNG (the canvas,
// cropped) or SVG (the plot's draw list: polygons and text), the whole result as JSON.
//
// A choice made in one frame is carried out in the next: that frame draws the table inside
// ImGui::LogToBuffer, or draws the plot without its button (and, for SVG, without
// anti-aliasing, so every shape is plain triangles), then main.cpp's hooks read it back.
#pragma once

#include "web/app_state.hpp"

#include <imgui.h>

#include <string>

namespace rl::web::ui {

// A small "Copy" button (CSV / Markdown menu) right-aligned on the current line (after the
// table's heading; on a line of its own when there is no room). Call just before
// ImGui::BeginTable(id, ...) with the same id, and table_export_end() right after EndTable.
void table_export(const char *id);
void table_export_end();

// A plot drawn in [p0, p1] (screen pixels) of the current window's draw list: a small "Save"
// button (PNG / SVG menu) in its top-right corner. Call after drawing the plot.
void plot_export(const char *id, ImVec2 p0, ImVec2 p1);

// "Save JSON": the configuration and its result (what the CLI's --json prints), downloaded as
// ridgeline-result.json.
void result_json_button(const AppState &s);
// The launch of configuration c for a framework (`ridgeline export`): a format combo, the
// text, Copy and Download; the button opens it in a popup (the top bar), the contents go in
// any popup (a plan row's context menu).
void launch_export_contents(const Config &c);
void launch_export_button(const Config &c);
// {"config": user config, "url": ..., "estimate" | "serve" | "tx8": the result, "error": ...}.
std::string result_json(const AppState &s);

} // namespace rl::web::ui

namespace rl::web::exports {

// main.cpp's frame: before ImGui::NewFrame (each pass), after the last ImGui::Render, and
// after the draw data reached the canvas.
void before_new_frame();
void after_render();
void after_present();

// For scripts and the e2e test: queue an export of a table ("csv", "markdown") or a plot
// ("svg", "png") drawn on the page; the next frame carries it out and keeps the text (PNG: a
// data URL) for export_result. False when another export is already queued.
bool request(const std::string &id, const std::string &format);
// The last text exported for (id, format) on request, "" until there is one.
std::string result(const std::string &id, const std::string &format);

} // namespace rl::web::exports
