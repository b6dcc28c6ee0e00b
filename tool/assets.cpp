#include "assets.h"

#include "error.h"

#include <cstdlib>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

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

nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file);
  if (!in) throw UsageError(file.string() + ": cannot read the " + what);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(file.string() + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
}

} // namespace wl
