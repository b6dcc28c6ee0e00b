#pragma once
// Helpers the unit tests share: the bundled presets, and running the warplens binary.

#include "model/arch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>

// Whether this build runs under AddressSanitizer, where code runs many times slower: GCC says so
// with __SANITIZE_ADDRESS__, clang (the sanitize preset's compiler) only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define WL_ADDRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WL_ADDRESS_SANITIZED 1
#endif
#endif

namespace wl::test {

// The engine (the CUDA runtime, CUPTI, a worker, NVRTC) is in this build only where the CUDA
// toolkit was; a build without it models alone, and the tests of what the engine does skip there.
#ifdef WARPLENS_HAS_CUDA
inline constexpr bool kBuildHasEngine = true;
#else
inline constexpr bool kBuildHasEngine = false;
#endif
#define WL_SKIP_WITHOUT_ENGINE()                                                                   \
  if (!::wl::test::kBuildHasEngine)                                                                \
  GTEST_SKIP() << "this WarpLens was built without the CUDA toolkit: no engine, worker or NVRTC"

// A command line of `warplens` that measures, and so needs the engine: run, worker, or a sweep
// that is not modelled.
inline bool measures(const std::string& args) {
  const bool sweep_measured = args.starts_with("sweep ") &&
                              args.find("--model") == std::string::npos &&
                              args.find("--worker") == std::string::npos;
  return args.starts_with("run ") || args.starts_with("worker") || sweep_measured;
}

// Polls `done` until it holds or `limit` passes; whether it held.
template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  for (const auto end = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < end;) {
    if (done())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline Arch preset(const std::string& id) {
  return load_arch_file(std::string(WARPLENS_SOURCE_ASSETS) + "/arch/" + id + ".json");
}

struct CommandResult {
  int exit_code = -1;
  std::string out; // stdout and stderr together
};

// Runs `warplens <args>` from the build tree and captures what it prints. `prefix` is shell put
// before the binary: a `cd`, or `env -u DISPLAY` for a run with no display.
inline CommandResult run_warplens(const std::string& args, const std::string& prefix = "") {
  CommandResult result;
  const std::string command = prefix + std::string(WARPLENS_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    return result;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe))
    result.out += buffer;
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Bad input: exit code 2 and exactly one line that names the value and what is allowed.
inline void expect_one_line_error(const std::string& args,
                                  const std::vector<std::string>& fragments) {
  const CommandResult r = run_warplens(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << "\n" << r.out;
  for (const std::string& fragment : fragments)
    EXPECT_NE(r.out.find(fragment), std::string::npos)
        << args << " should mention '" << fragment << "':\n"
        << r.out;
}

} // namespace wl::test
