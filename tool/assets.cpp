#include "assets.h"

#include "error.h"
#include "json_fields.h"
#include "json_input.h"
#include "protocol.h"

#include <cstdlib>
#include <system_error>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

bool has_presets(const std::filesystem::path& folder) {
  std::error_code ec;
  return std::filesystem::is_directory(folder / "arch", ec);
}

// The GUI reads a recording with plain `at` calls and wraps only their errors, so the whole of it
// is checked here, where every message names the file and the key.
void check_recording(const nlohmann::json& json, const std::string& origin) {
  const Fields recording(json, origin);
  recording.text("arch", false);
  recording.text("device", false);
  recording.text("date", false);
  const nlohmann::json& runs = recording.list("runs");
  for (std::size_t i = 0; i < runs.size(); ++i)
    run_result_from_json(runs[i], origin + ": runs[" + std::to_string(i) + "]");
}

} // namespace

std::filesystem::path assets_dir() {
  if (const char* env = std::getenv("WARPLENS_ASSETS"); env && *env) {
    const std::string shown = clip(env, 160);
    std::error_code ec; // a name too long for the file system reads as "not a folder", not a throw
    if (!std::filesystem::is_directory(env, ec))
      throw UsageError("WARPLENS_ASSETS: '" + shown +
                       "' is not a folder; "
                       "allowed the assets folder (with arch/ and metrics.json)");
    if (!has_presets(env))
      throw UsageError("WARPLENS_ASSETS: '" + shown +
                       "' has no arch/ folder; "
                       "allowed the assets folder (with arch/ and metrics.json)");
    return env;
  }
  const auto installed = executable_dir() / ".." / "share" / "warplens";
  if (has_presets(installed))
    return installed.lexically_normal();
  const std::filesystem::path source = WARPLENS_SOURCE_ASSETS;
  if (has_presets(source))
    return source;
  throw UsageError("cannot find WarpLens's assets folder (looked in " + installed.string() +
                   " and " + source.string() + "); set WARPLENS_ASSETS to it");
}

nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what) {
  nlohmann::json json = read_json_document(file, what);
  if (what == "recording")
    check_recording(json, clip(file.string(), 160));
  return json;
}

} // namespace wl
