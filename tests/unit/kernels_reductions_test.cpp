// softmax and reduce_sum: the model predictions each lesson is about, the references against
// hand-computed cases, and the sites against their buffers (in bounds, every output written
// once) for every test size and preset block.

#include "kernel_test_support.h"
#include "model/launch_model.h"
#include "registry.h"

#include <bit>
#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::inputs;
using test::kernel;
using test::predict;
using test::site;

int site_index(const KernelDesc& k, const std::string& name) {
  for (std::size_t i = 0; i < k.sites.size(); ++i)
    if (k.sites[i].name == name)
      return static_cast<int>(i);
  throw std::runtime_error("no site " + name);
}

const std::vector<std::string> kFamilyKernels = {
    "softmax/naive",         "softmax/block_tree",      "softmax/warp_shuffle",
    "softmax/online",        "softmax/warp_registers",  "softmax/block_shared",
    "softmax/block_online",  "reduce_sum/interleaved",  "reduce_sum/strided_index",
    "reduce_sum/sequential", "reduce_sum/warp_shuffle", "reduce_sum/vectorized"};

// --- softmax -------------------------------------------------------------------------------

const Params kSoftmaxSmall = {{"rows", 1024}, {"cols", 64}};

TEST(Softmax, NaiveRowPerThreadIsUncoalesced) {
  const LaunchPrediction p = predict("softmax/naive", kSoftmaxSmall, {256, 1, 1});
  ASSERT_EQ(p.sites.size(), 4u);
  for (const SitePrediction& s : p.sites) {
    EXPECT_DOUBLE_EQ(s.sectors_per_request(), 32.0) << s.name; // lanes a 256-byte row apart
    EXPECT_EQ(s.requests, 1024 / 32 * 64) << s.name;           // one per warp per column
  }
}

TEST(Softmax, NaiveAtDefaultSizeIsThirtyTwoSectorsPerRequest) {
  const KernelDesc& k = kernel("softmax/naive");
  const Params defaults = {{"rows", 8192}, {"cols", 8192}};
  const LaunchPrediction p = predict_launch(k, make_launch(k, defaults, k.default_block, 132));
  EXPECT_FALSE(p.exact());
  for (const SitePrediction& s : p.sites)
    EXPECT_NEAR(s.sectors_per_request(), 32.0, 0.01) << s.name;
}

TEST(Softmax, BlockTreeReadsRowsCoalescedAndItsTreeIsConflictFree) {
  const LaunchPrediction p = predict("softmax/block_tree", kSoftmaxSmall, {256, 1, 1});
  for (const char* name :
       {"load x (max pass)", "load x (sum pass)", "load x (write pass)", "store y"})
    EXPECT_DOUBLE_EQ(site(p, name).sectors_per_request(), 4.0) << name;
  for (const SitePrediction& s : p.sites) {
    if (s.space != MemorySpace::shared)
      continue;
    EXPECT_EQ(s.excess_wavefronts, 0) << s.name;
    EXPECT_EQ(s.wavefronts, s.requests) << s.name;
  }
  // Sequential tree, 256 threads: 4 + 2 + 1 warps, then warp 0 alone for the last 5 steps.
  EXPECT_EQ(site(p, "tree load source (max)").requests, 1024 * 12);
  EXPECT_EQ(site(p, "load row sum").requests, 1024 * 8); // every warp reads the broadcast
}

TEST(Softmax, BlockTreeGuardsThePartialLastStep) {
  // 1000 columns, 256 threads: the fourth step covers columns 768..999, so warp 7 reads 8 lanes
  // (one sector) and threads 232..255 none.
  const LaunchPrediction p =
      predict("softmax/block_tree", {{"rows", 3}, {"cols", 1000}}, {256, 1, 1});
  const SitePrediction& load = site(p, "load x (max pass)");
  EXPECT_EQ(load.bytes_used, 3 * 1000 * 4);
  EXPECT_EQ(load.requests, 3 * 4 * 8);
  EXPECT_EQ(load.sectors, 3 * (3 * 8 * 4 + 7 * 4 + 1));
}

