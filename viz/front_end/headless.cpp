// Headless rendering: an EGL display with no window system (an EGL device, else Mesa's
// surfaceless platform, else the default display), an OpenGL 3.3 core context with no surface,
// and a framebuffer object to draw into. Screenshots, GUI tests and GPU servers use it.

#include "base/error.h"
#include "front_end/front_end.h"
#include "front_end/screenshot.h"

#include <chrono>
#include <thread>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

namespace wl::viz {

namespace {

constexpr const char* kGlslVersion = "#version 330 core";

// An OpenGL 3.3 core context on `display`, current with no surface; EGL_NO_CONTEXT on failure.
// A robust context (reset notification "lose context on reset") where the driver offers one:
// when a faulting kernel makes the GPU reset its graphics engine, such a context is reported
// lost and drawn again, where a plain one may end the process inside the driver.
EGLContext make_context(EGLDisplay display, bool& robust) {
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor))
    return EGL_NO_CONTEXT;
  if (!eglBindAPI(EGL_OPENGL_API))
    return EGL_NO_CONTEXT;
  // Drawing goes to a framebuffer object, but a config needs some surface type: pbuffers are
  // what device and surfaceless displays offer (the default, window, they do not).
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE,
                                      EGL_PBUFFER_BIT,
                                      EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_ALPHA_SIZE,
                                      8,
                                      EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!eglChooseConfig(display, config_attributes, &config, 1, &count) || count == 0)
    return EGL_NO_CONTEXT;
  // EGL 1.5's names for a robust context, then the extension's, then a plain context.
  constexpr EGLint kCore = EGL_CONTEXT_OPENGL_PROFILE_MASK,
                   kCoreBit = EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT;
  const EGLint attempts[3][11] = {
      {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, kCore, kCoreBit,
       EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY, EGL_LOSE_CONTEXT_ON_RESET, EGL_NONE},
      {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, kCore, kCoreBit,
       EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT, EGL_TRUE,
       EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT, EGL_LOSE_CONTEXT_ON_RESET_EXT, EGL_NONE},
      {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, kCore, kCoreBit, EGL_NONE}};
  EGLContext context = EGL_NO_CONTEXT;
  for (const EGLint* attributes : attempts)
    if ((context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes)) != EGL_NO_CONTEXT)
      break;
  if (context == EGL_NO_CONTEXT)
    return EGL_NO_CONTEXT;
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    eglDestroyContext(display, context);
    return EGL_NO_CONTEXT;
  }
  GLint strategy = 0; // what the context does on a reset, as the driver made it
  glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY, &strategy);
  glGetError(); // a context without robustness may not know the query
  robust = strategy == GL_LOSE_CONTEXT_ON_RESET;
  return context;
}

} // namespace

struct HeadlessGui::Egl {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  bool robust = false;
  GLuint framebuffer = 0, colour = 0;

  bool try_display(EGLDisplay candidate) {
    if (candidate == EGL_NO_DISPLAY)
      return false;
    context = make_context(candidate, robust);
    if (context == EGL_NO_CONTEXT) {
      eglTerminate(candidate);
      return false;
    }
    display = candidate;
    return true;
  }

