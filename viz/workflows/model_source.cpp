#include "workflows/model_source.h"

#include "base/error.h"
#include "model/model_kernel.h"

namespace wl::viz {

ModelSource::ModelSource(std::function<void()> on_ready, std::string why)
    : m_why(std::move(why)), m_on_ready(std::move(on_ready)), m_thread([this] { work(); }) {}

ModelSource::~ModelSource() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void ModelSource::submit(const KernelRequest& request, const Arch& arch, RunKind) {
  {
    std::lock_guard lock(m_mutex);
    m_pending = Job{request, arch};
  }
  m_changed.notify_all();
}

void ModelSource::submit_sweep(const KernelRequest& request, const SweepGrid& grid,
                               const Arch& arch) {
  SweepData data = model_sweep(*request.kernel, request.params, grid, arch);
  std::lock_guard lock(m_mutex);
  m_done.push_back(SourceUpdate{std::nullopt, "", std::move(data), true});
}

std::optional<SourceUpdate> ModelSource::poll() {
  std::lock_guard lock(m_mutex);
  if (m_done.empty())
    return std::nullopt;
  SourceUpdate update = std::move(m_done.front());
  m_done.erase(m_done.begin());
  return update;
}

bool ModelSource::busy() const {
  std::lock_guard lock(m_mutex);
  return m_working || m_pending.has_value();
}

std::string ModelSource::mode() const {
  if (!m_why.empty())
    return "model mode, " + m_why;
  // Short enough to stand whole on a 1280 px line; the panels say which recording answered.
  return "model mode (no GPU work here): the models' figures, and timings and counters where the "
         "preset's recording has the launch";
}

void ModelSource::wait_idle() {
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [this] { return !m_working && !m_pending; });
}

void ModelSource::work() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [this] { return m_stopping || m_pending.has_value(); });
    if (m_stopping)
      return;
    Job job = std::move(*m_pending);
    m_pending.reset();
    m_working = true;
    lock.unlock();
    SourceUpdate update;
    try {
      update.result = model_kernel(job.request, job.arch);
    } catch (const std::exception& e) { // a UsageError, or a model that cannot handle the launch
      update.error = e.what();
    }
    lock.lock();
    m_working = false;
    // A newer request makes this result stale: drop it rather than flash an old figure.
    if (!m_pending)
      m_done.push_back(std::move(update));
    m_changed.notify_all();
    if (m_on_ready) {
      lock.unlock();
      m_on_ready();
      lock.lock();
    }
  }
}

} // namespace wl::viz
