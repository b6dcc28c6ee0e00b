// The coalescing and bank_conflicts families: the sectors and wavefronts per request each lesson
// is about (counters.md section 10), every declared access inside its buffer or tile, and the
// references against small cases worked by hand.

#include "index/bank_conflicts.h"
#include "kernel_test_support.h"
#include "model/launch_model.h"
#include "registry.h"

#include <numeric>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::kernel;
using test::predict;
using test::site;

// The kernel's defaults with some parameters replaced; small n keeps the model exact and fast.
Params params_for(const KernelDesc& k, const Params& overrides) {
  Params p;
  for (const ParamSpec& spec : k.params)
    p[spec.name] = spec.default_value;
  p["n"] = 1 << 16;
  for (const auto& [name, value] : overrides)
    p[name] = value;
  return p;
}

SitePrediction predict_site(const std::string& id, const Params& overrides, const std::string& site,
                            BlockShape block = {256, 1, 1}) {
  const KernelDesc& k = kernel(id);
  const Params p = params_for(k, overrides);
  EXPECT_EQ(k.check_params(p), "");
  const LaunchPrediction prediction =
      predict_launch(k, make_launch(k, p, block, 132), ModelBudget{0});
  for (const SitePrediction& s : prediction.sites)
    if (s.name == site)
      return s;
  throw std::runtime_error(id + " has no site " + site);
}

double load_sectors(const std::string& id, const Params& overrides, const std::string& site) {
  return predict_site(id, overrides, site).sectors_per_request();
}

// Shared-memory sites run 32 reads per thread: a smaller launch keeps the exact model quick.
SitePrediction predict_shared_site(const std::string& id, Params overrides,
                                   const std::string& site) {
  overrides.try_emplace("n", 1 << 13);
  return predict_site(id, overrides, site);
}

double read_wavefronts(const std::string& id, const Params& overrides) {
  return predict_shared_site(id, overrides, "load tile (patterned)").wavefronts_per_request();
}

// ---- coalescing: sectors per request ----

TEST(Coalescing, StrideSpreadsTheLoadOverMoreSectors) {
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"stride", 1}}, "load in (strided)"), 4.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"stride", 2}}, "load in (strided)"), 8.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"stride", 4}}, "load in (strided)"), 16.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"stride", 32}}, "load in (strided)"), 32.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"stride", 32}}, "store out"), 4.0);
}

TEST(Coalescing, WiderElementsNeedMoreSectorsAtStrideOne) {
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"width", 8}}, "load in (strided)"), 8.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/stride", {{"width", 16}}, "load in (strided)"), 16.0);
  EXPECT_DOUBLE_EQ(
      load_sectors("coalescing/stride", {{"width", 16}, {"stride", 2}}, "load in (strided)"), 32.0);
}

TEST(Coalescing, OffsetOneStraddlesFiveSectorsOnTheLoadOnly) {
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/offset", {{"offset", 1}}, "load in (shifted)"), 5.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/offset", {{"offset", 1}}, "store out"), 4.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/offset", {{"offset", 0}}, "load in (shifted)"), 4.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/offset", {{"offset", 8}}, "load in (shifted)"),
                   4.0); // 32 bytes
  EXPECT_DOUBLE_EQ(
      load_sectors("coalescing/offset", {{"offset", 1}, {"width", 16}}, "load in (shifted)"), 17.0);
}

TEST(Coalescing, PermutingLanesWithinAWarpKeepsTheSectors) {
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/permuted", {}, "load in (permuted)"), 4.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/permuted", {{"width", 16}}, "load in (permuted)"),
                   16.0);
  const SitePrediction p = predict_site("coalescing/permuted", {}, "load in (permuted)");
  EXPECT_EQ(p.bytes_used, p.bytes_fetched); // every fetched byte used
}

TEST(Coalescing, PermutationIsABijectionThatReallyShuffles) {
  std::set<int> sources;
  int moved = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const int source =
        kernel("coalescing/permuted")
            .sites[0]
            .offset(make_launch(kernel("coalescing/permuted"),
                                params_for(kernel("coalescing/permuted"), {}), {256, 1, 1},
                                132))(Coord{1, 0, 0}, Coord{64 + lane, 0, 0}, 0)
            .value() /
        4;
    EXPECT_GE(source, 256 + 64);
    EXPECT_LT(source, 256 + 96);
    sources.insert(source);
    moved += source != 256 + 64 + lane;
  }
  EXPECT_EQ(sources.size(), 32u);
  EXPECT_EQ(moved, 32);
}

