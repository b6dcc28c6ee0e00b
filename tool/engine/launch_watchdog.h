#pragma once
// A person's kernel may never finish: a loop whose exit depends on a bug, a spin on a flag no
// thread sets. The host cannot stop a running kernel, and until it ends every later CUDA call of
// the process waits, so the only way out is to end the process, which frees the GPU. Each launch
// of a kernel file is watched on a thread of its own: past its time limit the process says which
// launch it was (through the overrun handler) and exits with kExitKernelOverran.
//
// A launch is watched from the moment the one before it on the watch ended (or from its enqueue,
// when none is ahead of it): the time it is queued behind other work does not count as its own.

#include "engine/library.h"

#include <string>

#include <cuda_runtime.h>

namespace wl {

inline constexpr int kExitKernelOverran = 4;

// Where a launch past its limit is reported, just before the process exits. The default prints
// "warplens: MESSAGE" on stderr; the worker sends it as a fatal error of the request it serves.
using OverrunHandler = void (*)(const std::string& message);
void set_overrun_handler(OverrunHandler handler);

// Watches the launch just enqueued on `stream`: `launch` names it ("saxpy/saxpy, grid 65536,
// block 256"), `limit_seconds` is how long it may run. The watch costs one event recorded after
// the launch and nothing while no launch is in flight.
void watch_launch(cudaStream_t stream, const std::string& launch, double limit_seconds);

} // namespace wl