TEST(Softmax, WarpVariantsAreCoalescedAndOnlineReadsTwice) {
  const LaunchPrediction shuffle = predict("softmax/warp_shuffle", kSoftmaxSmall, {128, 1, 1});
  const LaunchPrediction online = predict("softmax/online", kSoftmaxSmall, {128, 1, 1});
  for (const auto* p : {&shuffle, &online})
    for (const SitePrediction& s : p->sites) {
      EXPECT_EQ(s.space, MemorySpace::global) << s.name;
      EXPECT_DOUBLE_EQ(s.sectors_per_request(), 4.0) << s.name;
    }
  const auto loads = [](const LaunchPrediction& p) {
    std::int64_t bytes = 0;
    for (const SitePrediction& s : p.sites)
      if (s.op == AccessOp::load)
        bytes += s.bytes_used;
    return bytes;
  };
  EXPECT_EQ(loads(shuffle), 3 * 1024 * 64 * 4);
  EXPECT_EQ(loads(online), 2 * 1024 * 64 * 4);
}

// The climb's float4 variants: x crosses once in warp_registers and block_shared (8 bytes an
// element in all), twice in block_online; 16 sectors per 32-lane request, the fewest for 16
// bytes a lane; block_shared's row at 4 wavefronts a request, conflict-free.
TEST(Softmax, TheFloat4VariantsReadXOnceOrTwiceAtTheFewestSectors) {
  const Params rows = {{"rows", 256}, {"cols", 1024}};
  const auto global_loads = [](const LaunchPrediction& p) {
    std::int64_t bytes = 0;
    for (const SitePrediction& s : p.sites)
      if (s.space == MemorySpace::global && s.op == AccessOp::load)
        bytes += s.bytes_used;
    return bytes;
  };
  const LaunchPrediction registers = predict("softmax/warp_registers", rows, {256, 1, 1});
  const LaunchPrediction shared = predict("softmax/block_shared", rows, {256, 1, 1});
  const LaunchPrediction online = predict("softmax/block_online", rows, {256, 1, 1});
  EXPECT_EQ(global_loads(registers), 256 * 1024 * 4);
  EXPECT_EQ(global_loads(shared), 256 * 1024 * 4);
  EXPECT_EQ(global_loads(online), 2 * 256 * 1024 * 4);
  for (const auto* p : {&registers, &shared, &online})
    for (const SitePrediction& s : p->sites) {
      if (s.space == MemorySpace::global)
        EXPECT_DOUBLE_EQ(s.sectors_per_request(), 16.0) << s.name;
      else
        EXPECT_EQ(s.excess_wavefronts, 0) << s.name;
    }
  EXPECT_DOUBLE_EQ(site(shared, "load row (exp pass)").wavefronts_per_request(), 4.0);
  // One slot per warp: lane 0 stores, and each warp reads the 8 slots in one request.
  EXPECT_EQ(site(shared, "store warp max").requests, 256 * 8);
  EXPECT_EQ(site(shared, "load warp sums").requests, 256 * 8);
}

TEST(Softmax, TheFloat4VariantsRefuseRowsTheyCannotHold) {
  const Params odd = {{"rows", 4}, {"cols", 1001}};
  EXPECT_EQ(kernel("softmax/block_online").check_params(odd),
            "rows are moved as 16-byte float4s, so cols is a multiple of 4 (cols=1001); naive, "
            "block_tree, warp_shuffle and online take any");
  EXPECT_EQ(kernel("softmax/warp_registers").check_params({{"rows", 4}, {"cols", 1024}}), "");
  EXPECT_NE(kernel("softmax/warp_registers")
                .check_params({{"rows", 4}, {"cols", 1028}})
                .find("at most 1024 (cols=1028); for longer rows: block_shared or block_online"),
            std::string::npos);
  EXPECT_EQ(kernel("softmax/block_shared").check_params({{"rows", 4}, {"cols", 58080}}), "");
  EXPECT_NE(kernel("softmax/block_shared")
                .check_params({{"rows", 4}, {"cols", 58084}})
                .find("at most 58080 (cols=58084); for longer rows: block_online"),
            std::string::npos);
  EXPECT_EQ(kernel("softmax/block_online").check_params({{"rows", 4}, {"cols", 1 << 20}}), "");
}

