#include "workflows/save_folder.h"

#include "base/error.h"
#include "base/file_output.h"
#include "base/json_input.h"
#include "base/text_format.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>

namespace wl::viz {

std::string local_time(const char* format) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  localtime_r(&now, &parts);
  char text[64];
  std::strftime(text, sizeof text, format, &parts);
  return text;
}

namespace {

// The pictures folder the desktop names ($XDG_PICTURES_DIR, else its line in user-dirs.dirs) and
// which of the two named it; empty when neither does.
struct NamedFolder {
  std::filesystem::path path;
  std::string named_by;
};

NamedFolder desktop_pictures_folder() {
  namespace fs = std::filesystem;
  if (const char* xdg = std::getenv("XDG_PICTURES_DIR"); xdg && *xdg)
    return {xdg, "$XDG_PICTURES_DIR"};
  // user-dirs.dirs holds lines such as XDG_PICTURES_DIR="$HOME/Pictures".
  const char* home = std::getenv("HOME");
  const char* config = std::getenv("XDG_CONFIG_HOME");
  const fs::path dirs = config && *config ? fs::path(config) / "user-dirs.dirs"
                        : home && *home   ? fs::path(home) / ".config" / "user-dirs.dirs"
                                          : fs::path();
  std::ifstream in(dirs);
  for (std::string line; std::getline(in, line);) {
    const std::string key = "XDG_PICTURES_DIR=\"";
    if (!line.starts_with(key) || line.back() != '"')
      continue;
    std::string value = line.substr(key.size(), line.size() - key.size() - 1);
    if (value.starts_with("$HOME") && !(home && *home))
      return {}; // a folder in no home: "/Pictures" is not it
    if (value.starts_with("$HOME"))
      value = home + value.substr(5);
    if (!value.empty())
      return {value, dirs.string()};
  }
  return {};
}

} // namespace

PicturesFolder pictures_folder() {
  namespace fs = std::filesystem;
  const NamedFolder named = desktop_pictures_folder();
  std::error_code error;
  // Only WarpLens/ is made inside it: a pictures folder that does not exist (a typo, another
  // machine's path) is never made, nor the folders above it.
  if (!named.path.empty() && fs::is_directory(named.path, error))
    return {named.path / "WarpLens", ""};
  // Without a HOME that names a folder there is no ~/Pictures: never the current folder.
  const char* home = std::getenv("HOME");
  const fs::path pictures = home && *home ? fs::path(home) / "Pictures" : fs::path();
  const fs::path fallback = pictures.empty() ? fs::path() : pictures / "WarpLens";
  // A desktop that names ~/Pictures before it exists gets it made, as with no name at all.
  const auto as_folder = [](const fs::path& path) { return (path / "").lexically_normal(); };
  if (named.path.empty() || (!pictures.empty() && as_folder(named.path) == as_folder(pictures)))
    return {fallback, ""};
  const std::string what = fs::exists(named.path, error) ? " is not a folder" : " does not exist";
  return {
      fallback,
      "the pictures folder '" + clip(named.path.string(), 120) + "' (" + clip(named.named_by, 120) +
          ")" + what +
          (fallback.empty() ? "" : "; saving in '" + clip(fallback.string(), 120) + "' instead")};
}

std::filesystem::path pictures_dir() { return pictures_folder().path; }

std::filesystem::path folder_for_saving(const App& app) {
  std::error_code error;
  if (app.choices.screenshot_dir.empty()) {
    const std::filesystem::path pictures = pictures_dir();
    const std::string problem = pictures.empty() ? home_problem() : make_folders(pictures);
    if (!problem.empty())
      throw UsageError("no folder for pictures: " + problem +
                       ", or name the file or folder to save in");
    return pictures;
  }
  if (!std::filesystem::is_directory(app.choices.screenshot_dir, error))
    throw UsageError(
        clip(app.choices.screenshot_dir.string(), 120) + " (the settings' screenshot_dir) " +
        (std::filesystem::exists(app.choices.screenshot_dir, error) ? "is not a folder"
                                                                    : "does not exist") +
        "; give a folder that exists, or \"\" for the pictures folder");
  return app.choices.screenshot_dir;
}

} // namespace wl::viz
