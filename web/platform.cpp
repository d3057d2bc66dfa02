// ridgeline web: browser implementation of platform.hpp (Emscripten). The only file of the
// project that includes Emscripten headers or contains JavaScript.
#include "web/platform.hpp"

#include <emscripten.h>
#include <emscripten/html5.h>
#include <emscripten/val.h>

namespace {

// Browser.setCanvasSize resizes the drawing buffer and notifies GLFW's resize listener.
// glfwSetWindowSize would instead request fullscreen whenever the size equals the screen's.
EM_JS(void, rl_js_open_file_picker, (), {
  var input = document.getElementById("rl-files");
  if (input)
    input.click();
});

EM_JS(void, rl_js_resize_canvas, (int w, int h), { Browser.setCanvasSize(w, h); });

EM_JS(void, rl_js_install_clipboard, (), {
  Module.rlClipboard = "";
  document.addEventListener(
      "paste", function(e) {
        var t = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
        if (t)
          Module.rlClipboard = t;
      });
});

EM_JS(void, rl_js_write_clipboard, (const char *text), {
  var t = UTF8ToString(text);
  Module.rlClipboard = t;
  if (navigator.clipboard && navigator.clipboard.writeText)
    navigator.clipboard.writeText(t).catch(function(){});
});

EM_JS(void, rl_js_download, (const char *name, const char *mime, const char *data, int size), {
  var n = UTF8ToString(name), m = UTF8ToString(mime);
  var options = {};
  options.type = m;
  var url = URL.createObjectURL(new Blob([HEAPU8.slice(data, data + size)], options));
  var a = document.createElement("a");
  a.href = url;
  a.download = n;
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  var cleanup = function() {
    URL.revokeObjectURL(url);
    a.remove();
  };
  setTimeout(cleanup, 1000);
  Module.rlDownloads = Module.rlDownloads || [];
  Module.rlDownloads.push({name : n, mime : m, size : size});
});

std::string g_clipboard; // keeps the text Dear ImGui reads alive between calls

void (*g_on_wheel)(float, float) = nullptr;

// One notch of the wheel in each of the DOM's delta modes (pixel, line, page), as browsers
// send a notch: 100 px (Chromium), 3 lines (Firefox); a page is 80 notches.
float notches(double delta, unsigned long mode) {
  switch (mode) {
  case DOM_DELTA_LINE:
    return static_cast<float>(delta / 3.0);
  case DOM_DELTA_PAGE:
    return static_cast<float>(delta * 80.0);
  default:
    return static_cast<float>(delta / 100.0);
  }
}

EM_BOOL on_wheel_event(int, const EmscriptenWheelEvent *e, void *) {
  if (g_on_wheel)
    g_on_wheel(-notches(e->deltaX, e->deltaMode), -notches(e->deltaY, e->deltaMode));
  return EM_TRUE; // the page itself does not scroll
}

} // namespace

namespace rl::web::platform {

using emscripten::val;

std::string url_state() {
  const val loc = val::global("location");
  std::string s = loc["search"].as<std::string>();
  if (s.empty() || s == "?")
    s = loc["hash"].as<std::string>();
  return s;
}

std::string url_hash() {
  const std::string h = val::global("location")["hash"].as<std::string>();
  return h.empty() ? h : h.substr(1);
}

void replace_url_query(const std::string &query) {
  const std::string url = page_url_with_query(query);
  if (url == val::global("location")["href"].as<std::string>())
    return;
  val::global("history").call<void>("replaceState", val::null(), std::string(), url);
}

std::string page_url_with_query(const std::string &query) {
  const val loc = val::global("location");
  std::string url = loc["origin"].as<std::string>() + loc["pathname"].as<std::string>();
  if (!query.empty())
    url += "?" + query;
  return url;
}

bool prefers_light() {
  const val mm = val::global("window")["matchMedia"];
  if (mm.isUndefined())
    return false;
  return val::global("window")
      .call<val>("matchMedia", std::string("(prefers-color-scheme: light)"))["matches"]
      .as<bool>();
}

void window_size(int &width, int &height) {
  const val w = val::global("window");
  width = w["innerWidth"].as<int>();
  height = w["innerHeight"].as<int>();
}

void resize_canvas(int width, int height) {
  rl_js_resize_canvas(width, height);
}

void run_main_loop(void (*frame)(void *), void *arg) {
  emscripten_set_main_loop_arg(frame, arg, 0, true);
}

void notify_ready() {
  const val module = val::module_property("onAppReady");
  if (module.typeOf().as<std::string>() == "function")
    module();
}

void show_fatal(const std::string &message) {
  const val f = val::module_property("onAppFatal");
  if (f.typeOf().as<std::string>() == "function")
    f(message);
}

void install_clipboard() {
  rl_js_install_clipboard();
}

const char *clipboard_text() {
  g_clipboard = val::module_property("rlClipboard").as<std::string>();
  return g_clipboard.c_str();
}

void set_clipboard_text(const char *text) {
  rl_js_write_clipboard(text);
}

void download(const std::string &filename, const std::string &mime, const std::string &bytes) {
  rl_js_download(filename.c_str(), mime.c_str(), bytes.data(), static_cast<int>(bytes.size()));
}

std::string canvas_png(int x, int y, int w, int h) {
  if (w <= 0 || h <= 0)
    return "";
  val out = val::global("document").call<val>("createElement", std::string("canvas"));
  out.set("width", w);
  out.set("height", h);
  val ctx = out.call<val>("getContext", std::string("2d"));
  ctx.call<void>("drawImage", val::module_property("canvas"), x, y, w, h, 0, 0, w, h);
  return out.call<std::string>("toDataURL", std::string("image/png"));
}

void open_file_picker() {
  rl_js_open_file_picker();
}

void install_wheel(void (*on_wheel)(float notches_x, float notches_y)) {
  g_on_wheel = on_wheel;
  emscripten_set_wheel_callback("#canvas", nullptr, EM_FALSE, on_wheel_event);
}

} // namespace rl::web::platform
