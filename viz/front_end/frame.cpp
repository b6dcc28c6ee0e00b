#include "front_end/frame.h"

#include "base/json_input.h"
#include "base/text_format.h"
#include "drawing/controls.h"
#include "drawing/widgets.h"
#include "front_end/layout.h"
#include "panels/panels.h"
#include "workflows/settings.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <time.h>

#include <imgui.h>
#include <unistd.h>
// Key codes only: in Dear ImGui 1.86 the GLFW backend fills io.KeysDown by GLFW key code, and
// F-keys, letters and digits have no ImGuiKey of their own yet.
#include <GLFW/glfw3.h>

namespace wl::viz {

namespace {

constexpr const char* kDejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr const char* kDejaVuSansMono = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf";
constexpr float kFontSize = 16;
constexpr float kCodeFontSize = 14; // as wide a character as the UI font's average: more code fits
constexpr float kSmallestScale = 0.5f, kLargestScale = 4.0f, kScaleStep = 0.25f;

bool key_pressed(int glfw_key) {
  const ImGuiIO& io = ImGui::GetIO();
  return glfw_key >= 0 && glfw_key < IM_ARRAYSIZE(io.KeysDown) &&
         ImGui::IsKeyPressed(glfw_key, false);
}

void request_screenshot(App& app) { app.frame.screenshot = ScreenshotRequest{}; }

void set_scale(App& app, float scale) {
  app.choices.ui_scale = std::clamp(scale, kSmallestScale, kLargestScale);
}

// Ctrl+= / Ctrl+- / Ctrl+0 scale the whole interface (fonts rebuilt at the new size); Ctrl+Q quits.
void handle_ctrl_keys(App& app) {
  if (!ImGui::GetIO().KeyCtrl)
    return;
  if (key_pressed(GLFW_KEY_EQUAL) || key_pressed(GLFW_KEY_KP_ADD))
    set_scale(app, app.choices.ui_scale + kScaleStep);
  if (key_pressed(GLFW_KEY_MINUS) || key_pressed(GLFW_KEY_KP_SUBTRACT))
    set_scale(app, app.choices.ui_scale - kScaleStep);
  if (key_pressed(GLFW_KEY_0) || key_pressed(GLFW_KEY_KP_0))
    set_scale(app, 1);
  if (key_pressed(GLFW_KEY_Q))
    app.frame.quit_requested = true;
}

// F5 run, L live, B pin baseline, F12 screenshot, 1-9 panels; letters and digits only when no
// text field has focus and Ctrl is up.
void handle_shortcuts(App& app) {
  if (key_pressed(GLFW_KEY_F5))
    app.run();
  if (key_pressed(GLFW_KEY_F12))
    request_screenshot(app);
  handle_ctrl_keys(app);
  if (ImGui::GetIO().WantTextInput || ImGui::GetIO().KeyCtrl)
    return;
  if (key_pressed(GLFW_KEY_L))
    app.choices.live = !app.choices.live;
  if (key_pressed(GLFW_KEY_B))
    app.pin_baseline();
  // 1-9: a panel behind another's tab comes to the front; one in sight closes; a closed one opens.
  for (std::size_t i = 0; i < std::min<std::size_t>(kAllPanels.size(), 9); ++i)
    if (key_pressed(GLFW_KEY_1 + static_cast<int>(i)))
      app.set_open(kAllPanels[i], !app.choices.panel_open[i] || !app.rect(kAllPanels[i]).visible);
}

// File's second part: the recording model mode shows, one a person made with `warplens record`
// on a GPU (a lab's, a class's) instead of the bundled one of its preset.
void draw_recording_choice(App& app) {
  ImGui::Separator();
  ImGui::TextUnformatted("Open a recording (warplens record --out FILE on a GPU): model mode "
                         "shows its figures");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 28);
  const bool entered =
      ui::input_text("recording", app.file.recording_typed.data(), app.file.recording_typed.size(),
                     ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ui::button("Use recording") || entered) && app.file.recording_typed[0] != '\0' &&
      app.open_recording(app.file.recording_typed.data()))
    ImGui::CloseCurrentPopup();
  if (!app.file.recording_problem.empty())
    error_text(app.file.recording_problem);
  if (const RecordingSlot* chosen = app.recordings.chosen()) {
    ImGui::TextDisabled("In use for %s: %s (%s)", chosen->get()->arch.c_str(),
                        clip(chosen->file().string(), 80).c_str(), chosen->get()->label().c_str());
    if (ui::menu_item("Use the bundled recordings"))
      app.use_bundled_recordings();
  }
}

