#pragma once
// Where the data files (assets/) are at run time.

#include <filesystem>

namespace wl {

// The first of: $WARPLENS_ASSETS; share/warplens beside the installed binary; the source tree's
// assets/ (for a binary run from its build folder). Throws UsageError when none exists.
std::filesystem::path assets_dir();

} // namespace wl
