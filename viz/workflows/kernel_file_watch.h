#pragma once
// Watches a person's kernel file, and the headers beside it, for saves. inotify watches the file's
// folder, not the file: an editor that saves by writing a new file and renaming it over the old
// one replaces the file, which a watch on the file alone would lose after the first save. A thread
// sleeps on it and calls `on_change` (wake_window) when a watched name changes, so an idle window
// costs nothing until a save.

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

namespace wl::viz {

class KernelFileWatch {
public:
  KernelFileWatch(std::filesystem::path file, std::function<void()> on_change);
  ~KernelFileWatch();
  KernelFileWatch(const KernelFileWatch&) = delete;
  KernelFileWatch& operator=(const KernelFileWatch&) = delete;

  const std::filesystem::path& file() const { return m_file; }
  // Whether the file or a header beside it was written, created, renamed or deleted since the
  // last call; clears it. Ten saves a second are one change per frame.
  bool take_change() { return m_changed.exchange(false); }
  // Why the folder is not watched ("" when it is): saves are then not seen.
  const std::string& problem() const { return m_problem; }

private:
  void wait_for_changes();
  bool watched(const std::string& name) const;

  std::filesystem::path m_file;
  std::function<void()> m_on_change;
  std::atomic<bool> m_changed = false;
  std::string m_problem;
  int m_inotify = -1;
  int m_stop[2] = {-1, -1}; // a pipe: a byte on it ends the thread
  std::thread m_thread;
};

} // namespace wl::viz
