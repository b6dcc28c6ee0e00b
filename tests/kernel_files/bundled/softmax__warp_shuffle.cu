// mirrors: softmax/warp_shuffle
// compare at: --param rows=16 --param cols=1000
// compare at: --param rows=15 --param cols=33 --block 32
// compare at: --param rows=5 --param cols=7 --block 64
// One warp per row: lane l visits columns l, l + 32, ...; max and sum by shuffles.
// @warplens kernel softmax_warp_shuffle
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0
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

__global__ void softmax_warp_shuffle(const float* x, float* y, long long rows, int cols) {
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows)
    return;
  const int lane = threadIdx.x % 32, steps = (cols + 31) / 32;
  float lane_max = -INFINITY;
  for (int k = 0; k < steps; ++k) {
    const int c = lane + k * 32;
    if (c < cols) {
      const float value = x[row * cols + c];
      lane_max = fmaxf(lane_max, value);
    }
  }
  const float row_max = warp_max(lane_max);
  float lane_sum = 0.0f;
  for (int k = 0; k < steps; ++k) {
    const int c = lane + k * 32;
    if (c < cols) {
      const float value = x[row * cols + c];
      lane_sum += expf(value - row_max);
    }
  }
  const float row_sum = warp_sum(lane_sum);
  for (int k = 0; k < steps; ++k) {
    const int c = lane + k * 32;
    if (c >= cols)
      continue;
    const long long i = row * cols + c;
    const float value = x[i];
    y[i] = expf(value - row_max) / row_sum;
  }
}
