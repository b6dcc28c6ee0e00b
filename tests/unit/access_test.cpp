// Every row of the expected-numbers tables in shared/reference/counters.md §10, plus the H100
// per-stride measurements (h100-measured.md).

#include "base/error.h"
#include "model/access.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

constexpr std::uint64_t kBase = 1 << 20; // 128-byte aligned

// Lane i accesses base + i * stride_bytes, `width` bytes each.
WarpAccess strided(std::uint64_t stride_bytes, int width, std::uint64_t base = kBase) {
  WarpAccess access;
  access.width = width;
  for (int lane = 0; lane < kWarpSize; ++lane)
    access.address[lane] = base + lane * stride_bytes;
  return access;
}

TEST(GlobalAccessModel, ExpectedSectorsTable) {
  struct Row {
    const char* pattern;
    WarpAccess access;
    int sectors, bytes_used;
  };
  const Row rows[] = {
      {"4 B consecutive", strided(4, 4), 4, 128},
      {"4 B consecutive, misaligned by 4 B", strided(4, 4, kBase + 4), 5, 128},
      {"4 B stride 2", strided(8, 4), 8, 128},
      {"4 B stride 4", strided(16, 4), 16, 128},
      {"4 B stride 8", strided(32, 4), 32, 128},
      {"4 B stride 32", strided(128, 4), 32, 128},
      {"4 B all the same address", strided(0, 4), 1, 4},
      {"8 B consecutive", strided(8, 8), 8, 256},
      {"16 B consecutive", strided(16, 16), 16, 512},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.pattern);
    const GlobalAccess g = analyse_global(row.access);
    EXPECT_EQ(g.requests, 1);
    EXPECT_EQ(g.sectors, row.sectors);
    EXPECT_EQ(g.bytes_used, row.bytes_used);
    EXPECT_EQ(g.bytes_fetched, row.sectors * 32);
  }
}

TEST(GlobalAccessModel, UsefulFractionAndIdeal) {
  const GlobalAccess misaligned = analyse_global(strided(4, 4, kBase + 4));
  EXPECT_EQ(misaligned.ideal_sectors, 4);
  EXPECT_DOUBLE_EQ(double(misaligned.bytes_used) / misaligned.bytes_fetched, 0.8);
  EXPECT_EQ(misaligned.lines, 2);
  const GlobalAccess stride2 = analyse_global(strided(8, 4));
  EXPECT_DOUBLE_EQ(double(stride2.bytes_used) / stride2.bytes_fetched, 0.5);
  EXPECT_EQ(stride2.lines, 2);
  const GlobalAccess stride8 = analyse_global(strided(32, 4));
  EXPECT_DOUBLE_EQ(double(stride8.bytes_used) / stride8.bytes_fetched, 0.125);
  EXPECT_EQ(analyse_global(strided(0, 4)).ideal_sectors, 1);
}

TEST(GlobalAccessModel, InactiveLanesFetchNothing) {
  WarpAccess half = strided(4, 4);
  half.active_mask = 0x0000ffffu;
  EXPECT_EQ(analyse_global(half).sectors, 2);
  half.active_mask = 0;
  const GlobalAccess none = analyse_global(half);
  EXPECT_EQ(none.requests, 0);
  EXPECT_EQ(none.sectors, 0);
}

TEST(GlobalAccessModel, H100StrideSweep) {
  const int expected[][2] = {{1, 4}, {2, 8}, {4, 16}, {8, 32}, {16, 32}, {32, 32}, {33, 32}};
  for (const auto& [stride, sectors] : expected)
    EXPECT_EQ(analyse_global(strided(4ull * stride, 4)).sectors, sectors) << "stride " << stride;
}

TEST(SharedAccessModel, ExpectedWavefrontsTable) {
  struct Row {
    const char* pattern;
    WarpAccess access;
    int wavefronts, excess, degree;
  };
  const Row rows[] = {
      {"4 B stride 1 word", strided(4, 4), 1, 0, 1},
      {"4 B stride 2 words", strided(8, 4), 2, 1, 2},
      {"4 B stride 32 words", strided(128, 4), 32, 31, 32},
      {"4 B stride 33 words", strided(132, 4), 1, 0, 1},
      {"4 B all the same word", strided(0, 4), 1, 0, 1},
      {"8 B consecutive (LDS.64)", strided(8, 8), 2, 0, 1},
      {"16 B consecutive (LDS.128)", strided(16, 16), 4, 0, 1},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.pattern);
    const SharedAccess s = analyse_shared(row.access);
    EXPECT_EQ(s.requests, 1);
    EXPECT_EQ(s.wavefronts, row.wavefronts);
    EXPECT_EQ(s.excess_wavefronts, row.excess);
    EXPECT_EQ(s.conflict_degree, row.degree);
    EXPECT_EQ(s.ideal_wavefronts, s.wavefronts - s.excess_wavefronts);
  }
}

