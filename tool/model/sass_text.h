#pragma once
// The SASS text of the bundled kernels, for the Source panel and the per-site reasons: nvdisasm's
// listing of each embedded cubin (`nvdisasm -c -g`: every instruction with its PC and the source
// line it came from). Made at build time where the toolkit has nvdisasm and embedded in the
// binary, so it needs no GPU; else made now by an nvdisasm this machine has; else absent, with
// the reason.

#include "base/system_check.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wl {

struct SassLine {
  std::uint32_t pc = 0; // bytes from the function's first instruction
  std::string text;     // "LDG.E R2, desc[UR4][R2.64]"
  std::string file;     // the source file of its line ("vec_add.cu"), "" when unknown
  int line = 0;
};

struct SassListing {
  std::map<std::string, std::vector<SassLine>> functions; // by mangled name, in PC order
  std::string origin; // "nvdisasm at build time", or the nvdisasm run now
  std::string reason; // why there is none, when `functions` is empty
};

// For `warplens doctor`: where nvdisasm is, which gives a kernel file's per-line figures their
// SASS text.
SystemCheck check_disassembler();

// Reads nvdisasm's `-c -g` output.
SassListing parse_nvdisasm(const std::string& text);

// nvdisasm's listing of a cubin made at run time (a person's kernel file, or a bundled family
// where the build had no nvdisasm), run now (tens of milliseconds for a small file, a second or
// more for a family) and kept in the user's cache folder (listings/), so the next process reads
// it; the reason where this machine has no nvdisasm. `name` names the cubin in that reason and in
// the temporary file.
SassListing disassemble_cubin(const unsigned char* bytes, std::size_t size,
                              const std::string& name);

// The listing of `family`'s cubin for sm_`sm`: the embedded one, or one nvdisasm makes now (half
// a second for a family), on another thread from the first call of either, once per cubin. A
// per-site measurement starts it with its session, so it overlaps the inputs and the timing.
void prefetch_sass_listing(const std::string& family, int sm);
const SassListing& sass_listing(const std::string& family, int sm);

} // namespace wl
