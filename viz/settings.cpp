#include "settings.h"

#include "registry.h"
#include "screenshot.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

namespace wl::viz {

namespace {

using nlohmann::json;

constexpr const char* kSettingsFile = "settings.json";
constexpr std::array kTileKeys = {"left", "top_left", "top_right", "bottom"};

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

float fraction_or(const json& j, const char* key, float fallback) {
  if (!j.contains(key) || !j[key].is_number())
    return fallback;
  const double value = j[key].get<double>();
  return value >= 0.15 && value <= 0.85 ? static_cast<float>(value) : fallback;
}

std::optional<Tile> parse_tile(const json& value) {
  if (!value.is_string())
    return std::nullopt;
  for (std::size_t i = 0; i < kTileKeys.size(); ++i)
    if (value.get<std::string>() == kTileKeys[i])
      return static_cast<Tile>(i);
  return std::nullopt;
}

void apply_layout(App& app, const json& j) {
  Layout layout = default_layout();
  layout.left_width = fraction_or(j, "left_width", layout.left_width);
  layout.top_height = fraction_or(j, "top_height", layout.top_height);
  layout.top_split = fraction_or(j, "top_split", layout.top_split);
  if (j.contains("tiles") && j["tiles"].is_object())
    for (Panel panel : kAllPanels)
      if (j["tiles"].contains(panel_name(panel)))
        if (const std::optional<Tile> tile = parse_tile(j["tiles"][panel_name(panel)]))
          layout.tile[static_cast<int>(panel)] = *tile;
  app.layout = layout;
}

// The fields are applied one by one, each only if it makes sense now (a kernel may be gone).
void apply(App& app, const json& j) {
  if (j.contains("kernel") && j["kernel"].is_string())
    app.select_kernel(j["kernel"].get<std::string>());
  if (j.contains("params") && j["params"].is_object())
    for (auto& [name, value] : j["params"].items())
      if (app.params.contains(name) && value.is_number_integer())
        app.params[name] = value.get<std::int64_t>();
  if (j.contains("block") && j["block"].is_array() && j["block"].size() == 3 &&
      std::all_of(j["block"].begin(), j["block"].end(), [](const json& side) {
        return side.is_number_integer() && side.get<std::int64_t>() >= 1 &&
               side.get<std::int64_t>() <= 1 << 20;
      }))
    app.set_block({j["block"][0].get<int>(), j["block"][1].get<int>(), j["block"][2].get<int>()});
  if (j.contains("arch") && j["arch"].is_string())
    app.select_arch(j["arch"].get<std::string>());
  if (j.contains("live") && j["live"].is_boolean())
    app.live = j["live"].get<bool>();
  if (j.contains("theme") && j["theme"].is_string())
    app.theme = j["theme"] == "light" ? Theme::light : Theme::dark;
  if (j.contains("ui_scale") && j["ui_scale"].is_number()) {
    const double scale = j["ui_scale"].get<double>();
    if (scale >= 0.5 && scale <= 4) {
      app.ui_scale = static_cast<float>(scale);
      app.ui_scale_remembered = true;
    }
  }
  if (j.contains("panels") && j["panels"].is_object())
    for (Panel panel : kAllPanels)
      if (j["panels"].contains(panel_name(panel)) && j["panels"][panel_name(panel)].is_boolean())
        app.open(panel) = j["panels"][panel_name(panel)].get<bool>();
  if (j.contains("layout") && j["layout"].is_object())
    apply_layout(app, j["layout"]);
  if (j.contains("screenshot_dir") && j["screenshot_dir"].is_string())
    app.screenshot_dir = j["screenshot_dir"].get<std::string>();
}

// A damaged settings file goes aside under a new name, so saving the defaults loses nothing.
std::string move_aside(const std::filesystem::path& file, const std::string& why) {
  const std::filesystem::path aside = file.string() + ".bad-" + local_time("%Y%m%d-%H%M%S");
  std::error_code error;
  std::filesystem::rename(file, aside, error);
  if (error)
    return "settings file " + file.string() + " " + why + "; it could not be moved aside (" +
           error.message() + "), so settings will not be saved this session";
  return "settings file " + file.string() + " " + why + "; kept as " + aside.string() +
         ", using the defaults";
}

json layout_json(const Layout& layout) {
  json tiles = json::object();
  for (Panel panel : kAllPanels)
    tiles[panel_name(panel)] = kTileKeys[static_cast<int>(layout.tile[static_cast<int>(panel)])];
  return {{"left_width", layout.left_width},
          {"top_height", layout.top_height},
          {"top_split", layout.top_split},
          {"tiles", tiles}};
}

} // namespace

std::filesystem::path default_config_dir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "warplens";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".config" / "warplens";
  return {};
}

std::string load_settings(App& app, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kSettingsFile;
  std::error_code error;
  if (dir.empty() || !std::filesystem::exists(file, error))
    return "";
  if (!std::filesystem::is_regular_file(file, error)) {
    app.settings_writable = false; // never replace what the user put there
    return "settings file " + file.string() +
           " is not a regular file; using the defaults and saving nothing";
  }
  const json j = json::parse(read_text(file), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    const std::string problem = move_aside(file, "is not valid JSON");
    if (problem.find("could not be moved") != std::string::npos)
      app.settings_writable = false;
    return problem;
  }
  App fallback = app;
  try {
    apply(app, j);
  } catch (const std::exception&) { // a value of the wrong type deep inside: keep the defaults
    app = std::move(fallback);
    return move_aside(file, "has unexpected values");
  }
  return "";
}

std::string settings_text(const App& app) {
  json panels = json::object();
  for (Panel panel : kAllPanels)
    panels[panel_name(panel)] = app.panel_open[static_cast<int>(panel)];
  const json j = {{"kernel", app.kernel_id},
                  {"params", app.params},
                  {"block", app.block_sides},
                  {"arch", app.arch().id},
                  {"live", app.live},
                  {"theme", app.theme == Theme::light ? "light" : "dark"},
                  {"ui_scale", app.ui_scale},
                  {"panels", panels},
                  {"layout", layout_json(app.layout)},
                  {"screenshot_dir", app.screenshot_dir.string()}};
  return j.dump(2) + "\n";
}

std::string save_settings(const App& app, const std::filesystem::path& dir) {
  if (dir.empty() || !app.settings_writable)
    return "";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  return write_file_atomically(dir / kSettingsFile, settings_text(app));
}

std::string write_file_atomically(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path temporary = file.string() + ".tmp";
  std::error_code error;
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::filesystem::remove(temporary, error);
      return "cannot write " + temporary.string();
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return "cannot write " + file.string() + ": " + error.message();
  }
  return "";
}

} // namespace wl::viz
