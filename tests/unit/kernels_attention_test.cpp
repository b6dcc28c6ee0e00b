// flash_attention on the CPU: what the access model predicts for its loads and tile reads, what
// ptxas reported for its registers (the lesson), and its reference against a naive attention.

#include "common.h"
#include "kernel_test_support.h"
#include "model/kernel_resources.h"
#include "model/launch_model.h"
#include "registry.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::kernel;
using test::predict;
using test::site;

Params size(std::int64_t seq, std::int64_t heads) { return {{"seq", seq}, {"heads", heads}}; }

HostBuffers random_inputs(const KernelDesc& k, const Params& p, std::uint64_t seed) {
  HostBuffers buffers(k.buffers.size());
  for (std::size_t i = 0; i < k.buffers.size(); ++i) {
    buffers[i].type = k.buffers[i].type;
    buffers[i].words.assign(static_cast<std::size_t>(k.buffers[i].count(p)), 0);
  }
  common::fill_uniform(buffers, k.buffers, seed);
  return buffers;
}

// softmax(q k^T / sqrt(d)) v for one row, written out the plain way: every score, then weights.
std::vector<double> naive_row(const HostBuffers& in, int head, int row, int seq, int d) {
  const std::int64_t base = std::int64_t{head} * seq * d;
  std::vector<double> weight(seq);
  double total = 0;
  for (int key = 0; key < seq; ++key) {
    double dot = 0;
    for (int i = 0; i < d; ++i)
      dot += double(in[0].f32()[base + row * d + i]) * in[1].f32()[base + key * d + i];
    weight[key] = std::exp(dot / std::sqrt(double(d)));
    total += weight[key];
  }
  std::vector<double> out(d, 0.0);
  for (int key = 0; key < seq; ++key)
    for (int i = 0; i < d; ++i)
      out[i] += weight[key] / total * in[2].f32()[base + key * d + i];
  return out;
}

class FlashAttention : public ::testing::TestWithParam<int> {
protected:
  int d() const { return GetParam(); }
  const KernelDesc& k() const { return kernel("flash_attention/d" + std::to_string(d())); }
};

INSTANTIATE_TEST_SUITE_P(HeadSizes, FlashAttention, ::testing::Values(64, 128),
                         [](const auto& info) {
                           return std::string("d") + std::to_string(info.param);
                         });

// Each lane loads its own query row (d * 4 bytes apart): one sector per lane and only half of
// it used per float4 request. The next request's float4 is the other half, so L1 serves it,
// but the request still costs 32 sectors; the output stores are the same.
TEST_P(FlashAttention, QueryAndOutputRowsAreOneSectorPerLane) {
  const LaunchShape launch = make_launch(k(), size(4096, 8), BlockShape{64, 1, 1}, 132);
  EXPECT_EQ(launch.grid.x, 64);
  EXPECT_EQ(launch.grid.y, 8);
  const LaunchPrediction p = predict_launch(k(), launch);
  for (const char* name : {"load q row", "store o row"}) {
    const SitePrediction& s = site(p, name);
    EXPECT_EQ(s.requests, 8 * 4096 / 32 * (d() / 4)) << name;
    EXPECT_DOUBLE_EQ(s.sectors_per_request(), 32.0) << name;
    EXPECT_EQ(s.bytes_fetched, 2 * s.bytes_used) << name;
    EXPECT_EQ(s.ideal_sectors * 2, s.sectors) << name;
  }
}

// The block copies tiles as consecutive float4s: 512 contiguous bytes per warp, 16 sectors, the
// ideal; the shared stores are 2 half-warp transactions of 2 conflict-free wavefronts each.
TEST_P(FlashAttention, TileCopiesAreIdeal) {
  const LaunchPrediction p =
      predict_launch(k(), make_launch(k(), size(4096, 8), BlockShape{128, 1, 1}, 132));
  for (const char* name : {"load k tile", "load v tile"}) {
    const SitePrediction& s = site(p, name);
    EXPECT_DOUBLE_EQ(s.sectors_per_request(), 16.0) << name;
    EXPECT_EQ(s.sectors, s.ideal_sectors) << name;
  }
  for (const char* name : {"store k tile", "store v tile"}) {
    const SitePrediction& s = site(p, name);
    EXPECT_DOUBLE_EQ(s.wavefronts_per_request(), 4.0) << name;
    EXPECT_EQ(s.excess_wavefronts, 0) << name;
  }
}

