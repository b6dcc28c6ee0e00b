#pragma once
// Where the data files (assets/) are at run time, and reading one.

#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// The first of: $WARPLENS_ASSETS; share/warplens beside the installed binary; the source tree's
// assets/ (for a binary run from its build folder). Throws UsageError when none exists.
std::filesystem::path assets_dir();

// A JSON file parsed. Throws UsageError "FILE: cannot read the WHAT" or "FILE: not valid JSON
// (byte N)"; what the file holds is the caller's to check.
nlohmann::json read_json_file(const std::filesystem::path& file, const std::string& what);

} // namespace wl
