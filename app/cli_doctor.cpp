#include "base/error.h"
#include "base/text_format.h"
#include "cli_commands.h"
#include "io/assets.h"
#include "kernel_file/compile.h"
#include "model/sass_text.h"

#include <chrono>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <thread>

#ifdef WARPLENS_LINKS_ENGINE
#include "engine/device.h"
#include "engine/system_checks.h"
#endif

namespace wl {

namespace {

constexpr int kExitSomethingToFix = 1;

std::string executable_path() {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("warplens") : path.string();
}

// The architecture NVRTC is checked for: GPU 0's where there is one, else the GUI's default
// preset's (H100).
int compiler_target() {
#ifdef WARPLENS_LINKS_ENGINE
  try {
    const Arch gpu = arch_from_device(0);
    return gpu.cc_major * 10 + gpu.cc_minor;
  } catch (const Error&) {
    return 90;
  }
#else
  return 90;
#endif
}

// The driver and each GPU, or why this build reads none.
SystemChecks gpu_checks() {
#ifdef WARPLENS_LINKS_ENGINE
  return check_gpus();
#else
  return {{"NVIDIA driver", "not read: this WarpLens was built without the CUDA toolkit",
           "to measure, run a worker on a machine with CUDA (--worker \"ssh HOST warplens "
           "worker\"); the models work here"}};
#endif
}

// "ok   NVRTC           13.0, ...", and under a line that is not right, its fix.
void print_check(const SystemCheck& check) {
  std::cout << (check.ok() ? "ok   " : "FIX  ") << check.what
            << std::string(check.what.size() < 15 ? 15 - check.what.size() : 1, ' ') << check.found
            << "\n";
  if (!check.ok())
    std::cout << std::string(20, ' ') << "-> " << check.fix << "\n";
  std::cout.flush(); // each line as soon as it is known: a slow check shows which one it is
}

// Runs a check on a thread of its own and waits its time at most: a check stuck in a call that
// never returns (an X server that does not answer) is left behind, and the process ends without
// it (main leaves through _Exit).
SystemChecks run_with_deadline(const PendingCheck& check) {
  auto task = std::make_shared<std::packaged_task<SystemChecks()>>(check.run);
  std::future<SystemChecks> result = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  if (result.wait_for(std::chrono::duration<double>(check.seconds)) != std::future_status::ready)
    return {{check.what, format("no answer within %g s", check.seconds),
             check.stuck.empty() ? std::string("what it looks at does not answer") : check.stuck}};
  try {
    return result.get();
  } catch (const std::exception& e) {
    return {{check.what, "the check itself failed", e.what()}};
  }
}

int doctor() {
  std::cout << "warplens doctor: what WarpLens uses on this machine, each line ok or what to do\n";
  std::vector<PendingCheck> checks = {
      {"WarpLens",
       [] {
         return SystemChecks{
             {"WarpLens", std::string(WARPLENS_VERSION) + ", " + executable_path(), ""}};
       }},
      {"NVIDIA driver", gpu_checks, 60, "the driver does not answer: nvidia-smi says more"},
      {"NVRTC", [] { return check_compiler(compiler_target()); }, 30},
      {"nvdisasm", [] { return SystemChecks{check_disassembler()}; }},
      {"assets", [] { return SystemChecks{check_assets()}; }}};
  for (PendingCheck& check : viz::gui_checks())
    checks.push_back(std::move(check));
  int to_fix = 0;
  for (const PendingCheck& pending : checks)
    for (const SystemCheck& check : run_with_deadline(pending)) {
      print_check(check);
      to_fix += check.ok() ? 0 : 1;
    }
  std::cout << (to_fix == 0 ? std::string("all ok\n") : std::to_string(to_fix) + " to fix\n");
  return to_fix == 0 ? 0 : kExitSomethingToFix;
}

} // namespace

std::string version_text() {
  std::string text = std::string("WarpLens ") + WARPLENS_VERSION + "\n";
#ifdef WARPLENS_LINKS_ENGINE
  for (const std::string& line : cuda_version_lines())
    text += line + "\n";
#else
  text += "built without the CUDA toolkit: no CUDA runtime, CUPTI or engine (it models here and "
          "measures through a worker)\n";
#endif
  text += "NVRTC " + nvrtc_version();
  return text;
}

void add_doctor_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "doctor", "Check what WarpLens uses here: the driver, each GPU, the counters', PC sampling's "
                "and NVML's permission, "
                "NVRTC, nvdisasm, the assets, EGL, the display and the settings; each line ok or "
                "its fix (exit 1 when a line needs one; manual: docs/install.md)");
  // Its exit code goes back through main, which checks the report was written (> /dev/full).
  command->callback([] {
    if (const int code = doctor(); code != 0)
      throw CLI::RuntimeError(code);
  });
}

} // namespace wl
