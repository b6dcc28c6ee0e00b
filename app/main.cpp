#include "base/file_output.h"
#include "cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

namespace {

constexpr int kExitFailed = 2;

// run_cli reports its own failures; this catches what escapes even that (a throw while reporting).
int run_guarded(int argc, char** argv) {
  try {
    return wl::run_cli(argc, argv);
  } catch (...) {
    std::fputs("warplens: unexpected failure\n", stderr);
    return kExitFailed;
  }
}

// A standard stream the caller closed (`warplens list >&-`) gets /dev/null, opened read-only, in
// its place: writing to it still fails, and is reported, but no file opened later (a sweep's
// CSV) takes its number and receives the output meant for the terminal. Opened in order, each
// takes the lowest free number, its own.
void hold_closed_standard_streams() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF)
      ::open("/dev/null", O_RDONLY);
}

// Whether errno is a write's own reason for failing. It says why standard output failed where the
// failing write was the last call (this flush's, or a buffer's that filled just before the end);
// a command that flushed earlier (the doctor, line by line) has made other calls since, whose
// errno is no write's, and is not believed.
bool a_write_error(int error) {
  return error == ENOSPC || error == EFBIG || error == EBADF || error == EPIPE || error == EIO ||
         error == EDQUOT;
}

// Output that could not be written (a closed stdout, /dev/full, a full disk) is a failure the
// caller must see: one line on stderr and a non-zero exit code, not 0 with the output lost.
int with_output_checked(int code) {
  const int earlier = errno; // a write that failed just before the end left its reason here
  errno = 0;
  std::cout.flush();
  const bool written = std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good();
  if (written)
    return code;
  int error = errno ? errno : earlier;
  // A command that wrote line by line (the doctor) made other calls since its write failed: one
  // more byte, to a stream already lost, asks the system for the reason again.
  if (!a_write_error(error) && ::write(STDOUT_FILENO, "\n", 1) < 0)
    error = errno;
  std::fprintf(stderr, "warplens: cannot write to standard output: %s\n",
               a_write_error(error) ? std::strerror(error) : "a write to it failed");
  // The output is lost, so no check's verdict (exit 1: doctor's line to fix) reached its reader.
  return code <= 1 ? kExitFailed : code;
}

} // namespace

int main(int argc, char** argv) {
  hold_closed_standard_streams();
  wl::report_file_size_limit_as_error();
  const int code = with_output_checked(run_guarded(argc, argv));
  // Every command has written and closed its files by now. Leaving without static destructors
  // skips tearing down the CUDA context and the counter profiler piece by piece, which takes a
  // quarter of a second; the driver releases all of it when the process ends.
  std::fflush(nullptr);
  std::_Exit(code);
}
