#pragma once
// The models alone for one request, on any architecture and with no GPU: occupancy from the
// registers ptxas reported at build time, and the access model's predicted traffic.

#include "model/arch.h"
#include "model/kernel_request.h"
#include "model/launch_model.h"
#include "model/run_result.h"

namespace wl {

RunResult model_kernel(const KernelRequest& request, const Arch& arch,
                       const ModelBudget& budget = {});

} // namespace wl