  // Device first (a real GPU's driver, or Mesa's software device), then surfaceless, then default.
  std::string open() {
    const auto query_devices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    const auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (query_devices && platform_display) {
      EGLDeviceEXT devices[8];
      EGLint count = 0;
      if (query_devices(8, devices, &count))
        for (EGLint i = 0; i < count; ++i)
          if (try_display(platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr)))
            return "EGL device";
    }
    if (platform_display &&
        try_display(platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr)))
      return "surfaceless";
    if (try_display(eglGetDisplay(EGL_DEFAULT_DISPLAY)))
      return "default display";
    return "";
  }

  // After a reset the context and everything in it are gone, and on NVIDIA's driver so is the
  // display's own state: a new context on the old display faults on its first draw (reading
  // address 0), which resets the engine again and takes the worker's CUDA context with it. So
  // the display is closed and opened again, after a pause that lets the driver finish its
  // recovery.
  bool reopen(int width, int height, std::chrono::milliseconds pause) {
    close();
    std::this_thread::sleep_for(pause);
    if (open().empty())
      return false;
    make_framebuffer(width, height);
    return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  }

  // Without GL calls: after a reset the context takes none, and the names die with it.
  void close() {
    if (display == EGL_NO_DISPLAY)
      return;
    eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display, context);
    eglTerminate(display);
    display = EGL_NO_DISPLAY;
    context = EGL_NO_CONTEXT;
    framebuffer = colour = 0;
  }

  void resize_framebuffer(int width, int height) {
    glBindRenderbuffer(GL_RENDERBUFFER, colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  }

  void make_framebuffer(int width, int height) {
    glGenRenderbuffers(1, &colour);
    glBindRenderbuffer(GL_RENDERBUFFER, colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenFramebuffers(1, &framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
  }

  ~Egl() {
    if (display == EGL_NO_DISPLAY)
      return;
    if (framebuffer)
      glDeleteFramebuffers(1, &framebuffer);
    if (colour)
      glDeleteRenderbuffers(1, &colour);
    close();
  }
};

HeadlessGui::HeadlessGui(App& app, int width, int height, std::filesystem::path config_dir)
    : m_app(app), m_width(width), m_height(height), m_egl(std::make_unique<Egl>()) {
  if (width < 1 || height < 1 || width > 8192 || height > 8192)
    throw UsageError("headless size " + std::to_string(width) + "x" + std::to_string(height) +
                     " is out of range; allowed 1 to 8192 on each side");
  m_display_kind = m_egl->open();
  if (!m_display_kind.empty() && m_egl->robust)
    m_display_kind += ", robust context";
  if (m_display_kind.empty())
    throw UsageError("no EGL display offers an OpenGL 3.3 context (install libegl-mesa0 for "
                     "software rendering)");
  m_egl->make_framebuffer(width, height);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw UsageError("the headless framebuffer is incomplete on " + renderer());
  m_gui = std::make_unique<GuiContext>(app, std::move(config_dir));
  if (!ImGui_ImplOpenGL3_Init(kGlslVersion)) {
    m_gui.reset();
    throw UsageError(std::string("the OpenGL functions could not be loaded on ") + m_display_kind +
                     " (Dear ImGui's loader opens libGL.so.1: install libgl1)");
  }
}

HeadlessGui::~HeadlessGui() {
  if (m_gui)
    ImGui_ImplOpenGL3_Shutdown();
  m_gui.reset();
}

Image HeadlessGui::render(int frames) {
  Image image;
  for (int frame = 0; frame < frames; ++frame)
    image = render_frame(nullptr, frame == frames - 1);
  return image;
}

Image HeadlessGui::render_frame(ScriptPlayer* player, bool read_pixels) {
  using Clock = std::chrono::steady_clock;
  const auto ms_between = [](Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  const auto start = Clock::now();
  refresh_fonts(m_app, *m_gui);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(m_width), static_cast<float>(m_height));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = 1.0f / 60;
  ImGui_ImplOpenGL3_NewFrame();
  if (player)
    player->feed_input(io);
  ImGui::NewFrame();
  draw_frame(m_app);
  ImGui::Render();
  const auto built = Clock::now();
  // No one sees a headless frame but its picture: the pixels are drawn only for a screenshot or a
  // caller that reads them. Software rendering cost a tenth of a second a frame, so a script of
  // 10,000 lines took twenty minutes drawing frames nobody saw.
  const bool wanted = read_pixels || m_app.frame.screenshot.has_value();
  const bool drawn = wanted && Clock::now() >= m_draw_after;
  if (wanted) {
    glViewport(0, 0, m_width, m_height);
    const ImVec4 clear = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    glClearColor(clear.x * 0.8f, clear.y * 0.8f, clear.z * 0.8f, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    if (drawn) {
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      ++m_frames_drawn;
    }
    glFinish();
  }
  const auto finished = Clock::now();
  if (m_egl->robust && graphics_context_lost(eglGetProcAddress)) {
    recover_context();
    return render_frame(player, read_pixels);
  }
  // 5 MB a frame, read only for a picture.
  Image image = wanted ? read_framebuffer(m_width, m_height) : Image{};
  m_last_frame = {ms_between(start, built), ms_between(built, finished),
                  ms_between(finished, Clock::now())};
  if (drawn) // a screenshot asked for in a cleared frame waits for the next drawn one
    save_requested_screenshot(m_app, image);
  m_gui->save_if_changed();
  if (player)
    player->after_frame(m_app);
  return image;
}

ScriptOutcome HeadlessGui::play(ScriptPlayer& player) {
  while (!player.finished()) {
    if (const auto size = player.take_window_size())
      resize(size->first, size->second);
    render_frame(&player, false);
    // Waiting on the models or the worker: frames need not come faster than a screen's (software
    // rendering costs a core per frame).
    // A `sleep` of a millisecond pauses a millisecond, not a 30 ms frame.
    if (player.waiting() || (m_app.source && m_app.source->busy()))
      std::this_thread::sleep_for(player.waiting() ? player.pause(std::chrono::milliseconds(30))
                                                   : std::chrono::milliseconds(10));
  }
  return *player.outcome();
}

// The App keeps every choice and result; only the drawing state is made again, after a pause
// that lets the driver finish its recovery. For a second after, frames are cleared but not
// drawn: buffers the driver cannot yet back leave a draw reading address 0, which faults and
// resets the engine again (and with it the worker's CUDA context).
void HeadlessGui::recover_context() {
  ImGui_ImplOpenGL3_Shutdown();
  if (!m_egl->reopen(m_width, m_height, std::chrono::milliseconds(250)) ||
      !ImGui_ImplOpenGL3_Init(kGlslVersion))
    throw UsageError("the GPU reset the GUI's OpenGL context and no new one could be made");
  ++m_context_resets;
  m_draw_after = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  m_app.messages.status =
      "the GPU reset its graphics engine (a kernel faulted); the window was drawn anew";
}

void HeadlessGui::resize(int width, int height) {
  m_width = width;
  m_height = height;
  m_egl->resize_framebuffer(width, height);
}

SystemCheck HeadlessGui::check_rendering() {
  Egl egl;
  const std::string how = egl.open();
  if (how.empty())
    return {"EGL", "no OpenGL 3.3 context (EGL device, surfaceless or default display)",
            "headless screenshots and scripts need EGL with OpenGL 3.3: the NVIDIA driver's, or "
            "Mesa's software one (Debian: libegl1 and libegl-mesa0)"};
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer = name ? name : "an unnamed renderer";
  const bool software = renderer.find("llvmpipe") != std::string::npos ||
                        renderer.find("softpipe") != std::string::npos;
  SystemCheck check{
      "EGL", renderer + " (" + how + (software ? ", software rendering on the CPU" : "") + ")", ""};
  egl.close();
  return check;
}

std::string HeadlessGui::renderer() const {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  return name ? name : "unknown renderer";
}

Image read_framebuffer(int width, int height) {
  Image image{width, height,
              std::vector<unsigned char>(static_cast<std::size_t>(width) * height * 4)};
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  const std::size_t row = static_cast<std::size_t>(width) * 4;
  std::vector<unsigned char> swap(row);
  for (int y = 0; y < height / 2; ++y) { // OpenGL's first row is the bottom one
    unsigned char* top = image.rgba.data() + y * row;
    unsigned char* bottom = image.rgba.data() + (height - 1 - y) * row;
    std::copy(top, top + row, swap.data());
    std::copy(bottom, bottom + row, top);
    std::copy(swap.data(), swap.data() + row, bottom);
  }
  for (std::size_t i = 3; i < image.rgba.size(); i += 4)
    image.rgba[i] = 255; // opaque PNGs
  return image;
}

bool graphics_context_lost(GlProcLookup lookup) {
  using ResetStatus = GLenum (*)();
  static const auto reset_status = [&] {
    for (const char* name :
         {"glGetGraphicsResetStatus", "glGetGraphicsResetStatusKHR", "glGetGraphicsResetStatusARB"})
      if (const auto function = reinterpret_cast<ResetStatus>(lookup(name)))
        return function;
    return ResetStatus{};
  }();
  return reset_status && reset_status() != GL_NO_ERROR;
}

void refresh_fonts(const App& app, GuiContext& gui) {
  if (gui.font_scale() == app.choices.ui_scale)
    return;
  gui.load_fonts(app.choices.ui_scale);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
}

void save_requested_screenshot(App& app, const Image& window) {
  if (!app.frame.screenshot ||
      (app.frame.screenshot->panel && ++app.frame.screenshot->frames_drawn < kPanelPictureFrames))
    return;
  const ScreenshotRequest request = *app.frame.screenshot;
  app.frame.screenshot.reset();
  try {
    app.messages.last_screenshot_path = save_screenshot(app, window, request).string();
    app.messages.last_saved_path = app.messages.last_screenshot_path;
    // The status line shows "saved PATH" itself; an earlier message (a settings problem) stays,
    // an earlier failure to save does not.
    if (app.messages.status.starts_with("screenshot not saved") ||
        app.messages.status.starts_with("screenshot cut"))
      app.messages.status.clear();
    // Saved in the fallback folder, because the desktop's pictures folder is none: said.
    const std::string fallback = request.path.empty() && app.choices.screenshot_dir.empty()
                                     ? pictures_folder().fallback_reason
                                     : std::string();
    if (!fallback.empty())
      app.messages.status = "screenshot saved: " + fallback;
    note_save(app, saved_note(app.messages.last_screenshot_path,
                              fallback.empty()
                                  ? taken_name_note(request.path, app.messages.last_screenshot_path)
                                  : fallback));
    // A panel taller than the window is saved as far as the window shows it: said, with how much.
    if (request.panel) {
      const PanelRect& rect = app.frame.panel_rects[static_cast<int>(*request.panel)];
      if (rect.content_height > rect.height + 1)
        app.messages.status = "screenshot cut: the " + std::string(panel_title(*request.panel)) +
                              " panel is " + std::to_string(static_cast<int>(rect.content_height)) +
                              " px tall and the picture holds its first " +
                              std::to_string(static_cast<int>(rect.height)) +
                              " px; a larger window (or a smaller scale, Ctrl+-) takes it whole";
    }
  } catch (const std::exception& e) { // a UsageError, or a file system refusing the name
    app.messages.status = std::string("screenshot not saved: ") + e.what();
    note_save(app, app.messages.status);
  }
}

} // namespace wl::viz
