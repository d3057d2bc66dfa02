// ridgeline web: what a person would see cut off on the last frame drawn: a window whose
// content runs past its right edge with no sideways scrollbar, a table column whose cells or
// head are wider than the column, a widget that noted its text does not fit (a combo's
// preview, a row label). The browser test reads it at 1280x720 on every tab.
#pragma once

#include <string>

namespace rl::web {

// The problems as a JSON array of {"where", "what", "over"} (px past the edge); [] when none.
std::string layout_problems_json();

// A window's vertical scroll as JSON {"y", "max", "line"} (px; line: the text line height),
// {} when no window has that name: the browser test wheels over a panel and reads it.
std::string window_scroll_json(const std::string &name);

} // namespace rl::web
