#pragma once
// Which file a function was loaded from: the shared library (or the executable) that holds it,
// so a report can say whether NVRTC or CUPTI came with WarpLens or from the CUDA toolkit.

#include <string>

#include <dlfcn.h>

namespace wl {

// The path of the loaded object holding `symbol`, or "" when the loader cannot say.
inline std::string loaded_from(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || !info.dli_fname)
    return "";
  return info.dli_fname;
}

} // namespace wl
