#pragma once
// A kernel's accesses predicted from its compiled code rather than from index math written by
// hand: a person's kernel file, whose PTX the model runs (kernel_file/file_model). A kernel file's
// KernelDesc::compiled_model gives one for a set of parameters and an architecture; predict_launch
// and warp_access ask it where the kernel has no sites.

#include "model/access.h"
#include "model/launch_model.h"

#include <optional>

namespace wl {

class CompiledAccessModel {
public:
  virtual ~CompiledAccessModel() = default;

  // Every access of the launch, a site for each line's accesses of one space, op and width (in
  // line order), from the blocks the budget allows, scaled to the grid; with a note for each line
  // whose accesses are not all predicted, and why.
  virtual LaunchPrediction predict(const LaunchShape& launch, const ModelBudget& budget) const = 0;

  // The lanes of warp `warp` of `block` the `iteration`-th time (from 0) it runs `site`'s
  // accesses; nullopt where it runs them fewer times (or the model stopped before).
  virtual std::optional<WarpAccess> lanes(const LaunchShape& launch, const SitePrediction& site,
                                          Coord block, int warp, std::int64_t iteration) const = 0;
};

} // namespace wl
