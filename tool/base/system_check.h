#pragma once
// One line of `warplens doctor`: what was looked at, what was found there and, where it is not
// right, what to do about it. Each room checks its own part: engine/system_checks.h the driver,
// the GPUs and the counters; kernel_file/compile.h NVRTC; io/assets.h the assets; model/sass_text.h
// nvdisasm; the GUI's viz/system_checks.h EGL, the display and the settings.

#include <functional>
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

// A check not yet run: `warplens doctor` runs each on a thread of its own and waits `seconds` at
// most, so a display or driver that never answers costs its own line, not the others'.
struct PendingCheck {
  std::string what; // the line's name, for the one said when it does not finish
  std::function<SystemChecks()> run;
  double seconds = 10;
  std::string stuck = ""; // what to do when it does not finish in time
};

} // namespace wl
