#pragma once
// The two front-ends around draw_frame: a GLFW window, and a headless EGL context that renders
// into a framebuffer object (no display needed; Mesa's software device works). Both render the
// same frame with the same OpenGL 3.3 backend, so they produce the same pixels.

#include "base/system_check.h"
#include "front_end/frame.h"
#include "front_end/screenshot.h"
#include "front_end/script.h"
#include "workflows/app.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

namespace wl::viz {

// The pixels of the current framebuffer, top row first.
Image read_framebuffer(int width, int height);

// After a frame: saves the screenshot the frame asked for, and says where (or why not) in
// app.messages.status.
void save_requested_screenshot(App& app, const Image& window);

// Whether the current OpenGL context was reset (by the GPU, after a fault anywhere on it); only
// a robust context ("lose context on reset") reports it. `lookup` finds GL functions by name.
using GlProcLookup = void (*(*)(const char*))();
bool graphics_context_lost(GlProcLookup lookup);

// Before a frame: the font rebuilt and uploaded again when the UI scale changed.
void refresh_fonts(const App& app, GuiContext& gui);

// Where a headless frame's time went, in milliseconds: building it (the panels and ImGui's draw
// lists, on the CPU), drawing it (until the GPU finished its commands) and reading its pixels
// (0 for a frame whose pixels nobody asked for).
struct FrameTimes {
  double build_ms = 0, draw_ms = 0, read_ms = 0;
};

// A GUI with no window. Throws UsageError when no EGL display gives an OpenGL 3.3 context.
class HeadlessGui {
public:
  HeadlessGui(App& app, int width, int height, std::filesystem::path config_dir = {});
  ~HeadlessGui();
  HeadlessGui(const HeadlessGui&) = delete;
  HeadlessGui& operator=(const HeadlessGui&) = delete;

  // Runs `frames` frames (windows settle after the first) and returns the last one's pixels;
  // a screenshot a frame asked for is saved on the way.
  Image render(int frames = 3);
  // One frame as a window draws it: its pixels are read only for a screenshot it asked for.
  void next_frame() { render_frame(nullptr, false); }
  // Plays a script to its end, frame by frame, and says how it ended.
  ScriptOutcome play(ScriptPlayer& player);
  void resize(int width, int height);
  // Times the GPU reset the OpenGL context (a kernel faulted on it) and the GUI drew anew.
  int context_resets() const { return m_context_resets; }
  // Frames whose pixels were drawn: only those a picture or a caller reads.
  int frames_drawn() const { return m_frames_drawn; }
  const FrameTimes& last_frame_times() const { return m_last_frame; }
  std::string renderer() const; // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  // For `warplens doctor`: whether EGL gives the OpenGL 3.3 context headless frames draw in.
  static SystemCheck check_rendering();
  std::string display_kind() const {
    return m_display_kind;
  } // "EGL device", "surfaceless", "default"

private:
  // Reads the frame's pixels back (the image returned) when `read_pixels` or a screenshot asks.
  Image render_frame(ScriptPlayer* player, bool read_pixels);
  void recover_context();
  struct Egl;
  int m_context_resets = 0;
  int m_frames_drawn = 0;
  FrameTimes m_last_frame;
  std::chrono::steady_clock::time_point m_draw_after; // frames only cleared until then
  App& m_app;
  int m_width, m_height;
  std::unique_ptr<Egl> m_egl;
  std::string m_display_kind;
  std::unique_ptr<GuiContext> m_gui; // after the GL context, before the backend
};

// For `warplens doctor`: the display, and whether the window's OpenGL 3.3 context can be made
// there (a hidden window, closed at once).
SystemCheck check_display();

// Opens a window and runs until it is closed, or until `player`'s script ends. Returns false
// (with the reason) when no window can be created, so the caller can fall back to headless.
bool run_window(App& app, const std::filesystem::path& config_dir, std::string& problem,
                ScriptPlayer* player = nullptr);

// From any thread: a result arrived, so the window draws its next frame (an idle window draws
// none).
void wake_window();

} // namespace wl::viz
