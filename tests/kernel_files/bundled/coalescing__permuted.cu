// mirrors: coalescing/permuted
// compare at: --param n=4096
// compare at: --param n=4098 --param width=8
// compare at: --param n=1604 --param width=16 --block 100
// rename: width=WIDTH
// Within each run of 32 threads, lane l reads element (13 l + 7) mod 32 of the run's 32.
// @warplens kernel coalescing_permuted<WIDTH>
// @warplens size n = 1 << 24
// @warplens tune WIDTH = 4, 8, 16
// @warplens arg in: in float[ceil_div(n / (WIDTH / 4), 32) * 32 * (WIDTH / 4)] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg count: int = n / (WIDTH / 4)
// @warplens block 256
// @warplens grid ceil_div(n / (WIDTH / 4), block.x)
// @warplens check none

template <int W> struct VectorOfWidth;
template <> struct VectorOfWidth<4> { using type = float; };
template <> struct VectorOfWidth<8> { using type = float2; };
template <> struct VectorOfWidth<16> { using type = float4; };

template <int Width>
__global__ void coalescing_permuted(const typename VectorOfWidth<Width>::type* in,
                                    typename VectorOfWidth<Width>::type* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    const int segment_start = i - i % 32;
    const int source = segment_start + (13 * (i % 32) + 7) % 32;
    const typename VectorOfWidth<Width>::type value = in[source];
    out[i] = value;
  }
}
