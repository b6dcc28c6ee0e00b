#include "model/launch_model.h"

#include "base/error.h"
#include "base/text_format.h"
#include "model/access_sums.h"
#include "model/block_classes.h"
#include "model/block_text.h"
#include "model/compiled_model.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <thread>

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

using SiteSums = AccessSums;

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
SiteSums analyse_block(const BoundSite& site, const Site& declared, Coord block,
                       std::int64_t iteration) {
  SiteSums sums;
  for (int warp = 0; warp < warps_per_block(site.block); ++warp)
    sums.add(site.warp(block, warp, iteration), declared.space, declared.op);
  return sums;
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

// The sums over some of one stratum's sampled blocks (those from `first` to before `end`), at
// every sampled iteration, not yet scaled to the stratum.
SiteSums sample_blocks(const BoundSite& site, const Site& declared, const BlockClass& blocks,
                       const IterationRange& range, const SamplePlan& plan, std::int64_t first,
                       std::int64_t end) {
  SiteSums sums;
  for (std::int64_t b = first; b < end; ++b)
    for (std::int64_t i = 0; i < plan.iterations; ++i)
      sums.add(analyse_block(site, declared, blocks.block(plan.block(b)),
                             range.begin + plan.iteration(i)),
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

WarpAccess warp_access(const KernelDesc& kernel, const LaunchShape& launch,
                       const LaunchPrediction& prediction, int site, Coord block, int warp,
                       std::int64_t iteration, int sm) {
  if (kernel.sites.empty() && kernel.compiled_model)
    return kernel.compiled_model(launch.params, sm)
        ->lanes(launch, prediction.sites.at(static_cast<std::size_t>(site)), block, warp, iteration)
        .value_or(WarpAccess{.address = {}, .active_mask = 0, .width = 4});
  return warp_access(kernel, launch, site, block, warp, iteration);
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
    const double bytes =
        static_cast<double>(kernel.buffers[static_cast<std::size_t>(buffer)].count(launch.params)) *
        4;
    const double cap = dram_read_cap(bytes);
    if (static_cast<double>(read) <= cap || read <= 0)
      continue;
    for (std::size_t i = 0; i < kernel.sites.size(); ++i)
      if (kernel.sites[i].buffer == buffer && kernel.sites[i].space == MemorySpace::global &&
          kernel.sites[i].op == AccessOp::load)
        prediction.sites[i].dram_bytes = static_cast<std::int64_t>(
            static_cast<double>(prediction.sites[i].dram_bytes) * cap / static_cast<double>(read));
  }
}

std::vector<SiteView> site_views(const KernelDesc& kernel, const LaunchShape& launch,
                                 const LaunchPrediction& prediction) {
  std::vector<SiteView> views;
  if (!kernel.sites.empty()) {
    for (const Site& site : kernel.sites)
      views.push_back(
          {site.name, site.space, site.op, std::max<std::int64_t>(1, site.iterations(launch))});
    return views;
  }
  for (const SitePrediction& site : prediction.sites)
    views.push_back({site.name, site.space, site.op, std::max<std::int64_t>(1, site.iterations)});
  return views;
}

// The most warps a launch the model predicts may hold: its counts are 64-bit, and a site runs
// many times a warp. A real launch is far below it (an H100 full for a minute runs ~1e11 warps).
constexpr double kMostModelledWarps = 1e12;

void check_countable(const LaunchShape& launch) {
  const double warps = static_cast<double>(launch.grid.x) * launch.grid.y * launch.grid.z *
                       static_cast<double>(warps_per_block(launch.block));
  if (warps > kMostModelledWarps)
    throw UsageError("grid " + format_sides(launch.grid) + " of " +
                     std::to_string(launch.block.threads()) + "-thread blocks is " +
                     format_number(warps, 0) +
                     " warps; the model counts launches of at most 1e12 warps");
}

namespace {

// One stratum of a site (a class of blocks times a range of iterations), how it is sampled and
// what one sampled (block, iteration) pair stands for.
struct Stratum {
  BlockClass blocks;
  IterationRange range;
  SamplePlan plan;
  double scale = 1; // the stratum's (block, iteration) pairs per sampled pair
};

// What a site's prediction needs before any warp is analysed: the site bound to the launch, its
// strata and their samples, and the warp-iterations they stand for.
struct SitePlan {
  std::unique_ptr<const BoundSite> bound;
  std::vector<Stratum> strata;
  std::int64_t warp_iterations = 0, evaluated = 0;
  bool exact = true;
  std::exception_ptr failure; // the site could not be bound to the launch
};

SitePlan plan_site(const KernelDesc& kernel, const LaunchShape& launch,
                   const std::vector<BlockClass>& blocks, const ModelBudget& budget, int site) {
  SitePlan plan;
  const int warps = warps_per_block(launch.block);
  // Seeded by the site alone: the same launch always gets the same estimate, however the work is
  // shared among threads.
  std::mt19937_64 rng(0x5eed + static_cast<std::uint64_t>(site));
  plan.bound = std::make_unique<const BoundSite>(kernel.sites[site], launch, true);
  const std::vector<IterationRange> iterations =
      iteration_classes(kernel.sites[site].iterations(launch));
  std::vector<std::int64_t> needs; // each stratum's warp-iterations, in the loops' order
  for (const BlockClass& block_class : blocks)
    for (const IterationRange& range : iterations)
      needs.push_back(block_class.count() * range.count() * warps);
  const std::int64_t allowance =
      budget.max_evaluations > 0
          ? std::max<std::int64_t>(
                warps, stratum_allowance(needs, budget.max_evaluations /
                                                    static_cast<std::int64_t>(kernel.sites.size())))
          : 0;
  for (const BlockClass& block_class : blocks) {
    for (const IterationRange& range : iterations) {
      const std::int64_t units = block_class.count() * range.count(); // (block, iteration) pairs
      plan.warp_iterations += units * warps;
      const bool enumerate = allowance == 0 || units * warps <= allowance;
      const SamplePlan sample =
          enumerate ? SamplePlan::everything(block_class.count(), range.count())
                    : plan_samples(block_class.count(), range.count(), allowance / warps, rng);
      const std::int64_t samples = sample.blocks * sample.iterations;
      plan.evaluated += samples * warps;
      plan.strata.push_back(
          {block_class, range, sample, static_cast<double>(units) / static_cast<double>(samples)});
      plan.exact = plan.exact && enumerate;
    }
  }
  return plan;
}

// Some of one stratum's sampled blocks: the unit of work the machine's cores share, so that a
// launch with fewer sites than cores, or with one site heavier than the rest, keeps them all busy.
struct Piece {
  int site = 0;
  std::size_t stratum = 0;
  std::int64_t first_block = 0, end_block = 0;
  SiteSums sums;
  std::exception_ptr failure; // an access the hardware would fault on
};

// About this many warp-iterations a piece: enough that taking one costs nothing beside it.
constexpr std::int64_t kPieceWarpIterations = 256;

// A site that could not be bound to the launch has no strata, so no pieces.
std::vector<Piece> cut_pieces(const std::vector<SitePlan>& plans, int warps) {
  std::vector<Piece> pieces;
  for (std::size_t site = 0; site < plans.size(); ++site) {
    for (std::size_t s = 0; s < plans[site].strata.size(); ++s) {
      const SamplePlan& sample = plans[site].strata[s].plan;
      const std::int64_t per_block = std::max<std::int64_t>(1, sample.iterations * warps);
      const std::int64_t step = std::max<std::int64_t>(1, kPieceWarpIterations / per_block);
      for (std::int64_t b = 0; b < sample.blocks; b += step)
        pieces.push_back({static_cast<int>(site), s, b, std::min(sample.blocks, b + step), {}, {}});
    }
  }
  return pieces;
}

// Below this many warp-iterations a launch is modelled on the calling thread: starting threads
// would cost more than they save.
constexpr std::int64_t kWorthThreads = 4000;

// Every piece analysed, shared among the machine's cores when the launch is worth it.
void analyse_pieces(const KernelDesc& kernel, const std::vector<SitePlan>& plans,
                    std::vector<Piece>& pieces, std::int64_t evaluations) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i; (i = next++) < pieces.size();) {
      Piece& piece = pieces[i];
      const SitePlan& plan = plans[static_cast<std::size_t>(piece.site)];
      const Stratum& stratum = plan.strata[piece.stratum];
      try {
        piece.sums = sample_blocks(*plan.bound, kernel.sites[piece.site], stratum.blocks,
                                   stratum.range, stratum.plan, piece.first_block, piece.end_block);
      } catch (...) {
        piece.failure = std::current_exception();
      }
    }
  };
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int helpers =
      evaluations >= kWorthThreads ? std::min<int>(cores, static_cast<int>(pieces.size())) - 1 : 0;
  std::vector<std::jthread> threads;
  for (int i = 0; i < helpers; ++i)
    threads.emplace_back(work);
  work();
}

