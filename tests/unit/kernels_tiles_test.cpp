// transpose and matmul: the model predictions each lesson is about (sectors per request of the
// global sites, wavefronts per request of the tile accesses), the references against hand-computed
// cases, and, for every test size and allowed preset block, that the sites stay inside their
// buffers and the output stores cover every output element exactly once.

#include "kernel_test_support.h"
#include "model/launch_model.h"
#include "registry.h"

#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::inputs;
using test::kernel;
using test::predict;
using test::site;

Params matrix(int rows, int cols) { return {{"rows", rows}, {"cols", cols}}; }
Params product(int m, int n, int k) { return {{"m", m}, {"n", n}, {"k", k}}; }
Params product(int m, int n, int k, int tile) {
  return {{"m", m}, {"n", n}, {"k", k}, {"tile", tile}};
}

// --- transpose ----------------------------------------------------------------------------------

TEST(Transpose, NaiveReadsRowsAndWritesColumns) {
  const LaunchPrediction p = predict("transpose/naive", matrix(256, 256), {32, 8, 1});
  EXPECT_DOUBLE_EQ(site(p, "load in").sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(site(p, "store out").sectors_per_request(), 32.0); // 32 floats `rows` apart
  EXPECT_EQ(site(p, "store out").bytes_fetched, 8 * site(p, "store out").bytes_used);
}

// The acceptance numbers: the column read of an unpadded 32x32 tile is 32 wavefronts, the padded
// one 1; the row-wise tile stores are 1 in both; every global access is coalesced.
TEST(Transpose, SmemTileColumnReadIsA32WayConflict) {
  const LaunchPrediction p = predict("transpose/smem", matrix(256, 256), {32, 8, 1});
  EXPECT_DOUBLE_EQ(site(p, "load tile").wavefronts_per_request(), 32.0);
  EXPECT_EQ(site(p, "load tile").conflict_degree, 32);
  EXPECT_DOUBLE_EQ(site(p, "store tile").wavefronts_per_request(), 1.0);
  EXPECT_EQ(site(p, "store tile").excess_wavefronts, 0);
  EXPECT_DOUBLE_EQ(site(p, "load in").sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(site(p, "store out").sectors_per_request(), 4.0);
}

TEST(Transpose, PaddedTileColumnReadIsConflictFree) {
  const LaunchPrediction p = predict("transpose/smem_padded", matrix(256, 256), {32, 8, 1});
  EXPECT_DOUBLE_EQ(site(p, "load tile").wavefronts_per_request(), 1.0);
  EXPECT_EQ(site(p, "load tile").excess_wavefronts, 0);
  EXPECT_DOUBLE_EQ(site(p, "store tile").wavefronts_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(site(p, "load in").sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(site(p, "store out").sectors_per_request(), 4.0);
}

// A shorter block makes more passes over the tile; the work per element does not change.
TEST(Transpose, BlockHeightSetsPassesNotRequests) {
  const KernelDesc& k = kernel("transpose/smem");
  for (int height : {1, 8, 32}) {
    const LaunchShape launch = make_launch(k, matrix(128, 96), {32, height, 1}, 132);
    EXPECT_EQ(k.sites[0].iterations(launch), 32 / height);
    const LaunchPrediction p = predict_launch(k, launch, ModelBudget{0});
    EXPECT_EQ(site(p, "load in").requests, 128 * 96 / 32) << height;
    EXPECT_EQ(site(p, "load tile").wavefronts, 128 * 96) << height; // 32 per request
  }
}

TEST(Transpose, TiledBlocksMustBe32WideWithAHeightDividing32) {
  const KernelDesc& k = kernel("transpose/smem_padded");
  const Params p = matrix(64, 64);
  for (int height : {1, 2, 4, 8, 16, 32})
    EXPECT_EQ(k.check_block({32, height, 1}, p), "");
  EXPECT_NE(k.check_block({16, 16, 1}, p), "");
  EXPECT_NE(k.check_block({32, 3, 1}, p), "");
  EXPECT_NE(k.check_block({32, 64, 1}, p), "");
  EXPECT_NE(k.check_block({32, 8, 2}, p), "");
  EXPECT_EQ(kernel("transpose/naive").check_block({16, 4, 1}, p), "");
  EXPECT_NE(kernel("transpose/naive").check_block({8, 8, 2}, p), "");
}

TEST(Transpose, ReferenceMatchesAHandTransposedMatrix) {
  const KernelDesc& k = kernel("transpose/naive");
  const Params p = matrix(2, 3);
  // in = [[1 2 3] [4 5 6]]
  const HostBuffers in = inputs(k, p, [](int, std::int64_t i) { return float(i + 1); });
  const Expected e = k.reference(in, p);
  const float want[] = {1, 4, 2, 5, 3, 6}; // [[1 4] [2 5] [3 6]]
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(e.values[1].f32()[i], want[i]) << i;
  EXPECT_TRUE(e.checked.empty());
}

// --- matmul -------------------------------------------------------------------------------------

// naive: lanes along C's columns read a row segment of B and share one word of A.
TEST(Matmul, NaiveLoadsOfBCoalesce) {
  const LaunchPrediction p = predict("matmul/naive", product(64, 64, 64), {32, 8, 1});
  EXPECT_DOUBLE_EQ(site(p, "load B").sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(site(p, "load A").sectors_per_request(), 1.0); // one word for all 32 lanes
  EXPECT_DOUBLE_EQ(site(p, "store C").sectors_per_request(), 4.0);
}

// uncoalesced: lanes along C's rows read A down a column, k floats apart.
TEST(Matmul, UncoalescedMappingScattersTheLoadsOfA) {
  const LaunchPrediction bad = predict("matmul/naive_uncoalesced", product(64, 64, 64), {32, 8, 1});
  const LaunchPrediction good = predict("matmul/naive", product(64, 64, 64), {32, 8, 1});
  EXPECT_DOUBLE_EQ(site(bad, "load A").sectors_per_request(), 32.0);
  EXPECT_DOUBLE_EQ(site(bad, "load B").sectors_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(site(bad, "store C").sectors_per_request(), 32.0);
  // Per k step a warp fetches 33 sectors instead of 5, for the same arithmetic.
  const auto sectors = [](const LaunchPrediction& p) {
    return site(p, "load A").sectors + site(p, "load B").sectors;
  };
  EXPECT_EQ(sectors(good) * 33, sectors(bad) * 5);
}

// The model says the tiled reads are conflict-free: a warp reads A's tile along one or two tile
// rows (each row's lanes share one word, a broadcast; with tile=16 the two rows are 16 words
// apart, on different banks) and B's tile along consecutive words of a row.
TEST(Matmul, TiledTileAccessesAreConflictFree) {
  for (int tile : {16, 32}) {
    const LaunchPrediction p = predict("matmul/tiled", product(64, 64, 64, tile), {tile, tile, 1});
    for (const char* name : {"store A tile", "store B tile", "load A tile", "load B tile"}) {
      EXPECT_DOUBLE_EQ(site(p, name).wavefronts_per_request(), 1.0) << name << " tile " << tile;
      EXPECT_EQ(site(p, name).excess_wavefronts, 0) << name << " tile " << tile;
    }
    EXPECT_DOUBLE_EQ(site(p, "load A").sectors_per_request(), 4.0) << tile;
    EXPECT_DOUBLE_EQ(site(p, "load B").sectors_per_request(), 4.0) << tile;
  }
}

// Padding fixes column reads, and this kernel has none. With tile=16 a warp stores two tile rows;
// 17 words apart, lane 31 (row 1, column 15: word 32) shares bank 0 with lane 0: 2-way.
TEST(Matmul, PaddedTilesOnlyAddAConflictOnTheSixteenWideStores) {
  const LaunchPrediction p16 = predict("matmul/tiled_padded", product(64, 64, 64, 16), {16, 16, 1});
  EXPECT_DOUBLE_EQ(site(p16, "store A tile").wavefronts_per_request(), 2.0);
  EXPECT_EQ(site(p16, "store A tile").conflict_degree, 2);
  EXPECT_DOUBLE_EQ(site(p16, "store B tile").wavefronts_per_request(), 2.0);
  EXPECT_DOUBLE_EQ(site(p16, "load A tile").wavefronts_per_request(), 1.0);
  EXPECT_DOUBLE_EQ(site(p16, "load B tile").wavefronts_per_request(), 1.0);
  const LaunchPrediction p32 = predict("matmul/tiled_padded", product(64, 64, 64, 32), {32, 32, 1});
  for (const SitePrediction& s : p32.sites) {
    if (s.space == MemorySpace::shared) {
      EXPECT_DOUBLE_EQ(s.wavefronts_per_request(), 1.0) << s.name;
    }
  }
}

// Each element of A is requested once per tile-wide column of blocks, not once per output.
TEST(Matmul, TilesCutGlobalRequestsByTheTileSide) {
  const LaunchPrediction naive = predict("matmul/naive", product(64, 64, 64), {32, 8, 1});
  for (int tile : {16, 32}) {
    const LaunchPrediction tiled =
        predict("matmul/tiled", product(64, 64, 64, tile), {tile, tile, 1});
    EXPECT_EQ(site(tiled, "load A").requests * tile, site(naive, "load A").requests) << tile;
    EXPECT_EQ(site(tiled, "load B").requests * tile, site(naive, "load B").requests) << tile;
  }
}

// Partial tiles: the guards leave out exactly the elements past the edges.
TEST(Matmul, TiledGuardsLoadEachElementOncePerBlockRowOrColumn) {
  const int m = 67, n = 45, k = 83;
  for (int tile : {16, 32}) {
    const LaunchPrediction p = predict("matmul/tiled", product(m, n, k, tile), {tile, tile, 1});
    const int block_cols = (n + tile - 1) / tile, block_rows = (m + tile - 1) / tile;
    EXPECT_EQ(site(p, "load A").bytes_used, 4LL * m * k * block_cols) << tile;
    EXPECT_EQ(site(p, "load B").bytes_used, 4LL * k * n * block_rows) << tile;
    EXPECT_EQ(site(p, "store C").bytes_used, 4LL * m * n) << tile;
  }
}

TEST(Matmul, TiledBlockMustMatchTheTile) {
  const KernelDesc& k = kernel("matmul/tiled");
  EXPECT_EQ(k.check_block({16, 16, 1}, product(64, 64, 64, 16)), "");
  EXPECT_EQ(k.check_block({32, 32, 1}, product(64, 64, 64, 32)), "");
  EXPECT_NE(k.check_block({32, 32, 1}, product(64, 64, 64, 16)), "");
  EXPECT_NE(k.check_block({32, 8, 1}, product(64, 64, 64, 32)), "");
  EXPECT_EQ(k.symbol(product(64, 64, 64, 32)), "wl::matmul_tiled<32>");
  EXPECT_EQ(kernel("matmul/tiled_padded").symbol(product(64, 64, 64, 16)),
            "wl::matmul_tiled_padded<16>");
}

TEST(Matmul, CublasChoosesItsOwnBlocks) {
  const KernelDesc& k = kernel("matmul/cublas");
  EXPECT_EQ(k.kind, KernelKind::library);
  EXPECT_TRUE(k.sites.empty());
#ifdef WARPLENS_HAS_CUDA
  EXPECT_EQ(k.function(product(64, 64, 64)), nullptr);
#endif
  EXPECT_EQ(k.symbol(product(64, 64, 64)), "");
  EXPECT_EQ(k.check_block(k.default_block, product(64, 64, 64)), "");
  EXPECT_EQ(k.check_block({16, 16, 1}, product(64, 64, 64)),
            "cuBLAS chooses its own kernels and block shapes");
}

TEST(Matmul, ReferenceMatchesAHandComputedProduct) {
  const KernelDesc& k = kernel("matmul/naive");
  const Params p = product(2, 2, 3);
  // A = [[1 2 3] [4 5 6]], B = [[1 0] [0 1] [1 1]]: C = [[4 5] [10 11]]
  const float b_values[] = {1, 0, 0, 1, 1, 1};
  const HostBuffers in =
      inputs(k, p, [&](int b, std::int64_t i) { return b == 0 ? float(i + 1) : b_values[i]; });
  const Expected e = k.reference(in, p);
  const float want[] = {4, 5, 10, 11};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(e.values[2].f32()[i], want[i]) << i;
  EXPECT_TRUE(e.checked.empty());
}

// Above the full-reference budget only whole rows and columns are computed, including the last.
TEST(Matmul, LargeReferenceChecksASampleOfWholeRowsAndColumns) {
  const KernelDesc& k = kernel("matmul/naive");
  const int m = 400, n = 300, kk = 500;
  const Params p = product(m, n, kk);
  const HostBuffers in =
      inputs(k, p, [](int b, std::int64_t i) { return float((i * (b + 3)) % 7) - 3.0f; });
  const Expected e = k.reference(in, p);
  ASSERT_FALSE(e.checked.empty());
  EXPECT_FALSE(e.note.empty());
  const auto checked = [&](int i, int j) {
    return std::binary_search(e.checked.begin(), e.checked.end(), std::int64_t{i} * n + j);
  };
  EXPECT_TRUE(checked(m - 1, 0) && checked(m - 1, n - 1) && checked(0, n - 1));
  EXPECT_TRUE(checked(m / 2, n / 3));
  EXPECT_FALSE(checked(m / 3, n / 3));
  for (const auto& [i, j] : {std::pair{m - 1, n - 1}, std::pair{m / 3, n - 1}}) {
    double want = 0;
    for (int q = 0; q < kk; ++q)
      want += double(in[0].f32()[i * kk + q]) * in[1].f32()[q * n + j];
    EXPECT_EQ(e.values[2].f32()[i * n + j], float(want)) << i << "," << j;
  }
}

// --- both families: every test size and allowed preset ------------------------------------------

// The iterations worth walking: all of them for global stores (to count every output) and for
// short loops; the first and last three of a long load loop (matmul's k loop), where the
// addresses are lowest and highest and the partial last tile is.
std::vector<std::int64_t> iterations_to_walk(const Site& site, const LaunchShape& launch) {
  const std::int64_t n = site.iterations(launch);
  std::vector<std::int64_t> its;
  for (std::int64_t it = 0; it < n; ++it)
    if (n <= 8 || site.op == AccessOp::store || it < 3 || it >= n - 3)
      its.push_back(it);
  return its;
}

// Walks every thread of every block at those iterations of every site.
template <typename Visit>
void for_each_access(const KernelDesc& k, const LaunchShape& launch, Visit visit) {
  for (const Site& s : k.sites) {
    const LaneOffsets offsets = s.offset(launch);
    for (int by = 0; by < launch.grid.y; ++by)
      for (int bx = 0; bx < launch.grid.x; ++bx)
        for (std::int64_t it : iterations_to_walk(s, launch))
          for (int ty = 0; ty < launch.block.y; ++ty)
            for (int tx = 0; tx < launch.block.x; ++tx)
              if (const auto offset = offsets({bx, by, 0}, {tx, ty, 0}, it))
                visit(s, *offset);
  }
}

// 2 tiles of 32 x 33 words: the most shared memory any of these kernels declares.
constexpr std::int64_t kLargestSharedBytes = 2 * 32 * 33 * 4;

TEST(TilesFamilies, SitesStayInsideTheirBuffersAndStoresCoverEveryOutputOnce) {
  for (const std::string id :
       {"transpose/naive", "transpose/smem", "transpose/smem_padded", "transpose/in_flight",
        "matmul/naive", "matmul/naive_uncoalesced", "matmul/tiled", "matmul/tiled_padded"}) {
    const KernelDesc& k = kernel(id);
    const int out = int(k.buffers.size()) - 1; // the output is the last buffer in both families
    for (const Params& p : k.test_sizes) {
      ASSERT_TRUE(!k.check_params || k.check_params(p).empty()) << id;
      int presets_run = 0;
      for (const BlockShape& block : k.block_presets) {
        if (!k.check_block(block, p).empty())
          continue;
        ++presets_run;
        const LaunchShape launch = make_launch(k, p, block, 132);
        ASSERT_EQ(launch.grid.z, 1);
        std::vector<int> writes(static_cast<std::size_t>(k.buffers[out].count(p)), 0);
        for_each_access(k, launch, [&](const Site& s, std::int64_t offset) {
          ASSERT_EQ(offset % 4, 0) << id << " " << s.name;
          ASSERT_GE(offset, 0) << id << " " << s.name;
          if (s.space == MemorySpace::shared) {
            ASSERT_LT(offset, kLargestSharedBytes) << id << " " << s.name;
            return;
          }
          ASSERT_LT(offset / 4, k.buffers[s.buffer].count(p)) << id << " " << s.name;
          if (s.buffer == out)
            ++writes[offset / 4];
        });
        for (std::size_t e = 0; e < writes.size(); ++e)
          ASSERT_EQ(writes[e], 1) << id << " block " << block.x << "x" << block.y << " output "
                                  << e;
      }
      EXPECT_GT(presets_run, 0) << id << ": no preset block fits a test size";
    }
  }
}

// --- the matmul ladder's register-blocked rungs -------------------------------------------------

constexpr const char* kLadderRungs[] = {"matmul/blocktile_1d",    "matmul/blocktile_2d",
                                        "matmul/vectorized",      "matmul/warptile",
                                        "matmul/double_buffered", "matmul/async_copy"};

// Every test size (each blocking, partial tiles, a grouped launch order): the sites stay inside
// their buffers and a block's shared memory (static, 48 KiB at most, or the dynamic size the
// kernel asks for), and the stores of C, float4s in the vector rungs, write every output exactly
// once.
TEST(MatmulLadder, SitesStayInsideTheirBuffersAndStoresCoverEveryOutputOnce) {
  for (const std::string id : kLadderRungs) {
    const KernelDesc& k = kernel(id);
    for (const Params& p : k.test_sizes) {
      ASSERT_EQ(k.check_params(p), "") << id;
      const auto fits = [&](const BlockShape& b) { return k.check_block(b, p).empty(); };
      const auto preset = std::find_if(k.block_presets.begin(), k.block_presets.end(), fits);
      ASSERT_NE(preset, k.block_presets.end()) << id << ": no preset block fits a test size";
      const LaunchShape launch = make_launch(k, p, *preset, 132);
      const std::int64_t shared_bytes = k.dynamic_smem ? k.dynamic_smem(p, *preset) : 48 * 1024;
      std::vector<int> writes(static_cast<std::size_t>(k.buffers[2].count(p)), 0);
      for_each_access(k, launch, [&](const Site& s, std::int64_t offset) {
        const int width = s.width(p);
        ASSERT_EQ(offset % width, 0) << id << " " << s.name;
        ASSERT_GE(offset, 0) << id << " " << s.name;
        if (s.space == MemorySpace::shared) {
          ASSERT_LE(offset + width, shared_bytes) << id << " " << s.name;
          return;
        }
        ASSERT_LE((offset + width) / 4, k.buffers[s.buffer].count(p)) << id << " " << s.name;
        if (s.buffer == 2)
          for (int e = 0; e < width / 4; ++e)
            ++writes[offset / 4 + e];
      });
      for (std::size_t e = 0; e < writes.size(); ++e)
        ASSERT_EQ(writes[e], 1) << id << " block " << preset->x << " output " << e;
    }
  }
}

// A combination of blocking parameters that was not built is refused naming those that were,
// and the vector rungs refuse rows they cannot load as float4s.
TEST(MatmulLadder, RefusesWhatWasNotBuiltAndSaysWhatWas) {
  const KernelDesc& k = kernel("matmul/warptile");
  Params p = test::default_params(k);
  EXPECT_EQ(k.check_params(p), "");
  p["wn_iter"] = 4; // wn 32 with 4 steps: 8-column sub-tiles no warp layout of 4 columns fills
  const std::string refusal = k.check_params(p);
  EXPECT_NE(refusal.find("built for these blockings: 128x128x16 tile, 8x4 per thread, 64x32 per "
                         "warp in 2 steps;"),
            std::string::npos)
      << refusal;
  EXPECT_EQ(refusal.find("128x128x16 tile, 8x4 per thread, 64x32 per warp in 4 steps was not "
                         "built; "),
            0u)
      << refusal;
  Params odd = test::default_params(kernel("matmul/vectorized"));
  odd["n"] = 45;
  EXPECT_EQ(kernel("matmul/vectorized").check_params(odd),
            "rows of A and B are loaded as 16-byte float4s, so n and k are multiples of 4 (n=45, "
            "k=4096)");
  odd = test::default_params(kernel("matmul/blocktile_2d"));
  odd["n"] = 45;
  EXPECT_EQ(kernel("matmul/blocktile_2d").check_params(odd), "");
  // async_copy copies A float by float: any k, but B and C still move in float4s.
  const KernelDesc& async = kernel("matmul/async_copy");
  odd = test::default_params(async);
  odd["k"] = 83;
  EXPECT_EQ(async.check_params(odd), "");
  odd["n"] = 45;
  EXPECT_EQ(async.check_params(odd),
            "rows of B are copied and rows of C written as 16-byte float4s, so n is a multiple of "
            "4 (n=45); A is copied float by float, so k may be any");
  odd = test::default_params(async);
  odd["stages"] = 5;
  EXPECT_EQ(async.check_params(odd).find("128x256x16 tile, 8x4 per thread, 64x64 per warp in 4 "
                                         "steps, 5 stages was not built; "),
            0u)
      << async.check_params(odd);
}

// async_copy's stages hold its tiles in dynamic shared memory: 3 stages of a 128x256x16 blocking
// take 73 KiB (A's tile padded to 132 words a row), over the 48 KiB a static array may.
TEST(MatmulLadder, AsyncCopyAsksForItsStagesInDynamicSharedMemory) {
  const KernelDesc& k = kernel("matmul/async_copy");
  const Params p = test::default_params(k);
  EXPECT_EQ(p.at("stages"), 3);
  ASSERT_TRUE(k.dynamic_smem);
  EXPECT_EQ(k.dynamic_smem(p, k.default_block), 4 * 3 * (16 * 132 + 16 * 256));
  EXPECT_EQ(k.default_block, (BlockShape{256, 1, 1}));
  EXPECT_EQ(k.min_compute_capability, 80);
}

// Picking one value moves the other blocking parameters to the nearest blocking built with it.
TEST(MatmulLadder, TheNearestBlockingKeepsTheValueChosen) {
  const KernelDesc& k = kernel("matmul/warptile");
  Params p = test::default_params(k); // 128x128x16, 64x32 warp tiles in 2 steps
  p["bn"] = 256;
  const Params moved = k.nearest_params(p, "bn");
  EXPECT_EQ(moved.at("bn"), 256);
  EXPECT_EQ(moved.at("wn"), 64);
  EXPECT_EQ(moved.at("wn_iter"), 4);
  EXPECT_EQ(k.check_params(moved), "");
  EXPECT_EQ(moved.at("m"), p.at("m")); // the sizes and the launch order stay
  EXPECT_EQ(moved.at("group"), p.at("group"));
  EXPECT_EQ(k.nearest_params(test::default_params(k), "bk"), test::default_params(k));
}

} // namespace
} // namespace wl
