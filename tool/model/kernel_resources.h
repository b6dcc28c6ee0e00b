#pragma once
// Registers, shared memory and local memory of every bundled kernel as ptxas reported them when
// WarpLens was built, per target architecture, so the models know them without a GPU.

#include <map>
#include <optional>
#include <string>

namespace wl {

struct CompiledResources {
  int sm = 0;                  // the architecture ptxas compiled for: 90 for sm_90
  int registers = 0;           // per thread
  int static_shared_bytes = 0; // per block
  int stack_frame_bytes = 0;   // local memory per thread
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int barriers = 0;
};

// "void wl::matmul_tiled<16>(float const*, ...)" (demangled from its mangled name) ->
// "wl::matmul_tiled<16>": a kernel as ptxas's report and WarpLens name it.
std::string demangled_kernel_name(const std::string& mangled);

// Reads ptxas --resource-usage output: {demangled kernel name -> {sm -> resources}}.
std::map<std::string, std::map<int, CompiledResources>> parse_ptxas_report(const std::string& text);

// The resources of `symbol` ("wl::matmul_tiled<16>") compiled for the highest architecture that
// does not exceed `sm` (what the driver would load), or else the lowest one built. nullopt when
// the kernel is not in this build's report.
std::optional<CompiledResources> compiled_resources(const std::string& symbol, int sm);

} // namespace wl
