#include "frame.h"

#include "panels.h"
#include "settings.h"

#include <filesystem>

#include <imgui.h>
// Key codes only: in Dear ImGui 1.86 the GLFW backend fills io.KeysDown by GLFW key code, and
// F-keys, letters and digits have no ImGuiKey of their own yet.
#include <GLFW/glfw3.h>

namespace wl::viz {

namespace {

constexpr const char *kDejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr float kFontSize = 16;

bool key_pressed(int glfw_key) {
  const ImGuiIO &io = ImGui::GetIO();
  return glfw_key >= 0 && glfw_key < IM_ARRAYSIZE(io.KeysDown) && ImGui::IsKeyPressed(glfw_key, false);
}

void request_screenshot(App &app) { app.screenshot = ScreenshotRequest{}; }

// F5 run, L live, B pin baseline, F12 screenshot, 1-8 panels; letters and digits only when no text field has focus.
void handle_shortcuts(App &app) {
  if (key_pressed(GLFW_KEY_F5)) app.run();
  if (key_pressed(GLFW_KEY_F12)) request_screenshot(app);
  if (ImGui::GetIO().WantTextInput) return;
  if (key_pressed(GLFW_KEY_L)) app.live = !app.live;
  if (key_pressed(GLFW_KEY_B)) app.pin_baseline();
  for (std::size_t i = 0; i < kAllPanels.size(); ++i)
    if (key_pressed(GLFW_KEY_1 + static_cast<int>(i))) app.panel_open[i] = !app.panel_open[i];
}

void draw_menu_bar(App &app) {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("View")) {
    for (std::size_t i = 0; i < kAllPanels.size(); ++i) {
      const std::string shortcut = std::to_string(i + 1);
      ImGui::MenuItem(panel_title(kAllPanels[i]), shortcut.c_str(), &app.panel_open[i]);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Dark theme", nullptr, app.theme == Theme::dark)) app.theme = Theme::dark;
    if (ImGui::MenuItem("Light theme", nullptr, app.theme == Theme::light)) app.theme = Theme::light;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Screenshot")) {
    if (ImGui::MenuItem("Whole window", "F12")) request_screenshot(app);
    for (Panel panel : kAllPanels)
      if (ImGui::MenuItem(panel_title(panel), nullptr, false, app.open(panel)))
        app.screenshot = ScreenshotRequest{panel, ""};
    ImGui::EndMenu();
  }
  if (ImGui::MenuItem("Run", "F5")) app.run();
  ImGui::MenuItem("Live", "L", &app.live);
  ImGui::EndMainMenuBar();
}

// The mode and why, what the source is doing, and the latest message.
void draw_status_line(App &app) {
  const ImGuiViewport *viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(viewport->Pos.x, viewport->Pos.y + viewport->Size.y - kStatusBarHeight));
  ImGui::SetNextWindowSize(ImVec2(viewport->Size.x, kStatusBarHeight));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 4)); // one line of text fits the bar
  const bool visible = ImGui::Begin("##status", nullptr, flags);
  ImGui::PopStyleVar();
  if (visible) {
    if (ImGui::SmallButton("Screenshot (F12)")) request_screenshot(app);
    ImGui::SameLine();
    ImGui::TextUnformatted(app.source ? app.source->mode().c_str() : "no result source connected");
    if (app.source && app.source->busy()) {
      ImGui::SameLine();
      ImGui::TextUnformatted(" | computing...");
    }
    if (!app.status.empty()) {
      ImGui::SameLine();
      ImGui::Text(" | %s", app.status.c_str());
    }
  }
  ImGui::End();
}

} // namespace

void apply_theme(Theme theme) {
  ImGuiStyle &style = ImGui::GetStyle();
  if (theme == Theme::light) ImGui::StyleColorsLight(&style);
  else ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4;
  style.Colors[ImGuiCol_WindowBg].w = 1; // opaque: the memory maps open over other panels
  style.FrameRounding = 3;
  style.WindowPadding = ImVec2(10, 8);
  style.ItemSpacing = ImVec2(8, 5);
}

void draw_frame(App &app) {
  app.poll_source();
  apply_theme(app.theme);
  handle_shortcuts(app);
  app.run_if_live();
  draw_menu_bar(app);
  app.highlighted.clear(); // the Launch panel's note sets it again while it is hovered
  if (app.open(Panel::launch)) draw_launch(app);
  if (app.open(Panel::occupancy)) draw_occupancy(app);
  if (app.open(Panel::timings)) draw_timings(app);
  if (app.open(Panel::counters)) draw_counters(app);
  if (app.open(Panel::global_memory)) draw_global_memory(app);
  if (app.open(Panel::shared_memory)) draw_shared_memory(app);
  if (app.open(Panel::divergence)) draw_divergence(app);
  if (app.open(Panel::sweep)) draw_sweep(app);
  for (Panel panel : kAllPanels)
    if (!app.open(panel)) app.rect(panel).visible = false;
  draw_status_line(app);
}

GuiContext::GuiContext(App &app, std::filesystem::path config_dir)
    : m_app(app), m_config_dir(std::move(config_dir)), m_context(ImGui::CreateContext()) {
  ImGuiIO &io = ImGui::GetIO();
  io.IniFilename = nullptr; // read and written here, so a damaged file can be reported
  if (std::filesystem::exists(kDejaVuSans)) io.Fonts->AddFontFromFileTTF(kDejaVuSans, kFontSize);
  else io.Fonts->AddFontDefault();
  if (const std::string problem = load_settings(app, m_config_dir); !problem.empty()) app.status = problem;
  std::string layout_problem;
  const std::string layout = read_layout(m_config_dir, layout_problem);
  if (!layout_problem.empty()) app.status = layout_problem;
  if (!layout.empty()) ImGui::LoadIniSettingsFromMemory(layout.data(), layout.size());
  apply_theme(app.theme);
}

GuiContext::~GuiContext() {
  save();
  ImGui::DestroyContext(m_context);
}

void GuiContext::save_if_changed() {
  ImGuiIO &io = ImGui::GetIO();
  if (!io.WantSaveIniSettings) return;
  io.WantSaveIniSettings = false;
  save();
}

void GuiContext::save() {
  if (m_config_dir.empty()) return;
  std::string problem = write_layout(m_config_dir, ImGui::SaveIniSettingsToMemory());
  if (problem.empty()) problem = save_settings(m_app, m_config_dir);
  if (!problem.empty()) m_app.status = problem;
}

std::string loaded_font_name() {
  return std::filesystem::exists(kDejaVuSans) ? "DejaVu Sans" : "Dear ImGui default (ProggyClean)";
}

} // namespace wl::viz
