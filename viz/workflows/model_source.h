#pragma once
// Model mode: results from `model_kernel` (pure CPU) computed on one background thread, so a
// large launch never stalls a frame. The newest request replaces one still waiting; the GUI
// picks results up with `poll`. `on_ready` (e.g. wake_window) wakes a sleeping GUI.

#include "workflows/app.h"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace wl::viz {

class ModelSource : public ResultSource {
public:
  // `why`: what the status line says after "model mode, " instead of the usual words, where
  // this model mode is not the person's choice (a build that cannot measure); its words up to
  // the first colon are what a crowded status line shows.
  explicit ModelSource(std::function<void()> on_ready = {}, std::string why = {});
  ~ModelSource() override;
  ModelSource(const ModelSource&) = delete;
  ModelSource& operator=(const ModelSource&) = delete;

  void submit(const KernelRequest& request, const Arch& arch, RunKind kind) override;
  // Modelled at once: a sweep's model budget is small (model_sweep).
  void submit_sweep(const KernelRequest& request, const SweepGrid& grid, const Arch& arch) override;
  std::optional<SourceUpdate> poll() override;
  bool busy() const override;
  std::string mode() const override;

  // Blocks until nothing is waiting or being computed (headless screenshots, tests).
  void wait_idle();

private:
  struct Job {
    KernelRequest request;
    Arch arch;
  };
  void work();

  std::string m_why;
  std::function<void()> m_on_ready;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::optional<Job> m_pending;
  std::vector<SourceUpdate> m_done;
  bool m_working = false;
  bool m_stopping = false;
  std::thread m_thread; // last: starts after the members it uses
};

} // namespace wl::viz
