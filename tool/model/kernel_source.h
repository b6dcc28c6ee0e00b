#pragma once
// The bundled kernels' code as this binary was built from it: each family file's text, the line
// where each site's access is written (marked `// site: NAME` in the file), and the cubins nvcc
// made of it, whose line tables tie every SASS instruction to a source line. Per-site counters
// and the Source panel read it; nothing here needs a GPU.

#include "kernel.h"

#include <cstddef>
#include <string>
#include <vector>

namespace wl {

struct FamilySource {
  std::string file;               // "vec_add.cu"
  std::vector<std::string> lines; // the text, line 1 first
};

// The family file of a kernel: "vec_add.cu" for vec_add/scalar. Throws UsageError for a kernel
// whose family file the binary does not hold.
const FamilySource& family_source(const KernelDesc& kernel);

// The name of the __global__ function a launch with `params` runs, as written in the file:
// "matmul_tiled" for wl::matmul_tiled<16>. Empty for a library call.
std::string kernel_function_name(const KernelDesc& kernel, const Params& params);

// The same name from a mangled one, as a SASS record names the function: "matmul_tiled" for
// _ZN2wl12matmul_tiledILi16EEEvPKfS2_Pfiii.
std::string demangled_function_name(const std::string& mangled);

struct SiteLines {
  std::string file;
  int first_line = 0, last_line = 0; // the __global__ function, signature to closing brace
  std::vector<int> lines;            // per site of the kernel, 1-based; 0 when not found
  // Per site, how many sites of the same space and direction share its line (an inlined helper
  // reached from two places: softmax's tree for the max and for the sum). 1 when alone.
  std::vector<int> sharing;
  std::string problem; // "" when every site has exactly one line, else the first reason
};

// Where each site of `kernel` is written: the one line marked with its name in the kernel's
// function or in a __device__ function it calls.
SiteLines site_lines(const KernelDesc& kernel, const Params& params);

struct EmbeddedCubinView {
  std::string family; // "vec_add"
  int sm = 0;         // 90 for sm_90
  const unsigned char* bytes = nullptr;
  std::size_t size = 0;
};

// The cubins built into this binary, one per family and real architecture.
const std::vector<EmbeddedCubinView>& embedded_cubins();

} // namespace wl
