#pragma once
// `warplens worker`: the engine in a child process, spoken to in the JSON-lines protocol of
// protocol.h over stdin and stdout. A kernel fault, a hang or a CUPTI failure ends at most this
// process; the GUI that spawned it (worker_client.h) reports it and starts another.

#include "engine/library.h"

namespace wl {

// Serves requests until end of input or a shutdown request. Returns the process exit code:
// 0 after a normal end, 3 after a sticky CUDA error (reported first as a fatal error line), 4
// when a kernel file's launch ran past its time limit (engine/launch_watchdog.h; reported
// likewise). Throws UsageError, naming the system's reason, when an answer could not be written
// (stdout closed, full, or the client gone) or reading the input failed (stdin a folder).
int run_worker();

} // namespace wl
