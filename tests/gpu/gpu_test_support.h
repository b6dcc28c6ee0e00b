#pragma once
// For gpu tests: whether this machine has a usable CUDA device (tests skip, not fail, without),
// and kernel files written for a test.

#include <filesystem>
#include <fstream>
#include <string>

#include <cuda_runtime.h>
#include <unistd.h>

namespace wl::test {

inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError(); // the failure is not sticky; leave no error behind for the next call
  return ok;
}

// `text` written as `name` in this process's folder `folder`_PID under the temporary folder.
inline std::filesystem::path written(const std::string& folder, const std::string& name,
                                     const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / (folder + "_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

} // namespace wl::test
