#include "model/access_sums.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace wl {

void AccessSums::add(const WarpAccess& access, MemorySpace space, AccessOp op) {
  if (access.active_mask == 0)
    return;
  lanes += std::popcount(access.active_mask);
  if (space == MemorySpace::global) {
    const GlobalAccess g = analyse_global(access);
    requests += g.requests;
    sectors += g.sectors;
    ideal_sectors += g.ideal_sectors;
    bytes_used += g.bytes_used;
    bytes_fetched += g.bytes_fetched;
    dram_bytes +=
        op == AccessOp::load ? g.dram_segments * kDramSegmentBytes : g.ideal_sectors * kSectorBytes;
    return;
  }
  const SharedAccess s = analyse_shared(access);
  requests += s.requests;
  wavefronts += s.wavefronts;
  ideal_wavefronts += s.ideal_wavefronts;
  excess_wavefronts += s.excess_wavefronts;
  conflict_degree = std::max(conflict_degree, s.conflict_degree);
}

void AccessSums::add(const AccessSums& other, double scale) {
  requests += scale * other.requests;
  lanes += scale * other.lanes;
  sectors += scale * other.sectors;
  ideal_sectors += scale * other.ideal_sectors;
  bytes_used += scale * other.bytes_used;
  bytes_fetched += scale * other.bytes_fetched;
  dram_bytes += scale * other.dram_bytes;
  wavefronts += scale * other.wavefronts;
  ideal_wavefronts += scale * other.ideal_wavefronts;
  excess_wavefronts += scale * other.excess_wavefronts;
  conflict_degree = std::max(conflict_degree, other.conflict_degree);
}

SitePrediction AccessSums::prediction(std::string name, MemorySpace space, AccessOp op, int width,
                                      bool exact) const {
  const auto round = [](double v) { return static_cast<std::int64_t>(std::llround(v)); };
  SitePrediction p;
  p.name = std::move(name);
  p.space = space;
  p.op = op;
  p.width = width;
  p.requests = round(requests);
  p.lanes = round(lanes);
  p.sectors = round(sectors);
  p.ideal_sectors = round(ideal_sectors);
  p.bytes_used = round(bytes_used);
  p.bytes_fetched = round(bytes_fetched);
  p.dram_bytes = round(dram_bytes);
  p.wavefronts = round(wavefronts);
  p.ideal_wavefronts = round(ideal_wavefronts);
  p.excess_wavefronts = round(excess_wavefronts);
  p.conflict_degree = conflict_degree;
  p.exact = exact;
  return p;
}

} // namespace wl
