// mirrors: softmax/warp_registers
// compare at: --param rows=64 --param cols=1024
// compare at: --param rows=15 --param cols=1000 --block 32
// compare at: --param rows=9 --param cols=516 --block 64 (file only: --param LANE_PACKS=5)
// compare at: --param rows=5 --param cols=8 --block 64 (file only: --param LANE_PACKS=1)
// One warp per row, the row in registers: lane l keeps packs l, l + 32, ... (LANE_PACKS float4s).
// The bundled kernel is instantiated for clamp(ceil(cols / 128), 1, 8) packs a lane; here that
// is the tunable LANE_PACKS, which the restrict line ties to cols (the script passes it).
// @warplens kernel softmax_warp_registers<LANE_PACKS>
// @warplens size rows = 32768
// @warplens size cols = 1024
// @warplens tune LANE_PACKS = 8, 1, 2, 3, 4, 5, 6, 7
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0 && LANE_PACKS == max(1, min(8, ceil_div(cols / 4, 32)))
// @warplens arg x: in float[rows * cols] random(80, 100)
// @warplens arg y: out float[rows * cols]
// @warplens arg rows: long = rows
// @warplens arg cols: int = cols
// @warplens block 256
// @warplens grid ceil_div(rows, block.x / 32)
// @warplens check none

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ __forceinline__ float warp_max(float value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

__device__ float max_of(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ float sum_of(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ float4 exp_minus(float4 v, float max) {
  return {expf(v.x - max), expf(v.y - max), expf(v.z - max), expf(v.w - max)};
}
__device__ float4 divided(float4 v, float by) { return {v.x / by, v.y / by, v.z / by, v.w / by}; }

template <int kLanePacks>
__global__ void softmax_warp_registers(const float* x, float* y, long long rows, int cols) {
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows)
    return;
  const int lane = threadIdx.x % 32, packs = cols / 4;
  const float4* in = reinterpret_cast<const float4*>(&x[row * cols]);
  float4* out = reinterpret_cast<float4*>(&y[row * cols]);
  const float4 kPastTheEnd{-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  float4 values[kLanePacks];
  float lane_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < kLanePacks; ++k) {
    const int pack = lane + k * 32;
    values[k] = pack < packs ? in[pack] : kPastTheEnd;
    lane_max = fmaxf(lane_max, max_of(values[k]));
  }
  const float row_max = warp_max(lane_max);
  float lane_sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kLanePacks; ++k) {
    values[k] = exp_minus(values[k], row_max);
    lane_sum += sum_of(values[k]);
  }
  const float row_sum = warp_sum(lane_sum);
#pragma unroll
  for (int k = 0; k < kLanePacks; ++k) {
    const int pack = lane + k * 32;
    if (pack < packs)
      out[pack] = divided(values[k], row_sum);
  }
}