TEST(Softmax, ReferenceMatchesHandComputedRows) {
  const KernelDesc& k = kernel("softmax/block_tree");
  const Params p = {{"rows", 2}, {"cols", 2}};
  // Row 0: {0, ln 3} -> {1/4, 3/4}. Row 1: {1000, 1000} -> {1/2, 1/2} only if the max is
  // subtracted.
  const float x[] = {0.0f, std::log(3.0f), 1000.0f, 1000.0f};
  const Expected e = k.reference(inputs(k, p, [&](int, std::int64_t i) { return x[i]; }), p);
  EXPECT_TRUE(e.checked.empty());
  const float* y = e.values[1].f32();
  EXPECT_NEAR(y[0], 0.25f, 1e-7f);
  EXPECT_NEAR(y[1], 0.75f, 1e-7f);
  EXPECT_FLOAT_EQ(y[2], 0.5f);
  EXPECT_FLOAT_EQ(y[3], 0.5f);
}

TEST(Softmax, LargeReferenceChecksWholeRowsIncludingTheLast) {
  const KernelDesc& k = kernel("softmax/online");
  const Params p = {{"rows", 4096}, {"cols", 2048}};
  const Expected e = k.reference(inputs(k, p, [](int, std::int64_t i) { return float(i % 7); }), p);
  EXPECT_FALSE(e.note.empty());
  ASSERT_EQ(e.checked.size() % 2048, 0u);
  EXPECT_EQ(e.checked.front(), 0);
  EXPECT_EQ(e.checked.back(), 4096 * 2048 - 1);
  double row_sum = 0;
  for (int c = 0; c < 2048; ++c)
    row_sum += e.values[1].f32()[4095 * 2048 + c];
  EXPECT_NEAR(row_sum, 1.0, 1e-5);
}

TEST(Softmax, InitDrawsLogitsThatOverflowWithoutTheMax) {
  const KernelDesc& k = kernel("softmax/naive");
  const Params p = {{"rows", 16}, {"cols", 64}};
  HostBuffers b = inputs(k, p, [](int, std::int64_t) { return 0.0f; });
  k.init(b, p, 42);
  float lo = 1e30f, hi = -1e30f;
  for (std::int64_t i = 0; i < b[0].size(); ++i)
    lo = std::min(lo, b[0].f32()[i]), hi = std::max(hi, b[0].f32()[i]);
  EXPECT_GE(lo, 80.0f);
  EXPECT_LT(hi, 100.0f);
  EXPECT_TRUE(std::isinf(std::exp(hi))); // in float
}

// --- reduce_sum ----------------------------------------------------------------------------

const Params kReduceSmall = {{"n", 4096}, {"chunk", 1024}}; // 4 blocks
const char* const kTreeSites[] = {"tree load target", "tree load source", "tree store target"};

TEST(ReduceSum, InterleavedDivergesButHasNoBankConflicts) {
  const LaunchPrediction p = predict("reduce_sum/interleaved", kReduceSmall, {256, 1, 1});
  for (const char* name : kTreeSites) {
    const SitePrediction& s = site(p, name);
    EXPECT_EQ(s.requests, 4 * 47) << name; // 8 warps x 5 steps, then 4 + 2 + 1
    EXPECT_EQ(s.excess_wavefronts, 0) << name;
    EXPECT_EQ(s.conflict_degree, 1) << name;
  }
  // The divergence itself: at s = 1 every warp runs with half its lanes, at s = 16 with one.
  const KernelDesc& k = kernel("reduce_sum/interleaved");
  const LaunchShape launch = make_launch(k, kReduceSmall, {256, 1, 1}, 132);
  const int target = site_index(k, "tree load target");
  EXPECT_EQ(std::popcount(warp_access(k, launch, target, {0, 0, 0}, 7, 0).active_mask), 16);
  EXPECT_EQ(warp_access(k, launch, target, {0, 0, 0}, 7, 4).active_mask, 1u);
  EXPECT_EQ(warp_access(k, launch, target, {0, 0, 0}, 7, 5).active_mask,
            0u); // s = 32: odd warps done
}

