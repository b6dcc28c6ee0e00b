// A 256-bin histogram of bytes: each block counts into its own bins in shared memory with
// shared atomics, then adds them to the global bins once. Few distinct values (the range below)
// make many lanes of a warp hit one bin: the atomics serialise, and the Shared memory panel's
// measured wavefronts show it. Try random(0, 255), then random(0, 3).
//
// @warplens kernel histogram
// @warplens size n = 1 << 24
// @warplens restrict block.y == 1 && block.z == 1
// @warplens arg data: in unsigned[n] random(0, 255)
// @warplens arg bins: inout unsigned[256] zeros
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid min(ceil_div(n, block.x), 1024)
// @warplens check histogram_reference 0
// @warplens bytes n * 4 + 256 * 4 * 2

__global__ void histogram(const unsigned* data, unsigned* bins, int n) {
  __shared__ unsigned counts[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    counts[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&counts[data[i] & 255], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (counts[b])
      atomicAdd(&bins[b], counts[b]);
}

// Global atomics only: slower, and right by construction.
__global__ void histogram_reference(const unsigned* data, unsigned* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] & 255], 1u);
}
