#include "engine/recording_run.h"

#include "base/error.h"
#include "engine/device.h"
#include "engine/engine.h"
#include "engine/sweep_run.h"
#include "kernel_file/file_kernel.h"
#include "model/block_text.h"
#include "model/kernel_request.h"
#include "protocol/run_result_json.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include <nlohmann/json.hpp>

namespace wl {

namespace {

bool same_recorded_shape(const BlockShape& a, const BlockShape& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

std::string today_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

bool verified(const RunResult& r) { return r.verification && r.verification->passed; }

// The presets of a kernel other than its default block, each once.
std::vector<BlockShape> other_presets(const KernelDesc& kernel, const BlockShape& default_block) {
  std::vector<BlockShape> presets;
  for (const BlockShape& preset : kernel.block_presets)
    if (!same_recorded_shape(preset, default_block) &&
        std::none_of(presets.begin(), presets.end(),
                     [&](const BlockShape& s) { return same_recorded_shape(s, preset); }))
      presets.push_back(preset);
  return presets;
}

// What became of a part asked of the default block's run, in a few words.
template <typename Part> std::string part_word(const std::optional<Part>& part, const char* done) {
  return !part ? "none" : part->available ? done : part->reason;
}

// One kernel's runs, verified ones kept: its presets in one session (one set of inputs and
// reference), then its default block as `run` measures it (a sweep's points take no stalls).
std::string record_kernel(const KernelDesc& kernel, nlohmann::json& runs) {
  const KernelRequest request = resolve_kernel_request(kernel.id, {}, "", "");
  EngineOptions options;
  options.metrics = "default,memory";
  options.per_site = true;
  options.timing.max_seconds = 0.2;
  const std::vector<BlockShape> presets = other_presets(kernel, request.block);
  int kept = 0;
  if (!presets.empty())
    for (const SweepPoint& point :
         run_sweep(kernel, request.params, SweepGrid{presets, {}}, options, nullptr).points)
      if (point.result && verified(*point.result)) {
        runs.push_back(run_result_to_json(*point.result));
        ++kept;
      }
  options.stalls = true;
  options.energy = true;
  const RunResult result = run_kernel(request, options);
  if (verified(result))
    runs.push_back(run_result_to_json(result));
  return kernel.id + ": " + std::to_string(kept) + " of " + std::to_string(presets.size()) +
         " presets recorded; the default block " +
         (verified(result) ? "recorded" : "NOT recorded (its outputs were not verified)") +
         ", stalls " + part_word(result.stalls, "sampled") + ", energy " +
         part_word(result.energy, "measured");
}

// One launch a lesson's step makes, kept where verified.
std::string record_launch(const KernelRequest& request, nlohmann::json& runs) {
  EngineOptions options;
  options.metrics = "default,memory";
  options.per_site = true;
  options.timing.max_seconds = 0.2;
  const RunResult result = run_kernel(request, options);
  std::string params;
  for (const auto& [name, value] : request.params)
    params += " " + name + "=" + std::to_string(value);
  const std::string launch = request.kernel->id + " block " + format_block(request.block) + params;
  if (!verified(result))
    return launch + ": NOT recorded (its outputs were not verified)";
  runs.push_back(run_result_to_json(result));
  return launch + ": recorded";
}

} // namespace

nlohmann::json record_kernels(const std::vector<const KernelDesc*>& kernels,
                              const std::vector<KernelRequest>& launches,
                              const std::string& arch_id,
                              const std::function<void(const std::string&)>& say,
                              const std::function<void(const nlohmann::json&)>& save) {
  nlohmann::json recording = {{"device", arch_from_device(0).name},
                              {"driver_cuda_version", driver_cuda_version_text()},
                              {"date", today_utc()},
                              {"arch", arch_id},
                              {"warplens", WARPLENS_VERSION},
                              {"sources", nlohmann::json::object()},
                              {"runs", nlohmann::json::array()}};
  for (const KernelDesc* kernel : kernels) {
    try {
      recording["sources"][kernel->id] = kernel_source_hash(*kernel);
      say(record_kernel(*kernel, recording["runs"]));
    } catch (const DeviceError&) {
      throw; // the GPU is unusable now (a sticky error): no later kernel would measure
    } catch (const Error& e) {
      say(kernel->id + ": NOT recorded (" + e.what() + ")");
    }
    save(recording);
  }
  for (const KernelRequest& launch : launches) {
    try {
      recording["sources"][launch.kernel->id] = kernel_source_hash(*launch.kernel);
      say(record_launch(launch, recording["runs"]));
    } catch (const DeviceError&) {
      throw;
    } catch (const Error& e) {
      say(launch.kernel->id + ": a lesson's launch NOT recorded (" + e.what() + ")");
    }
    save(recording);
  }
  return recording;
}

} // namespace wl
