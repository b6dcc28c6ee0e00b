// mirrors: softmax/block_shared
// compare at: --param rows=4 --param cols=8192
// compare at: --param rows=3 --param cols=12000 --block 1024
// compare at: --param rows=9 --param cols=516 --block 64
// compare at: --param rows=5 --param cols=8 --block 32
// One block per row, the row in shared memory as float4s after 32 words of scratch: loaded once,
// exp'd in place, divided on its way out. The max and the sum: shuffles within each warp, one
// slot per warp, every warp reading all slots.
// @warplens kernel softmax_block_shared
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0
// @warplens arg x: in float[rows * cols] random(80, 100)
// @warplens arg y: out float[rows * cols]
// @warplens arg cols: int = cols
// @warplens block 512
// @warplens grid rows
// @warplens shared 4 * 32 + 16 * (cols / 4)
// @warplens check none

constexpr int kScratchWords = 32;

__device__ float max_of(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ float sum_of(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ float4 exp_minus(float4 v, float max) {
  return {expf(v.x - max), expf(v.y - max), expf(v.z - max), expf(v.w - max)};
}
__device__ float4 divided(float4 v, float by) { return {v.x / by, v.y / by, v.z / by, v.w / by}; }

__device__ float warp_max(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}
__device__ float warp_add(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = value + __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

// block_combine for the max, then for the sum: two copies so each has lines of its own.
__device__ float block_max(float* scratch, float value) {
  value = warp_max(value);
  const int lane = threadIdx.x % 32;
  if (lane == 0)
    scratch[threadIdx.x / 32] = value;
  __syncthreads();
  const bool has_slot = lane < blockDim.x / 32;
  value = has_slot ? scratch[lane] : -INFINITY;
  value = warp_max(value);
  __syncthreads();
  return value;
}

__device__ float block_sum(float* scratch, float value) {
  value = warp_add(value);
  const int lane = threadIdx.x % 32;
  if (lane == 0)
    scratch[threadIdx.x / 32] = value;
  __syncthreads();
  const bool has_slot = lane < blockDim.x / 32;
  value = has_slot ? scratch[lane] : 0.0f;
  value = warp_add(value);
  __syncthreads();
  return value;
}

__global__ void softmax_block_shared(const float* x, float* y, int cols) {
  extern __shared__ float4 shared_words[];
  float* scratch = reinterpret_cast<float*>(shared_words);
  float4* row_packs = shared_words + kScratchWords / 4;
  const float4* in = reinterpret_cast<const float4*>(&x[static_cast<long long>(blockIdx.x) * cols]);
  float4* out = reinterpret_cast<float4*>(&y[static_cast<long long>(blockIdx.x) * cols]);
  const int packs = cols / 4, steps = (packs + blockDim.x - 1) / blockDim.x;
  float thread_max = -INFINITY;
#pragma unroll 4
  for (int k = 0; k < steps; ++k) {
    const int pack = threadIdx.x + k * blockDim.x;
    if (pack < packs) {
      const float4 v = in[pack];
      row_packs[pack] = v;
      thread_max = fmaxf(thread_max, max_of(v));
    }
  }
  const float row_max = block_max(scratch, thread_max);
  float thread_sum = 0.0f;
  for (int k = 0; k < steps; ++k) {
    const int pack = threadIdx.x + k * blockDim.x;
    if (pack < packs) {
      const float4 v = row_packs[pack];
      const float4 e = exp_minus(v, row_max);
      row_packs[pack] = e;
      thread_sum += sum_of(e);
    }
  }
  const float row_sum = block_sum(scratch, thread_sum);
  for (int k = 0; k < steps; ++k) {
    const int pack = threadIdx.x + k * blockDim.x;
    if (pack < packs) {
      const float4 e = row_packs[pack];
      out[pack] = divided(e, row_sum);
    }
  }
}