TEST(Coalescing, RandomGatherGivesEachLaneItsOwnSector) {
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/random", {}, "load index"), 4.0);
  EXPECT_DOUBLE_EQ(load_sectors("coalescing/random", {}, "store out"), 4.0);
  // 32 lanes over 8192 sectors: about 31.9 distinct sectors on average.
  const double gathered = load_sectors("coalescing/random", {}, "load in (gathered)");
  EXPECT_GT(gathered, 31.5);
  EXPECT_LE(gathered, 32.0);
}

TEST(Coalescing, RandomInitWritesTheIndicesTheModelPredicts) {
  const KernelDesc& k = kernel("coalescing/random");
  const Params p = params_for(k, {{"n", 4096}, {"width", 8}, {"gather_seed", 5}});
  HostBuffers buffers(k.buffers.size());
  for (std::size_t b = 0; b < k.buffers.size(); ++b) {
    buffers[b].type = k.buffers[b].type;
    buffers[b].words.assign(k.buffers[b].count(p), 0);
  }
  k.init(buffers, p, 42);
  const LaunchShape launch = make_launch(k, p, {128, 1, 1}, 132);
  const Site& gather = k.sites[1];
  ASSERT_EQ(gather.name, "load in (gathered)");
  const LaneOffsets gathered = gather.offset(launch);
  std::set<int> distinct;
  for (int i = 0; i < 2048; ++i) {
    const int index = buffers[1].i32()[i];
    ASSERT_GE(index, 0);
    ASSERT_LT(index, 2048);
    EXPECT_EQ(gathered(Coord{i / 128, 0, 0}, Coord{i % 128, 0, 0}, 0), std::int64_t{index} * 8);
    distinct.insert(index);
  }
  EXPECT_GT(distinct.size(), 1000u); // a scatter over the input, not a constant
}

TEST(Coalescing, CheckParamsRefusesRaggedWidthsAndIntOverflow) {
  const KernelDesc& k = kernel("coalescing/stride");
  EXPECT_NE(k.check_params(params_for(k, {{"n", 1001}, {"width", 8}})), "");
  EXPECT_NE(k.check_params(params_for(k, {{"n", 1 << 28}, {"stride", 8}})), ""); // 2^31 floats
  EXPECT_EQ(k.check_params(params_for(k, {{"n", 1 << 24}, {"stride", 64}})), "");
  const KernelDesc& offset = kernel("coalescing/offset");
  EXPECT_NE(offset.check_params(params_for(offset, {{"n", 1002}, {"width", 16}})), "");
}

// ---- bank_conflicts: wavefronts per request ----

TEST(BankConflicts, StrideSetsTheConflictDegree) {
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/stride", {{"stride", 1}}), 1.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/stride", {{"stride", 2}}), 2.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/stride", {{"stride", 32}}), 32.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/stride", {{"stride", 33}}), 1.0);
  const SitePrediction p =
      predict_shared_site("bank_conflicts/stride", {{"stride", 32}}, "load tile (patterned)");
  EXPECT_EQ(p.conflict_degree, 32);
  EXPECT_EQ(p.excess_wavefronts, 31 * p.requests);
}

TEST(BankConflicts, WideConsecutiveAccessesAreSplitNotConflicted) {
  const SitePrediction w8 =
      predict_shared_site("bank_conflicts/stride", {{"width", 8}}, "load tile (patterned)");
  EXPECT_DOUBLE_EQ(w8.wavefronts_per_request(), 2.0);
  EXPECT_EQ(w8.excess_wavefronts, 0);
  const SitePrediction w16 =
      predict_shared_site("bank_conflicts/stride", {{"width", 16}}, "load tile (patterned)");
  EXPECT_DOUBLE_EQ(w16.wavefronts_per_request(), 4.0);
  EXPECT_EQ(w16.excess_wavefronts, 0);
  // 16-byte elements two apart: lanes 0, 4, 8 and 12 of each half warp share banks.
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/stride", {{"width", 16}, {"stride", 2}}), 8.0);
}

TEST(BankConflicts, PaddingDissolvesTheColumnConflict) {
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/padded", {{"pad", 1}}), 1.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/padded", {{"pad", 0}}), 32.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/padded", {{"pad", 2}}), 2.0); // pitch 34: 2-way
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/padded", {{"pad", 1}, {"width", 8}}), 2.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/padded", {{"pad", 0}, {"width", 8}}), 32.0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/padded", {{"pad", 1}, {"width", 16}}), 4.0);
  // The fill writes rows, which stay conflict-free whatever the pad.
  EXPECT_DOUBLE_EQ(predict_shared_site("bank_conflicts/padded", {{"pad", 0}}, "store tile (fill)")
                       .wavefronts_per_request(),
                   1.0);
}

