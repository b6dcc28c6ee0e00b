#pragma once
// Where NVRTC finds the headers the CUDA toolkit ships for device code: the folders the toolkit's
// own nvcc adds (its bin/nvcc.profile's INCLUDES and SYSTEM_INCLUDES: include/, and since CUDA 13
// include/cccl, where cuda/std, CUB and Thrust live, which cooperative_groups.h needs), read from
// the toolkit found on this machine, so a worker elsewhere and an installed package look where
// their own toolkit is, not where this build's was.

#include <string>
#include <vector>

namespace wl {

struct ToolkitHeaders {
  std::string root;                 // "/usr/local/cuda-13.0", or "" where none was found
  std::vector<std::string> folders; // in nvcc's order, each one that exists
  std::string source; // "/usr/local/cuda-13.0/bin/nvcc.profile", or what was used instead
  // A variable that names no toolkit, which the search passed over: "CUDA_HOME=/opt/cuda holds no
  // bin/nvcc.profile naming include folders that exist", or "" where none did.
  std::string passed_over;
};

// Looked for once a process: $CUDA_HOME, $CUDA_PATH, the toolkit this program was built with,
// /usr/local/cuda, then nvcc on PATH; the first with a bin/nvcc.profile whose folders exist. A
// variable set to something else is named in `passed_over`, for the doctor and the compile's
// refusals to say.
const ToolkitHeaders& toolkit_headers();

// The folders nvcc.profile's text names ("-I$(TOP)/$(_TARGET_DIR_)/include", "-isystem"
// "$(TOP)/$(_TARGET_DIR_)/include/cccl") with `bin` the profile's folder and `target` the
// target folder ("targets/x86_64-linux"), whether they exist or not.
std::vector<std::string> profile_include_folders(const std::string& profile, const std::string& bin,
                                                 const std::string& target);

} // namespace wl