// File: a path field that completes (Enter or Open opens it), and the files opened lately.
void draw_file_menu(App& app) {
  if (!ui::begin_menu("File"))
    return;
  ImGui::TextUnformatted("Open a kernel file (.cu with a // @warplens description):");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 28);
  const bool entered =
      ui::input_text("path", app.file.path_typed.data(), app.file.path_typed.size(),
                     ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ui::button("Open") || entered) && app.file.path_typed[0] != '\0' &&
      app.open_kernel_file(app.file.path_typed.data()))
    ImGui::CloseCurrentPopup();
  for (const std::string& completion : app.kernel_file_completions())
    if (ui::menu_item(completion.c_str()))
      std::snprintf(app.file.path_typed.data(), app.file.path_typed.size(), "%s",
                    completion.c_str());
  if (!app.file.open_problem.empty())
    error_text(app.file.open_problem);
  if (!app.file.recent.empty()) {
    ImGui::Separator();
    ImGui::TextDisabled("Recent");
    for (const std::string& path : std::vector<std::string>(app.file.recent))
      if (ui::menu_item(path.c_str()))
        app.open_kernel_file(path);
  }
  draw_recording_choice(app);
  ImGui::EndMenu();
}

void draw_view_menu(App& app) {
  if (!ui::begin_menu("View"))
    return;
  for (std::size_t i = 0; i < kAllPanels.size(); ++i) {
    const std::string shortcut = i < 9 ? std::to_string(i + 1) : ""; // keys 1-9
    bool open = app.choices.panel_open[i];
    if (ui::menu_item_toggle(panel_title(kAllPanels[i]), shortcut.c_str(), &open))
      app.set_open(kAllPanels[i], open);
  }
  ImGui::Separator();
  if (ui::menu_item("Reset layout")) {
    app.choices.layout = default_layout();
    for (const PanelName& row : kPanelTable)
      app.open(row.panel) = row.open_at_start;
  }
  if (ui::menu_item("Larger text", "Ctrl+="))
    set_scale(app, app.choices.ui_scale + kScaleStep);
  if (ui::menu_item("Smaller text", "Ctrl+-"))
    set_scale(app, app.choices.ui_scale - kScaleStep);
  if (ui::menu_item("Text size 100 %", "Ctrl+0"))
    set_scale(app, 1);
  ImGui::Separator();
  if (ui::menu_item("Dark theme", nullptr, app.choices.theme == Theme::dark))
    app.choices.theme = Theme::dark;
  if (ui::menu_item("Light theme", nullptr, app.choices.theme == Theme::light))
    app.choices.theme = Theme::light;
  ImGui::Separator();
  if (ui::menu_item("Quit", "Ctrl+Q"))
    app.frame.quit_requested = true;
  ImGui::EndMenu();
}

void draw_menu_bar(App& app) {
  if (!ImGui::BeginMainMenuBar())
    return;
  draw_file_menu(app);
  draw_view_menu(app);
  if (ui::begin_menu("Screenshot")) {
    if (ui::menu_item("Whole window", "F12"))
      request_screenshot(app);
    for (Panel panel : kAllPanels)
      if (ui::menu_item(panel_title(panel), nullptr, false, app.open(panel)))
        app.frame.screenshot = ScreenshotRequest{panel, ""};
    ImGui::EndMenu();
  }
  if (ui::menu_item("Run", "F5"))
    app.run();
  ui::menu_item_toggle("Live", "L", &app.choices.live);
  ImGui::EndMainMenuBar();
}

// As much of `text` as fits `width`, cut after a whole word where one fits, ending in "..."
// where it was cut (and noted as shortened for a screenshot's sidecar).
std::string fitted(const std::string& text, float width) {
  if (ImGui::CalcTextSize(text.c_str()).x <= width)
    return text;
  note_shortened(text);
  // The font says where a line `width` wide, less the dots, stops.
  const float room = std::max(0.0f, width - ImGui::CalcTextSize(" ...").x);
  const char* stop = text.c_str();
  ImGui::GetFont()->CalcTextSizeA(ImGui::GetFontSize(), room, 0.0f, text.c_str(), nullptr, &stop);
  std::string kept = text.substr(0, static_cast<std::size_t>(stop - text.c_str()));
  if (const auto space = kept.find_last_of(' '); space != std::string::npos && space > 0)
    kept.erase(space);
  while (!kept.empty() && (kept.back() == ',' || kept.back() == ':' || kept.back() == ';'))
    kept.pop_back();
  return kept + " ...";
}