// Lanes 2k and 2k + 1 on word k: 16 words, one a bank.
WarpAccess two_lanes_a_word() {
  WarpAccess access = strided(0, 4);
  for (int lane = 0; lane < kWarpSize; ++lane)
    access.address[lane] = kBase + 4ull * static_cast<std::uint64_t>(lane / 2);
  return access;
}

// The H200 served a shared atomicExch of one word by all 32 lanes in 32 wavefronts (32- and
// 64-bit) and an atomicCAS in 64, where an atomicAdd of that word took 1: lanes the pipe cannot
// combine go one at a time, and each pass of each lane is a wavefront of its bank.
TEST(SharedAccessModel, ExchangedAndComparedLanesAreServedOneAtATime) {
  struct Row {
    const char* pattern;
    WarpAccess access;
    int passes, wavefronts;
  };
  const Row rows[] = {
      {"exch, one word", strided(0, 4), 1, 32},
      {"cas, one word", strided(0, 4), 2, 64},
      {"exch 8 B, one word", strided(0, 8), 1, 32},
      {"exch, a word a lane", strided(4, 4), 1, 1},
      {"cas, a word a lane", strided(4, 4), 2, 2},
      {"exch, two lanes a word", two_lanes_a_word(), 1, 2},
      {"combined (add), one word", strided(0, 4), 0, 1},
  };
  for (Row row : rows) {
    SCOPED_TRACE(row.pattern);
    row.access.lane_passes = row.passes;
    const SharedAccess s = analyse_shared(row.access);
    EXPECT_EQ(s.wavefronts, row.wavefronts);
    EXPECT_EQ(s.ideal_wavefronts, 1);
    EXPECT_EQ(s.conflict_degree, row.wavefronts);
  }
}

TEST(SharedAccessModel, H100StrideSweep) {
  const int expected[][2] = {{1, 1}, {2, 2}, {4, 4}, {8, 8}, {16, 16}, {32, 32}, {33, 1}};
  for (const auto& [stride, wavefronts] : expected)
    EXPECT_EQ(analyse_shared(strided(4ull * stride, 4)).wavefronts, wavefronts)
        << "stride " << stride;
}

TEST(SharedAccessModel, WideAccessesSplitIntoTransactions) {
  EXPECT_EQ(analyse_shared(strided(8, 8)).transactions, 2); // its quads read 4 addresses each
  EXPECT_EQ(analyse_shared(strided(16, 16)).transactions, 4);
  // Consecutive: 256 bytes, 2 wavefronts, ideal; 512 bytes in four quarter-warps, 4, ideal.
  EXPECT_EQ(analyse_shared(strided(8, 8)).wavefronts, 2);
  EXPECT_EQ(analyse_shared(strided(16, 16)).wavefronts, 4);
  EXPECT_EQ(analyse_shared(strided(16, 16)).excess_wavefronts, 0);
  // A warp-wide broadcast, as the H100 counts it: 1 wavefront at 8 bytes, 2 at 16 (one per half).
  EXPECT_EQ(analyse_shared(strided(0, 8)).wavefronts, 1);
  EXPECT_EQ(analyse_shared(strided(0, 16)).wavefronts, 2);
  EXPECT_EQ(analyse_shared(strided(0, 16)).excess_wavefronts, 0);
  // The float2 stores of flash_attention/tensor_d64's weights: lane 4g + t at word 68g + 2t. The
  // warp's 64 words fall two to a bank, which 2 wavefronts would serve; measured on the H200, 4:
  // each half-warp is a transaction of its own, and within one, rows g and g + 1 share 4 banks.
  WarpAccess weights;
  weights.width = 8;
  for (int lane = 0; lane < kWarpSize; ++lane)
    weights.address[lane] = kBase + 4 * (68 * (lane / 4) + 2 * (lane % 4));
  const SharedAccess p_store = analyse_shared(weights);
  EXPECT_EQ(p_store.transactions, 2);
  EXPECT_EQ(p_store.wavefronts, 4);
  EXPECT_EQ(p_store.excess_wavefronts, 2);
  EXPECT_EQ(p_store.conflict_degree, 2);
  // 8-byte accesses 16 bytes apart: lanes 0, 8, 16 and 24 share banks 0 and 1.
  const SharedAccess wide_stride = analyse_shared(strided(16, 8));
  EXPECT_EQ(wide_stride.wavefronts, 4);
  EXPECT_EQ(wide_stride.excess_wavefronts, 2);
  EXPECT_EQ(wide_stride.conflict_degree, 2);
  // LDS.128 with a 32-word stride: each half-warp's 16 lanes all start on bank 0.
  const SharedAccess column128 = analyse_shared(strided(128, 16));
  EXPECT_EQ(column128.wavefronts, 32);
  EXPECT_EQ(column128.excess_wavefronts, 28); // wavefronts - 4 x instructions, as CUPTI counts
}

TEST(SharedAccessModel, BytesAndHalfWordsInOneWordDoNotConflict) {
  EXPECT_EQ(analyse_shared(strided(1, 1)).wavefronts, 1);
  EXPECT_EQ(analyse_shared(strided(2, 2)).wavefronts, 1);
  EXPECT_EQ(analyse_shared(strided(0, 1)).wavefronts, 1);
}

