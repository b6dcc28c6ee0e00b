#include "io/assets.h"

#include "base/error.h"
#include "base/json_input.h"
#include "io/metric_catalog.h"
#include "model/arch.h"

#include <cstdlib>
#include <system_error>

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

SystemCheck check_assets() {
  try {
    const std::filesystem::path dir = assets_dir();
    const std::size_t presets = load_arch_presets(dir / "arch").size();
    const std::size_t metrics = load_metric_catalog(dir / "metrics.json").metrics.size();
    return {"assets",
            dir.string() + " (" + std::to_string(presets) + " architecture presets, " +
                std::to_string(metrics) + " metrics)",
            ""};
  } catch (const Error& e) {
    const char* env = std::getenv("WARPLENS_ASSETS");
    return {"assets", "unusable",
            std::string(e.what()) + (env && *env ? "; unset WARPLENS_ASSETS to use the installed "
                                                   "assets, or point it at a folder with arch/ "
                                                   "and metrics.json"
                                                 : "")};
  }
}

} // namespace wl
