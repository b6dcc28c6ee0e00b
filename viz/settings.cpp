#include "settings.h"

#include "registry.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace wl::viz {

namespace {

using nlohmann::json;

constexpr const char *kSettingsFile = "settings.json";
constexpr const char *kLayoutFile = "layout.ini";

std::string read_text(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string write_text(const std::filesystem::path &dir, const char *name, const std::string &text) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::filesystem::path file = dir / name;
  // Write beside, then rename, so a crash mid-write never leaves half a file.
  const std::filesystem::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return "cannot write " + temporary.string();
  }
  std::filesystem::rename(temporary, file, error);
  return error ? "cannot write " + file.string() + ": " + error.message() : "";
}

// The fields are applied one by one, each only if it makes sense now (a kernel may be gone).
void apply(App &app, const json &j) {
  if (j.contains("kernel") && j["kernel"].is_string()) app.select_kernel(j["kernel"].get<std::string>());
  if (j.contains("params") && j["params"].is_object())
    for (auto &[name, value] : j["params"].items())
      if (app.params.contains(name) && value.is_number_integer()) app.params[name] = value.get<std::int64_t>();
  if (j.contains("block") && j["block"].is_array() && j["block"].size() == 3)
    for (int i = 0; i < 3; ++i)
      if (j["block"][i].is_number_integer()) app.block_sides[i] = j["block"][i].get<int>();
  if (j.contains("arch") && j["arch"].is_string()) app.select_arch(j["arch"].get<std::string>());
  if (j.contains("live") && j["live"].is_boolean()) app.live = j["live"].get<bool>();
  if (j.contains("theme") && j["theme"].is_string()) app.theme = j["theme"] == "light" ? Theme::light : Theme::dark;
  if (j.contains("panels") && j["panels"].is_object())
    for (Panel panel : kAllPanels)
      if (j["panels"].contains(panel_name(panel)) && j["panels"][panel_name(panel)].is_boolean())
        app.open(panel) = j["panels"][panel_name(panel)].get<bool>();
}

// One line of an ImGui ini: blank, a "[Type][Name]" header, or "Key=Value".
bool plausible_ini_line(const std::string &line) {
  if (line.empty() || line == "\r") return true;
  for (unsigned char c : line)
    if (c < 0x20 && c != '\t' && c != '\r') return false;
  if (line.front() == '[') return line.find("][") != std::string::npos && line.find_last_of(']') > line.find("][");
  return line.find('=') != std::string::npos && line.front() != '=';
}

} // namespace

std::filesystem::path default_config_dir() {
  if (const char *xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "warplens";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".config" / "warplens";
  return {};
}

std::string load_settings(App &app, const std::filesystem::path &dir) {
  const std::filesystem::path file = dir / kSettingsFile;
  if (dir.empty() || !std::filesystem::exists(file)) return "";
  const json j = json::parse(read_text(file), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return "settings file " + file.string() + " is not valid JSON; using the defaults";
  App fallback = app;
  try {
    apply(app, j);
  } catch (const std::exception &) { // a value of the wrong type deep inside: keep the defaults
    app = std::move(fallback);
    return "settings file " + file.string() + " has unexpected values; using the defaults";
  }
  return "";
}

std::string save_settings(const App &app, const std::filesystem::path &dir) {
  if (dir.empty()) return "";
  json panels = json::object();
  for (Panel panel : kAllPanels) panels[panel_name(panel)] = app.panel_open[static_cast<int>(panel)];
  const json j = {{"kernel", app.kernel_id},  {"params", app.params},
                  {"block", app.block_sides}, {"arch", app.arch().id},
                  {"live", app.live},         {"theme", app.theme == Theme::light ? "light" : "dark"},
                  {"panels", panels}};
  return write_text(dir, kSettingsFile, j.dump(2) + "\n");
}

std::string read_layout(const std::filesystem::path &dir, std::string &problem) {
  const std::filesystem::path file = dir / kLayoutFile;
  if (dir.empty() || !std::filesystem::exists(file)) return "";
  const std::string text = read_text(file);
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (!plausible_ini_line(line)) {
      problem = "layout file " + file.string() + " is damaged at line " + std::to_string(number) +
                "; using the default layout";
      return "";
    }
  }
  return text;
}

std::string write_layout(const std::filesystem::path &dir, const std::string &ini_text) {
  if (dir.empty()) return "";
  return write_text(dir, kLayoutFile, ini_text);
}

} // namespace wl::viz
