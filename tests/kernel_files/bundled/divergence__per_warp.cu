// mirrors: divergence/per_warp
// compare at: --param n=4096 --param work=16
// compare at: --param n=961 --param work=3 --block 64
// compare at: --param n=1000 --param work=1 --block 128
// Even warps of the grid take the expensive path (work dependent FMAs that read w), odd warps
// the cheap one: the branch is uniform within each warp.
// @warplens kernel divergence_per_warp
// @warplens size n = 1 << 24
// @warplens size work = 1024
// @warplens restrict block.y == 1 && block.z == 1 && block.x % 32 == 0
// @warplens arg x: in float[n] random(0.25, 1)
// @warplens arg w: in float[n] random(-0.5, 0.5)
// @warplens arg y: out float[n]
// @warplens arg n: long = n
// @warplens arg work: int = work
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__device__ float expensive(float x, float w, int work) {
  float y = x;
  for (int k = 0; k < work; ++k)
    y = fmaf(y, w, x);
  return y;
}

__device__ float cheap(float x) { return 0.5f * x; }

__global__ void divergence_per_warp(const float* x, const float* w, float* y, long long n,
                                    int work) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float xi = x[i];
  float yi;
  if ((i / 32) % 2 == 0) {
    const float wi = w[i];
    yi = expensive(xi, wi, work);
  } else {
    yi = cheap(xi);
  }
  y[i] = yi;
}
