#pragma once
// Where screenshots and exports go when the person names no file: the settings' folder or the
// pictures folder the desktop names, and the time of day their names carry.

#include "workflows/app.h"

#include <filesystem>
#include <string>

namespace wl::viz {

// Now, as strftime formats it in local time ("%Y%m%d-%H%M%S").
std::string local_time(const char* format);

// The folder screenshots and exports go to by default: WarpLens/ in the pictures folder the
// desktop names ($XDG_PICTURES_DIR, else user-dirs.dirs) where that folder exists, else in
// ~/Pictures (none, an empty path, without a HOME: never the current folder); `fallback_reason`
// then says why, for the status line: "the pictures folder '/mnt/pics' ($XDG_PICTURES_DIR) does
// not exist (or is not a folder); saving in ...".
struct PicturesFolder {
  std::filesystem::path path;
  std::string fallback_reason; // "" where the desktop's folder is used, or none is named
};
PicturesFolder pictures_folder();
std::filesystem::path pictures_dir(); // pictures_folder().path
// Where screenshots and exports go when no path is given: the settings' screenshot_dir, which must
// exist (a typo makes no folders; UsageError), else pictures_dir(), made on first use (never in
// a HOME that is not set, empty, missing or not a folder: UsageError).
std::filesystem::path folder_for_saving(const App& app);

} // namespace wl::viz
