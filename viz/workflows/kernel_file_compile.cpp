#include "workflows/kernel_file_compile.h"

#include <exception>
#include <utility>

namespace wl::viz {

KernelFileCompile::~KernelFileCompile() {
  {
    const std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_waiting.reset();
  }
  m_changed.notify_all();
  // A compile under way ends by the compile server's deadline at the latest.
  if (m_thread.joinable())
    m_thread.join();
}

void KernelFileCompile::start(Work work) {
  {
    const std::lock_guard lock(m_mutex);
    m_waiting = std::move(work);
    if (!m_thread.joinable())
      m_thread = std::thread([this] { serve(); });
  }
  m_changed.notify_all();
}

std::optional<SavedKernelFile> KernelFileCompile::take() {
  const std::lock_guard lock(m_mutex);
  return std::exchange(m_done, std::nullopt);
}

bool KernelFileCompile::busy() const {
  const std::lock_guard lock(m_mutex);
  return m_running || m_waiting.has_value() || m_done.has_value();
}

void KernelFileCompile::serve() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_changed.wait(lock, [this] { return m_stopping || m_waiting.has_value(); });
    if (m_stopping)
      return;
    Work work = std::move(*m_waiting);
    m_waiting.reset();
    m_running = true;
    lock.unlock();
    SavedKernelFile outcome;
    try {
      outcome = work();
    } catch (const std::exception& e) { // work says its problems; this is a last resort
      outcome.problem = e.what();
    }
    lock.lock();
    m_running = false;
    m_done = std::move(outcome);
    lock.unlock();
    if (m_wake) // a window to wake (none in a test's frames)
      m_wake();
    lock.lock();
  }
}

} // namespace wl::viz
