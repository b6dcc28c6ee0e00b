#pragma once
// Compares an output buffer with its expected values on the GPU, so a sweep verifies every shape
// without copying outputs back: the CPU reference runs once, its values are uploaded once.

#include "engine/library.h"

#include <cstdint>

namespace wl {

struct DeviceComparison {
  std::int64_t mismatches = 0;
  std::int64_t first_bad = -1; // lowest failing index, -1 when none
  double max_abs_error = 0;    // over the finite elements
};

// Elements are 4 bytes: float when `is_float`, else int32 compared exactly. `stream` is a
// cudaStream_t. Same rule as verify_outputs: |got - want| <= absolute + relative * |want|, NaN
// fails.
DeviceComparison compare_on_device(const void* got, const void* want, std::int64_t count,
                                   bool is_float, double absolute, double relative, void* stream);

} // namespace wl