// Every lane reads the same float4 of the key's row: each half-warp transaction is a broadcast
// of four words on four banks, one wavefront, so 2 per request (as the H100 counts) and no
// conflicts.
TEST_P(FlashAttention, TileReadsAreBroadcasts) {
  const LaunchShape launch = make_launch(k(), size(4096, 8), BlockShape{64, 1, 1}, 132);
  const LaunchPrediction p = predict_launch(k(), launch);
  for (const char* name : {"read k from tile", "read v from tile"}) {
    const SitePrediction& s = site(p, name);
    EXPECT_DOUBLE_EQ(s.wavefronts_per_request(), 2.0) << name;
    EXPECT_EQ(s.excess_wavefronts, 0) << name;
    EXPECT_EQ(s.conflict_degree, 1) << name;
  }
  const int read_k = 5;
  ASSERT_EQ(k().sites[read_k].name, "read k from tile");
  // Iteration 3 * (d / 4) + 1: key 3, second float4 of its row.
  const WarpAccess a = warp_access(k(), launch, read_k, Coord{7, 2, 0}, 1, 3 * (d() / 4) + 1);
  EXPECT_EQ(a.active_mask, 0xffffffffu);
  for (int lane = 0; lane < kWarpSize; ++lane)
    EXPECT_EQ(a.address[lane], std::uint64_t(3 * d() * 4 + 16));
  for (const BankSlot& slot : bank_map(a))
    EXPECT_TRUE(slot.broadcast);
}

// 67 keys, block 64, two heads: two key tiles of 32 and one of 3; the last query block holds 3
// rows.
TEST(FlashAttentionModel, PartialTilesAndBlocksAreCountedExactly) {
  const KernelDesc& k = kernel("flash_attention/d64");
  const LaunchPrediction p =
      predict_launch(k, make_launch(k, size(67, 2), BlockShape{64, 1, 1}, 132), ModelBudget{0});
  ASSERT_TRUE(p.exact());
  // 4 blocks of 2 warps; each warp reads 16 float4s per key present: 8 x 67 x 16.
  EXPECT_EQ(site(p, "read k from tile").requests, 8 * 67 * 16);
  EXPECT_EQ(site(p, "read v from tile").requests, 8 * 67 * 16);
  // Per head 3 warps own rows (64 + 3 lanes); one sector per active lane per float4.
  EXPECT_EQ(site(p, "load q row").requests, 2 * 3 * 16);
  EXPECT_EQ(site(p, "load q row").sectors, 2 * 67 * 16);
  // Per block: 2 full tiles x 8 copies x 2 warps, plus the 48 float4s of the 3-key tile (1.5
  // warps).
  EXPECT_EQ(site(p, "load k tile").requests, 4 * (2 * 8 * 2 + 2));
  EXPECT_EQ(site(p, "load k tile").sectors, 4 * 67 * 64 * 4 / 32); // every key row once per block
  EXPECT_EQ(site(p, "store v tile").wavefronts, 4 * (2 * 8 * 2 * 4 + 4 + 2));
}

// The lesson in ptxas's own numbers: at d = 64 the query and output rows fit in registers, at
// d = 128 they cannot (2 x 128 floats > 255 registers) and the kernel spills to local memory.
TEST(FlashAttentionModel, HeadSize128SpillsAnd64DoesNot) {
  const auto d64 = compiled_resources(kernel("flash_attention/d64").symbol({}), 90);
  const auto d128 = compiled_resources(kernel("flash_attention/d128").symbol({}), 90);
  ASSERT_TRUE(d64 && d128);
  EXPECT_EQ(d64->spill_store_bytes, 0);
  EXPECT_EQ(d64->stack_frame_bytes, 0);
  EXPECT_GT(d64->registers, 128);
  EXPECT_EQ(d128->registers, 255);
  EXPECT_GT(d128->spill_store_bytes, 0);
  EXPECT_GT(d128->stack_frame_bytes, 0);
  EXPECT_EQ(d64->static_shared_bytes, 2 * 32 * 64 * 4); // a K and a V tile of 32 keys
  EXPECT_EQ(d128->static_shared_bytes, 2 * 32 * 128 * 4);
}

