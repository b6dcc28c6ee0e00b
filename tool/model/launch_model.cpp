#include "model/launch_model.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

namespace wl {

namespace {

// Global buffers sit 64 GiB apart on 256-byte aligned bases, like separate cudaMalloc calls.
constexpr std::uint64_t kBufferSpacing = std::uint64_t{1} << 36;

std::uint64_t buffer_base(int buffer) {
  return kBufferSpacing * static_cast<std::uint64_t>(buffer + 1);
}

Coord thread_coord(const BlockShape& block, int linear) {
  return Coord{linear % block.x, (linear / block.x) % block.y, linear / (block.x * block.y)};
}

// One site bound to one launch: what every warp of it shares, worked out once. `many_warps`
// also tables the block's thread coordinates, which the model then looks up rather than divides
// out for every lane of every warp.
struct BoundSite {
  LaneOffsets offsets;
  BlockShape block;
  bool global = false;
  bool load = false;
  int width = 0;
  std::uint64_t base = 0;     // the buffer's base address for global sites, 0 for shared ones
  std::vector<Coord> threads; // the block's threads by linear index, when tabled

  BoundSite(const Site& site, const LaunchShape& launch, bool many_warps)
      : offsets(site.offset(launch)), block(launch.block),
        global(site.space == MemorySpace::global), load(site.op == AccessOp::load),
        width(site.width(launch.params)), base(global ? buffer_base(site.buffer) : 0) {
    if (!many_warps)
      return;
    threads.reserve(static_cast<std::size_t>(launch.block.threads()));
    for (int linear = 0; linear < launch.block.threads(); ++linear)
      threads.push_back(thread_coord(launch.block, linear));
  }

  Coord thread(int linear) const {
    return threads.empty() ? thread_coord(block, linear) : threads[linear];
  }

  WarpAccess warp(Coord block_index, int warp_index, std::int64_t iteration) const {
    WarpAccess access;
    access.width = width;
    access.active_mask = 0;
    const int first = warp_index * kWarpSize;
    const int lanes = std::min<int>(kWarpSize, static_cast<int>(block.threads()) - first);
    for (int lane = 0; lane < lanes; ++lane) {
      const auto offset = offsets(block_index, thread(first + lane), iteration);
      if (!offset)
        continue;
      access.address[lane] = base + static_cast<std::uint64_t>(*offset);
      access.active_mask |= 1u << lane;
    }
    return access;
  }
};

int warps_per_block(const BlockShape& block) {
  return static_cast<int>((block.threads() + kWarpSize - 1) / kWarpSize);
}

// Running sums for one site, in double so a sampled stratum can be scaled before rounding.
struct SiteSums {
  double requests = 0, sectors = 0, ideal_sectors = 0, bytes_used = 0, bytes_fetched = 0,
         dram_bytes = 0;
  double wavefronts = 0, ideal_wavefronts = 0, excess_wavefronts = 0;
  int conflict_degree = 0;

  void add(const SiteSums& other, double scale) {
    requests += scale * other.requests;
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
};

// The launch's blocks split by whether they are the last along x, y and z: edge blocks are where
// guards cut warps short, so they are never mixed with interior ones when sampling.
struct BlockClass {
  std::array<int, 3> begin{}, end{}; // half-open ranges per axis