TEST(BankConflicts, BroadcastCostsOneWavefront) {
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/broadcast", {}), 1.0);
  const SitePrediction w16 =
      predict_shared_site("bank_conflicts/broadcast", {{"width", 16}}, "load tile (patterned)");
  EXPECT_DOUBLE_EQ(w16.wavefronts_per_request(), 2.0); // one per half warp, as the H100 counts it
  EXPECT_EQ(w16.excess_wavefronts, 0);
  EXPECT_DOUBLE_EQ(read_wavefronts("bank_conflicts/broadcast", {{"width", 8}}), 1.0);
}

TEST(BankConflicts, PaddedTileFitsItsDynamicSharedMemory) {
  const KernelDesc& k = kernel("bank_conflicts/padded");
  EXPECT_EQ(k.dynamic_smem(params_for(k, {{"pad", 1}}), {256, 1, 1}), 32 * 33 * 4);
  EXPECT_EQ(k.dynamic_smem(params_for(k, {{"pad", 32}, {"width", 16}}), {256, 1, 1}), 32 * 64 * 16);
}

// ---- every declared access stays inside its buffer or tile ----

// Evaluates every site for every thread and iteration of a small launch and checks the bytes
// it touches against the buffer (global) or the block's shared memory (shared).
void expect_accesses_in_bounds(const KernelDesc& k, const Params& p, BlockShape block) {
  SCOPED_TRACE(k.id + " n=" + std::to_string(p.at("n")) +
               " width=" + std::to_string(p.at("width")));
  ASSERT_EQ(k.check_params(p), "");
  const LaunchShape launch = make_launch(k, p, block, 132);
  const std::int64_t shared_bytes = k.dynamic_smem ? k.dynamic_smem(p, block) : 4096;
  for (const Site& site : k.sites) {
    const std::int64_t limit =
        site.space == MemorySpace::global ? 4 * k.buffers.at(site.buffer).count(p) : shared_bytes;
    const int width = site.width(p);
    const LaneOffsets offsets = site.offset(launch);
    std::int64_t highest = -1;
    for (int b = 0; b < launch.grid.x; ++b)
      for (int t = 0; t < block.x; ++t)
        for (std::int64_t it = 0; it < site.iterations(launch); ++it)
          if (const auto offset = offsets(Coord{b, 0, 0}, Coord{t, 0, 0}, it)) {
            ASSERT_GE(*offset, 0) << site.name;
            ASSERT_EQ(*offset % width, 0) << site.name;
            highest = std::max(highest, *offset + width);
          }
    EXPECT_LE(highest, limit) << site.name;
    EXPECT_GT(highest, 0) << site.name;
  }
}

TEST(MemoryPatterns, EveryAccessStaysInsideItsBufferOrTile) {
  for (const char* id :
       {"coalescing/stride", "coalescing/offset", "coalescing/permuted", "coalescing/random",
        "bank_conflicts/stride", "bank_conflicts/padded", "bank_conflicts/broadcast"}) {
    const KernelDesc& k = kernel(id);
    ASSERT_GE(k.test_sizes.size(), 3u) << id;
    for (const Params& p : k.test_sizes)
      expect_accesses_in_bounds(k, p, {96, 1, 1});
    expect_accesses_in_bounds(k, params_for(k, {{"n", 4096}, {"width", 16}}), {1024, 1, 1});
  }
}

// ---- references against hand-worked cases ----

HostBuffers inputs_counting_up(const KernelDesc& k, const Params& p) {
  HostBuffers buffers(k.buffers.size());
  for (std::size_t b = 0; b < k.buffers.size(); ++b) {
    buffers[b].type = k.buffers[b].type;
    buffers[b].words.assign(k.buffers[b].count(p), 0);
    if (k.buffers[b].role == BufferRole::input && k.buffers[b].type == ElementType::f32)
      for (std::int64_t i = 0; i < buffers[b].size(); ++i)
        buffers[b].f32()[i] = static_cast<float>(i);
  }
  return buffers;
}

std::vector<float> reference_output(const KernelDesc& k, const Params& p, const HostBuffers& in) {
  const Expected e = k.reference(in, p);
  const HostBuffer& out = e.values.back();
  return {out.f32(), out.f32() + out.size()};
}

