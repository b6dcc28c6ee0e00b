// The interactive front-end: a GLFW window with an OpenGL 3.3 core context, following Dear
// ImGui's example_glfw_opengl3 (error callback, hints, window, context, backends, loop, cleanup).
// The loop sleeps in glfwWaitEventsTimeout and draws only when something may have changed: input
// or a window event, a result (wake_window), a busy source or a script. An idle window costs no
// frames and no CPU.

#include "front_end/front_end.h"
#include "kernel_file/file_kernel.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

namespace wl::viz {

namespace {

std::string g_glfw_error; // the last GLFW error, for the "no window" message

void remember_glfw_error(int code, const char* description) {
  g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}

// Ctrl-C or a polite kill closes the window the normal way, so layout and settings are saved.
std::atomic<bool> g_stop_requested = false;
void request_stop(int) { g_stop_requested = true; }

// Sleeps until an event or a result, waking now and then to notice a stop request (drawing
// nothing then).
constexpr double kIdleWaitSeconds = 1.0;

// Frames drawn after a change, for Dear ImGui to settle: hover states and windows sized by their
// content take a frame or two to follow.
constexpr int kFramesAfterChange = 3;
int g_frames_owed = kFramesAfterChange; // the first frames
std::atomic<bool> g_woken = false;      // a result arrived (wake_window)

void owe_frames() { g_frames_owed = kFramesAfterChange; }

// The window's events that change what a frame shows. Installed before the backend, which calls
// them before its own (the mouse, focus, scroll); the others are the window's alone.
void on_mouse_button(GLFWwindow*, int, int, int) { owe_frames(); }
void on_cursor_moved(GLFWwindow*, double, double) { owe_frames(); }
void on_scroll(GLFWwindow*, double, double) { owe_frames(); }
void on_focus(GLFWwindow*, int) { owe_frames(); }
void on_cursor_enter(GLFWwindow*, int) { owe_frames(); }
void on_resize(GLFWwindow*, int, int) { owe_frames(); }
void on_refresh(GLFWwindow*) { owe_frames(); }

// A file dropped on the window: the first kernel file among them is opened by the next frame.
std::string g_dropped;
void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count && g_dropped.empty(); ++i)
    if (names_a_kernel_file(paths[i]))
      g_dropped = paths[i];
  if (g_dropped.empty() && count > 0)
    g_dropped = paths[0]; // not a kernel file: opening it says why
  owe_frames();
}

void watch_window_events(GLFWwindow* window) {
  glfwSetMouseButtonCallback(window, on_mouse_button);
  glfwSetCursorPosCallback(window, on_cursor_moved);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetWindowFocusCallback(window, on_focus);
  glfwSetCursorEnterCallback(window, on_cursor_enter);
  glfwSetFramebufferSizeCallback(window, on_resize);
  glfwSetWindowRefreshCallback(window, on_refresh);
  glfwSetDropCallback(window, on_drop);
}

// Returns false when the GPU reset the window's OpenGL context (after a kernel faulted on it):
// the frame was lost and the window must be made again.
bool render_frame(GLFWwindow* window, App& app, GuiContext& gui, ScriptPlayer* player) {
  refresh_fonts(app, gui);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (player)
    player->feed_input(ImGui::GetIO()); // over what the backend read from the real devices
  ImGui::NewFrame();
  if (!g_dropped.empty())
    app.open_kernel_file(std::exchange(g_dropped, std::string()));
  draw_frame(app);
  ImGui::Render();
  int width = 0, height = 0;
  glfwGetFramebufferSize(window, &width, &height);
  glViewport(0, 0, width, height);
  const ImVec4 clear = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  glClearColor(clear.x * 0.8f, clear.y * 0.8f, clear.z * 0.8f, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (app.frame.screenshot)
    save_requested_screenshot(app, read_framebuffer(width, height));
  gui.save_if_changed();
  glfwSwapBuffers(window);
  if (glfwGetWindowAttrib(window, GLFW_CONTEXT_ROBUSTNESS) == GLFW_LOSE_CONTEXT_ON_RESET &&
      graphics_context_lost(glfwGetProcAddress))
    return false;
  if (player)
    player->after_frame(app);
  return true;
}

// A window with an OpenGL 3.3 core context, robust where the driver offers it: when a faulting
// kernel makes the GPU reset its graphics engine, a robust context is reported lost (and the
// window made again) where a plain one may end the process inside the driver.
GLFWwindow* create_window(int width, int height) {
  // On a screen smaller than the first size (a 1280x720 laptop) the window takes the screen's
  // free area, maximized so the window manager fits its frame, rather than running off it.
  int area_x = 0, area_y = 0, area_width = 0, area_height = 0;
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor())
    glfwGetMonitorWorkarea(monitor, &area_x, &area_y, &area_width, &area_height);
  const bool small_screen =
      area_width > 0 && area_height > 0 && (area_width < width || area_height < height);
  if (small_screen)
    width = std::min(width, area_width), height = std::min(height, area_height);
  glfwWindowHint(GLFW_MAXIMIZED, small_screen ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_CONTEXT_ROBUSTNESS, GLFW_LOSE_CONTEXT_ON_RESET);
  GLFWwindow* window = glfwCreateWindow(width, height, "WarpLens", nullptr, nullptr);
  if (!window) {
    glfwWindowHint(GLFW_CONTEXT_ROBUSTNESS, GLFW_NO_ROBUSTNESS);
    window = glfwCreateWindow(width, height, "WarpLens", nullptr, nullptr);
  }
  if (window) {
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
  }
  return window;
}

