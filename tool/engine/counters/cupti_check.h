#pragma once
// CUPTI's failures as values the counter passes carry: a call that fails throws CuptiFailure with
// the call, CUPTI's words and, for the failures a person can fix (permissions, another profiler),
// the fix. Shared by the range profiler, the SASS metrics and the PC sampling passes.

#include <string>

#include <cupti_result.h>

namespace wl {

struct CuptiFailure {
  std::string what;
};

// Throws CuptiFailure naming `call` unless `status` is CUPTI_SUCCESS.
void cupti_check(CUptiResult status, const char* call);

#define WL_CUPTI(call) cupti_check(call, #call)

} // namespace wl