  std::int64_t count() const {
    return std::int64_t{end[0] - begin[0]} * (end[1] - begin[1]) * (end[2] - begin[2]);
  }
  Coord block(std::int64_t index) const {
    const int nx = end[0] - begin[0], ny = end[1] - begin[1];
    return Coord{begin[0] + static_cast<int>(index % nx),
                 begin[1] + static_cast<int>(index / nx % ny),
                 begin[2] + static_cast<int>(index / (std::int64_t{nx} * ny))};
  }
};

std::vector<BlockClass> block_classes(const BlockShape& grid) {
  const int sides[] = {grid.x, grid.y, grid.z};
  std::vector<BlockClass> classes;
  for (int edges = 0; edges < 8; ++edges) {
    BlockClass c;
    bool empty = false;
    for (int axis = 0; axis < 3; ++axis) {
      const bool last = (edges >> axis) & 1;
      c.begin[axis] = last ? sides[axis] - 1 : 0;
      c.end[axis] = last ? sides[axis] : sides[axis] - 1;
      empty = empty || c.end[axis] <= c.begin[axis];
    }
    if (!empty)
      classes.push_back(c);
  }
  return classes;
}

// Iterations split into the first, the last and the rest, for the same reason as blocks.
struct IterationRange {
  std::int64_t begin = 0, end = 0;
  std::int64_t count() const { return end - begin; }
};

std::vector<IterationRange> iteration_classes(std::int64_t iterations) {
  if (iterations <= 2)
    return {{0, iterations}};
  return {{0, 1}, {1, iterations - 1}, {iterations - 1, iterations}};
}

// One block at one iteration: every warp of the block analysed at this site.
SiteSums analyse_block(const BoundSite& site, Coord block, std::int64_t iteration) {
  SiteSums sums;
  for (int warp = 0; warp < warps_per_block(site.block); ++warp) {
    const WarpAccess access = site.warp(block, warp, iteration);
    if (site.global) {
      const GlobalAccess g = analyse_global(access);
      sums.requests += g.requests;
      sums.sectors += g.sectors;
      sums.ideal_sectors += g.ideal_sectors;
      sums.bytes_used += g.bytes_used;
      sums.bytes_fetched += g.bytes_fetched;
      // Loads read whole segments per request; stores merge in L2 (write-back) before DRAM, so
      // a sector written by many warps is written once: the bytes written, in whole sectors.
      sums.dram_bytes +=
          site.load ? g.dram_segments * kDramSegmentBytes : g.ideal_sectors * kSectorBytes;
    } else {
      const SharedAccess s = analyse_shared(access);
      sums.requests += s.requests;
      sums.wavefronts += s.wavefronts;
      sums.ideal_wavefronts += s.ideal_wavefronts;
      sums.excess_wavefronts += s.excess_wavefronts;
      sums.conflict_degree = std::max(sums.conflict_degree, s.conflict_degree);
    }
  }
  return sums;
}

SitePrediction to_prediction(const Site& site, const LaunchShape& launch, const SiteSums& sums,
                             bool exact) {
  const auto round = [](double v) { return static_cast<std::int64_t>(std::llround(v)); };
  SitePrediction p;
  p.name = site.name;
  p.space = site.space;
  p.op = site.op;
  p.width = site.width(launch.params);
  p.requests = round(sums.requests);
  p.sectors = round(sums.sectors);
  p.ideal_sectors = round(sums.ideal_sectors);
  p.bytes_used = round(sums.bytes_used);
  p.bytes_fetched = round(sums.bytes_fetched);
  p.dram_bytes = round(sums.dram_bytes);
  p.wavefronts = round(sums.wavefronts);
  p.ideal_wavefronts = round(sums.ideal_wavefronts);
  p.excess_wavefronts = round(sums.excess_wavefronts);
  p.conflict_degree = sums.conflict_degree;
  p.exact = exact;
  return p;
}

// A systematic sample of one stratum: evenly spaced blocks times evenly spaced iterations, each
// grid shifted by a seeded offset. Even spacing keeps the share of partial tiles and tail
// iterations in the sample close to their share of the stratum.
struct SamplePlan {
  std::int64_t block_count = 0, iteration_count = 0; // in the stratum
  std::int64_t blocks = 0, iterations = 0;           // taken
  double block_offset = 0, iteration_offset = 0;

