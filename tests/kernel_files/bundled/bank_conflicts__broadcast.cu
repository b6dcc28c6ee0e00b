// mirrors: bank_conflicts/broadcast
// compare at: --param n=4096
// compare at: --param n=3002 --param width=8
// compare at: --param n=4004 --param width=16 --block 96
// rename: width=WIDTH
// known: the compiler sinks the 32 patterned tile reads into `if (g < count)` (their sum is only
// known: stored there), so lanes and warps past count read nothing; the bundled site has every
// known: thread read. Only a partial last warp differs (n not a multiple of 32 x width / 4).
// Each block copies a 4 KB tile into shared memory; in read r every thread reads the first
// element of row r, then writes the sum.
// @warplens kernel bank_conflicts_broadcast<WIDTH>
// @warplens size n = 1 << 24
// @warplens tune WIDTH = 4, 8, 16
// @warplens arg in: in float[4096 / WIDTH * (WIDTH / 4)] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg count: int = n / (WIDTH / 4)
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
__global__ void bank_conflicts_broadcast(const typename VectorOfWidth<Width>::type* in,
                                         typename VectorOfWidth<Width>::type* out, int count) {
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
    const T value = tile[(read * kRow) % kElements];
    sum = vector_add(sum, value);
  }
  if (g < count)
    out[g] = sum;
}