TEST(SharedAccessModel, PartialWarps) {
  WarpAccess access = strided(8, 4);
  access.active_mask = 0x0000ffffu; // 16 lanes at stride 2 cover all 32 banks once
  EXPECT_EQ(analyse_shared(access).wavefronts, 1);
  access.active_mask = 0;
  EXPECT_EQ(analyse_shared(access).requests, 0);
  WarpAccess wide = strided(16, 16);
  wide.active_mask = 0x000000ffu; // 8 lanes: 128 bytes, one wavefront
  EXPECT_EQ(analyse_shared(wide).ideal_wavefronts, 1);
}

TEST(SharedAccessModel, BankMapShowsConflictsAndBroadcasts) {
  const std::vector<BankSlot> stride2 = bank_map(strided(8, 4));
  ASSERT_EQ(stride2.size(), 32u);
  EXPECT_EQ(stride2[0].bank, 0);
  EXPECT_EQ(stride2[0].lane, 0);
  EXPECT_EQ(stride2[0].wavefront, 0);
  EXPECT_EQ(stride2[1].bank, 0);
  EXPECT_EQ(stride2[1].lane, 16);
  EXPECT_EQ(stride2[1].wavefront, 1);

  const std::vector<BankSlot> same = bank_map(strided(0, 4));
  for (const BankSlot& slot : same) {
    EXPECT_EQ(slot.bank, 0);
    EXPECT_EQ(slot.wavefront, 0);
    EXPECT_TRUE(slot.broadcast);
  }
  const std::vector<BankSlot> wide = bank_map(strided(16, 16));
  EXPECT_EQ(wide.size(), 128u); // 32 lanes x 4 banks
  EXPECT_EQ(wide.back().transaction, 3);
}

// LDS.128 wavefronts per instruction on the H200 for one warp reading float4 number f(L) of a
// shared array (tests/bench/shared_patterns.cu under ncu, 100 instructions a pattern).
TEST(SharedAccessModel, SixteenByteReadsAsTheH200CountedThem) {
  struct Pattern {
    const char* name;
    int (*float4_of_lane)(int);
    int wavefronts;
  };
  const Pattern measured[] = {
      {"all lanes one float4", [](int) { return 0; }, 2},
      {"consecutive", [](int l) { return l; }, 4},
      {"L/4*2 (matmul warp tile rows)", [](int l) { return l / 4 * 2; }, 2},
      {"L%4 (lanes 4 apart share)", [](int l) { return l % 4; }, 4},
      {"(L/2)%4 (neighbouring pairs share)", [](int l) { return l / 2 % 4; }, 2},
      {"(L%2+2*(L/8))*2", [](int l) { return (l % 2 + 2 * (l / 8)) * 2; }, 2},
      {"L%8", [](int l) { return l % 8; }, 4},
      {"L%2", [](int l) { return l % 2; }, 2},
      {"L/8", [](int l) { return l / 8; }, 2},
      {"L/2", [](int l) { return l / 2; }, 2},
      {"L^1", [](int l) { return l ^ 1; }, 4},
      {"L%16", [](int l) { return l % 16; }, 4},
      {"(L/4)%2", [](int l) { return l / 4 % 2; }, 2},
      {"L%4+4*(L/16)", [](int l) { return l % 4 + 4 * (l / 16); }, 4},
      {"(L/2)%2", [](int l) { return l / 2 % 2; }, 2},
      {"L%4*8 (every lane on banks 0-3)", [](int l) { return l % 4 * 8; }, 16},
      {"(L%8)/4", [](int l) { return l % 8 / 4; }, 2},
      {"L/16", [](int l) { return l / 16; }, 2},
      {"(L%16)/2", [](int l) { return l % 16 / 2; }, 2},
      {"(L/2)%4+4*(L/8)", [](int l) { return l / 2 % 4 + 4 * (l / 8); }, 2},
  };
  for (const Pattern& p : measured) {
    WarpAccess access;
    access.width = 16;
    for (int lane = 0; lane < kWarpSize; ++lane)
      access.address[lane] = 16u * p.float4_of_lane(lane);
    EXPECT_EQ(analyse_shared(access).wavefronts, p.wavefronts) << p.name;
  }
}

TEST(AccessModel, RejectsBadWidthsAndMisalignedLanes) {
  EXPECT_THROW(analyse_global(strided(4, 3)), UsageError);
  EXPECT_THROW(analyse_shared(strided(4, 32)), UsageError);
  EXPECT_THROW(analyse_shared(strided(4, 8)), UsageError); // lane 1 at +4 is not 8-aligned
  WarpAccess misaligned = strided(4, 8);
  misaligned.active_mask = 0x55555555u; // only the 8-aligned lanes take part: fine
  EXPECT_NO_THROW(analyse_shared(misaligned));
}

} // namespace
} // namespace wl
