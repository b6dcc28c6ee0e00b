#pragma once
// Screenshots: the rendered window (or one panel cut out of it) as a PNG, and beside it a JSON
// sidecar with the configuration and every figure shown, so a picture always carries its numbers.
// Files are never overwritten: a taken name gets a timestamp and, if need be, a counter.

#include "workflows/app.h"
#include "workflows/save_folder.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl::viz {

// RGBA pixels, top row first (glReadPixels rows are flipped by the front-end).
struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgba;
};

// The part of `image` a panel covered in the last frame, or the whole image.
Image crop(const Image& image, const PanelRect& rect);

// Where a screenshot goes: `requested` (".png" added when it has another extension) when it is
// free, else with the time of day added; a folder (or nothing: `default_dir`) gets
// warplens-20260321-142501[-panel].png inside. Never a name that is taken, by a PNG or a sidecar.
std::filesystem::path free_screenshot_path(const std::filesystem::path& requested,
                                           std::optional<Panel> panel,
                                           const std::filesystem::path& default_dir);
// Why a picture has another name than the one asked for: "'shot.png' was taken" (a taken name is
// never overwritten); "" where it has the name asked for, or went into a folder named.
std::string taken_name_note(const std::filesystem::path& requested, const std::string& saved);

// The sidecar: configuration, the result (run_json), the figures only the GUI derives.
nlohmann::json screenshot_sidecar(const App& app, std::optional<Panel> panel, int width,
                                  int height);

// Writes the PNG and `<name>.json` (file_output's writer: a name taken meanwhile is not
// replaced); returns the PNG's path. Throws UsageError when the panel was not on screen, or when a
// file cannot be written, saying why and where its bytes were kept instead.
std::filesystem::path save_screenshot(const App& app, const Image& window,
                                      const ScreenshotRequest& request);

} // namespace wl::viz
