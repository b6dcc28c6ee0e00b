// vec_add_3d, broadcast_add and divergence: the model predictions each lesson is about, the
// references against hand-computed cases, and the sites against their buffers for every test
// size and preset block.

#include "kernel_test_support.h"
#include "model/launch_model.h"
#include "registry.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::inputs;
using test::kernel;
using test::predict;
using test::site;

double ideal_per_request(const SitePrediction& s) {
  return double(s.ideal_sectors) / double(s.requests);
}

Params volume(int nx, int ny, int nz) { return {{"nx", nx}, {"ny", ny}, {"nz", nz}}; }

// --- vec_add_3d ----------------------------------------------------------------------------

TEST(VecAdd3d, LinearIsFourSectorsPerRequestAtTheDefaultSize) {
  const LaunchPrediction p = predict("vec_add_3d/linear", volume(256, 256, 256), {256, 1, 1}, {});
  for (const SitePrediction& s : p.sites) {
    EXPECT_EQ(s.requests, (1 << 24) / 32) << s.name;
    EXPECT_DOUBLE_EQ(s.sectors_per_request(), 4.0) << s.name;
  }
}

// With nx a multiple of 8 floats every row starts on a sector: the x side alone decides.
TEST(VecAdd3d, BlockXSideSetsSectorsPerRequest) {
  const Params p = volume(64, 64, 16);
  const auto load_a = [&](BlockShape block) {
    return site(predict("vec_add_3d/blocks3d", p, block), "load a");
  };
  EXPECT_DOUBLE_EQ(load_a({32, 4, 4}).sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(load_a({16, 8, 8}).sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(load_a({8, 8, 8}).sectors_per_request(), 4.0); // one full sector per 8-float row
  const SitePrediction narrow = load_a({4, 8, 8});
  EXPECT_DOUBLE_EQ(narrow.sectors_per_request(), 8.0); // 8 rows of half a sector
  EXPECT_DOUBLE_EQ(ideal_per_request(narrow), 4.0);
  EXPECT_DOUBLE_EQ(load_a({1, 32, 8}).sectors_per_request(), 32.0); // a sector per float
}

// nx = 100: a row is 400 bytes, so odd rows start 16 bytes into a sector. 8-float rows then
// straddle two sectors on every other row; 128-byte rows only gain one sector.
TEST(VecAdd3d, RowsOffSectorBoundariesHurtNarrowBlocksMore) {
  const Params p = volume(100, 64, 8);
  const SitePrediction cube = site(predict("vec_add_3d/blocks3d", p, {8, 8, 8}), "load a");
  const SitePrediction wide = site(predict("vec_add_3d/blocks3d", p, {32, 4, 4}), "load a");
  // 8x8x8: per group of 4 rows, 12 full warps of 1+2+1+2 sectors and one 4-wide edge warp of 4.
  EXPECT_EQ(cube.requests, 16 * 8 * 13);
  EXPECT_EQ(cube.sectors, 16 * 8 * (12 * 6 + 4));
  EXPECT_EQ(cube.ideal_sectors, 16 * 8 * (12 * 4 + 2));
  // 32x4x4: even rows 4+4+4+1 sectors, odd rows 5+5+5+1.
  EXPECT_EQ(wide.requests, 64 * 8 * 4);
  EXPECT_EQ(wide.sectors, 32 * 8 * (13 + 16));
  EXPECT_GT(double(cube.sectors) / cube.ideal_sectors, 1.5 - 1e-9);
  EXPECT_LT(double(wide.sectors) / wide.ideal_sectors, 1.15);
}

TEST(VecAdd3d, ReferenceAddsElementwise) {
  const KernelDesc& k = kernel("vec_add_3d/blocks3d");
  const Params p = volume(3, 2, 1);
  const HostBuffers in =
      inputs(k, p, [](int b, std::int64_t i) { return b == 0 ? float(i) : 0.5f; });
  const Expected e = k.reference(in, p);
  EXPECT_TRUE(e.checked.empty());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(e.values[2].f32()[i], float(i) + 0.5f);
}

// --- broadcast_add -------------------------------------------------------------------------

TEST(BroadcastAdd, SmallCubeBlocksWasteSectorsOnEverySite) {
  const LaunchPrediction p = predict("broadcast_add/xyz", volume(256, 256, 256), {4, 4, 4}, {});
  const SitePrediction& a = site(p, "load a");
  EXPECT_DOUBLE_EQ(a.sectors_per_request(), 8.0); // 8 rows of 16 bytes
  EXPECT_DOUBLE_EQ(ideal_per_request(a), 4.0);
  EXPECT_DOUBLE_EQ(site(p, "store out").sectors_per_request(), 8.0);
  const SitePrediction& b = site(p, "load b");
  EXPECT_DOUBLE_EQ(b.sectors_per_request(), 4.0); // both z planes of the warp read the same 4 rows
  EXPECT_DOUBLE_EQ(ideal_per_request(b), 2.0);
  EXPECT_DOUBLE_EQ(site(p, "load c").sectors_per_request(), 1.0); // 4 floats
}

TEST(BroadcastAdd, WideBlocksGiveOneRowPerWarp) {
  const LaunchPrediction p = predict("broadcast_add/xyz", volume(256, 256, 256), {32, 4, 2}, {});
  for (const SitePrediction& s : p.sites) {
    EXPECT_EQ(s.requests, (1 << 24) / 32) << s.name;
    EXPECT_DOUBLE_EQ(s.sectors_per_request(), 4.0) << s.name;
  }
}

// The broadcast operands are fetched into L1 far more often than their size: b once per z plane,
// c once per row (with 32-wide warps).
TEST(BroadcastAdd, BroadcastOperandsAreReReadManyTimes) {
  const int nx = 64, ny = 32, nz = 8;
  const LaunchPrediction p = predict("broadcast_add/xyz", volume(nx, ny, nz), {32, 4, 2});
  EXPECT_EQ(site(p, "load b").bytes_fetched, std::int64_t{nx} * ny * 4 * nz);
  EXPECT_EQ(site(p, "load c").bytes_fetched, std::int64_t{nx} * 4 * ny * nz);
  EXPECT_EQ(site(p, "load a").bytes_fetched, std::int64_t{nx} * ny * nz * 4);
}

TEST(BroadcastAdd, ReferenceUsesPlaneAndRowLayouts) {
  const KernelDesc& k = kernel("broadcast_add/xyz");
  const Params p = volume(2, 2, 2);
  const float b_values[] = {10, 20, 30, 40}, c_values[] = {100, 200};
  const HostBuffers in = inputs(k, p, [&](int b, std::int64_t i) {
    return b == 0 ? float(i) : (b == 1 ? b_values[i] : c_values[i]);
  });
  const Expected e = k.reference(in, p);
  const float* out = e.values[3].f32();
  EXPECT_EQ(out[0], 0 + 10 + 100); // (0, 0, 0)
  EXPECT_EQ(out[1], 1 + 20 + 200); // (1, 0, 0)
  EXPECT_EQ(out[2], 2 + 30 + 100); // (0, 1, 0)
  EXPECT_EQ(out[5], 5 + 20 + 200); // (1, 0, 1): b and c repeat along z
  EXPECT_EQ(out[7], 7 + 40 + 200); // (1, 1, 1)
}

// --- divergence ----------------------------------------------------------------------------

TEST(Divergence, PerThreadLoadsHalfTheWeightsInEveryWarp) {
  const Params p = {{"n", 1 << 16}, {"work", 64}};
  const LaunchPrediction t = predict("divergence/per_thread", p, {256, 1, 1});
  const SitePrediction& w = site(t, "load w (expensive path)");
  EXPECT_EQ(w.requests, (1 << 16) / 32);          // every warp has expensive lanes
  EXPECT_DOUBLE_EQ(w.sectors_per_request(), 4.0); // 16 lanes, every other float
  EXPECT_EQ(w.bytes_used, std::int64_t{w.requests} * 64);
  EXPECT_DOUBLE_EQ(ideal_per_request(w), 2.0);
  EXPECT_DOUBLE_EQ(site(t, "load x").sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(site(t, "store y").sectors_per_request(), 4.0);
}

TEST(Divergence, PerWarpLoadsTheSameWeightsFromHalfTheWarps) {
  const Params p = {{"n", 1 << 16}, {"work", 64}};
  const SitePrediction t =
      site(predict("divergence/per_thread", p, {256, 1, 1}), "load w (expensive path)");
  const SitePrediction w =
      site(predict("divergence/per_warp", p, {256, 1, 1}), "load w (expensive path)");
  EXPECT_EQ(w.requests, (1 << 16) / 64);
  EXPECT_DOUBLE_EQ(w.sectors_per_request(), 4.0);
  EXPECT_EQ(w.bytes_used, t.bytes_used); // the same elements take the expensive path
  EXPECT_EQ(w.sectors * 2, t.sectors);
}

TEST(Divergence, BothVariantsDoTheSameWork) {
  const KernelDesc& t = kernel("divergence/per_thread");
  const KernelDesc& w = kernel("divergence/per_warp");
  for (std::int64_t n : {std::int64_t{1} << 24, std::int64_t{4096}}) {
    const Params p = {{"n", n}, {"work", 1024}};
    EXPECT_EQ(t.flops(p), w.flops(p)) << n;
    EXPECT_EQ(t.bytes_moved(p), w.bytes_moved(p)) << n;
  }
}

TEST(Divergence, InitSignsMatchTheModelsBranch) {
  const KernelDesc& k = kernel("divergence/per_thread");
  const Params p = {{"n", 1000}, {"work", 4}};
  HostBuffers in = inputs(k, p, [](int, std::int64_t) { return 0.0f; });
  k.init(in, p, 7);
  for (std::int64_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(in[0].f32()[i] > 0.0f, i % 2 == 0) << i;
    EXPECT_LE(std::abs(in[1].f32()[i]), 0.5f) << i;
  }
}

TEST(Divergence, ReferenceFollowsEachVariantsBranch) {
  const Params p = {{"n", 4}, {"work", 2}};
  const float x[] = {0.5f, -0.5f, 0.25f, -1.0f}, w[] = {0.25f, 0.75f, 0.5f, 0.125f};
  const auto run = [&](const std::string& id) {
    const KernelDesc& k = kernel(id);
    const HostBuffers in =
        inputs(k, p, [&](int b, std::int64_t i) { return b == 0 ? x[i] : w[i]; });
    return k.reference(in, p).values[2];
  };
  // y <- y * w + x twice from y = x, or 0.5 * x.
  const HostBuffer by_sign = run("divergence/per_thread");
  EXPECT_FLOAT_EQ(by_sign.f32()[0], 0.65625f);
  EXPECT_FLOAT_EQ(by_sign.f32()[1], -0.25f);
  EXPECT_FLOAT_EQ(by_sign.f32()[2], 0.4375f);
  EXPECT_FLOAT_EQ(by_sign.f32()[3], -0.5f);
  const HostBuffer by_warp = run("divergence/per_warp"); // all four in warp 0: expensive
  EXPECT_FLOAT_EQ(by_warp.f32()[1], -1.15625f);
  EXPECT_FLOAT_EQ(by_warp.f32()[3], -1.140625f);
}

TEST(Divergence, LargeReferenceChecksASampleWithBothEnds) {
  const KernelDesc& k = kernel("divergence/per_thread");
  const Params p = {{"n", 1 << 20}, {"work", 1024}};
  HostBuffers in = inputs(k, p, [](int, std::int64_t) { return 0.0f; });
  k.init(in, p, 1);
  const Expected e = k.reference(in, p);
  ASSERT_FALSE(e.checked.empty());
  EXPECT_FALSE(e.note.empty());
  EXPECT_EQ(e.checked.front(), 0);
  EXPECT_EQ(e.checked.back(), (1 << 20) - 1);
  EXPECT_LT(e.checked.size(), 40000u);
}

// --- every kernel of the three families -----------------------------------------------------

const char* const kIds[] = {"vec_add_3d/linear", "vec_add_3d/blocks3d", "broadcast_add/xyz",
                            "divergence/per_thread", "divergence/per_warp"};

// For each test size and preset block: sites stay inside their buffers, aligned, and the store
// sites write every output element exactly once.
TEST(ElementwiseKernels, SitesCoverEveryOutputOnceAndStayInBounds) {
  for (const char* id : kIds) {
    const KernelDesc& k = kernel(id);
    for (const Params& p : k.test_sizes) {
      ASSERT_TRUE(!k.check_params || k.check_params(p).empty()) << id;
      for (const BlockShape& block : k.block_presets) {
        ASSERT_EQ(k.check_block(block, p), "") << id;
        const LaunchShape s = make_launch(k, p, block, 132);
        std::vector<std::vector<int>> writes(k.buffers.size());
        for (std::size_t b = 0; b < k.buffers.size(); ++b)
          writes[b].assign(k.buffers[b].count(p), 0);
        for (const Site& site : k.sites) {
          const LaneOffsets offsets = site.offset(s);
          for (int bz = 0; bz < s.grid.z; ++bz)
            for (int by = 0; by < s.grid.y; ++by)
              for (int bx = 0; bx < s.grid.x; ++bx)
                for (int t = 0; t < block.threads(); ++t) {
                  const Coord thread{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
                  const auto offset = offsets({bx, by, bz}, thread, 0);
                  if (!offset)
                    continue;
                  const std::int64_t element = *offset / 4;
                  ASSERT_EQ(*offset % 4, 0) << id << " " << site.name;
                  ASSERT_GE(element, 0) << id << " " << site.name;
                  ASSERT_LT(element, std::int64_t(writes[site.buffer].size()))
                      << id << " " << site.name;
                  if (site.op == AccessOp::store)
                    ++writes[site.buffer][element];
                }
        }
        for (std::size_t b = 0; b < k.buffers.size(); ++b)
          if (k.buffers[b].role == BufferRole::output) {
            for (std::size_t i = 0; i < writes[b].size(); ++i)
              ASSERT_EQ(writes[b][i], 1) << id << " element " << i << " block " << block.x << "x"
                                         << block.y << "x" << block.z;
          }
      }
    }
  }
}

TEST(ElementwiseKernels, DescriptorsAreConsistent) {
  for (const char* id : kIds) {
    const KernelDesc& k = kernel(id);
    EXPECT_EQ(k.check_block(k.default_block, {}), "") << id;
    Params defaults;
    for (const ParamSpec& spec : k.params) {
      EXPECT_GE(spec.default_value, spec.min) << id << " " << spec.name;
      EXPECT_LE(spec.default_value, spec.max) << id << " " << spec.name;
      defaults[spec.name] = spec.default_value;
    }
    if (k.check_params) {
      EXPECT_EQ(k.check_params(defaults), "") << id;
    }
    EXPECT_GE(k.test_sizes.size(), 3u) << id;
    EXPECT_EQ(k.symbol(defaults),
              "wl::" + std::string(id).replace(std::string(id).find('/'), 1, "_"))
        << id;
  }
  EXPECT_NE(kernel("divergence/per_warp").check_block({48, 1, 1}, {}), "");
  EXPECT_NE(kernel("vec_add_3d/blocks3d").check_block({1, 1, 128}, {}), "");
  EXPECT_NE(kernel("vec_add_3d/blocks3d").check_params(volume(2048, 1024, 1024)), "");
}

} // namespace
} // namespace wl
