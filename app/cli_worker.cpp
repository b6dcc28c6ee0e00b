#include "cli_commands.h"
#include "kernel_file/compile_server.h"
#ifdef WARPLENS_LINKS_ENGINE
#include "engine/worker.h"
#endif

#include <cstdlib>

namespace wl {

void add_worker_command(CLI::App& app) {
  CLI::App* worker =
      app.add_subcommand("worker", "Serve model and run requests as JSON lines on stdin/stdout "
                                   "(the GUI starts this itself; manual: docs/remote-workers.md)");
  // The worker's exit code says how it ended (3: a sticky CUDA error), and nothing is left to
  // do once it returns, so it ends the process here rather than through the CLI's error paths.
  // A worker whose answers or requests cannot pass throws, and is reported as any command is.
#ifdef WARPLENS_LINKS_ENGINE
  worker->callback([] { std::exit(run_worker()); });
#else
  worker->callback([] { needs_engine("warplens worker"); });
#endif
  // Where every compile of this process goes (kernel_file/compile_server.h): a child that runs
  // NVRTC under a memory cap and a deadline. Not listed in the help: only WarpLens starts it.
  CLI::App* server =
      app.add_subcommand("compile-server", "NVRTC for this program's kernel files, kept apart");
  server->group("");
  static std::size_t memory_bytes = CompileLimits{}.memory_bytes;
  server
      ->add_option("--memory-bytes", memory_bytes,
                   "The cap on what compiles add to its address space")
      ->check(CLI::Range(std::size_t{256} << 20, std::size_t{1} << 40));
  server->callback([] { std::exit(serve_compiles(memory_bytes)); });
}

} // namespace wl