// The mode, short, what the source is doing, and the latest message as far as the line has room;
// the whole texts on hover. A saved file's path comes with a button that copies it.
void draw_status_line(App& app) {
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  const float height = status_bar_height();
  ImGui::SetNextWindowPos(ImVec2(viewport->Pos.x, viewport->Pos.y + viewport->Size.y - height));
  ImGui::SetNextWindowSize(ImVec2(viewport->Size.x, height));
  const ImGuiWindowFlags flags =
      ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
      ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                      ImVec2(8 * app.choices.ui_scale, 4 * app.choices.ui_scale));
  const bool visible = ImGui::Begin("##status", nullptr, flags);
  ImGui::PopStyleVar();
  if (visible) {
    // Ended before End(): ending a top-level window ends ImGui's log with it.
    WordsOnScreen words(app.frame.screenshot.has_value(), app.frame.status_line_text);
    if (ui::small_button("Screenshot (F12)"))
      request_screenshot(app);
    ImGui::SameLine();
    const std::string mode =
        screen_text(app.source ? app.source->mode() : "no result source connected");
    // The whole mode where the line has room; where a message shares the line, the message
    // first (a settings problem's reason is what the person must read), the mode in what is left
    // but at least a quarter of the line.
    const float line = ImGui::GetContentRegionAvail().x;
    const float message_width =
        app.messages.status.empty()
            ? 0
            : ImGui::CalcTextSize(("| " + screen_text(app.messages.status)).c_str()).x +
                  2 * ImGui::GetStyle().ItemSpacing.x;
    const float saved_width = app.messages.last_saved_path.empty() ? 0 : line * 0.55f;
    const float mode_room = std::max(line * 0.25f, line - message_width - saved_width);
    const std::string mode_shown = fitted(mode, mode_room);
    ImGui::TextUnformatted(mode_shown.c_str());
    if (mode_shown != mode && ImGui::IsItemHovered())
      hover_text(mode);
    if (app.source && app.source->busy()) {
      ImGui::SameLine();
      ImGui::TextUnformatted("| computing...");
    }
    if (!app.messages.status.empty()) {
      ImGui::SameLine();
      ImGui::TextUnformatted("|");
      ImGui::SameLine();
      const float path_room =
          app.messages.last_saved_path.empty() ? 0 : ImGui::GetContentRegionAvail().x * 0.4f;
      ImGui::TextUnformatted(
          fitted(screen_text(app.messages.status), ImGui::GetContentRegionAvail().x - path_room)
              .c_str());
      if (ImGui::IsItemHovered())
        hover_text(app.messages.status);
    }
    if (!app.messages.last_saved_path
             .empty()) { // the path, its start cut where the line is short, and a copy button
      ImGui::SameLine();
      const float button =
          ImGui::CalcTextSize("Copy path").x + 4 * ImGui::GetStyle().FramePadding.x;
      const float room =
          ImGui::GetContentRegionAvail().x - button - 2 * ImGui::GetStyle().ItemSpacing.x;
      std::string shown = "| saved " + screen_text(app.messages.last_saved_path);
      while (shown.size() > 12 && ImGui::CalcTextSize(shown.c_str()).x > room)
        shown = "| saved ..." + shown.substr(12);
      ImGui::TextUnformatted(shown.c_str());
      if (ImGui::IsItemHovered())
        hover_text(app.messages.last_saved_path);
      ImGui::SameLine();
      if (ui::small_button("Copy path"))
        ImGui::SetClipboardText(app.messages.last_saved_path.c_str());
    }
  }
  ImGui::End();
}

// Seconds since this process began (its exec), from the kernel's record of its start; -1 where
// that cannot be read.
double seconds_since_process_start() {
  std::ifstream stat("/proc/self/stat");
  std::string text;
  std::getline(stat, text);
  // Field 22, counted after the command's name, which may hold spaces and ends at the last ')'.
  const std::size_t name_end = text.rfind(')');
  if (name_end == std::string::npos)
    return -1;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i)
    fields >> field;
  timespec now{};
  const long ticks = sysconf(_SC_CLK_TCK);
  if (!fields || ticks <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
    return -1;
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9 -
         std::stod(field) / static_cast<double>(ticks);
}

void note_first_measured_figures(App& app) {
  const auto& latest = app.results.latest;
  if (!app.frame.first_measured_figures_at && latest && latest->timing &&
      latest->recorded_on.empty())
    app.frame.first_measured_figures_at = seconds_since_process_start();
}

} // namespace

