// ridgeline web: entry point. Creates the GLFW window (a WebGL2 canvas), sets up Dear ImGui,
// reads the configuration from the URL and runs one ImGui frame per animation frame.
#include "web/app_state.hpp"
#include "web/exports.hpp"
#include "web/panels.hpp"
#include "web/platform.hpp"
#include "web/widgets.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

struct App {
  GLFWwindow *window = nullptr;
  rl::web::UiState ui;
  int width = 0, height = 0;
  std::string written_query; // the URL query last written to the address bar
  long frames = 0;
};

constexpr float kFontPixels = 16.0f;

void load_fonts() {
  ImGuiIO &io = ImGui::GetIO();
#ifdef RIDGELINE_UI_FONT_PATH
  // Latin-1 plus the few symbols the panels use (x, ·, ≈, ≤, ≥, →, …).
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2026, 0x2026, 0x2192, 0x2192,
                                   0x2248, 0x2248, 0x2264, 0x2265, 0};
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 2;
  if (std::FILE *f = std::fopen(RIDGELINE_UI_FONT_PATH, "rb")) {
    std::fclose(f);
    if (io.Fonts->AddFontFromFileTTF(RIDGELINE_UI_FONT_PATH, kFontPixels, &cfg, ranges))
      return;
  }
#endif
  ImFontConfig fallback;
  fallback.SizePixels = 13.0f;
  io.Fonts->AddFontDefault(&fallback);
  io.FontGlobalScale = kFontPixels / 13.0f;
}

// The URL follows the state (not while a rejected URL is still on show).
void sync_url(App &app) {
  const rl::web::AppState &state = rl::web::app_state();
  // A link with dropped parameters stays as it was opened until the first edit.
  if (!state.startup_error() && state.url_issues().empty() && !state.url_query().empty() &&
      state.url_query() != app.written_query) {
    rl::web::platform::replace_url_query(state.url_query());
    app.written_query = state.url_query();
  }
}

void frame(void *arg) {
  App &app = *static_cast<App *>(arg);
  rl::web::AppState &state = rl::web::app_state();

  int w = 0, h = 0;
  rl::web::platform::window_size(w, h);
  bool resized = app.frames == 0;
  if (w > 0 && h > 0 && (w != app.width || h != app.height)) {
    rl::web::platform::resize_canvas(w, h);
    app.width = w;
    app.height = h;
    resized = true;
  }

  // A serving simulation in progress takes about 12 ms of each frame until it is done.
  {
    const auto t0 = std::chrono::steady_clock::now();
    while (state.busy() && std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(12))
      state.advance(256);
  }
  glfwPollEvents();
  // Dear ImGui sizes scrollbars and tables from the previous frame: after the first frame or a
  // resize, the picture shown is the third one laid out at the new size, already settled.
  for (int pass = 0; pass < (resized ? 3 : 1); ++pass) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    // Two frames can share a timestamp (a browser's virtual time, a coarse timer).
    ImGui::GetIO().DeltaTime = std::max(ImGui::GetIO().DeltaTime, 1e-4f);
    rl::web::exports::before_new_frame();
    ImGui::NewFrame();
    rl::web::draw_app(state, app.ui);
    ImGui::Render();
  }
  rl::web::exports::after_render(); // an SVG export reads this frame's draw lists
  ++app.frames;
  app.ui.open_tab.clear(); // selected once; the user's clicks rule from now on

  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(app.window, &fb_w, &fb_h);
  glViewport(0, 0, fb_w, fb_h);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  rl::web::exports::after_present(); // a PNG export crops the canvas while it holds the frame

  sync_url(app);
}

App *g_app = nullptr; // for run_frames (the e2e flows)

} // namespace

namespace rl::web {
// Draws n frames now, one after another, in the calling task: the e2e flows dispatch mouse
// events and step the app deterministically, whatever the browser's frame timing.
void run_frames(int n) {
  for (int i = 0; i < n && g_app; ++i)
    frame(g_app);
}
} // namespace rl::web

int main() {
  static App app;
  g_app = &app;
  // "tab=NAME" (or "#tab=NAME") picks the tab shown first (pipeline, serving, roofline,
  // planner, compare, calibrate), "free=" the knobs the planner frees ("all" or tp,pp,...;
  // tab=planner-all is the older link for tab=planner&free=all), "pin=" the compared one.
  std::string state = rl::web::platform::url_state();
  const std::string hash = rl::web::platform::url_hash();
  if (!state.empty() && state[0] == '?' && !hash.empty())
    state += "#" + hash;
  rl::web::app_state().load_from_url(state);
  rl::web::app_state().finish_pending(); // the first picture is complete (the e2e test reads it)
  app.ui.open_tab = rl::web::app_state().tab();

  if (!glfwInit()) {
    rl::web::platform::show_fatal("GLFW could not start.");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  rl::web::platform::window_size(app.width, app.height);
  app.window = glfwCreateWindow(app.width > 0 ? app.width : 1280, app.height > 0 ? app.height : 800,
                                "ridgeline", nullptr, nullptr);
  if (!app.window) {
    rl::web::platform::show_fatal(
        "Could not create a WebGL2 context. ridgeline needs a browser with WebGL2 enabled.");
    return 1;
  }
  glfwMakeContextCurrent(app.window);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO &io = ImGui::GetIO();
  io.IniFilename = nullptr; // the layout is fixed; the state lives in the URL
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  load_fonts();
  rl::web::ui::apply_theme(rl::web::platform::prefers_light()); // needs the ImGui context
  ImGui_ImplGlfw_InitForOpenGL(app.window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  // The wheel comes from the browser's own event (platform::install_wheel), in notches.
  glfwSetScrollCallback(app.window, nullptr);
  rl::web::platform::install_wheel([](float x, float y) {
    ImGuiIO &wheel = ImGui::GetIO();
    wheel.MouseWheelH += x;
    wheel.MouseWheel += y;
  });

  rl::web::platform::install_clipboard();
  io.GetClipboardTextFn = [](void *) { return rl::web::platform::clipboard_text(); };
  io.SetClipboardTextFn = [](void *, const char *text) {
    rl::web::platform::set_clipboard_text(text);
  };

  // Ready: the state is loaded and estimated; the first frame draws on the next animation
  // frame. (Reported here, not from a frame, so scripts see it in the same task.)
  sync_url(app);
  rl::web::platform::notify_ready();
  rl::web::platform::run_main_loop(frame, &app);
  return 0;
}