  static SamplePlan everything(std::int64_t blocks, std::int64_t iterations) {
    return SamplePlan{blocks, iterations, blocks, iterations, 0, 0};
  }
  std::int64_t block(std::int64_t j) const { return spaced(j, block_count, blocks, block_offset); }
  std::int64_t iteration(std::int64_t j) const {
    return spaced(j, iteration_count, iterations, iteration_offset);
  }

private:
  // The j-th of `taken` evenly spaced indices in [0, count).
  static std::int64_t spaced(std::int64_t j, std::int64_t count, std::int64_t taken,
                             double offset) {
    if (taken == count)
      return j;
    return std::min(count - 1,
                    static_cast<std::int64_t>((static_cast<double>(j) + offset) * count / taken));
  }
};

SamplePlan plan_samples(std::int64_t blocks, std::int64_t iterations, std::int64_t budget,
                        std::mt19937_64& rng) {
  budget = std::max<std::int64_t>(1, budget);
  SamplePlan plan = SamplePlan::everything(blocks, iterations);
  if (iterations <= budget) {
    // Every iteration, fewer blocks: iterations are where a pattern changes (the steps of a tree,
    // the tiles of a loop), while the interior blocks of a stratum are alike.
    plan.blocks = std::clamp<std::int64_t>(budget / iterations, 1, blocks);
  } else {
    // Long loops: sample both axes at about the same rate.
    const double rate =
        std::sqrt(static_cast<double>(budget) / (static_cast<double>(blocks) * iterations));
    plan.iterations = std::clamp<std::int64_t>(std::llround(rate * iterations), 1, iterations);
    plan.blocks = std::clamp<std::int64_t>(budget / plan.iterations, 1, blocks);
    plan.iterations = std::clamp<std::int64_t>(budget / plan.blocks, 1, iterations);
  }
  std::uniform_real_distribution<double> offset(0.0, 1.0);
  plan.block_offset = offset(rng);
  plan.iteration_offset = offset(rng);
  return plan;
}

// The sums over one stratum's sample, not yet scaled to the stratum.
SiteSums sample_stratum(const BoundSite& site, const BlockClass& blocks,
                        const IterationRange& range, const SamplePlan& plan) {
  SiteSums sums;
  for (std::int64_t b = 0; b < plan.blocks; ++b)
    for (std::int64_t i = 0; i < plan.iterations; ++i)
      sums.add(analyse_block(site, blocks.block(plan.block(b)), range.begin + plan.iteration(i)),
               1.0);
  return sums;
}

// What each sampled stratum of a site may analyse: the site's budget shared equally, where a
// stratum that needs less than its share (a first or last iteration, a partial edge block) is
// counted in full and leaves the rest to the others. A stratum whose need is at most the result
// is enumerated.
std::int64_t stratum_allowance(std::vector<std::int64_t> needs, std::int64_t site_budget) {
  std::sort(needs.begin(), needs.end());
  std::int64_t left = site_budget;
  for (std::size_t i = 0; i < needs.size(); ++i) {
    const std::int64_t share = left / static_cast<std::int64_t>(needs.size() - i);
    if (needs[i] > share)
      return share;
    left -= needs[i];
  }
  return needs.empty() ? site_budget : needs.back();
}

} // namespace

LaunchShape make_launch(const KernelDesc& kernel, const Params& params, const BlockShape& block,
                        int sm_count) {
  return LaunchShape{kernel.grid(params, block, sm_count), block, params};
}

std::int64_t dynamic_smem_bytes(const KernelDesc& kernel, const Params& params,
                                const BlockShape& block) {
  return kernel.dynamic_smem ? kernel.dynamic_smem(params, block) : 0;
}

WarpAccess warp_access(const KernelDesc& kernel, const LaunchShape& launch, int site, Coord block,
                       int warp, std::int64_t iteration) {
  return BoundSite(kernel.sites.at(site), launch, false).warp(block, warp, iteration);
}

// DRAM reads a buffer at most once when the warps that share its segments run close together
// (neighbouring warps, neighbouring blocks): the H100 read 64 MiB for coalescing/offset, whose
// requests touch 96 MiB of segments, and 128 MiB for vec_add_3d in 1x32x8 blocks, whose requests
// touch 2 GiB. So a buffer's loads are capped at its size in whole segments, shared among its
// sites. A kernel that reads its data again after L2 has let it go (a large matmul) reads more:
// the model's figure is then a floor, and says so.
void cap_dram_reads_at_buffers(const KernelDesc& kernel, const LaunchShape& launch,
                               LaunchPrediction& prediction) {
  std::map<int, std::int64_t> read_per_buffer;
  for (std::size_t i = 0; i < kernel.sites.size(); ++i)
    if (kernel.sites[i].space == MemorySpace::global && kernel.sites[i].op == AccessOp::load)
      read_per_buffer[kernel.sites[i].buffer] += prediction.sites[i].dram_bytes;
  for (const auto& [buffer, read] : read_per_buffer) {
    const std::int64_t bytes =
        kernel.buffers[static_cast<std::size_t>(buffer)].count(launch.params) * 4;
    const std::int64_t cap =
        (bytes + kDramSegmentBytes - 1) / kDramSegmentBytes * kDramSegmentBytes;
    if (read <= cap || read <= 0)
      continue;
    for (std::size_t i = 0; i < kernel.sites.size(); ++i)
      if (kernel.sites[i].buffer == buffer && kernel.sites[i].space == MemorySpace::global &&
          kernel.sites[i].op == AccessOp::load)
        prediction.sites[i].dram_bytes =
            static_cast<std::int64_t>(static_cast<double>(prediction.sites[i].dram_bytes) *
                                      static_cast<double>(cap) / static_cast<double>(read));
  }
}

LaunchPrediction predict_launch(const KernelDesc& kernel, const LaunchShape& launch,
                                const ModelBudget& budget) {
  const auto start = std::chrono::steady_clock::now();
  LaunchPrediction prediction;
  const std::vector<BlockClass> blocks = block_classes(launch.grid);
  const int warps = warps_per_block(launch.block);
  std::mt19937_64 rng(0x5eed); // fixed: the same launch always gets the same estimate

  for (int site = 0; site < static_cast<int>(kernel.sites.size()); ++site) {
    const BoundSite bound(kernel.sites[site], launch, true);
    const std::vector<IterationRange> iterations =
        iteration_classes(kernel.sites[site].iterations(launch));
    std::vector<std::int64_t> needs; // each stratum's warp-iterations, in the loops' order
    for (const BlockClass& block_class : blocks)
      for (const IterationRange& range : iterations)
        needs.push_back(block_class.count() * range.count() * warps);
    const std::int64_t allowance =
        budget.max_evaluations > 0
            ? std::max<std::int64_t>(warps, stratum_allowance(needs, budget.max_evaluations /
                                                                         static_cast<std::int64_t>(
                                                                             kernel.sites.size())))
            : 0;
    SiteSums total;
    bool exact = true;
    for (const BlockClass& block_class : blocks) {
      for (const IterationRange& range : iterations) {
        const std::int64_t units = block_class.count() * range.count(); // (block, iteration) pairs
        prediction.warp_iterations += units * warps;
        const bool enumerate = allowance == 0 || units * warps <= allowance;
        const SamplePlan plan =
            enumerate ? SamplePlan::everything(block_class.count(), range.count())
                      : plan_samples(block_class.count(), range.count(), allowance / warps, rng);
        const std::int64_t samples = plan.blocks * plan.iterations;
        prediction.warp_iterations_evaluated += samples * warps;
        total.add(sample_stratum(bound, block_class, range, plan),
                  static_cast<double>(units) / static_cast<double>(samples));
        exact = exact && enumerate;
      }
    }
    prediction.sites.push_back(to_prediction(kernel.sites[site], launch, total, exact));
  }
  cap_dram_reads_at_buffers(kernel, launch, prediction);
  prediction.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return prediction;
}

} // namespace wl
