// The index playground's model: an expression typed as CUDA index math gives, for one warp, the
// same requests, sectors and wavefronts as the bundled kernel whose site computes that index, and
// every expression it cannot use is one line naming the field, where, and what is allowed.

#include "../unit/test_support.h"
#include "base/error.h"
#include "model/index_expression.h"
#include "model/kernel_request.h"
#include "model/launch_model.h"

#include <gtest/gtest.h>

namespace wl {
namespace {

using test::contains;

struct SameIndex {
  const char* kernel;
  std::vector<std::string> params;
  const char* block;
  const char* site;
  int warp;
  const char* expression;
  int element_bytes;
};

// Each row: a bundled kernel's site and the expression of the index it computes in block 0.
const std::vector<SameIndex> kSameIndex = {
    // strides and widths (coalescing/stride: in[element * stride])
    {"coalescing/stride", {"stride=1"}, "256", "load in (strided)", 0, "threadIdx.x * 1", 4},
    {"coalescing/stride", {"stride=2"}, "256", "load in (strided)", 0, "threadIdx.x * 2", 4},
    {"coalescing/stride", {"stride=4"}, "256", "load in (strided)", 3, "threadIdx.x * 4", 4},
    {"coalescing/stride", {"stride=8"}, "256", "load in (strided)", 0, "threadIdx.x << 3", 4},
    {"coalescing/stride", {"stride=16"}, "256", "load in (strided)", 0, "threadIdx.x * 16", 4},
    {"coalescing/stride", {"stride=32"}, "256", "load in (strided)", 0, "threadIdx.x * 32", 4},
    {"coalescing/stride",
     {"stride=2", "width=8"},
     "256",
     "load in (strided)",
     0,
     "threadIdx.x * 2",
     8},
    {"coalescing/stride",
     {"stride=1", "width=16"},
     "256",
     "load in (strided)",
     1,
     "threadIdx.x",
     16},
    // offsets (coalescing/offset: in[element + offset])
    {"coalescing/offset", {"offset=1"}, "256", "load in (shifted)", 0, "threadIdx.x + 1", 4},
    {"coalescing/offset", {"offset=8"}, "256", "load in (shifted)", 2, "threadIdx.x + 8", 4},
    {"coalescing/offset", {"offset=31"}, "256", "load in (shifted)", 0, "threadIdx.x + 31", 4},
    // a permutation within each warp
    {"coalescing/permuted",
     {},
     "256",
     "load in (permuted)",
     1,
     "warp * 32 + (13 * lane + 7) % 32",
     4},
    {"vec_add/scalar", {}, "256", "store c", 5, "blockIdx.x * blockDim.x + threadIdx.x", 4},
    {"vec_add/vec4", {}, "256", "load a", 0, "threadIdx.x", 16},
    // 2D tiles (transpose: rows of 8192 floats; a 32x8 block; the tile 32 wide, or 33 padded)
    {"transpose/naive", {}, "32x8", "load in", 1, "threadIdx.y * 8192 + threadIdx.x", 4},
    {"transpose/naive", {}, "32x8", "store out", 0, "threadIdx.x * 8192 + threadIdx.y", 4},
    {"transpose/smem", {}, "32x8", "store tile", 2, "threadIdx.y * 32 + threadIdx.x", 4},
    {"transpose/smem", {}, "32x8", "load tile", 0, "threadIdx.x * 32 + threadIdx.y", 4},
    {"transpose/smem_padded", {}, "32x8", "load tile", 3, "threadIdx.x * 33 + threadIdx.y", 4},
    {"matmul/naive", {}, "32x8", "load A", 0, "threadIdx.y * 4096", 4},
    {"matmul/naive", {}, "32x8", "load B", 0, "blockIdx.x * 32 + threadIdx.x", 4},
    {"vec_add_3d/blocks3d",
     {},
     "16x8x8",
     "load a",
     1,
     "(threadIdx.z * 256 + threadIdx.y) * 256 + threadIdx.x",
     4},
    // shared strides (bank_conflicts/stride: (thread % elements) * stride % elements, read 0)
    {"bank_conflicts/stride",
     {"stride=1"},
     "256",
     "load tile (patterned)",
     0,
     "threadIdx.x % 1024 * 1 % 1024",
     4},
    {"bank_conflicts/stride",
     {"stride=2"},
     "256",
     "load tile (patterned)",
     0,
     "threadIdx.x * 2 % 1024",
     4},
    {"bank_conflicts/stride",
     {"stride=4"},
     "256",
     "load tile (patterned)",
     1,
     "threadIdx.x * 4 % 1024",
     4},
    {"bank_conflicts/stride",
     {"stride=32"},
     "256",
     "load tile (patterned)",
     0,
     "threadIdx.x * 32 % 1024",
     4},
    {"bank_conflicts/stride",
     {"stride=1", "width=8"},
     "256",
     "load tile (patterned)",
     0,
     "threadIdx.x % 512",
     8},
    {"bank_conflicts/stride",
     {"stride=1", "width=16"},
     "256",
     "load tile (patterned)",
     0,
     "threadIdx.x % 256",
     16},
    // padded tiles read down a column (bank_conflicts/padded: row t % 32, column t / 32)
    {"bank_conflicts/padded",
     {"pad=0"},
     "256",
     "load tile (patterned)",
     0,
     "(threadIdx.x % 32) * 32 + threadIdx.x / 32 % 32",
     4},
    {"bank_conflicts/padded",
     {"pad=1"},
     "256",
     "load tile (patterned)",
     2,
     "(threadIdx.x % 32) * 33 + threadIdx.x / 32 % 32",
     4},
    {"bank_conflicts/broadcast", {}, "256", "load tile (patterned)", 0, "threadIdx.x * 0", 4},
};

int site_index(const KernelDesc& kernel, const std::string& name) {
  for (std::size_t i = 0; i < kernel.sites.size(); ++i)
    if (kernel.sites[i].name == name)
      return static_cast<int>(i);
  return -1;
}

TEST(IndexPlayground, ThirtyExpressionsGiveTheirBundledKernelsFigures) {
  ASSERT_GE(kSameIndex.size(), 30u);
  for (const SameIndex& row : kSameIndex) {
    SCOPED_TRACE(std::string(row.kernel) + " " + row.site + ": " + row.expression);
    const KernelRequest request = resolve_kernel_request(row.kernel, row.params, "", row.block);
    const int site = site_index(*request.kernel, row.site);
    ASSERT_GE(site, 0);
    const LaunchShape launch = make_launch(*request.kernel, request.params, request.block, 132);
    const WarpAccess modelled = warp_access(*request.kernel, launch, site, {0, 0, 0}, row.warp, 0);

    IndexPlayground playground;
    playground.expression = row.expression;
    playground.element_bytes = row.element_bytes;
    playground.block = request.block;
    playground.warp = row.warp;
    playground.space = request.kernel->sites[site].space;
    const PlaygroundWarp typed = evaluate_playground(playground);
    EXPECT_EQ(typed.access.active_mask, modelled.active_mask);
    EXPECT_EQ(typed.access.width, modelled.width);
    if (playground.space == MemorySpace::global) {
      const GlobalAccess a = analyse_global(typed.access), b = analyse_global(modelled);
      EXPECT_EQ(a.requests, b.requests);
      EXPECT_EQ(a.sectors, b.sectors);
      EXPECT_EQ(a.ideal_sectors, b.ideal_sectors);
    } else {
      const SharedAccess a = analyse_shared(typed.access), b = analyse_shared(modelled);
      EXPECT_EQ(a.requests, b.requests);
      EXPECT_EQ(a.wavefronts, b.wavefronts);
      EXPECT_EQ(a.conflict_degree, b.conflict_degree);
    }
  }
}

// No bundled kernel swizzles: these are worked by hand. A 32x32 float tile read down a column
// puts all 32 lanes on bank 0 (32 wavefronts); XOR-ing the column with the row spreads them over
// the 32 banks (1 wavefront), with no padding.
TEST(IndexPlayground, ASwizzleOfTheIndexSpreadsAColumnReadOverTheBanks) {
  IndexPlayground p;
  p.space = MemorySpace::shared;
  p.expression = "threadIdx.x * 32";
  EXPECT_EQ(analyse_shared(evaluate_playground(p).access).wavefronts, 32);
  p.swizzle = "i ^ (i >> 5)";
  const PlaygroundWarp swizzled = evaluate_playground(p);
  EXPECT_EQ(analyse_shared(swizzled.access).wavefronts, 1);
  EXPECT_EQ(swizzled.index[3], 3 * 32 + 3) << "row 3's word moves to column 3";
}

TEST(IndexPlayground, TheOperatorsAreCs) {
  IndexPlayground p;
  p.block = {32, 1, 1};
  const auto index_of = [&](const std::string& expression, int lane = 5) {
    p.expression = expression;
    return evaluate_playground(p).index[lane];
  };
  EXPECT_EQ(index_of("threadIdx.x * 4 + (threadIdx.x >> 3)"), 20);
  EXPECT_EQ(index_of("1 + 2 * 3"), 7);
  EXPECT_EQ(index_of("1 << 2 + 1"), 8) << "+ binds tighter than <<";
  EXPECT_EQ(index_of("6 & 3 | 8"), 10) << "& before |";
  EXPECT_EQ(index_of("5 ^ 1 & 3"), 4) << "& before ^";
  EXPECT_EQ(index_of("7 / 2"), 3);
  EXPECT_EQ(index_of("7 % 4"), 3);
  EXPECT_EQ(index_of("0x10 + lane"), 21);
  EXPECT_EQ(index_of("max(lane, 7) - min(2, 3)"), 5);
  EXPECT_EQ(index_of("-lane + 40"), 35);
  EXPECT_EQ(index_of("blockDim.x + warp"), 32);
}

TEST(IndexPlayground, LanesPastTheBlockTakeNoPart) {
  IndexPlayground p;
  p.block = {40, 1, 1};
  p.warp = 1;
  const PlaygroundWarp w = evaluate_playground(p);
  EXPECT_EQ(w.access.active_mask, 0xffu) << "threads 32 to 39";
  EXPECT_EQ(w.index[7], 39);
}

// Hostile expressions and fields: one line each, naming the field and what is allowed.
TEST(IndexPlayground, WhatItCannotUseIsOneLineNamingTheFieldAndWhere) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "index '': it is empty"},
      {"threadIdx.x *", "it ends where a value is missing"},
      {"threadIdx.w", "'threadIdx.w' at column 1 is not a name or operator it knows"},
      {"foo + 1", "'foo' at column 1 is not a name or operator it knows"},
      {"1.5 * threadIdx.x", "'1.5' at column 1 is not a whole number"},
      {"1e999", "'1e999' at column 1 is not a whole number"},
      {"99999999999999", "is not a whole number of at most 13 digits"},
      {"(threadIdx.x", "a parenthesis is not closed"},
      {"threadIdx.x)", "unexpected parenthesis"},
      {"threadIdx.x / 0", "division by zero"},
      {"threadIdx.x % 0", "remainder (%) by zero (for lane 0)"},
      {"1 << 41", "<< takes a value from 0 and a shift from 0 to 40"},
      {"lane >> -1", ">> takes a shift from 0 to 62"},
      {"1099511627776 * 2", "a value passes 2^40"},
      {"0 - threadIdx.x - 1", "lane 0's index is -1, below 0"},
      {"sin(1)", "'sin' at column 1 is not a name or operator it knows"},
      {"min(threadIdx.x)", "min and max take two values"},
      {"threadIdx.x = 3", "'=' at column 13 is not a name or operator it knows"},
      {"i + 1", "'i' at column 1 is not a name or operator it knows"},
      {std::string(100000, '('), "100000 characters; allowed at most 400"},
      {"threadIdx.x,1", "gives 2 values"},
      {"\x01\x02", "a control character at column 1"},
  };
  for (const auto& [expression, says] : cases) {
    IndexPlayground p;
    p.expression = expression;
    try {
      evaluate_playground(p);
      ADD_FAILURE() << "accepted: " << expression;
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(contains(what, says)) << expression.substr(0, 40) << " -> " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_LT(what.size(), 600u) << what;
    }
  }
  IndexPlayground p;
  p.swizzle = "i ^";
  EXPECT_THROW(
      {
        try {
          evaluate_playground(p);
        } catch (const UsageError& e) {
          EXPECT_TRUE(contains(e.what(), "swizzle 'i ^'")) << e.what();
          throw;
        }
      },
      UsageError);
  p = {};
  p.swizzle = "i - 100";
  try {
    evaluate_playground(p);
    ADD_FAILURE() << "a negative swizzle accepted";
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "lane 0's swizzled index (of index 0) is -100")) << e.what();
  }
  p = {};
  p.element_bytes = 3;
  EXPECT_THROW(evaluate_playground(p), UsageError);
  p = {};
  p.block = {2048, 1, 1};
  EXPECT_THROW(evaluate_playground(p), UsageError);
  p = {};
  p.warp = 1;
  EXPECT_THROW(evaluate_playground(p), UsageError) << "a block of 32 threads has warp 0 only";
}

} // namespace
} // namespace wl