// Dear ImGui 1.86 sees only whether a key is down when a frame starts, so a key pressed and
// released between two frames (a quick tap while a frame is slow) would never be seen: no F12, no
// Enter in a field. The window's keys and characters therefore wait in one queue, in the order
// they came, and each frame is handed the events up to a key's second change or a release after
// a press: every press is seen by a frame with the keys then down (xdotool and fast fingers let
// Ctrl go before the A of Ctrl+A), and a character never overtakes a key typed before it
// (holding releases back alone let the Enter after "128" overtake the "8").
struct InputEvent {
  bool is_key;
  int key, scancode, action, mods;
  unsigned int character;
};
std::deque<InputEvent> g_input;

void on_character(GLFWwindow*, unsigned int character) {
  g_input.push_back({false, 0, 0, 0, 0, character});
  owe_frames();
}

void on_key(GLFWwindow*, int key, int scancode, int action, int mods) {
  g_input.push_back({true, key, scancode, action, mods, 0});
  owe_frames();
}

// Before a frame: the queued events in order, stopping where the frame would miss a change.
void hand_over_input(GLFWwindow* window) {
  std::vector<int> changed;
  bool pressed = false;
  for (; !g_input.empty(); g_input.pop_front()) {
    const InputEvent& event = g_input.front();
    if (!event.is_key) {
      ImGui_ImplGlfw_CharCallback(window, event.character);
      continue;
    }
    const bool change = event.action != GLFW_REPEAT;
    if (change && (std::ranges::find(changed, event.key) != changed.end() ||
                   (pressed && event.action == GLFW_RELEASE)))
      return; // the next frame sees it
    if (change)
      changed.push_back(event.key);
    pressed = pressed || event.action == GLFW_PRESS;
    ImGui_ImplGlfw_KeyCallback(window, event.key, event.scancode, event.action, event.mods);
  }
}

// The backends on `window`; "" or why not.
std::string start_backends(GLFWwindow* window) {
  watch_window_events(window);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  glfwSetKeyCallback(window, on_key); // in place of the backend's, which they call
  glfwSetCharCallback(window, on_character);
  // Keyboard navigation needs the backend's key map (1.86 asserts without it), so only here.
  ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  if (ImGui_ImplOpenGL3_Init("#version 330 core"))
    return "";
  ImGui_ImplGlfw_Shutdown();
  return "the OpenGL functions could not be loaded (Dear ImGui's loader opens libGL.so.1: install "
         "libgl1)";
}

void stop_backends() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
}

// The window again, where it was and as large, after its context was lost; the App keeps every
// choice and result. nullptr (with `problem` set) when no new one can be made.
GLFWwindow* remake_window(GLFWwindow* lost, std::string& problem) {
  int x = 0, y = 0, width = 0, height = 0;
  glfwGetWindowPos(lost, &x, &y);
  glfwGetWindowSize(lost, &width, &height);
  stop_backends();
  glfwDestroyWindow(lost);
  GLFWwindow* window = create_window(width, height);
  if (!window) {
    problem = "the GPU reset the window's OpenGL context and no new window could be made";
    return nullptr;
  }
  glfwSetWindowPos(window, x, y);
  problem = start_backends(window);
  if (!problem.empty()) {
    glfwDestroyWindow(window);
    return nullptr;
  }
  return window;
}

