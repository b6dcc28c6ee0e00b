#include "workflows/kernel_file_watch.h"

#include <array>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace wl::viz {

namespace {

// What a save looks like, whichever way an editor saves: written in place, written anew and
// renamed over the old file, or deleted and created again.
constexpr std::uint32_t kSaves =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE;

bool is_header(const std::string& name) {
  for (const char* end : {".h", ".cuh", ".hpp", ".inl"})
    if (name.ends_with(end))
      return true;
  return false;
}

} // namespace

KernelFileWatch::KernelFileWatch(std::filesystem::path file, std::function<void()> on_change)
    : m_file(std::move(file)), m_on_change(std::move(on_change)) {
  const std::filesystem::path folder =
      m_file.has_parent_path() ? m_file.parent_path() : std::filesystem::path(".");
  m_inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (m_inotify < 0 || pipe2(m_stop, O_CLOEXEC) != 0) {
    m_problem = std::string("saves are not watched: ") + std::strerror(errno);
    return;
  }
  if (inotify_add_watch(m_inotify, folder.c_str(), kSaves) < 0) {
    m_problem = "saves are not watched: the folder '" + folder.string() + "' cannot be watched (" +
                std::strerror(errno) + ")";
    return;
  }
  m_thread = std::thread([this] { wait_for_changes(); });
}

KernelFileWatch::~KernelFileWatch() {
  if (m_thread.joinable()) {
    const char stop = 1;
    [[maybe_unused]] const ssize_t written = write(m_stop[1], &stop, 1);
    m_thread.join();
  }
  for (const int fd : {m_inotify, m_stop[0], m_stop[1]})
    if (fd >= 0)
      close(fd);
}

bool KernelFileWatch::watched(const std::string& name) const {
  return name == m_file.filename().string() || is_header(name);
}

void KernelFileWatch::wait_for_changes() {
  alignas(inotify_event) std::array<char, 16384> events{};
  for (;;) {
    pollfd waits[2] = {{m_inotify, POLLIN, 0}, {m_stop[0], POLLIN, 0}};
    if (poll(waits, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    if (waits[1].revents)
      return;
    const ssize_t n = read(m_inotify, events.data(), events.size());
    bool changed = false;
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(events.data() + at);
      if (event->len > 0 && watched(event->name))
        changed = true;
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
    if (changed && !m_changed.exchange(true) && m_on_change)
      m_on_change();
  }
}

} // namespace wl::viz
