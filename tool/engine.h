#pragma once
// Turns a kernel request into a result. `model_kernel` needs no GPU: the occupancy and access
// models for any architecture, from the registers ptxas reported at build time. `run_kernel`
// runs the kernel on the GPU: buffers from a seeded generator, outputs poisoned, attributes and
// the runtime's occupancy beside the model's, one verified run, then cold timing samples.

#include "kernel_request.h"
#include "launch_model.h"
#include "measure.h"
#include "run_result.h"

#include <cstdint>

namespace wl {

struct EngineOptions {
  int device = 0;
  std::uint64_t seed = 42;
  bool verify = true;
  TimingOptions timing;
  ModelBudget model;
};

RunResult model_kernel(const KernelRequest& request, const Arch& arch, const ModelBudget& budget = {});

// Throws UsageError for what the user can fix (no GPU, not enough device memory, a launch the
// device refuses) and for CUDA errors, with the runtime's message.
RunResult run_kernel(const KernelRequest& request, const EngineOptions& options = {});

} // namespace wl
