#pragma once
// The CUDA side of `warplens doctor` and `warplens --version`: the driver, each GPU and the
// preset that matches it, and whether this process may read the GPU's counters, sample its
// warps' stalls and read its energy (found by measuring a small bundled kernel with one counter,
// stalls and energy, the way a Run does each).

#include "base/system_check.h"
#include "engine/library.h"

#include <string>
#include <vector>

namespace wl {

// "WarpLens 0.1.0", "CUDA runtime 13.0 (static)", "NVIDIA driver 580.159.04, for CUDA up to
// 13.0" (or why there is none), "CUPTI 13.0 (PATH)": each a line.
std::vector<std::string> cuda_version_lines();

// The driver, then a line per GPU, then GPU 0's counters, stalls and energy; a line saying there is
// no GPU (with the fix) where there is none.
SystemChecks check_gpus();

} // namespace wl
