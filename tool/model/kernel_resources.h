#pragma once
// Registers, shared memory and local memory of every bundled kernel as ptxas reported them, per
// target architecture, so the models know them without a GPU: this build's own report for the
// architectures it compiled, and for the others (all of them in a build without the toolkit)
// the record of every preset architecture kept in kernels/recorded_resource_usage.txt.

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
  bool recorded = false; // from kernels/recorded_resource_usage.txt, not this build's compile
};

// "void wl::matmul_tiled<16>(float const*, ...)" (demangled from its mangled name) ->
// "wl::matmul_tiled<16>": a kernel as ptxas's report and WarpLens name it.
std::string demangled_kernel_name(const std::string& mangled);

// {demangled kernel name -> {sm -> resources}}
using ResourceTable = std::map<std::string, std::map<int, CompiledResources>>;

// Reads ptxas --resource-usage output.
ResourceTable parse_ptxas_report(const std::string& text);

const ResourceTable& built_resource_report();    // empty in a build without the toolkit
const ResourceTable& recorded_resource_report(); // every preset architecture
std::string recorded_nvcc_version();             // "13.0": the nvcc that made the record

// The resources of `symbol` ("wl::matmul_tiled<16>") for `sm`: this build's own where it compiled
// `sm`, else the record's for the highest architecture that does not exceed it (what the driver
// would load), else this build's nearest. nullopt when the kernel is in neither.
std::optional<CompiledResources> compiled_resources(const std::string& symbol, int sm);

} // namespace wl