// Runs frames until the window closes, the script ends, or the process is asked to stop
// (Ctrl-C, a polite kill). Returns the window then open (another one after a context reset), or
// nullptr when none could be made again.
GLFWwindow* run_loop(GLFWwindow* window, App& app, GuiContext& gui, ScriptPlayer* player,
                     std::string& problem) {
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  while (window && !glfwWindowShouldClose(window) && !g_stop_requested &&
         !app.frame.quit_requested && !(player && player->finished())) {
    if (player)
      if (const auto size = player->take_window_size())
        glfwSetWindowSize(window, size->first, size->second);
    const bool working = player || app.sweep.running || (app.source && app.source->busy()) ||
                         (app.models && app.models->busy());
    if (!g_input.empty() || g_frames_owed > 0)
      glfwPollEvents(); // keys still queued, or a change to settle
    else
      glfwWaitEventsTimeout(working ? 0.01 : kIdleWaitSeconds);
    if (g_woken.exchange(false))
      owe_frames();
    if (!working && g_input.empty() && g_frames_owed == 0)
      continue; // nothing changed: nothing to draw
    g_frames_owed = std::max(0, g_frames_owed - 1);
    hand_over_input(window);
    const bool drawn = render_frame(window, app, gui, player);
    if (!drawn) {
      window = remake_window(window, problem);
      app.messages.status =
          "the GPU reset its graphics engine (a kernel faulted); the window was made anew";
    }
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return window;
}

} // namespace

void wake_window() {
  g_woken = true;
  glfwPostEmptyEvent();
}

SystemCheck check_display() {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  const std::string named = x11 && *x11           ? std::string("DISPLAY=") + x11
                            : wayland && *wayland ? std::string("WAYLAND_DISPLAY=") + wayland
                                                  : "";
  if (named.empty())
    return {"display", "none (DISPLAY and WAYLAND_DISPLAY are not set)",
            "the window needs a display; without one, warplens --headless (a screenshot or a "
            "--script) works"};
  if (!(x11 && *x11))
    return {"display", named,
            "this build's GLFW opens windows through X11: set DISPLAY (XWayland's, often :0), or "
            "use warplens --headless"};
  glfwSetErrorCallback(remember_glfw_error);
  if (!glfwInit())
    return {"display", named,
            "it cannot be opened (" + g_glfw_error +
                "): start the X server it names (or log in again with ssh -X), or use warplens "
                "--headless"};
  // The window the GUI would open, never shown: its OpenGL 3.3 context is the real test.
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window = create_window(64, 64);
  SystemCheck check{"display", named, ""};
  if (!window) {
    check.fix = "no window with OpenGL 3.3 can be made there: " + g_glfw_error;
  } else {
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    check.found += std::string(", OpenGL by ") + (renderer ? renderer : "an unnamed renderer");
    glfwDestroyWindow(window);
  }
  glfwTerminate();
  return check;
}

bool run_window(App& app, const std::filesystem::path& config_dir, std::string& problem,
                ScriptPlayer* player) {
  glfwSetErrorCallback(remember_glfw_error);
  if (!glfwInit()) {
    problem = g_glfw_error.empty() ? "GLFW could not start" : g_glfw_error;
    return false;
  }
  GuiContext gui(app, config_dir); // the saved settings: the launch the first request measures
  // Sent before the window is made: the worker measures while the window and its OpenGL context
  // are made, and the first frames show the model's figures.
  app.run_at_start();
  GLFWwindow* window = create_window(1440, 900);
  if (!window) {
    problem = g_glfw_error.empty() ? "no window could be created" : g_glfw_error;
    glfwTerminate();
    return false;
  }
  if (!app.choices.ui_scale_remembered) { // a first start: the monitor's content scale
    float x_scale = 1, y_scale = 1;
    glfwGetWindowContentScale(window, &x_scale, &y_scale);
    app.choices.ui_scale = std::clamp(std::max(x_scale, y_scale), 0.5f, 4.0f);
  }
  problem = start_backends(window);
  if (problem.empty()) {
    window = run_loop(window, app, gui, player, problem);
    if (window)
      stop_backends();
  }
  if (window)
    glfwDestroyWindow(window);
  glfwTerminate();
  return problem.empty();
}

} // namespace wl::viz