TEST(ReduceSum, StridedIndexRemovesDivergenceButConflicts) {
  const LaunchPrediction p = predict("reduce_sum/strided_index", kReduceSmall, {256, 1, 1});
  for (const char* name : kTreeSites) {
    const SitePrediction& s = site(p, name);
    EXPECT_EQ(s.requests, 4 * 12) << name;   // as few as sequential
    EXPECT_EQ(s.wavefronts, 4 * 47) << name; // 2-, 4-, 8-way steps
    EXPECT_EQ(s.excess_wavefronts, 4 * 35) << name;
    EXPECT_EQ(s.conflict_degree, 8) << name;
  }
  const LaunchPrediction wide = predict("reduce_sum/strided_index", kReduceSmall, {1024, 1, 1});
  EXPECT_EQ(site(wide, "tree load target").conflict_degree, 32); // s = 16: 32 lanes on bank 0
}

TEST(ReduceSum, SequentialIsConflictFreeWithTheFewestRequests) {
  const LaunchPrediction p = predict("reduce_sum/sequential", kReduceSmall, {256, 1, 1});
  for (const char* name : kTreeSites) {
    const SitePrediction& s = site(p, name);
    EXPECT_EQ(s.requests, 4 * 12) << name; // 4 + 2 + 1 warps, then warp 0 for 5 steps
    EXPECT_EQ(s.wavefronts, s.requests) << name;
    EXPECT_EQ(s.excess_wavefronts, 0) << name;
  }
}

TEST(ReduceSum, WarpShuffleTouchesSharedMemoryOncePerWarp) {
  const LaunchPrediction p = predict("reduce_sum/warp_shuffle", kReduceSmall, {256, 1, 1});
  EXPECT_EQ(site(p, "store warp sum").requests, 4 * 8);
  EXPECT_EQ(site(p, "store warp sum").wavefronts, 4 * 8); // one lane each
  EXPECT_EQ(site(p, "load warp sums").requests, 4);
  EXPECT_EQ(site(p, "load warp sums").excess_wavefronts, 0);
}

TEST(ReduceSum, LoadsAreCoalescedAndEachBlockStoresOnePartial) {
  for (const char* id : {"reduce_sum/interleaved", "reduce_sum/strided_index",
                         "reduce_sum/sequential", "reduce_sum/warp_shuffle"}) {
    const LaunchPrediction p = predict(id, {{"n", 100003}, {"chunk", 2048}}, {128, 1, 1});
    EXPECT_NEAR(site(p, "load x").sectors_per_request(), 4.0, 0.01) << id;
    EXPECT_EQ(site(p, "load x").bytes_used, 100003 * 4) << id;
    EXPECT_EQ(site(p, "store partial").requests, 49) << id; // ceil(100003 / 2048)
  }
}

// float4s: 16 sectors per 32-lane request, a quarter of warp_shuffle's requests for the same
// bytes; the chunk's last pack is guarded like the scalar loads.
TEST(ReduceSum, VectorizedReadsFloat4sAtTheFewestSectors) {
  const Params whole = {{"n", 48 * 2048}, {"chunk", 2048}};
  const LaunchPrediction packs = predict("reduce_sum/vectorized", whole, {128, 1, 1});
  const LaunchPrediction words = predict("reduce_sum/warp_shuffle", whole, {128, 1, 1});
  EXPECT_DOUBLE_EQ(site(packs, "load x").sectors_per_request(), 16.0);
  EXPECT_EQ(site(packs, "load x").requests * 4, site(words, "load x").requests);
  const LaunchPrediction tail =
      predict("reduce_sum/vectorized", {{"n", 100004}, {"chunk", 2048}}, {128, 1, 1});
  EXPECT_EQ(site(tail, "load x").bytes_used, 100004 * 4);
  EXPECT_EQ(site(tail, "store partial").requests, 49); // ceil(100004 / 2048)
  EXPECT_EQ(kernel("reduce_sum/vectorized").check_params({{"n", 1001}, {"chunk", 1024}}),
            "x is read as 16-byte float4s, so n is a multiple of 4 (n=1001); the other variants "
            "take any");
}

