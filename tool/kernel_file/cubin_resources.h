#pragma once
// A kernel's registers, static shared memory and stack frame read from the cubin itself, which
// needs no GPU and no compiler log: the ELF's .nv.info section gives each function's register
// count (EIATTR_REGCOUNT) and frame size (EIATTR_FRAME_SIZE) by its symbol, and the size of its
// .nv.shared.<name> section its static shared memory (on sm_90 and later, with the 1 KiB the
// system reserves in each block, which the occupancy model counts apart, taken out).

#include "model/kernel_resources.h"

#include <optional>
#include <string>
#include <vector>

namespace wl {

// nullopt when the cubin is not an ELF this reader understands or has no such function.
std::optional<CompiledResources> cubin_resources(const std::vector<char>& cubin,
                                                 const std::string& mangled_name, int sm);

// The size in bytes of each of the function's parameters, in order, from its .nv.info section's
// parameter entries (EIATTR_KPARAM_INFO); nullopt when the cubin has no such function.
std::optional<std::vector<int>> cubin_parameter_sizes(const std::vector<char>& cubin,
                                                      const std::string& mangled_name);

} // namespace wl
