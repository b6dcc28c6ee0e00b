// mirrors: bank_conflicts/stride
// compare at: --param n=4096 --param stride=1
// compare at: --param n=4096 --param stride=2
// compare at: --param n=4096 --param stride=32
// compare at: --param n=3002 --param width=8 --param stride=33
// compare at: --param n=4000 --param width=16 --param stride=3 --block 96
// compare at: --param n=960 --param stride=2
// compare at: --param n=1000 --param stride=2
// rename: width=WIDTH
// known: the compiler sinks the 32 patterned tile reads into `if (g < count)` (their sum is only
// known: stored there), so lanes and warps past count read nothing; the bundled site has every
// known: thread read. Only a partial last warp differs (n not a multiple of 32 x width / 4).
// known: Measured on an H200 (ncu, this kernel's code built by nvcc -O3 for sm_90, whose SASS
// known: exits threads past count right after the barrier): at width 4, stride 2, n=960: 960
// known: shared load requests and 1,920 wavefronts; n=1000: 1,024 and 2,016: the file model's
// known: figures; the bundled model predicts 1,024 and 2,048 for both.
// Each block copies a 4 KB tile into shared memory, then every thread makes 32 strided reads of
// it (element (g * stride + r * row) mod tile, g its place in the grid), sums them and writes the
// sum.
// @warplens kernel bank_conflicts_stride<WIDTH>
// @warplens size n = 1 << 24
// @warplens size stride = 1
// @warplens tune WIDTH = 4, 8, 16
// @warplens arg in: in float[4096 / WIDTH * (WIDTH / 4)] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg count: int = n / (WIDTH / 4)
// @warplens arg stride: int = stride
// @warplens block 256
// @warplens grid ceil_div(n / (WIDTH / 4), block.x)
// @warplens check none

template <int W> struct VectorOfWidth;
template <> struct VectorOfWidth<4> { using type = float; };
template <> struct VectorOfWidth<8> { using type = float2; };
template <> struct VectorOfWidth<16> { using type = float4; };

__device__ inline float vector_add(float a, float b) { return a + b; }
__device__ inline float2 vector_add(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
__device__ inline float4 vector_add(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

constexpr int kTileBytes = 4096, kRowBytes = 128, kReads = 32;

template <int Width>
__global__ void bank_conflicts_stride(const typename VectorOfWidth<Width>::type* in,
                                      typename VectorOfWidth<Width>::type* out, int count,
                                      int stride) {
  using T = typename VectorOfWidth<Width>::type;
  constexpr int kElements = kTileBytes / Width, kRow = kRowBytes / Width;
  __shared__ T tile[kElements];
  for (int pass = 0;; ++pass) {
    const int e = threadIdx.x + pass * blockDim.x;
    if (e >= kElements)
      break;
    const T value = in[e];
    tile[e] = value;
  }
  __syncthreads();
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  T sum = T{};
  for (int read = 0; read < kReads; ++read) {
    const int e = ((g % kElements) * stride + read * kRow) % kElements;
    const T value = tile[e];
    sum = vector_add(sum, value);
  }
  if (g < count)
    out[g] = sum;
}
