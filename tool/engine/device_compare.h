#pragma once
// Compares an output buffer with its expected values on the GPU, so a sweep verifies every shape
// without copying outputs back: the CPU reference runs once, its values are uploaded once.

#include "engine/library.h"
#include "kernel.h"

#include <cstdint>

namespace wl {

struct DeviceComparison {
  std::int64_t mismatches = 0;
  std::int64_t first_bad = -1; // lowest failing index, -1 when none
  double max_abs_error = 0;    // over the finite elements
};

// Elements of `type`: float and double within the tolerance, int and unsigned exactly. `stream` is
// a cudaStream_t. Same rule as verify_outputs: |got - want| <= absolute + relative * |want|, NaN
// fails.
DeviceComparison compare_on_device(const void* got, const void* want, std::int64_t count,
                                   ElementType type, double absolute, double relative,
                                   void* stream);

} // namespace wl
