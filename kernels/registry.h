#pragma once
// The one list of bundled kernels. The GUI, the CLI and the tests iterate it.

#include "kernel.h"

#include <string>
#include <vector>

namespace wl {

const std::vector<KernelDesc>& all_kernels();

// The kernel with this id, or nullptr.
const KernelDesc* find_kernel(const std::string& id);

} // namespace wl
