// mirrors: softmax/block_online
// compare at: --param rows=4 --param cols=8192
// compare at: --param rows=2 --param cols=12000 --block 1024
// compare at: --param rows=9 --param cols=516 --block 64
// compare at: --param rows=5 --param cols=8 --block 32
// One block per row, online: a running max and sum per thread over its float4s, merged by
// shuffles and one shared slot (8 bytes) per warp; then a second read of x writes y.
// @warplens kernel softmax_block_online
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0
// @warplens arg x: in float[rows * cols] random(80, 100)
// @warplens arg y: out float[rows * cols]
// @warplens arg cols: int = cols
// @warplens block 512
// @warplens grid rows
// @warplens check none

struct alignas(8) Running {
  float max;
  float sum;
};

__device__ float max_of(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ float sum_of(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ float4 exp_minus(float4 v, float max) {
  return {expf(v.x - max), expf(v.y - max), expf(v.z - max), expf(v.w - max)};
}
__device__ float4 divided(float4 v, float by) { return {v.x / by, v.y / by, v.z / by, v.w / by}; }

__device__ Running combine(Running a, Running b) {
  const float m = fmaxf(a.max, b.max);
  if (m == -INFINITY)
    return a;
  return {m, a.sum * expf(a.max - m) + b.sum * expf(b.max - m)};
}

__device__ Running warp_combine(Running r) {
  for (int offset = 16; offset > 0; offset /= 2)
    r = combine(r, {__shfl_xor_sync(0xffffffffu, r.max, offset),
                    __shfl_xor_sync(0xffffffffu, r.sum, offset)});
  return r;
}

__device__ Running add_pack(Running r, float4 v) {
  const float m = fmaxf(r.max, max_of(v));
  return {m, r.sum * expf(r.max - m) + sum_of(exp_minus(v, m))};
}

__global__ void softmax_block_online(const float* x, float* y, int cols) {
  __shared__ Running warp_states[32];
  const float4* in = reinterpret_cast<const float4*>(&x[static_cast<long long>(blockIdx.x) * cols]);
  float4* out = reinterpret_cast<float4*>(&y[static_cast<long long>(blockIdx.x) * cols]);
  const int packs = cols / 4, steps = (packs + blockDim.x - 1) / blockDim.x;
  const Running nothing_yet{-INFINITY, 0.0f};
  Running state = nothing_yet;
#pragma unroll 4
  for (int k = 0; k < steps; ++k) {
    const int pack = threadIdx.x + k * blockDim.x;
    if (pack < packs) {
      const float4 v = in[pack];
      state = add_pack(state, v);
    }
  }
  state = warp_combine(state);
  if (threadIdx.x % 32 == 0)
    warp_states[threadIdx.x / 32] = state;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const bool has_slot = lane < blockDim.x / 32;
  const Running slot = has_slot ? warp_states[lane] : nothing_yet;
  const Running row = warp_combine(slot);
#pragma unroll 4
  for (int k = 0; k < steps; ++k) {
    const int pack = threadIdx.x + k * blockDim.x;
    if (pack < packs) {
      const float4 v = in[pack];
      out[pack] = divided(exp_minus(v, row.max), row.sum);
    }
  }
}
