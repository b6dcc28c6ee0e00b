#pragma once
// One frame of the whole GUI, the same for the window and the headless renderer, and the Dear
// ImGui context both front-ends set up around it.

#include "app.h"

#include <filesystem>
#include <string>

struct ImGuiContext;

namespace wl::viz {

// Everything drawn in one frame: shortcuts, the menu bar, the open panels, the status line.
// Takes new results from the source first, and sends the request in live mode.
void draw_frame(App &app);

// Applies the theme's colours and WarpLens's spacing to the current context.
void apply_theme(Theme theme);

// A Dear ImGui context with WarpLens's font and layout. `config_dir` holds layout.ini and
// settings.json (empty: nothing is read or saved, as for headless screenshots); a damaged file
// is reported in app.status and replaced on the next save. Destroying it saves both.
class GuiContext {
public:
  GuiContext(App &app, std::filesystem::path config_dir);
  ~GuiContext();
  GuiContext(const GuiContext &) = delete;
  GuiContext &operator=(const GuiContext &) = delete;

  // Saves the layout when Dear ImGui says it changed (call after each frame).
  void save_if_changed();
  void save();

private:
  App &m_app;
  std::filesystem::path m_config_dir;
  ImGuiContext *m_context;
};

// "DejaVu Sans" or "Dear ImGui default": which font the context loaded, for the sidecar.
std::string loaded_font_name();

} // namespace wl::viz
