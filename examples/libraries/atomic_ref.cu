// A 64-bin histogram with cuda::atomic_ref: block-scoped increments on the block's bins in shared
// memory, then device-scoped adds to the global bins, each through an atomic_ref of the scope it
// needs (a relaxed fetch_add compiles to the same atomics as atomicAdd).
//
// @warplens kernel histogram_ref
// @warplens size n = 1 << 22
// @warplens restrict block.y == 1 && block.z == 1
// @warplens arg data: in unsigned[n] random(0, 63)
// @warplens arg bins: inout unsigned[64] zeros
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid min(ceil_div(n, block.x), 512)
// @warplens check histogram_reference 0
// @warplens bytes n * 4 + 64 * 4 * 2

#include <cuda/atomic>

__global__ void histogram_ref(const unsigned* data, unsigned* bins, int n) {
  __shared__ unsigned counts[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    counts[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_block> bin(counts[data[i] & 63]);
    bin.fetch_add(1u, cuda::std::memory_order_relaxed);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    if (counts[b]) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> total(bins[b]);
      total.fetch_add(counts[b], cuda::std::memory_order_relaxed);
    }
}

__global__ void histogram_reference(const unsigned* data, unsigned* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] & 63], 1u);
}
