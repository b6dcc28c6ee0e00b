#include "cli_commands.h"
#ifdef WARPLENS_LINKS_ENGINE
#include "engine/worker.h"
#endif

#include <cstdlib>

namespace wl {

void add_worker_command(CLI::App& app) {
  CLI::App* worker = app.add_subcommand(
      "worker",
      "Serve model and run requests as JSON lines on stdin/stdout (the GUI starts this itself)");
  // The worker's exit code says how it ended (3: a sticky CUDA error), and nothing is left to
  // do once it returns, so it ends the process here rather than through the CLI's error paths.
  // A worker whose answers or requests cannot pass throws, and is reported as any command is.
#ifdef WARPLENS_LINKS_ENGINE
  worker->callback([] { std::exit(run_worker()); });
#else
  worker->callback([] { needs_engine("warplens worker"); });
#endif
}

} // namespace wl
