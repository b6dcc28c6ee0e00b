// mirrors: softmax/online
// compare at: --param rows=16 --param cols=1000
// compare at: --param rows=15 --param cols=33 --block 32
// compare at: --param rows=5 --param cols=7 --block 64
// One warp per row, a running max and rescaled running sum in one pass, then a write pass.
// @warplens kernel softmax_online
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

struct alignas(8) Running {
  float max;
  float sum;
};

__device__ Running add_element(Running r, float x) {
  if (x > r.max)
    return {x, r.sum * expf(r.max - x) + 1.0f};
  return {r.max, r.sum + expf(x - r.max)};
}

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

__global__ void softmax_online(const float* x, float* y, long long rows, int cols) {
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows)
    return;
  const int lane = threadIdx.x % 32, steps = (cols + 31) / 32;
  Running lane_state{-INFINITY, 0.0f};
  for (int k = 0; k < steps; ++k) {
    const int c = lane + k * 32;
    if (c < cols) {
      const float value = x[row * cols + c];
      lane_state = add_element(lane_state, value);
    }
  }
  const Running row_state = warp_combine(lane_state);
  for (int k = 0; k < steps; ++k) {
    const int c = lane + k * 32;
    if (c >= cols)
      continue;
    const long long i = row * cols + c;
    const float value = x[i];
    y[i] = expf(value - row_state.max) / row_state.sum;
  }
}
