#pragma once
// The subcommands of `warplens`, each group in its own file; cli.cpp parses and reports errors.
// A subcommand's callback prints its result or throws UsageError.

#include "front_end/viz_main.h"
#include "model/arch.h"

#include <string>

#include <CLI/CLI.hpp>

namespace wl {

void add_arch_commands(CLI::App& app);   // arches, occupancy
void add_kernel_commands(CLI::App& app); // list, model, run, sweep
void add_worker_command(CLI::App& app);  // worker: the engine behind the GUI, in JSON lines
void add_doctor_command(CLI::App& app);  // doctor: what this machine has for WarpLens
void add_lesson_command(CLI::App& app);  // lesson list, lesson check FILE
void add_tune_command(CLI::App& app);    // tune: the best launch, found and explained
void add_record_command(CLI::App& app);  // record: a recording of this GPU for model mode
// `warplens --version`: WarpLens's version, then the CUDA runtime's, the driver's, CUPTI's and
// NVRTC's (each library with the file it was loaded from), a line each.
std::string version_text();
// The top-level options of `warplens` that apply when no subcommand is given: the GUI's.
void add_gui_options(CLI::App& app, viz::GuiOptions& options);

// A person's kernel file given where a kernel id goes ("mine.cu", "mine.cu:kernel"): its kernels
// added, compiled for the architecture when first asked; the id of the one named. Any other text
// is returned as it is (a bundled kernel's id).
std::string kernel_id_from(const std::string& text);

// --arch's value: a preset id or alias, a .json file, or device[:N] (this machine's GPU, where
// the build has the engine).
Arch arch_for(const std::string& spec);
// A build without the CUDA toolkit has no engine: what `command` needs it for, in one line, with
// `instead`, the command that models it here ("" for none).
[[noreturn]] void needs_engine(const std::string& command, const std::string& instead = "");

} // namespace wl