TEST(MemoryPatterns, CopyReferencesFollowTheirPatterns) {
  const KernelDesc& stride = kernel("coalescing/stride");
  const Params s4 = {{"n", 4}, {"width", 4}, {"stride", 2}};
  EXPECT_EQ(reference_output(stride, s4, inputs_counting_up(stride, s4)),
            (std::vector<float>{0, 2, 4, 6}));
  const Params s8 = {{"n", 4}, {"width", 8}, {"stride", 2}}; // float2 elements 0 and 2
  EXPECT_EQ(reference_output(stride, s8, inputs_counting_up(stride, s8)),
            (std::vector<float>{0, 1, 4, 5}));

  const KernelDesc& offset = kernel("coalescing/offset");
  const Params o = {{"n", 3}, {"width", 4}, {"offset", 2}};
  EXPECT_EQ(reference_output(offset, o, inputs_counting_up(offset, o)),
            (std::vector<float>{2, 3, 4}));

  const KernelDesc& permuted = kernel("coalescing/permuted");
  const Params pm = {{"n", 32}, {"width", 4}};
  const std::vector<float> out = reference_output(permuted, pm, inputs_counting_up(permuted, pm));
  EXPECT_EQ(out[0], 7);   // (13 * 0 + 7) mod 32
  EXPECT_EQ(out[1], 20);  // (13 * 1 + 7) mod 32
  EXPECT_EQ(out[31], 26); // (13 * 31 + 7) mod 32

  const KernelDesc& random = kernel("coalescing/random");
  const Params r = {{"n", 3}, {"width", 4}, {"gather_seed", 1}};
  HostBuffers in = inputs_counting_up(random, r);
  in[1].i32()[0] = 2, in[1].i32()[1] = 0,
  in[1].i32()[2] = 2; // the reference follows the index buffer
  EXPECT_EQ(reference_output(random, r, in), (std::vector<float>{2, 0, 2}));
}

TEST(MemoryPatterns, SharedReferencesSumTheirThirtyTwoReads) {
  // Tile element e holds e. stride 3: thread 1 reads 3 + 32 r for r < 32: 32 * 3 + 32 * 496.
  const KernelDesc& stride = kernel("bank_conflicts/stride");
  const Params s = {{"n", 2}, {"width", 4}, {"stride", 3}};
  EXPECT_EQ(reference_output(stride, s, inputs_counting_up(stride, s)),
            (std::vector<float>{15872, 15968}));

  // Broadcast: every thread reads elements 0, 32, ..., 992.
  const KernelDesc& broadcast = kernel("bank_conflicts/broadcast");
  const Params b = {{"n", 3}, {"width", 4}};
  EXPECT_EQ(reference_output(broadcast, b, inputs_counting_up(broadcast, b)),
            (std::vector<float>{15872, 15872, 15872}));

  // Padded: thread g sums row g mod 32 of the 32 x 32 tile, 1024 r + 496, whatever the pad.
  const KernelDesc& padded = kernel("bank_conflicts/padded");
  for (int pad : {0, 3}) {
    const Params p = {{"n", 34}, {"width", 4}, {"pad", pad}};
    const std::vector<float> out = reference_output(padded, p, inputs_counting_up(padded, p));
    EXPECT_EQ(out[0], 496);
    EXPECT_EQ(out[1], 1520);
    EXPECT_EQ(out[31], 31 * 1024 + 496);
    EXPECT_EQ(out[33], 1520);
  }
}

// The shared references compute one period of threads and copy it: the patterns must repeat.
TEST(MemoryPatterns, SharedPatternsRepeatEveryPeriod) {
  using namespace bank_conflicts;
  for (int g : {0, 1, 31, 33, 517, 1023, 4000})
    for (int read : {0, 5, 31}) {
      for (int width : {4, 8, 16})
        for (int stride : {1, 2, 3, 32, 33, 1024})
          EXPECT_EQ(strided_element(g + kPatternPeriod, stride, read, width),
                    strided_element(g, stride, read, width));
      for (int pad : {0, 1, 7})
        EXPECT_EQ(column_read_element(g + kPatternPeriod, read, pad),
                  column_read_element(g, read, pad));
    }
  // And the copied part of the reference is what a direct sum gives: thread 2999 at stride 3.
  const KernelDesc& k = kernel("bank_conflicts/stride");
  const Params p = {{"n", 3000}, {"width", 4}, {"stride", 3}};
  double direct = 0;
  for (int read = 0; read < kReads; ++read)
    direct += strided_element(2999, 3, read, 4);
  EXPECT_EQ(reference_output(k, p, inputs_counting_up(k, p))[2999], direct);
}

} // namespace
} // namespace wl
