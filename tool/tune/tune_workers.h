#pragma once
// A tune's points measured by `warplens worker` processes, as a sweep's are (sweep_fanout.h): one
// per local GPU (`--workers N`) or any command that starts one elsewhere (`--worker CMD`). Each
// worker is asked its GPU first, so the tune's cache is named by the GPUs that measure it and
// their driver; workers on GPUs of different kinds are refused (their times are not one series).
// Each point goes to a worker as a sweep of one launch when that worker's last point has landed;
// a worker that stops (no GPU there, another build, dead too often) gives its point to the others.

#include "model/kernel_request.h"
#include "model/run_options.h"
#include "protocol/worker_client.h"
#include "tune/tune_run.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wl {

struct TuneWorker {
  std::string name; // "worker 2 (ssh gpu2 warplens worker)"
  std::unique_ptr<WorkerClient> client;
};

struct TuneWorkers {
  std::vector<TuneWorker> workers; // those whose GPU answered
  Arch arch;                       // the first one's GPU: the space is modelled on it
  std::string device;              // "NVIDIA H200 (GPU-8d3f1c2a, GPU-1b2c3d4e)"
  std::string driver;              // their drivers' versions, "13.0"
};

// Starts a worker per command ("" runs this program's own `worker`) and asks each its GPU with a
// model of the default launch; `say` gets a line per worker. Throws UsageError when none answers
// (each reason named) or their GPUs are of different kinds.
TuneWorkers start_tune_workers(const std::vector<std::string>& commands, const KernelRequest& base,
                               const EngineOptions& engine,
                               const std::function<void(const std::string&)>& say);

// A measurer per worker for run_tune.
std::vector<TuneMeasure> tune_worker_measures(TuneWorkers& workers, const KernelDesc& kernel,
                                              const EngineOptions& engine);

} // namespace wl
