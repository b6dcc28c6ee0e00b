#include "engine/launch_watchdog.h"

#include "base/text_format.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace wl {

namespace {

using Clock = std::chrono::steady_clock;

// How often a busy stream is looked at: an overrun is seen this late at most. Between looks, and
// whenever no launch is in flight, the thread sleeps.
constexpr auto kLook = std::chrono::milliseconds(50);

void print_overrun(const std::string& message) {
  std::fprintf(stderr, "warplens: %s\n", message.c_str());
}

// The engine synchronises after each launch of a kernel file before it enqueues the next, so the
// stream of the newest launch is busy with that launch: while it stays busy and no launch follows,
// the launch is running. Watching costs the launch path a lock and a timestamp, no CUDA call, so
// the timed launches keep their noise; the thread looks with cudaStreamQuery, never while idle.
class LaunchWatchdog {
public:
  void watch(cudaStream_t stream, const std::string& launch, double limit_seconds) {
    std::unique_lock lock(m_mutex);
    const bool was_idle = m_stream == nullptr;
    m_stream = stream;
    m_since = Clock::now();
    m_launch = launch;
    m_limit_seconds = limit_seconds;
    if (!m_thread.joinable())
      m_thread = std::thread([this] { look(); });
    lock.unlock();
    if (was_idle)
      m_wake.notify_one();
  }

  void forget(cudaStream_t stream) {
    const std::lock_guard lock(m_mutex); // waits for a look at it in progress
    if (m_stream == stream)
      m_stream = nullptr;
  }

  void set_handler(OverrunHandler handler) {
    const std::lock_guard lock(m_mutex);
    m_handler = handler ? handler : print_overrun;
  }

private:
  [[noreturn]] void look() {
    std::unique_lock lock(m_mutex);
    for (;;) {
      m_wake.wait(lock, [&] { return m_stream != nullptr; });
      m_wake.wait_for(lock, kLook);
      if (!m_stream)
        continue;
      // Under the lock, so the stream is not destroyed meanwhile (forget waits for it).
      const cudaError_t state = cudaStreamQuery(m_stream);
      if (state != cudaErrorNotReady) {
        m_stream = nullptr; // idle (or failed, which the engine reports): nothing to watch
        continue;
      }
      const double ran = std::chrono::duration<double>(Clock::now() - m_since).count();
      if (ran > m_limit_seconds)
        overran();
    }
  }

  [[noreturn]] void overran() {
    m_handler(format("%s: the kernel did not finish within its %g s limit (--kernel-time-limit "
                     "sets it); a running kernel cannot be stopped, so the process running it "
                     "exits",
                     m_launch.c_str(), m_limit_seconds));
    std::fflush(stderr);
    ::_exit(kExitKernelOverran); // the driver ends the context with the process
  }

  std::mutex m_mutex;
  std::condition_variable m_wake;
  cudaStream_t m_stream = nullptr; // the newest watched launch's, until seen idle
  Clock::time_point m_since;       // when that launch was enqueued
  std::string m_launch;
  double m_limit_seconds = 0;
  OverrunHandler m_handler = print_overrun;
  std::thread m_thread;
};

// Never destroyed: its thread may be waiting when the process exits.
LaunchWatchdog& watchdog() {
  static LaunchWatchdog* const instance = new LaunchWatchdog;
  return *instance;
}

} // namespace

void set_overrun_handler(OverrunHandler handler) { watchdog().set_handler(handler); }

void watch_launch(cudaStream_t stream, const std::string& launch, double limit_seconds) {
  watchdog().watch(stream, launch, limit_seconds);
}

void forget_stream(cudaStream_t stream) { watchdog().forget(stream); }

} // namespace wl
