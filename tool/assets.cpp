#include "assets.h"

#include "error.h"

#include <cstdlib>
#include <system_error>

namespace wl {

namespace {

std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

} // namespace

std::filesystem::path assets_dir() {
  if (const char* env = std::getenv("WARPLENS_ASSETS"); env && *env) {
    if (std::filesystem::is_directory(env)) return env;
    throw UsageError(std::string("WARPLENS_ASSETS='") + env + "' is not a folder");
  }
  const auto installed = executable_dir() / ".." / "share" / "warplens";
  if (std::filesystem::is_directory(installed / "arch")) return installed.lexically_normal();
  const std::filesystem::path source = WARPLENS_SOURCE_ASSETS;
  if (std::filesystem::is_directory(source / "arch")) return source;
  throw UsageError("cannot find WarpLens's assets folder (looked in " + installed.string() +
                   " and " + source.string() + "); set WARPLENS_ASSETS to it");
}

} // namespace wl
