#pragma once
// A sweep dealt out over several `warplens worker` processes: one per local GPU
// (CUDA_VISIBLE_DEVICES), or any command that starts one elsewhere ("ssh host warplens worker",
// "srun --gres=gpu:1 warplens worker"). No scheduler of our own: the workers are ordinary
// processes, each given the next chunk of points (one parameter set, a few shapes) when it has
// answered its last, so a fast GPU takes more. A chunk whose worker died goes back to the queue for
// any worker (its client starts a new one), unless its worker was killed for running past the
// request's budget: a chunk gets one budget in all, and its points are then refused with the
// reason. A worker that cannot start, has no GPU, speaks another protocol or has another kernel
// catalog stops with the reason said, and the others go on; so does one whose GPU's counters
// another worker holds (CUPTI lets one process profile a GPU at a time: two workers on one GPU
// share its timing work only when no counters are asked for). The points come back merged in the
// grid's order, whichever worker measured them. Points of different kinds of GPU are never merged
// into one series: such a sweep is refused unless it is made per device, where each worker is first
// asked its GPU (its UUID: two boards of one kind are two GPUs) and each GPU measures the whole
// grid, its workers sharing it.

#include "model/kernel_request.h"
#include "protocol/protocol.h"
#include "protocol/worker_client.h"
#include "sweep/sweep_file.h"

#include <functional>
#include <string>
#include <vector>

namespace wl {

struct FanOutOptions {
  std::vector<std::string> commands; // a worker each; "" runs this program's own `worker`
  EngineOptions engine;              // sent with every request (device, seed, budgets, counters)
  bool per_device = false;           // a series per GPU, each over the whole grid
  WorkerClientOptions client{};      // how each worker is watched (its command is set per worker)
};

// What one worker did.
struct WorkerShare {
  std::string command;
  int points = 0;      // measured and merged
  int chunks_lost = 0; // given back to the queue when the worker died under them
  std::string stopped; // why it took no more work before the end; empty if it served to the end
};

// One GPU's series (or, not per device, one kind of GPU's): every point of the grid, in the grid's
// order (param_sets, then the shapes).
struct DeviceSweep {
  std::string device; // device_label: "NVIDIA H100 80GB HBM3 (GPU-8d3f1c2a)"; "" if none ran
  std::vector<SweepPoint> points;
};

struct FanOutRun {
  std::vector<DeviceSweep> devices; // one, unless per_device found several GPUs
  std::vector<WorkerShare> workers;
  double seconds = 0;
};

// "CUDA_VISIBLE_DEVICES=1 exec /usr/bin/warplens worker": a worker on local GPU `device`.
std::string local_worker_command(int device);

// Measures every point of the grid (the kernel's base parameters in `base`) over the workers.
// `say` gets one line per event (a chunk done, a worker lost). Throws UsageError when every worker
// stopped before the last point (naming each reason and how many points were measured), and when
// the points of a sweep not made per device came from different kinds of GPU. Per device, a GPU
// whose every worker stopped keeps its measured points and the rest are refused with the reasons.
FanOutRun fan_out_sweep(const KernelRequest& base, const SweepGrid& grid,
                        const FanOutOptions& options,
                        const std::function<void(const std::string&)>& say);

} // namespace wl