// One site's prediction from its analysed pieces: each stratum's pieces summed in order (whole
// numbers, so exactly), then scaled to the stratum. An access the hardware would fault on is
// rethrown, the first in site, stratum and block order, as a serial walk would meet it.
SitePrediction assemble_site(const Site& declared, const LaunchShape& launch, const SitePlan& plan,
                             std::span<const Piece> pieces) {
  std::vector<SiteSums> strata(plan.strata.size());
  for (const Piece& piece : pieces) {
    if (piece.failure)
      std::rethrow_exception(piece.failure);
    strata[piece.stratum].add(piece.sums, 1.0);
  }
  SiteSums total;
  for (std::size_t s = 0; s < strata.size(); ++s)
    total.add(strata[s], plan.strata[s].scale);
  return total.prediction(declared.name, declared.space, declared.op, declared.width(launch.params),
                          plan.exact);
}

struct SitesOutcome {
  std::vector<SitePrediction> sites;
  std::int64_t warp_iterations = 0, evaluated = 0;
};

SitesOutcome predict_sites(const KernelDesc& kernel, const LaunchShape& launch,
                           const ModelBudget& budget) {
  const std::vector<BlockClass> blocks = block_classes(launch.grid);
  std::vector<SitePlan> plans;
  std::int64_t evaluations = 0;
  for (int site = 0; site < static_cast<int>(kernel.sites.size()); ++site) {
    try {
      plans.push_back(plan_site(kernel, launch, blocks, budget, site));
      evaluations += plans.back().evaluated;
    } catch (...) {
      plans.emplace_back().failure = std::current_exception();
    }
  }
  std::vector<Piece> pieces = cut_pieces(plans, warps_per_block(launch.block));
  analyse_pieces(kernel, plans, pieces, evaluations);
  SitesOutcome outcome;
  auto piece = pieces.begin();
  for (std::size_t site = 0; site < plans.size(); ++site) {
    if (plans[site].failure)
      std::rethrow_exception(plans[site].failure);
    const auto end = std::find_if(piece, pieces.end(),
                                  [&](const Piece& p) { return p.site != static_cast<int>(site); });
    outcome.sites.push_back(
        assemble_site(kernel.sites[site], launch, plans[site], std::span<const Piece>(piece, end)));
    outcome.warp_iterations += plans[site].warp_iterations;
    outcome.evaluated += plans[site].evaluated;
    piece = end;
  }
  return outcome;
}

} // namespace

LaunchPrediction predict_launch(const KernelDesc& kernel, const LaunchShape& launch,
                                const ModelBudget& budget, int sm) {
  check_countable(launch);
  if (kernel.sites.empty() && kernel.compiled_model)
    return kernel.compiled_model(launch.params, sm)->predict(launch, budget);
  const auto start = std::chrono::steady_clock::now();
  LaunchPrediction prediction;
  SitesOutcome outcome = predict_sites(kernel, launch, budget);
  prediction.warp_iterations = outcome.warp_iterations;
  prediction.warp_iterations_evaluated = outcome.evaluated;
  prediction.sites = std::move(outcome.sites);
  cap_dram_reads_at_buffers(kernel, launch, prediction);
  prediction.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return prediction;
}

} // namespace wl
