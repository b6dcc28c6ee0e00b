#pragma once
// Which file a function was loaded from: the shared library (or the executable) that holds it,
// so a report can say whether NVRTC or CUPTI came with WarpLens or from the CUDA toolkit.

#include <filesystem>
#include <string>

#include <dlfcn.h>

namespace wl {

// The path of the loaded object holding `symbol` ("/usr/bin/../lib/x.so" as /usr/lib/x.so), or ""
// when the loader cannot say.
inline std::string loaded_from(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || !info.dli_fname)
    return "";
  return std::filesystem::path(info.dli_fname).lexically_normal().string();
}

} // namespace wl
