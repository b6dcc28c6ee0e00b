#include "engine/launch_watchdog.h"

#include "base/text_format.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

namespace wl {

namespace {

using Clock = std::chrono::steady_clock;

// How often the oldest launch in flight is looked at: an overrun is seen this late at most, and
// the thread sleeps between looks.
constexpr auto kLook = std::chrono::milliseconds(20);

void print_overrun(const std::string& message) {
  std::fprintf(stderr, "warplens: %s\n", message.c_str());
}

class LaunchWatchdog {
public:
  void watch(cudaStream_t stream, const std::string& launch, double limit_seconds) {
    const std::lock_guard lock(m_mutex);
    cudaEvent_t ended = take_event_locked();
    if (!ended || cudaEventRecord(ended, stream) != cudaSuccess)
      return; // the launch itself failed or the context is gone: the caller's check says why
    const bool was_idle = m_in_flight.empty();
    m_in_flight.push_back({ended, Clock::now(), launch, limit_seconds});
    if (!m_thread.joinable())
      m_thread = std::thread([this] { look(); });
    if (was_idle) // a thread already looking finds the new launch behind the one it watches
      m_wake.notify_one();
  }

  void set_handler(OverrunHandler handler) {
    const std::lock_guard lock(m_mutex);
    m_handler = handler ? handler : print_overrun;
  }

private:
  struct Watched {
    cudaEvent_t ended;
    Clock::time_point since; // its enqueue, or when the launch ahead of it was seen to end
    std::string launch;
    double limit_seconds;
  };

  cudaEvent_t take_event_locked() {
    if (!m_spare.empty()) {
      const cudaEvent_t event = m_spare.back();
      m_spare.pop_back();
      return event;
    }
    cudaEvent_t event = nullptr;
    if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess)
      return nullptr;
    return event;
  }

  // Sleeps while nothing is in flight; else looks at the oldest launch every kLook.
  [[noreturn]] void look() {
    std::unique_lock lock(m_mutex);
    for (;;) {
      m_wake.wait(lock, [&] { return !m_in_flight.empty(); });
      Watched& head = m_in_flight.front(); // a deque's push_back keeps references valid
      // Queried unlocked: the launching thread must not wait on the driver's answer to record
      // its next watch.
      lock.unlock();
      const cudaError_t state = cudaEventQuery(head.ended);
      lock.lock();
      if (state != cudaErrorNotReady) { // ended, or failed: the engine reports a failure
        if (state == cudaSuccess)
          m_spare.push_back(head.ended);
        m_in_flight.pop_front();
        if (!m_in_flight.empty())
          m_in_flight.front().since = std::max(m_in_flight.front().since, Clock::now());
        continue;
      }
      const double ran = std::chrono::duration<double>(Clock::now() - head.since).count();
      if (ran > head.limit_seconds)
        overran(head);
      m_wake.wait_for(lock, kLook);
    }
  }

  [[noreturn]] void overran(const Watched& head) {
    m_handler(format("%s: the kernel did not finish within its %g s limit (--kernel-time-limit "
                     "sets it); a running kernel cannot be stopped, so the process running it "
                     "exits",
                     head.launch.c_str(), head.limit_seconds));
    std::fflush(stderr);
    ::_exit(kExitKernelOverran); // the driver ends the context with the process
  }

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::deque<Watched> m_in_flight;
  std::vector<cudaEvent_t> m_spare; // events whose launch ended, to record again
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

} // namespace wl
