#pragma once
// Where the data files (assets/) are at run time, and reading one.

#include "base/system_check.h"

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// The first of: $WARPLENS_ASSETS; share/warplens beside the installed binary; the source tree's
// assets/ (for a binary run from its build folder). Throws UsageError when none exists or
// WARPLENS_ASSETS names something without an arch/ folder.
std::filesystem::path assets_dir();

// For `warplens doctor`: the assets folder found, its presets and metric catalog read.
SystemCheck check_assets();

// A JSON file parsed through the guarded reader (json_input.h): a folder, an oversized, deeply
// nested or malformed file is one UsageError naming the file. A "recording" is also checked
// whole, every run included; what other files hold is the caller's to check (json_fields.h).
nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what);

} // namespace wl
