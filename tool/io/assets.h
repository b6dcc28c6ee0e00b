#pragma once
// Where the data files (assets/) are at run time, and whether they can be read.

#include "base/system_check.h"

#include <filesystem>
#include <string>

namespace wl {

// The first of: $WARPLENS_ASSETS; share/warplens beside the installed binary; the source tree's
// assets/ (for a binary run from its build folder). Throws UsageError when none exists or
// WARPLENS_ASSETS names something without an arch/ folder.
std::filesystem::path assets_dir();

// For `warplens doctor`: the assets folder found, its presets and metric catalog read.
SystemCheck check_assets();

} // namespace wl
