#pragma once
// A text file a person names (a script, a lesson), read whole after the checks every such file
// gets: it exists, is a regular file (not a folder or a device) and is at most `max_bytes`, each
// refusal a UsageError naming the file and the reason.

#include <cstddef>
#include <filesystem>
#include <string>

namespace wl {

// `what` names the file's kind in messages ("script"); `kind` says what it should be ("a text
// file of actions").
std::string read_text_file(const std::filesystem::path& file, const std::string& what,
                           const std::string& kind, std::size_t max_bytes);

} // namespace wl
