#pragma once
// Compares a kernel's outputs with its CPU reference, element by element, within the kernel's
// tolerance. Outputs were poisoned with NaN before the run, so an element the kernel never wrote
// fails like a wrong one.

#include "kernel.h"
#include "model/run_result.h"

namespace wl {

Verification verify_outputs(const KernelDesc& kernel, const HostBuffers& outputs,
                            const Expected& expected);

// "c[1234]: got 0.5, want 0.25" for element `index` of the buffer named `buffer`, from
// one-element copies of what the kernel wrote and what was expected.
std::string describe_mismatch(const std::string& buffer, std::int64_t index, const HostBuffer& got,
                              const HostBuffer& want);

// The bit pattern outputs are filled with before a run, in every word: a quiet NaN as float and
// double, -1 as int.
inline constexpr std::uint32_t kPoison = 0xffffffffu;

} // namespace wl
