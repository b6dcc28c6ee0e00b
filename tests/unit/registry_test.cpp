// The kernel catalog's contract: the ids the CLI promises, and every descriptor complete and
// consistent with itself (defaults valid, default block allowed, sites well formed).

#include "families.h"
#include "model/kernel_request.h"
#include "model/launch_model.h"
#include "registry.h"

#include <set>

#include <gtest/gtest.h>

namespace wl {
namespace {

TEST(Registry, HasEveryPromisedKernelOnce) {
  const std::vector<std::string> promised = {
      "vec_add/scalar", "vec_add/vec4", "vec_add/grid_stride", "vec_add_3d/linear",
      "vec_add_3d/blocks3d", "broadcast_add/xyz", "divergence/per_thread", "divergence/per_warp",
      "coalescing/stride", "coalescing/offset", "coalescing/permuted", "coalescing/random",
      "bank_conflicts/stride", "bank_conflicts/padded", "bank_conflicts/broadcast",
      "transpose/naive", "transpose/smem", "transpose/smem_padded", "matmul/naive",
      "matmul/naive_uncoalesced", "matmul/tiled", "matmul/tiled_padded", "matmul/cublas",
      "softmax/naive", "softmax/block_tree", "softmax/warp_shuffle", "softmax/online",
      "reduce_sum/interleaved", "reduce_sum/sequential", "reduce_sum/warp_shuffle",
      "flash_attention/d64", "flash_attention/d128",
      // Beyond the promised list: the bank-conflicted step between interleaved and sequential.
      "reduce_sum/strided_index"};
  std::set<std::string> ids;
  for (const KernelDesc& k : all_kernels())
    EXPECT_TRUE(ids.insert(k.id).second) << "duplicate " << k.id;
  for (const std::string& id : promised)
    EXPECT_TRUE(ids.count(id)) << "missing " << id;
}

// The one list of families (kernels/CMakeLists.txt): each NAME gives kernels named "NAME/...",
// and the catalog holds every one of them, in the list's order.
TEST(Registry, EveryFamilyOfTheListGivesItsKernelsInOrder) {
  std::vector<std::string> listed;
#define WL_KERNEL_FAMILY(name)                                                                     \
  for (const KernelDesc& k : name##_kernels()) {                                                   \
    EXPECT_EQ(kernel_family(k.id), #name) << k.id;                                                 \
    listed.push_back(k.id);                                                                        \
  }
#include "kernel_families.inc"
#undef WL_KERNEL_FAMILY
  ASSERT_GE(all_kernels().size(), listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i)
    EXPECT_EQ(all_kernels()[i].id, listed[i]);
}

TEST(Registry, EveryDescriptorIsComplete) {
  for (const KernelDesc& k : all_kernels()) {
    SCOPED_TRACE(k.id);
    EXPECT_FALSE(k.title.empty());
    EXPECT_GT(k.lesson.size(), 80u) << "the teaching note says what to look for";
    EXPECT_FALSE(k.allowed_blocks.empty());
    EXPECT_TRUE(k.check_block && k.grid && k.reference && k.bytes_moved && k.symbol);
#ifdef WARPLENS_HAS_CUDA
    EXPECT_TRUE(k.launch && k.function) << "nvcc compiled the kernel";
#else
    EXPECT_FALSE(k.launch || k.function) << "a build without the toolkit has no device code";
#endif
    EXPECT_FALSE(k.buffers.empty());
    EXPECT_FALSE(k.test_sizes.empty());
    EXPECT_EQ(k.default_block.rank() <= k.block_rank, true);
    // The defaults make a valid request, and the default block is allowed.
    const KernelRequest defaults = resolve_kernel_request(k.id, {}, "", "");
    EXPECT_EQ(defaults.block, k.default_block);
    // Each test size is valid with at least one of the blocks the GPU sweep runs it on.
    for (const Params& size : k.test_sizes) {
      Params params = defaults.params;
      for (const auto& [name, value] : size)
        params[name] = value;
      if (k.check_params) {
        EXPECT_EQ(k.check_params(params), "");
      }
      EXPECT_FALSE(allowed_presets(k, params).empty()) << "no block accepts a test size";
    }
    for (const Site& site : k.sites) {
      EXPECT_FALSE(site.name.empty());
      EXPECT_TRUE(site.width && site.iterations && site.offset) << site.name;
      if (site.space == MemorySpace::global) {
        EXPECT_TRUE(site.buffer >= 0 && site.buffer < static_cast<int>(k.buffers.size()))
            << site.name;
      }
    }
  }
}

// A small launch of every kernel through the model: the sites evaluate without throwing (widths
// valid, addresses aligned) and the sampled estimate agrees with full enumeration.
TEST(Registry, EverySiteEvaluatesAndSamplingAgreesWithEnumeration) {
  for (const KernelDesc& k : all_kernels()) {
    SCOPED_TRACE(k.id);
    ASSERT_FALSE(k.test_sizes.empty());
    Params params = resolve_kernel_request(k.id, {}, "", "").params;
    for (const auto& [name, value] : k.test_sizes.front())
      params[name] = value;
    const std::vector<BlockShape> blocks = allowed_presets(k, params);
    ASSERT_FALSE(blocks.empty());
    const LaunchShape launch = make_launch(k, params, blocks.front(), 132);
    const LaunchPrediction exact = predict_launch(k, launch, ModelBudget{0});
    const LaunchPrediction sampled = predict_launch(k, launch, ModelBudget{5000});
    ASSERT_EQ(exact.sites.size(), k.sites.size());
    for (std::size_t s = 0; s < exact.sites.size(); ++s) {
      const SitePrediction& e = exact.sites[s];
      const SitePrediction& p = sampled.sites[s];
      EXPECT_NEAR(p.requests, e.requests, 0.02 * e.requests + 1) << e.name;
      EXPECT_NEAR(p.sectors, e.sectors, 0.02 * e.sectors + 1) << e.name;
      EXPECT_NEAR(p.wavefronts, e.wavefronts, 0.02 * e.wavefronts + 1) << e.name;
    }
  }
}

} // namespace
} // namespace wl
