#pragma once
// One frame of the whole GUI, the same for the window and the headless renderer, and the Dear
// ImGui context both front-ends set up around it.

#include "workflows/app.h"

#include <filesystem>
#include <string>

struct ImGuiContext;
struct ImGuiIO;

namespace wl::viz {

// Everything drawn in one frame: shortcuts, the menu bar, the open panels, the status line.
// Takes new results from the source first, and sends the request in live mode.
void draw_frame(App& app);

// Applies the theme's colours and WarpLens's spacing, at the UI scale, to the current context.
void apply_theme(Theme theme, float scale);

// Dear ImGui's key map set to GLFW key codes, as the GLFW backend sets it.
void map_keys_as_glfw_does(ImGuiIO& io);

// A Dear ImGui context with WarpLens's font. `config_dir` holds settings.json (empty: nothing is
// read or saved, as for headless screenshots); a damaged file is moved aside and reported in
// app.messages.status. Destroying it saves the settings.
class GuiContext {
public:
  GuiContext(App& app, std::filesystem::path config_dir);
  ~GuiContext();
  GuiContext(const GuiContext&) = delete;
  GuiContext& operator=(const GuiContext&) = delete;

  // Saves the settings when they changed (call after each frame).
  void save_if_changed();
  void save();
  // The font at the UI scale (the front-end then uploads the atlas again).
  void load_fonts(float scale);
  float font_scale() const { return m_font_scale; }

private:
  App& m_app;
  std::filesystem::path m_config_dir;
  ImGuiContext* m_context;
  std::string m_saved; // the settings as last written, to write only changes
  float m_font_scale = 0;
};

// "DejaVu Sans" or "Dear ImGui default": which font the context loaded, for the sidecar.
std::string loaded_font_name();

} // namespace wl::viz