// Two keys, worked by hand. Row 0: a zero query weighs both keys equally. Row 1: the query 8 e0
// against keys e0 and 0 gives scores 8 / sqrt(64) = 1 and 0, so weights e / (1 + e) and 1 / (1 +
// e).
TEST(FlashAttentionReference, TwoKeysByHand) {
  const KernelDesc& k = kernel("flash_attention/d64");
  const Params p = size(2, 1);
  HostBuffers in = random_inputs(k, p, 7);
  std::fill_n(in[0].f32(), 128, 0.0f);
  in[0].f32()[64] = 8.0f;
  std::fill_n(in[1].f32(), 128, 0.0f);
  in[1].f32()[0] = 1.0f;
  const Expected e = k.reference(in, p);
  EXPECT_TRUE(e.checked.empty());
  const float* v = in[2].f32();
  const float* o = e.values[3].f32();
  const double w = std::exp(1.0) / (1.0 + std::exp(1.0));
  for (int i = 0; i < 64; ++i) {
    EXPECT_NEAR(o[i], (double(v[i]) + v[64 + i]) / 2, 1e-7) << i;
    EXPECT_NEAR(o[64 + i], w * v[i] + (1 - w) * v[64 + i], 1e-7) << i;
  }
}

TEST_P(FlashAttention, ReferenceMatchesNaiveAttentionOnEveryRowOfATinyCase) {
  const Params p = size(5, 2);
  const HostBuffers in = random_inputs(k(), p, 11);
  const Expected e = k().reference(in, p);
  EXPECT_TRUE(e.checked.empty());
  for (int head = 0; head < 2; ++head)
    for (int row = 0; row < 5; ++row) {
      const std::vector<double> want = naive_row(in, head, row, 5, d());
      for (int i = 0; i < d(); ++i)
        EXPECT_NEAR(e.values[3].f32()[(head * 5 + row) * d() + i], want[i], 1e-7);
    }
}

// At the default size the reference checks whole rows, the last row of the last head included.
TEST(FlashAttentionReference, DefaultSizeChecksASampleOfWholeRows) {
  const KernelDesc& k = kernel("flash_attention/d64");
  const Params p = size(4096, 8);
  const HostBuffers in = random_inputs(k, p, 3);
  const Expected e = k.reference(in, p);
  ASSERT_FALSE(e.checked.empty());
  EXPECT_FALSE(e.note.empty());
  EXPECT_TRUE(std::is_sorted(e.checked.begin(), e.checked.end()));
  EXPECT_EQ(e.checked.size() % 64, 0u);
  const std::int64_t last_row = (7 * 4096 + 4095) * std::int64_t{64};
  EXPECT_EQ(e.checked.back(), last_row + 63);
  const std::vector<double> want = naive_row(in, 7, 4095, 4096, 64);
  for (int i = 0; i < 64; ++i)
    EXPECT_NEAR(e.values[3].f32()[last_row + i], want[i], 1e-7);
}

TEST_P(FlashAttention, BlocksAndTestSizes) {
  const Params p = size(4096, 8);
  EXPECT_EQ(k().check_block(BlockShape{64, 1, 1}, p), "");
  EXPECT_EQ(k().check_block(BlockShape{1, 1, 1}, p), "");
  EXPECT_NE(k().check_block(BlockShape{512, 1, 1}, p), "");
  EXPECT_NE(k().check_block(BlockShape{64, 2, 1}, p), "");
  for (const BlockShape& b : k().block_presets)
    EXPECT_EQ(k().check_block(b, p), "");
  bool some_partial_tile = false;
  for (const Params& t : k().test_sizes) {
    if (k().check_params) {
      EXPECT_EQ(k().check_params(t), "");
    }
    some_partial_tile = some_partial_tile || t.at("seq") % 32 != 0;
    const Expected e = k().reference(random_inputs(k(), t, 1), t);
    EXPECT_TRUE(e.checked.empty()) << "test sizes are checked in full";
  }
  EXPECT_TRUE(some_partial_tile);
}

} // namespace
} // namespace wl
