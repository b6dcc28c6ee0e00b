#pragma once
// Compares a kernel's outputs with its CPU reference, element by element, within the kernel's
// tolerance. Outputs were poisoned with NaN before the run, so an element the kernel never wrote
// fails like a wrong one.

#include "kernel.h"
#include "model/run_result.h"

namespace wl {

Verification verify_outputs(const KernelDesc& kernel, const HostBuffers& outputs,
                            const Expected& expected);

// The bit pattern outputs are filled with before a run: a quiet NaN as f32, -1 as i32.
inline constexpr std::uint32_t kPoison = 0xffffffffu;

} // namespace wl
