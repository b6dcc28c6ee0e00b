#include "base/text_file.h"

#include "base/error.h"
#include "base/text_format.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wl {

namespace {

const char* kind_of(mode_t mode) {
  return S_ISDIR(mode)    ? "a folder"
         : S_ISFIFO(mode) ? "a FIFO (a named pipe)"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

// Closes the descriptor however the read ends.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0)
      ::close(fd);
  }
};

} // namespace

std::string file_kind_name(const std::filesystem::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0)
    return "not a regular file";
  return kind_of(info.st_mode);
}

RegularFileRead read_regular_file(const std::filesystem::path& file, std::size_t max_bytes) {
  using Problem = RegularFileRead::Problem;
  const Descriptor in{::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (in.fd < 0) {
    if (errno == ENOENT)
      return {.problem = Problem::missing, .text = {}, .size = 0, .reason = std::strerror(errno)};
    if (errno == EISDIR)
      return {.problem = Problem::folder, .text = {}, .size = 0, .reason = {}};
    // A socket cannot be opened (ENXIO): named by what it is, not by the system's word for it.
    const std::string reason = std::strerror(errno);
    if (struct stat info{}; errno == ENXIO && ::stat(file.c_str(), &info) == 0)
      return {
          .problem = Problem::not_regular, .text = {}, .size = 0, .reason = kind_of(info.st_mode)};
    return {.problem = Problem::unreadable, .text = {}, .size = 0, .reason = reason};
  }
  struct stat info {};
  if (::fstat(in.fd, &info) != 0)
    return {.problem = Problem::unreadable, .text = {}, .size = 0, .reason = std::strerror(errno)};
  if (S_ISDIR(info.st_mode))
    return {.problem = Problem::folder, .text = {}, .size = 0, .reason = {}};
  if (!S_ISREG(info.st_mode))
    return {
        .problem = Problem::not_regular, .text = {}, .size = 0, .reason = kind_of(info.st_mode)};
  const auto size = static_cast<std::uintmax_t>(info.st_size);
  if (size > max_bytes)
    return {.problem = Problem::too_large, .text = {}, .size = size, .reason = {}};
  // One byte more than the cap is asked for, so a file that grew since fstat is seen as too large.
  std::string text(static_cast<std::size_t>(size) + 1, '\0');
  std::size_t read = 0;
  for (;;) {
    if (read == text.size()) {
      if (read > max_bytes)
        return {.problem = Problem::too_large, .text = {}, .size = read, .reason = {}};
      text.resize(std::min(text.size() * 2, max_bytes + 1));
    }
    const ssize_t got = ::read(in.fd, text.data() + read, text.size() - read);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return {
          .problem = Problem::unreadable, .text = {}, .size = 0, .reason = std::strerror(errno)};
    if (got == 0)
      break;
    read += static_cast<std::size_t>(got);
  }
  if (read > max_bytes)
    return {.problem = Problem::too_large, .text = {}, .size = read, .reason = {}};
  text.resize(read);
  return {.problem = Problem::none, .text = std::move(text), .size = read, .reason = {}};
}

std::string read_text_file(const std::filesystem::path& file, const std::string& what,
                           const std::string& kind, std::size_t max_bytes) {
  RegularFileRead read = read_regular_file(file, max_bytes);
  using Problem = RegularFileRead::Problem;
  switch (read.problem) {
  case Problem::none:
    return std::move(read.text);
  case Problem::missing:
    throw UsageError(file.string() + ": no such file; the " + what + " must be " + kind);
  case Problem::folder:
    throw UsageError(file.string() + ": is a folder; a " + what + " is " + kind);
  case Problem::not_regular:
    throw UsageError(file.string() + ": " + read.reason + ", not a regular file; a " + what +
                     " is a text file");
  case Problem::too_large:
    throw UsageError(file.string() + ": the " + what + " is over " + format_bytes(max_bytes) +
                     "; split it");
  case Problem::unreadable:
    break;
  }
  throw UsageError(file.string() + ": cannot read the " + what + ": " + read.reason);
}

} // namespace wl
