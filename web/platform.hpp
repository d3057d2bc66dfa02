// ridgeline web: the one seam to the browser. Every Emscripten include, EM_JS function and
// JavaScript call of the page lives behind these declarations (platform.cpp); the rest of
// web/ is plain C++ over Dear ImGui and ridgeline::core.
#pragma once

#include <string>

namespace rl::web::platform {

// The page's state string: location.search, or location.hash when there is no query.
std::string url_state();
// location.hash without the '#' ("" when none).
std::string url_hash();
// history.replaceState to "?<query>" (no new history entry, no reload).
void replace_url_query(const std::string &query);
// The page URL with the given query, as a person would share it.
std::string page_url_with_query(const std::string &query);

// Does the system ask for a light colour scheme (prefers-color-scheme: light)?
bool prefers_light();

// The browser window's inner size in CSS pixels.
void window_size(int &width, int &height);
// Resizes the canvas drawing buffer (and tells GLFW) without going fullscreen.
void resize_canvas(int width, int height);

// Runs frame(arg) once per animation frame; does not return. (main.cpp's run_frames draws
// frames on demand for the e2e flows.)
void run_main_loop(void (*frame)(void *), void *arg);

// Tells the page the app is up (hides the loading overlay, fills the e2e state element).
void notify_ready();
// A message in the page's overlay when the app cannot start (e.g. no WebGL2 context).
void show_fatal(const std::string &message);

// Clipboard bridge: the browser's paste event feeds Dear ImGui's Ctrl+V, and copies go to
// navigator.clipboard (Emscripten's GLFW has no clipboard).
void install_clipboard();
const char *clipboard_text();
void set_clipboard_text(const char *text);

// Saves `bytes` as a file named `filename` (a Blob and an <a download> click); the page
// lists each in Module.rlDownloads ({name, mime, size}) for scripts and tests.
void download(const std::string &filename, const std::string &mime, const std::string &bytes);
// The canvas's drawing-buffer pixels [x, x + w) x [y, y + h) as a PNG data URL. Call in the
// task that rendered the frame (WebGL keeps the drawing buffer only until it is shown).
std::string canvas_png(int x, int y, int w, int h);

// Opens the browser's file picker (several files); the chosen files, like files dropped on the
// canvas, reach the Calibrate tab through Module.calibrateAddFile (index.html).
void open_file_picker();

// Calls on_wheel for every wheel event over the canvas with the scroll in wheel notches as
// Dear ImGui counts them (positive: up / left): 100 px, 3 lines or 1/80 page a notch, as
// browsers send them. Emscripten's GLFW glue hands the raw pixel deltas on with the browser's
// sign, a whole panel and the wrong way per notch.
void install_wheel(void (*on_wheel)(float notches_x, float notches_y));

} // namespace rl::web::platform
