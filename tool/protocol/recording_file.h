#pragma once
// A recording (assets/recordings/*.json): real runs that model mode shows as recorded.

#include <filesystem>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// The file parsed through the guarded reader (json_input.h) and checked whole, every run included:
// each a result a GPU can produce, of the device and preset the recording names, each launch
// once, and its date a date. A problem is one UsageError naming the file and the key.
nlohmann::json read_recording(const std::filesystem::path& file);

} // namespace wl
