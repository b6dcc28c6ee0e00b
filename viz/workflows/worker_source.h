#pragma once
// GPU mode: results measured by `warplens worker`, a child process started through WorkerClient
// (or any command given with --worker, e.g. "ssh gpuhost warplens worker"), so this process never
// calls CUDA or CUPTI. A worker that dies, hangs or hits a sticky CUDA error is replaced by the
// client; the request it had is measured again once on the new worker, and the App keeps every
// choice and result meanwhile. When the worker's machine has no usable GPU the source says so and
// turns to model mode: the same requests as model requests, answered by the same worker.

#include "protocol/worker_client.h"
#include "workflows/app.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wl::viz {

struct WorkerSourceOptions {
  WorkerClientOptions client;
  double run_seconds = 0.5;            // timing budget of a Run
  double live_seconds = 0.01;          // of a live edit: a stable median of a short kernel
  double sweep_seconds = 0.001;        // of each shape of a sweep, as `warplens sweep` takes
  std::string run_metrics = "default"; // counters of a Run; a live edit counts nothing
  // Every request starts from these (the command line's engine options, run_options.h); the
  // timing budget, counters and per-site pass are then the kind of request's, as above.
  EngineOptions engine;
};

class WorkerSource : public ResultSource {
public:
  explicit WorkerSource(WorkerSourceOptions options);

  void submit(const KernelRequest& request, const Arch& arch, RunKind kind) override;
  std::optional<SourceUpdate> poll() override;
  bool busy() const override;
  std::string mode() const override;
  void submit_sweep(const KernelRequest& request, const SweepGrid& grid, const Arch& arch) override;
  std::pair<int, int> sweep_progress() const override;
  void cancel_sweep() override;

  WorkerSnapshot snapshot() const { return m_client.latest(); }

private:
  struct Submitted {
    KernelRequest request;
    Arch arch;
    RunKind kind;
  };
  void send(const Submitted& submitted);
  std::optional<SourceUpdate> on_error(const WorkerAnswer& answer);
  std::optional<SourceUpdate> poll_sweep();
  struct Sweep {
    KernelRequest request;
    SweepGrid grid;
    Arch arch;
  };

  const WorkerSourceOptions m_options;
  WorkerClient m_client;
  std::optional<Submitted> m_last;     // the newest request, to send again after a worker died
  std::int64_t m_newest = 0;           // its id: answers to older requests are stale
  std::int64_t m_seen = 0;             // the newest answer already handed to the GUI
  std::int64_t m_timed_part_shown = 0; // the newest request whose timed part was handed to it
  std::int64_t m_retried = 0;   // the request last sent again, so a failing one is not looped
  std::string m_model_reason;   // set once the worker's machine turned out to have no GPU
  std::optional<Sweep> m_sweep; // the sweep with the worker, until it answers
  std::int64_t m_sweep_id = 0;
  std::optional<SourceUpdate> m_modelled_sweep; // a sweep modelled here, in model mode
};

} // namespace wl::viz
