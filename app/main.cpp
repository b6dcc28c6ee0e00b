#include "cli.h"

#include <cstdio>
#include <cstdlib>

namespace {

// run_cli reports its own failures; this catches what escapes even that (a throw while reporting).
int run_guarded(int argc, char** argv) {
  try {
    return wl::run_cli(argc, argv);
  } catch (...) {
    std::fputs("warplens: unexpected failure\n", stderr);
    return 2;
  }
}

} // namespace

int main(int argc, char** argv) {
  const int code = run_guarded(argc, argv);
  // Every command has written and closed its files by now. Leaving without static destructors
  // skips tearing down the CUDA context and the counter profiler piece by piece, which takes a
  // quarter of a second; the driver releases all of it when the process ends.
  std::fflush(nullptr);
  std::_Exit(code);
}
