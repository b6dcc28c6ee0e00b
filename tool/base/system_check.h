#pragma once
// One line of `warplens doctor`: what was looked at, what was found there and, where it is not
// right, what to do about it. Each room checks its own part: engine/system_checks.h the driver,
// the GPUs and the counters; kernel_file/compile.h NVRTC; io/assets.h the assets; model/sass_text.h
// nvdisasm; the GUI's viz/system_checks.h EGL, the display and the settings.

#include <string>
#include <vector>

namespace wl {

struct SystemCheck {
  std::string what;  // "NVIDIA driver", "GPU 0", "counters"
  std::string found; // what is there: "580.159.04, for CUDA up to 13.0"
  std::string fix;   // "" when it is right; else what to do, in one sentence
  bool ok() const { return fix.empty(); }
};

using SystemChecks = std::vector<SystemCheck>;

} // namespace wl
