#include "base/text_file.h"

#include "base/error.h"
#include "base/text_format.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace wl {

std::string read_text_file(const std::filesystem::path& file, const std::string& what,
                           const std::string& kind, std::size_t max_bytes) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(file, error);
  if (error && error != std::errc::no_such_file_or_directory) // a folder on the way unreadable
    throw UsageError(file.string() + ": cannot read the " + what + ": " + error.message());
  if (std::filesystem::is_directory(status))
    throw UsageError(file.string() + ": is a folder; a " + what + " is " + kind);
  if (!std::filesystem::is_regular_file(status))
    throw UsageError(file.string() + (std::filesystem::exists(status)
                                          ? ": not a regular file; a " + what + " is a text file"
                                          : ": no such " + what + " file (a regular file of " +
                                                what + " lines is needed)"));
  const std::uintmax_t size = std::filesystem::file_size(file, error);
  if (!error && size > max_bytes)
    throw UsageError(file.string() + ": the " + what + " is over " + format_bytes(max_bytes) +
                     "; split it");
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) // no read permission, most often: the system says which
    throw UsageError(file.string() + ": cannot read the " + what + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf(); // a failed read stops the copy and marks `text` (as does an empty file)
  if (text.fail() && !error && size > 0)
    throw UsageError(file.string() + ": cannot read the " + what + ": " + std::strerror(errno));
  return text.str();
}

} // namespace wl
