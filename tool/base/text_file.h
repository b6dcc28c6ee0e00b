#pragma once
// Files a person names (a script, a lesson, a kernel file and its headers, a JSON document), read
// whole through one descriptor: opened without blocking and without a controlling terminal, then
// looked at (fstat) before a byte is read. A check by name followed by an open by name could be
// raced by a file swapped in between, and a FIFO or a terminal opened to be read waits for a
// writer that may never come: here either is refused, never waited on.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace wl {

struct RegularFileRead {
  enum class Problem { none, missing, folder, not_regular, too_large, unreadable };
  Problem problem = Problem::none;
  std::string text;        // the bytes, where there is no problem
  std::uintmax_t size = 0; // the size found (too_large)
  std::string reason;      // the system's reason (unreadable), or the kind of file (not_regular)
};

// The file's bytes, or why not: at most `max_bytes` of them, a file that holds more (or grew past
// it while read) is too_large.
RegularFileRead read_regular_file(const std::filesystem::path& file, std::size_t max_bytes);

// "a FIFO", "a character device", "a socket": what a file that is no regular one is.
std::string file_kind_name(const std::filesystem::path& file);

// `what` names the file's kind in messages ("script"); `kind` says what it should be ("a text
// file of actions"). Each refusal is a UsageError naming the file and the reason.
std::string read_text_file(const std::filesystem::path& file, const std::string& what,
                           const std::string& kind, std::size_t max_bytes);

} // namespace wl
