// HOSTILE: the README's own suggestion for examples/histogram.cu: data random(0, 3), so every warp's 32 shared atomics hit 4 bins (8 lanes a bin): the README says the atomics serialise and measured wavefronts show it. GOOD: the shared-atomic line predicted with the serialisation (about 8 wavefronts/req: the most lanes on one address), or a note that same-address atomics are modelled as a broadcast; not 1.00 (1-way) presented as certain.
// @warplens kernel histogram
// @warplens size n = 1 << 24
// @warplens restrict block.y == 1 && block.z == 1
// @warplens arg data: in unsigned[n] random(0, 3)
// @warplens arg bins: inout unsigned[256] zeros
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid min(ceil_div(n, block.x), 1024)
// @warplens check none

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
