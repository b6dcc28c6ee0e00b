#pragma once
// The access model over a whole launch: every declared site of a kernel, evaluated warp by warp
// from the kernel's own index functions, summed into the requests, sectors and wavefronts the
// launch should produce. Also the exact lane addresses of any (block, warp, site, iteration),
// for drawing.
//
// Large launches are estimated from a stratified sample (edge blocks, first and last iterations,
// and a seeded sample of the rest, scaled by each stratum's size); small ones are enumerated. A
// prediction says which it is.

#include "kernel.h"
#include "model/access.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace wl {

struct SitePrediction {
  std::string name;
  MemorySpace space = MemorySpace::global;
  AccessOp op = AccessOp::load;
  int width = 0;
  std::int64_t requests = 0;
  // The lanes that made the site's accesses, summed over its warp-level instructions: 32 each
  // where no lane is off (a branch, a guard or a part-full warp turns lanes off). -1: not known
  // (a result read back that was made before the model counted them).
  std::int64_t lanes = 0;
  // global. dram_bytes: what DRAM moves for the site when no load finds another warp's data in
  // L2 (loads: the 64-byte segments each request touches; stores: the bytes written, in whole
  // 32-byte sectors, as L2 merges every warp's writes to a sector before writing it back).
  std::int64_t sectors = 0, ideal_sectors = 0, bytes_used = 0, bytes_fetched = 0, dram_bytes = 0;
  // shared
  std::int64_t wavefronts = 0, ideal_wavefronts = 0, excess_wavefronts = 0;
  int conflict_degree = 0; // the worst n-way seen
  bool exact = true;       // every warp-iteration evaluated
  // A kernel file's site (the accesses of one line, space, op and width, from its compiled code):
  // its line of the file, and the most times one warp ran it. 0 for a bundled kernel's, whose
  // line its source's marker gives and whose iterations its site says.
  int line = 0;
  std::int64_t iterations = 0;

  double sectors_per_request() const { return requests ? double(sectors) / requests : 0; }
  double wavefronts_per_request() const { return requests ? double(wavefronts) / requests : 0; }
  double lanes_known() const { return lanes < 0 ? std::nan("") : double(lanes); }
  double lanes_per_request() const {
    return lanes < 0 ? std::nan("") : requests ? double(lanes) / requests : 0;
  }
};

// Why part of a kernel file's code has no prediction, by line: an instruction the model does not
// run (mma.sync), an address that depends on one, a loop past the budget, a fault.
struct LineNote {
  int line = 0; // 0: no line (the compiler gave none)
  std::string reason;
};

struct LaunchPrediction {
  std::vector<SitePrediction> sites;
  std::vector<LineNote> notes;
  // Made from the kernel's compiled code (a kernel file's PTX run by the model): the warp
  // iterations below are then warps, each run whole.
  bool from_code = false;
  std::string file; // whose lines the sites stand on, where made from code ("saxpy.cu")
  std::int64_t warp_iterations = 0;           // over all sites
  std::int64_t warp_iterations_evaluated = 0; // equal when exact
  double seconds = 0;                         // time the model took
  // Some sampled blocks stopped before their end (a loop past the budget, an instruction the model
  // does not run): the counts of the lines past where they stopped are of the part run, their
  // per-request figures still hold. Its notes say where.
  bool unfinished = false;

  bool exact() const { return warp_iterations == warp_iterations_evaluated; }
};

struct ModelBudget {
  std::int64_t max_evaluations = 30000; // warp-iterations analysed at most; 0: all of them
};

// The most warp-iterations one request from outside (the worker protocol) may ask the model for:
// a few seconds of model time on one core (matmul/naive: about 4 s on a 2-core CI machine). Its "0:
// all" means this many; more is refused.
inline constexpr std::int64_t kMaxModelEvaluations = 40'000'000;

// The launch a kernel makes for these parameters and block on a device with `sm_count` SMs.
LaunchShape make_launch(const KernelDesc& kernel, const Params& params, const BlockShape& block,
                        int sm_count);

// Dynamic shared memory the launch asks for: 0 for kernels that take none.
std::int64_t dynamic_smem_bytes(const KernelDesc& kernel, const Params& params,
                                const BlockShape& block);

// A site as the panels list it: a bundled kernel's declared site, or a kernel file's line site
// its prediction found (none before the prediction is made).
struct SiteView {
  std::string name;
  MemorySpace space = MemorySpace::global;
  AccessOp op = AccessOp::load;
  std::int64_t iterations = 1; // the site's loop count for one warp (at least 1)
};
std::vector<SiteView> site_views(const KernelDesc& kernel, const LaunchShape& launch,
                                 const LaunchPrediction& prediction);

// A kernel's sites evaluated over the launch; a kernel file's (KernelDesc::compiled_model) from
// the code NVRTC compiled for compute capability `sm` (x 10).
LaunchPrediction predict_launch(const KernelDesc& kernel, const LaunchShape& launch,
                                const ModelBudget& budget = {}, int sm = 90);

// The 32 lanes of one warp at one site (of `prediction`, the launch's): global offsets sit on a
// 256-byte aligned base per buffer, as cudaMalloc places them; shared offsets start at 0. A
// kernel file's warp that never runs the site has no active lane.
WarpAccess warp_access(const KernelDesc& kernel, const LaunchShape& launch,
                       const LaunchPrediction& prediction, int site, Coord block, int warp,
                       std::int64_t iteration, int sm = 90);
// The same for a kernel's declared sites (a bundled kernel's), which need no prediction.
WarpAccess warp_access(const KernelDesc& kernel, const LaunchShape& launch, int site, Coord block,
                       int warp, std::int64_t iteration);

} // namespace wl