TEST(ReduceSum, ReferenceSumsEachChunk) {
  const KernelDesc& k = kernel("reduce_sum/sequential");
  const Params p = {{"n", 2500}, {"chunk", 1024}};
  // All ones, except the last element: 100.
  const Expected e =
      k.reference(inputs(k, p, [](int, std::int64_t i) { return i == 2499 ? 100.0f : 1.0f; }), p);
  ASSERT_EQ(e.values[1].size(), 3);
  EXPECT_EQ(e.values[1].f32()[0], 1024.0f);
  EXPECT_EQ(e.values[1].f32()[1], 1024.0f);
  EXPECT_EQ(e.values[1].f32()[2], 551.0f); // 451 ones and 100
}

TEST(ReduceSum, BlockRules) {
  const Params p = kReduceSmall;
  EXPECT_EQ(kernel("reduce_sum/sequential").check_block({256, 1, 1}, p), "");
  EXPECT_NE(kernel("reduce_sum/sequential").check_block({96, 1, 1}, p), "");
  EXPECT_NE(kernel("reduce_sum/interleaved").check_block({16, 1, 1}, p), "");
  EXPECT_EQ(kernel("reduce_sum/warp_shuffle").check_block({96, 1, 1}, p), "");
  EXPECT_NE(kernel("reduce_sum/warp_shuffle").check_block({100, 1, 1}, p), "");
  EXPECT_NE(kernel("softmax/block_tree").check_block({32, 2, 1}, p), "");
  EXPECT_EQ(kernel("softmax/naive").check_block({100, 1, 1}, p), "");
  EXPECT_NE(kernel("softmax/online").check_block({48, 1, 1}, p), "");
}

// --- both: every site in bounds and every output written exactly once ------------------------

// A block's shared memory: the dynamic size, or the static arrays (reduce_sum/warp_shuffle's
// float warp_sums[32], softmax/block_online's Running warp_states[32]).
std::int64_t shared_bytes(const KernelDesc& k, const Params& p, const BlockShape& b) {
  if (k.dynamic_smem)
    return k.dynamic_smem(p, b);
  return k.id == "softmax/block_online" ? 32 * 8 : 32 * 4;
}

class ReductionSites : public testing::TestWithParam<std::string> {};

TEST_P(ReductionSites, StayInBoundsAndStoresCoverEveryOutput) {
  const std::string& id = GetParam();
  const KernelDesc& k = kernel(id);
  for (const Params& p : k.test_sizes) {
    ASSERT_TRUE(!k.check_params || k.check_params(p).empty()) << id;
    for (const BlockShape& b : k.block_presets) {
      ASSERT_EQ(k.check_block(b, p), "") << id << " " << b.x;
      const LaunchShape launch = make_launch(k, p, b, 132);
      for (const Site& site : k.sites) {
        const bool global = site.space == MemorySpace::global;
        const std::int64_t limit =
            global ? k.buffers[site.buffer].count(p) * 4 : shared_bytes(k, p, b);
        std::vector<int> writes(
            global && site.op == AccessOp::store ? static_cast<std::size_t>(limit / 4) : 0);
        const std::int64_t iterations = site.iterations(launch);
        const LaneOffsets offsets = site.offset(launch);
        for (int block = 0; block < launch.grid.x; ++block) {
          // Shared offsets depend on the thread alone here: the first and last blocks suffice.
          if (!global && block > 0 && block < launch.grid.x - 1)
            continue;
          for (int t = 0; t < b.x; ++t)
            for (std::int64_t it = 0; it < iterations; ++it) {
              const auto offset = offsets({block, 0, 0}, {t, 0, 0}, it);
              if (!offset)
                continue;
              const int width = site.width(p);
              ASSERT_EQ(*offset % width, 0) << id << " " << site.name;
              ASSERT_GE(*offset, 0) << id << " " << site.name;
              ASSERT_LE(*offset + width, limit) << id << " " << site.name;
              for (int word = 0; word < width / 4 && !writes.empty(); ++word)
                ++writes[static_cast<std::size_t>(*offset / 4 + word)];
            }
        }
        for (std::size_t i = 0; i < writes.size(); ++i)
          ASSERT_EQ(writes[i], 1) << id << " " << site.name << " element " << i << " block " << b.x;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Reductions, ReductionSites, testing::ValuesIn(kFamilyKernels),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '/')
                               c = '_';
                           return name;
                         });

} // namespace
} // namespace wl