void apply_theme(Theme theme, float scale) {
  ImGuiStyle style;
  if (theme == Theme::light)
    ImGui::StyleColorsLight(&style);
  else
    ImGui::StyleColorsDark(&style);
  style.WindowRounding = 4;
  style.Colors[ImGuiCol_WindowBg].w = 1;
  style.Colors[ImGuiCol_PopupBg].w = 1; // a menu or list over text must not let the text through
  style.FrameRounding = 3;
  style.WindowPadding = ImVec2(10, 8);
  style.ItemSpacing = ImVec2(8, 5);
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

void draw_frame(App& app) {
  begin_controls_frame();
  app.poll_source();
  app.follow_kernel_file();
  app.follow_lesson();
  apply_theme(app.choices.theme, app.choices.ui_scale);
  handle_shortcuts(app);
  if (app.frame.screenshot && app.frame.screenshot->panel)
    app.show_panel(*app.frame.screenshot->panel); // its tab in front
  app.follow_edits();
  app.run_if_live();
  draw_menu_bar(app);
  app.frame.highlighted.clear(); // the Launch panel's note sets it again while it is hovered
  if (const LessonStep* step = app.lessons.current()) // the panel the step points at
    if (const std::optional<Panel> panel = parse_panel(step->show))
      app.frame.highlighted.push_back(*panel);
  draw_tiled_panels(app);
  draw_status_line(app);
  note_first_measured_figures(app);
}

GuiContext::GuiContext(App& app, std::filesystem::path config_dir)
    : m_app(app), m_config_dir(std::move(config_dir)), m_context(ImGui::CreateContext()) {
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr; // the layout is WarpLens's own, kept in settings.json
  map_keys_as_glfw_does(io);
  if (const std::string problem = load_settings(app, m_config_dir); !problem.empty())
    app.messages.status = problem;
  m_saved = settings_text(app);
  load_fonts(app.choices.ui_scale);
  apply_theme(app.choices.theme, app.choices.ui_scale);
}

GuiContext::~GuiContext() {
  save();
  ImGui::DestroyContext(m_context);
}

void GuiContext::load_fonts(float scale) {
  ImFontAtlas& fonts = *ImGui::GetIO().Fonts;
  fonts.Clear();
  if (std::filesystem::exists(kDejaVuSans))
    fonts.AddFontFromFileTTF(kDejaVuSans, std::round(kFontSize * scale));
  else {
    ImFontConfig config;
    config.SizePixels = std::round(13 * scale);
    fonts.AddFontDefault(&config);
  }
  // The Source panel's code, its columns as they were written; the first font stays the default.
  if (std::filesystem::exists(kDejaVuSansMono))
    fonts.AddFontFromFileTTF(kDejaVuSansMono, std::round(kCodeFontSize * scale));
  fonts.Build();
  m_font_scale = scale;
}

void GuiContext::save_if_changed() {
  if (m_config_dir.empty() || settings_text(m_app) == m_saved)
    return;
  save();
}

void GuiContext::save() {
  if (m_config_dir.empty())
    return;
  merge_saved_progress(m_app, m_config_dir); // what `warplens lesson try` saved meanwhile
  if (const std::string problem = save_settings(m_app, m_config_dir); !problem.empty())
    m_app.messages.status = problem;
  m_saved = settings_text(m_app);
}

void map_keys_as_glfw_does(ImGuiIO& io) {
  // Dear ImGui 1.86 reads keys through io.KeyMap; the GLFW backend maps them to GLFW key codes,
  // and so does the headless front-end, so the shortcuts and scripted keys are the same in both.
  const std::pair<ImGuiKey_, int> keys[] = {{ImGuiKey_Tab, GLFW_KEY_TAB},
                                            {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
                                            {ImGuiKey_RightArrow, GLFW_KEY_RIGHT},
                                            {ImGuiKey_UpArrow, GLFW_KEY_UP},
                                            {ImGuiKey_DownArrow, GLFW_KEY_DOWN},
                                            {ImGuiKey_PageUp, GLFW_KEY_PAGE_UP},
                                            {ImGuiKey_PageDown, GLFW_KEY_PAGE_DOWN},
                                            {ImGuiKey_Home, GLFW_KEY_HOME},
                                            {ImGuiKey_End, GLFW_KEY_END},
                                            {ImGuiKey_Insert, GLFW_KEY_INSERT},
                                            {ImGuiKey_Delete, GLFW_KEY_DELETE},
                                            {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
                                            {ImGuiKey_Space, GLFW_KEY_SPACE},
                                            {ImGuiKey_Enter, GLFW_KEY_ENTER},
                                            {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
                                            {ImGuiKey_KeyPadEnter, GLFW_KEY_KP_ENTER},
                                            {ImGuiKey_A, GLFW_KEY_A},
                                            {ImGuiKey_C, GLFW_KEY_C},
                                            {ImGuiKey_V, GLFW_KEY_V},
                                            {ImGuiKey_X, GLFW_KEY_X},
                                            {ImGuiKey_Y, GLFW_KEY_Y},
                                            {ImGuiKey_Z, GLFW_KEY_Z}};
  for (const auto& [key, code] : keys)
    io.KeyMap[key] = code;
}

std::string loaded_font_name() {
  return std::filesystem::exists(kDejaVuSans) ? "DejaVu Sans" : "Dear ImGui default (ProggyClean)";
}

} // namespace wl::viz
