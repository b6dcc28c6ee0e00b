// mirrors: bank_conflicts/padded
// compare at: --param n=4096 --param pad=1
// compare at: --param n=4096 --param pad=0
// compare at: --param n=3002 --param width=8 --param pad=1
// compare at: --param n=4000 --param width=16 --param pad=3 --block 96
// rename: width=WIDTH, pad=PAD
// known: the compiler sinks the 32 patterned tile reads into `if (g < count)` (their sum is only
// known: stored there), so lanes and warps past count read nothing; the bundled site has every
// known: thread read. Only a partial last warp differs (n not a multiple of 32 x width / 4).
// PAD is a tunable, not a size, since a size cannot be 0.
// A 32 x 32 tile whose rows are followed by `pad` unused elements; lane l of a warp reads row l
// of column (g / 32 + read) mod 32, down one column together.
// @warplens kernel bank_conflicts_padded<WIDTH>
// @warplens size n = 1 << 24
// @warplens tune WIDTH = 4, 8, 16
// @warplens tune PAD = 1, 0, 2, 3, 4, 8, 16, 32
// @warplens arg in: in float[32 * 32 * (WIDTH / 4)] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg count: int = n / (WIDTH / 4)
// @warplens arg pad: int = PAD
// @warplens block 256
// @warplens grid ceil_div(n / (WIDTH / 4), block.x)
// @warplens shared 32 * (32 + PAD) * WIDTH
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

constexpr int kSide = 32, kReads = 32;

template <int Width>
__global__ void bank_conflicts_padded(const typename VectorOfWidth<Width>::type* in,
                                      typename VectorOfWidth<Width>::type* out, int count,
                                      int pad) {
  using T = typename VectorOfWidth<Width>::type;
  extern __shared__ float4 padded_storage[]; // float4: aligned for every width
  T* tile = reinterpret_cast<T*>(padded_storage);
  const int pitch = kSide + pad;
  for (int pass = 0;; ++pass) {
    const int e = threadIdx.x + pass * blockDim.x;
    if (e >= kSide * kSide)
      break;
    const T value = in[e];
    tile[e / kSide * pitch + e % kSide] = value;
  }
  __syncthreads();
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  T sum = T{};
  for (int read = 0; read < kReads; ++read) {
    const T value = tile[(g % kSide) * pitch + (g / kSide + read) % kSide];
    sum = vector_add(sum, value);
  }
  if (g < count)
    out[g] = sum;
}
