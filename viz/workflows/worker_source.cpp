#include "workflows/worker_source.h"

#include "base/text_format.h"

#include <chrono>

namespace wl::viz {

WorkerSource::WorkerSource(WorkerSourceOptions options)
    : m_options(std::move(options)), m_client(m_options.client) {}

void WorkerSource::submit(const KernelRequest& request, const Arch& arch, RunKind kind) {
  m_last = Submitted{request, arch, kind};
  send(*m_last);
}

void WorkerSource::send(const Submitted& submitted) {
  WorkerRequest r;
  r.engine = m_options.engine;
  r.type = m_model_reason.empty() ? RequestType::run : RequestType::model;
  r.kernel_id = submitted.request.kernel->id;
  r.params = submitted.request.params;
  r.block = submitted.request.block;
  r.arch = submitted.arch.id;
  r.engine.timing.max_seconds =
      submitted.kind.live ? m_options.live_seconds : m_options.run_seconds;
  r.engine.metrics = submitted.kind.live ? ""
                     : submitted.kind.memory_chart && !m_options.run_metrics.empty()
                         ? m_options.run_metrics + ",memory"
                         : m_options.run_metrics;
  r.engine.per_site = submitted.kind.per_site;
  r.engine.stalls = submitted.kind.stalls;
  r.engine.energy = submitted.kind.energy;
  m_newest = m_client.submit(std::move(r));
}

void WorkerSource::submit_sweep(const KernelRequest& request, const SweepGrid& grid,
                                const Arch& arch) {
  if (!m_model_reason.empty()) { // no GPU there: the models, here
    m_modelled_sweep = SourceUpdate{std::nullopt, "",
                                    model_sweep(*request.kernel, request.params, grid, arch), true};
    return;
  }
  WorkerRequest r;
  r.engine = m_options.engine;
  r.type = RequestType::sweep;
  r.kernel_id = request.kernel->id;
  r.params = request.params;
  r.shapes = grid.shapes;
  r.param_axes = grid.param_axes;
  r.engine.timing.max_seconds = m_options.sweep_seconds;
  r.engine.metrics = m_options.run_metrics;
  r.engine.model.max_evaluations = kSweepModelBudget.max_evaluations;
  m_sweep = Sweep{request, grid, arch};
  m_sweep_id = m_client.submit(std::move(r));
}

std::pair<int, int> WorkerSource::sweep_progress() const {
  const WorkerSnapshot s = m_client.latest();
  return m_sweep && s.newest_request == m_sweep_id ? std::pair{s.done, s.total} : std::pair{0, 0};
}

void WorkerSource::cancel_sweep() {
  if (m_sweep)
    m_client.cancel_all();
}

// The sweep's answer, read by id: a cancelled sweep is answered too, and must end the progress bar.
std::optional<SourceUpdate> WorkerSource::poll_sweep() {
  if (m_modelled_sweep)
    return std::exchange(m_modelled_sweep, std::nullopt);
  if (!m_sweep)
    return std::nullopt;
  const std::shared_ptr<const WorkerAnswer> answer =
      m_client.wait_for(m_sweep_id, std::chrono::milliseconds(0));
  if (!answer)
    return std::nullopt;
  const Sweep sweep = std::move(*m_sweep);
  m_sweep.reset();
  if (answer->sweep) {
    SweepData data{.points = *answer->sweep,
                   .origin = "measured",
                   .kernel_id = sweep.request.kernel->id,
                   .measured = true,
                   .params = sweep.request.params};
    for (const SweepPoint& p : data.points)
      if (p.result) {
        data.origin = "measured on " + p.result->arch.name + " by the worker";
        break;
      }
    return SourceUpdate{std::nullopt, "", std::move(data), true};
  }
  if (answer->no_gpu && m_model_reason.empty()) {
    m_model_reason = answer->error;
    return SourceUpdate{
        std::nullopt, "",
        model_sweep(*sweep.request.kernel, sweep.request.params, sweep.grid, sweep.arch), true};
  }
  return SourceUpdate{std::nullopt, answer->error, std::nullopt, true};
}

std::optional<SourceUpdate> WorkerSource::poll() {
  if (std::optional<SourceUpdate> sweep = poll_sweep())
    return sweep;
  const WorkerSnapshot snapshot = m_client.latest();
  if (const auto& answer = snapshot.latest_result;
      answer && answer->result && answer->id == m_newest && answer->id > m_seen) {
    m_seen = answer->id;
    return SourceUpdate{*answer->result, ""};
  }
  if (snapshot.timed_part && snapshot.newest_request == m_newest && m_newest > m_seen &&
      m_timed_part_shown != m_newest) {
    m_timed_part_shown = m_newest;
    return SourceUpdate{.result = *snapshot.timed_part, .timed_part = true};
  }
  if (const auto& answer = snapshot.latest_error;
      answer && answer->id == m_newest && answer->id > m_seen) {
    m_seen = answer->id;
    return on_error(*answer);
  }
  return std::nullopt;
}

std::optional<SourceUpdate> WorkerSource::on_error(const WorkerAnswer& answer) {
  if (answer.no_gpu && m_model_reason.empty() && m_last) {
    m_model_reason = answer.error;
    send(*m_last); // the same request, now as a model request
    return std::nullopt;
  }
  // A worker that died mid-request (killed, crashed, timed out) is replaced by the client; the
  // request is measured again once there. A sticky CUDA error is the kernel's doing: not again.
  if (answer.worker_died && !answer.fatal && m_last && m_retried != answer.id) {
    send(*m_last);
    m_retried = m_newest;
    return SourceUpdate{std::nullopt, answer.error + "; measuring again on a new worker"};
  }
  return SourceUpdate{std::nullopt, answer.error};
}

bool WorkerSource::busy() const { return m_newest > m_seen || m_sweep.has_value(); }

std::string WorkerSource::mode() const {
  const WorkerSnapshot s = m_client.latest();
  if (!m_model_reason.empty())
    return "model mode (timings and counters only from the preset's recording): the worker's "
           "machine has no usable GPU (" +
           m_model_reason + "; warplens doctor checks the driver, the GPU and the counters)";
  const std::string restarts = s.restarts > 0
                                   ? format("; restarted %d time%s, last because %s", s.restarts,
                                            s.restarts == 1 ? "" : "s", s.last_failure.c_str())
                                   : "";
  switch (s.status) {
  case WorkerStatus::starting:
    return "GPU mode: starting the worker (" + s.command + ")" + restarts;
  case WorkerStatus::ready:
    return format("GPU mode: worker pid %d (%s)", s.worker_pid, s.command.c_str()) + restarts;
  case WorkerStatus::busy: // the phase shows the first run's set-up (inputs, reference, GPU
                           // warm-up) as it goes
    return format("GPU mode: worker pid %d (%s), %s", s.worker_pid, s.command.c_str(),
                  s.phase.empty() ? "working" : ("phase " + s.phase).c_str()) +
           restarts;
  case WorkerStatus::restarting:
    return "GPU mode: the worker ended (" + s.last_failure + "); starting a new one";
  case WorkerStatus::failed:
    return "GPU mode unavailable: " + s.last_failure;
  }
  return "GPU mode";
}

} // namespace wl::viz
