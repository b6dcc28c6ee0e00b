#include "base/error.h"
#include "cli_commands.h"
#include "engine/system_checks.h"
#include "io/assets.h"
#include "kernel_file/compile.h"
#include "model/sass_text.h"

#include <filesystem>
#include <iostream>

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
  try {
    const Arch gpu = arch_from_device(0);
    return gpu.cc_major * 10 + gpu.cc_minor;
  } catch (const Error&) {
    return 90;
  }
}

// "ok   NVRTC           13.0, ...", and under a line that is not right, its fix.
void print_check(const SystemCheck& check) {
  std::cout << (check.ok() ? "ok   " : "FIX  ") << check.what
            << std::string(check.what.size() < 15 ? 15 - check.what.size() : 1, ' ') << check.found
            << "\n";
  if (!check.ok())
    std::cout << std::string(20, ' ') << "-> " << check.fix << "\n";
}

int doctor() {
  std::cout << "warplens doctor: what WarpLens uses on this machine, each line ok or what to do\n";
  SystemChecks checks{{"WarpLens", std::string(WARPLENS_VERSION) + ", " + executable_path(), ""}};
  const auto add = [&checks](const SystemChecks& more) {
    checks.insert(checks.end(), more.begin(), more.end());
  };
  add(check_gpus());
  add(check_compiler(compiler_target()));
  add({check_disassembler(), check_assets()});
  add(viz::gui_checks());
  int to_fix = 0;
  for (const SystemCheck& check : checks) {
    print_check(check);
    to_fix += check.ok() ? 0 : 1;
  }
  std::cout << (to_fix == 0 ? std::string("all ok\n")
                            : std::to_string(to_fix) + " to fix; the rest works without them\n");
  return to_fix == 0 ? 0 : kExitSomethingToFix;
}

} // namespace

std::string version_text() {
  std::string text = std::string("WarpLens ") + WARPLENS_VERSION + "\n";
  for (const std::string& line : cuda_version_lines())
    text += line + "\n";
  text += "NVRTC " + nvrtc_version();
  return text;
}

void add_doctor_command(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "doctor", "Check what WarpLens uses here: the driver, each GPU, the counters' permission, "
                "NVRTC, nvdisasm, the assets, EGL, the display and the settings; each line ok or "
                "its fix (exit 1 when a line needs one)");
  command->callback([] { std::exit(doctor()); });
}

} // namespace wl
