// mirrors: reduce_sum/strided_index
// compare at: --param n=8192
// compare at: --param n=5000 --param chunk=2048 --block 128
// compare at: --param n=2000 --block 1024
// compare at: --param n=1000 --block 32
// Block b sums chunk elements from b * chunk: each thread adds its share in a register, then the
// block combines the thread sums with a shared-memory tree: step s lets thread tid add sdata[2s tid
// + s] into sdata[2s tid] (bank conflicts). The file model notes "bar.sync reached by lanes ...
// while its lanes ... run elsewhere" on the tree loop's __syncthreads(): a false alarm. The barrier
// follows the if in the source; NVVM lays the if-body out after the barrier's block, so the lanes
// that skip it reach the barrier first under the model's smallest-PC scheduling. The counts are
// right all the same.
// @warplens kernel reduce_sum_strided_index
// @warplens size n = 1 << 24
// @warplens size chunk = 1024
// @warplens restrict block.y == 1 && block.z == 1 && (block.x == 32 || block.x == 64 || block.x == 128 || block.x == 256 || block.x == 512 || block.x == 1024)
// @warplens arg x: in float[n] random(-1, 1)
// @warplens arg partials: out float[ceil_div(n, chunk)]
// @warplens arg n: long = n
// @warplens arg chunk: int = chunk
// @warplens block 256
// @warplens grid ceil_div(n, chunk)
// @warplens shared block.x * 4
// @warplens check none

__device__ int tree_steps(int block_dim) {
  int steps = 0;
  while ((1 << steps) < block_dim)
    ++steps;
  return steps;
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

__global__ void reduce_sum_strided_index(const float* x, float* partials, long long n, int chunk) {
  extern __shared__ float sdata[];
  const float mine = thread_sum(x, n, chunk);
  sdata[threadIdx.x] = mine;
  __syncthreads();
  for (int step = 0; step < tree_steps(blockDim.x); ++step) {
    const int stride = 1 << step;
    const int index = 2 * stride * threadIdx.x;
    const bool active = index < blockDim.x;
    const int target = index, source = index + stride;
    if (active) {
      const float t = sdata[target];
      const float s = sdata[source];
      sdata[target] = t + s;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const float block_sum = sdata[0];
    partials[blockIdx.x] = block_sum;
  }
}
