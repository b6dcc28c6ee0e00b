#pragma once
// A recording made on this GPU (`warplens record`, and the GPU machine's wl_bench record): each
// kernel at its default block and at its block presets, every shape with the default and memory
// counters and the per-site pass, the default block as `run` measures it with its stall samples
// and energy too; only verified results are kept. It names the WarpLens that made it and the
// hash of each kernel's source, so model mode can say when the code on screen is not the code
// that was measured. The file is what model mode shows for the
// preset it names (protocol/recording_file.h reads it back, checked whole).

#include "engine/library.h"
#include "model/kernel_request.h"
#include "model/run_result.h"

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wl {

// Records `kernels` on this GPU as preset `arch_id`, then each of `launches` (a lesson's steps':
// their parameters and blocks, with the default and memory counters and the per-site pass): calls
// `say` with a line per kernel or launch (what was kept, and why a shape or the stalls or energy
// were not) and `save` with the whole recording after each, so a run cut short keeps what it
// measured. Returns the recording.
nlohmann::json record_kernels(const std::vector<const KernelDesc*>& kernels,
                              const std::vector<KernelRequest>& launches,
                              const std::string& arch_id,
                              const std::function<void(const std::string&)>& say,
                              const std::function<void(const nlohmann::json&)>& save);

} // namespace wl
