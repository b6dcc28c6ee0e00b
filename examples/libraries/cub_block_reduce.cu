// CUB's block-wide primitives: cub::BlockLoad reads each thread's four floats (a warp-striped
// load, coalesced), cub::BlockReduce sums the block, and cub::WarpReduce gives each warp's maximum.
// Their temporary storage is shared memory CUB sizes for the block: the Occupancy panel shows it.
// The block size is a template argument (CUB needs it at compile time): a tunable.
//
// @warplens kernel cub_sum_and_max<THREADS>
// @warplens size n = 1 << 22
// @warplens tune THREADS = 256, 128, 512
// @warplens restrict block.x == THREADS && block.y == 1 && block.z == 1
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg sums: out float[ceil_div(n, 4 * THREADS)]
// @warplens arg maxima: out float[ceil_div(n, 4 * THREADS) * (THREADS / 32)]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, 4 * THREADS)
// @warplens check cub_reference<THREADS> 1e-3
// @warplens bytes n * 4

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <cuda/functional>

template <int Threads>
__global__ void cub_sum_and_max(const float* in, float* sums, float* maxima, int n) {
  using Load = cub::BlockLoad<float, Threads, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Sum = cub::BlockReduce<float, Threads>;
  using Max = cub::WarpReduce<float>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sum::TempStorage sum;
    typename Max::TempStorage max[Threads / 32];
  } storage;
  float four[4];
  const int first = blockIdx.x * Threads * 4;
  Load(storage.load).Load(in + first, four, n - first, 0.0f);
  __syncthreads();
  const float mine = four[0] + four[1] + four[2] + four[3];
  const float total = Sum(storage.sum).Sum(mine);
  __syncthreads();
  const float most = fmaxf(fmaxf(four[0], four[1]), fmaxf(four[2], four[3]));
  const int warp = threadIdx.x / 32;
  const float warp_max = Max(storage.max[warp]).Reduce(most, cuda::maximum<float>());
  if (threadIdx.x == 0)
    sums[blockIdx.x] = total;
  if (threadIdx.x % 32 == 0)
    maxima[blockIdx.x * (Threads / 32) + warp] = warp_max;
}

// One thread per block, then one per warp: slow and plain. A missing element reads as 0, as
// BlockLoad's default fills it.
template <int Threads>
__global__ void cub_reference(const float* in, float* sums, float* maxima, int n) {
  const int first = blockIdx.x * Threads * 4;
  const int warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int i = first; i < first + Threads * 4 && i < n; ++i)
      total += in[i];
    sums[blockIdx.x] = total;
  }
  if (threadIdx.x % 32 == 0) {
    // BLOCK_LOAD_WARP_TRANSPOSE gives thread t of warp w the elements 4 t .. 4 t + 3 of the
    // block's range: warp w holds elements 128 w to 128 w + 127.
    float most = -INFINITY;
    for (int k = 0; k < 128; ++k) {
      const int i = first + warp * 128 + k;
      most = fmaxf(most, i < n ? in[i] : 0.0f);
    }
    maxima[blockIdx.x * (Threads / 32) + warp] = most;
  }
}
