#pragma once
// What many warp-level accesses of one site add up to: requests, sectors (used, ideal, fetched),
// the DRAM bytes they move and the shared wavefronts (ideal, excess, the worst n-way), summed in
// double so a sampled stratum can be scaled before rounding. The bundled kernels' model
// (launch_model) and a kernel file's (the PTX model's accesses) both sum through it.

#include "model/access.h"
#include "model/launch_model.h"

#include <string>

namespace wl {

struct AccessSums {
  double requests = 0, sectors = 0, ideal_sectors = 0, bytes_used = 0, bytes_fetched = 0,
         dram_bytes = 0;
  double wavefronts = 0, ideal_wavefronts = 0, excess_wavefronts = 0;
  double lanes = 0; // active lanes over the warp-level instructions
  int conflict_degree = 0;

  // One warp's access (no active lane adds nothing). Loads read whole 64-byte segments a request
  // (no load finds another warp's data in L2); stores and atomics write their bytes in whole
  // sectors (L2 merges the warps' writes to a sector before writing it back).
  void add(const WarpAccess& access, MemorySpace space, AccessOp op);
  void add(const AccessSums& other, double scale);

  SitePrediction prediction(std::string name, MemorySpace space, AccessOp op, int width,
                            bool exact) const;
};

} // namespace wl
