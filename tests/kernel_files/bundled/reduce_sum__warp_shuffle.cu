// mirrors: reduce_sum/warp_shuffle
// compare at: --param n=8192
// compare at: --param n=5000 --param chunk=2048 --block 96
// compare at: --param n=2000 --block 1024
// compare at: --param n=1000 --block 32
// Block b sums chunk elements from b * chunk: a register loop, then shuffles within each warp,
// lane 0 of each warp a shared slot, and warp 0 shuffles the slots.
// @warplens kernel reduce_sum_warp_shuffle
// @warplens size n = 1 << 24
// @warplens size chunk = 1024
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg partials: out float[ceil_div(n, chunk)]
// @warplens arg n: long = n
// @warplens arg chunk: int = chunk
// @warplens block 256
// @warplens grid ceil_div(n, chunk)
// @warplens check none

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ float thread_sum(const float* x, long long n, int chunk) {
  float sum = 0.0f;
  for (int k = 0; k < (chunk + blockDim.x - 1) / blockDim.x; ++k) {
    const int in_chunk = k * blockDim.x + threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * chunk + in_chunk;
    if (in_chunk < chunk && i < n)
      sum += x[i];
  }
  return sum;
}

__device__ void write_block_sum(float thread_total, float* partials) {
  __shared__ float warp_sums[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float sum = warp_sum(thread_total);
  if (lane == 0)
    warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    const float warp_total = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
    const float block_sum = warp_sum(warp_total);
    if (lane == 0)
      partials[blockIdx.x] = block_sum;
  }
}

__global__ void reduce_sum_warp_shuffle(const float* x, float* partials, long long n, int chunk) {
  write_block_sum(thread_sum(x, n, chunk), partials);
}
