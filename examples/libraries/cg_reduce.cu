// A block sum with cooperative groups: the block's threads as a group, tiles of a warp, each tile
// reduced in registers (cg::reduce, shuffles underneath), one shared word a warp, then tile 0 sums
// the warps. The input goes to shared memory through cg::memcpy_async first. The block size is a
// tunable, since the sums' count depends on it. The library's own
// accesses (inside cooperative_groups/) land on its header's lines, not on this file's.
//
// @warplens kernel cg_block_sum
// @warplens size n = 1 << 22
// @warplens tune THREADS = 256, 128, 512, 1024
// @warplens restrict block.x == THREADS && block.y == 1 && block.z == 1
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg sums: out float[ceil_div(n, THREADS)]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, THREADS)
// @warplens shared THREADS * 4
// @warplens check block_sum_reference 1e-4
// @warplens bytes n * 4 + ceil_div(n, THREADS) * 4
// @warplens flops n

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void cg_block_sum(const float* in, float* sums, int n) {
  extern __shared__ float staged[];
  __shared__ float per_warp[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int first = blockIdx.x * blockDim.x;
  const int count = min((int)blockDim.x, n - first);
  cg::memcpy_async(block, staged, in + first, sizeof(float) * count);
  cg::wait(block);
  const float mine = threadIdx.x < count ? staged[threadIdx.x] : 0.0f;
  const float warp_sum = cg::reduce(warp, mine, cg::plus<float>());
  if (warp.thread_rank() == 0)
    per_warp[warp.meta_group_rank()] = warp_sum;
  cg::sync(block);
  if (warp.meta_group_rank() == 0) {
    const float partial =
        warp.thread_rank() < warp.meta_group_size() ? per_warp[warp.thread_rank()] : 0.0f;
    const float total = cg::reduce(warp, partial, cg::plus<float>());
    if (warp.thread_rank() == 0)
      sums[blockIdx.x] = total;
  }
}

// One thread a block, in order: slow, and right by construction.
__global__ void block_sum_reference(const float* in, float* sums, int n) {
  if (threadIdx.x != 0)
    return;
  const int first = blockIdx.x * blockDim.x;
  float total = 0.0f;
  for (int i = first; i < first + (int)blockDim.x && i < n; ++i)
    total += in[i];
  sums[blockIdx.x] = total;
}
