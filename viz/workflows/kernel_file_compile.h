#pragma once
// A save of the kernel file on screen, read, described and compiled on a thread of its own: NVRTC
// takes tens of milliseconds for a small file and seconds for one that includes CUB, and a compile
// that would run without end is only stopped at the compile server's deadline, so the window draws
// on meanwhile. The frame thread starts a compile and takes its outcome once it is there; a save
// made while one compiles is compiled next (the newest only).

#include "kernel.h"
#include "kernel_file/file_kernel.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace wl::viz {

struct SavedKernelFile {
  std::optional<KernelFile> file;  // as read (absent when it could not be read at all)
  std::vector<KernelDesc> kernels; // its kernels, the one on screen compiled (empty on a problem)
  std::string shown_id;            // the kernel to show: the one shown before, else the first
  std::string problem;             // the first thing wrong with the save; "" when it compiled
  double milliseconds = 0;         // reading, describing and compiling it
  bool unchanged = false;          // the text and headers compiled last, written again
};

class KernelFileCompile {
public:
  using Work = std::function<SavedKernelFile()>;

  // `wake` wakes the window when an outcome is ready.
  explicit KernelFileCompile(std::function<void()> wake) : m_wake(std::move(wake)) {}
  ~KernelFileCompile();
  KernelFileCompile(const KernelFileCompile&) = delete;
  KernelFileCompile& operator=(const KernelFileCompile&) = delete;

  // Runs `work` on the compile thread, after the one running (a waiting one it replaces).
  void start(Work work);
  // The outcome of the last work done, once; nullopt while none is new.
  std::optional<SavedKernelFile> take();
  // Whether work is running or waiting, or its outcome not yet taken.
  bool busy() const;

private:
  void serve();

  std::function<void()> m_wake;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::optional<Work> m_waiting;
  std::optional<SavedKernelFile> m_done;
  bool m_running = false, m_stopping = false;
  std::thread m_thread; // started at the first work
};

} // namespace wl::viz
