// mirrors: divergence/per_thread
// compare at: --param n=4096 --param work=16
// compare at: --param n=1401 --param work=3 --block 100
// compare at: --param n=1000 --param work=1 --block 128
// Each thread branches on its input, which alternates element by element, so every warp splits
// 16/16. The bundled kernel's init writes x positive on even elements and negative on odd ones
// and the kernel branches on x > 0; a kernel file's fills cannot alternate signs, so here x is
// filled with iota (x[i] = i, exact in a float up to 2^24 = the default n) and the kernel
// branches on the parity of the value it loads: still the data, and the same lanes.
// @warplens kernel divergence_per_thread
// @warplens size n = 1 << 24
// @warplens size work = 1024
// @warplens arg x: in float[n] iota
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

__global__ void divergence_per_thread(const float* x, const float* w, float* y, long long n,
                                      int work) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float xi = x[i];
  float yi;
  if (static_cast<long long>(xi) % 2 == 0) {
    const float wi = w[i];
    yi = expensive(xi, wi, work);
  } else {
    yi = cheap(xi);
  }
  y[i] = yi;
}
