// mirrors: softmax/block_tree
// compare at: --param rows=4 --param cols=2049
// compare at: --param rows=5 --param cols=7 --block 32
// compare at: --param rows=2 --param cols=1000 --block 1024
// One block per row: thread t visits columns t, t + blockDim, ...; the block's max and sum are
// combined by a sequential-addressing tree in shared memory.
// The file model notes "bar.sync reached by lanes ... while its lanes ... run elsewhere" on the
// tree loop's __syncthreads(): a false alarm. The barrier follows the if in the source; NVVM
// lays the if-body out after the barrier's block, so the lanes that skip it reach the barrier
// first under the model's smallest-PC scheduling. The counts are right all the same.
// @warplens kernel softmax_block_tree
// @warplens size rows = 8192
// @warplens size cols = 8192
// @warplens restrict block.y == 1 && block.z == 1 && (block.x == 32 || block.x == 64 || block.x == 128 || block.x == 256 || block.x == 512 || block.x == 1024)
// @warplens arg x: in float[rows * cols] random(80, 100)
// @warplens arg y: out float[rows * cols]
// @warplens arg cols: int = cols
// @warplens block 256
// @warplens grid rows
// @warplens shared block.x * 4
// @warplens check none

__device__ int tree_steps(int block_dim) {
  int steps = 0;
  while ((1 << steps) < block_dim)
    ++steps;
  return steps;
}

// reduce_sum's sequential tree over one value per thread; the result returned to every thread.
// Written twice, for the max and for the sum, so that each reduction's accesses stand on lines
// of their own (the bundled kernel calls one template twice and names its sites apart).
__device__ float block_tree_max(float* sdata, float value) {
  sdata[threadIdx.x] = value;
  __syncthreads();
  for (int step = 0; step < tree_steps(blockDim.x); ++step) {
    const int stride = blockDim.x >> (step + 1);
    if (threadIdx.x < stride) {
      const float target = sdata[threadIdx.x];
      const float source = sdata[threadIdx.x + stride];
      const float combined = fmaxf(target, source);
      sdata[threadIdx.x] = combined;
    }
    __syncthreads();
  }
  const float result = sdata[0];
  __syncthreads();
  return result;
}

__device__ float block_tree_sum(float* sdata, float value) {
  sdata[threadIdx.x] = value;
  __syncthreads();
  for (int step = 0; step < tree_steps(blockDim.x); ++step) {
    const int stride = blockDim.x >> (step + 1);
    if (threadIdx.x < stride) {
      const float target = sdata[threadIdx.x];
      const float source = sdata[threadIdx.x + stride];
      const float combined = target + source;
      sdata[threadIdx.x] = combined;
    }
    __syncthreads();
  }
  const float result = sdata[0];
  __syncthreads();
  return result;
}

__global__ void softmax_block_tree(const float* x, float* y, int cols) {
  extern __shared__ float sdata[];
  const long long row = blockIdx.x;
  const int steps = (cols + blockDim.x - 1) / blockDim.x;
  float thread_max = -INFINITY;
  for (int k = 0; k < steps; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (c < cols) {
      const float value = x[row * cols + c];
      thread_max = fmaxf(thread_max, value);
    }
  }
  const float row_max = block_tree_max(sdata, thread_max);
  float thread_sum = 0.0f;
  for (int k = 0; k < steps; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (c < cols) {
      const float value = x[row * cols + c];
      thread_sum += expf(value - row_max);
    }
  }
  const float row_sum = block_tree_sum(sdata, thread_sum);
  for (int k = 0; k < steps; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (c >= cols)
      continue;
    const long long i = row * cols + c;
    const float value = x[i];
    y[i] = expf(value - row_max) / row_sum;
  }
}
