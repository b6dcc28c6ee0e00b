// mirrors: coalescing/offset
// compare at: --param n=4096 --param offset=1
// compare at: --param n=4098 --param offset=3 --param width=8
// compare at: --param n=1600 --param offset=1 --param width=16 --block 100
// rename: width=WIDTH
// Thread i copies in[i + offset] to out[i], one element of WIDTH bytes (float, float2, float4).
// @warplens kernel coalescing_offset<WIDTH>
// @warplens size n = 1 << 24
// @warplens size offset = 1
// @warplens tune WIDTH = 4, 8, 16
// @warplens arg in: in float[(n / (WIDTH / 4) + offset) * (WIDTH / 4)] random(-1, 1)
// @warplens arg out: out float[n]
// @warplens arg count: int = n / (WIDTH / 4)
// @warplens arg offset: int = offset
// @warplens block 256
// @warplens grid ceil_div(n / (WIDTH / 4), block.x)
// @warplens check none

template <int W> struct VectorOfWidth;
template <> struct VectorOfWidth<4> { using type = float; };
template <> struct VectorOfWidth<8> { using type = float2; };
template <> struct VectorOfWidth<16> { using type = float4; };

template <int Width>
__global__ void coalescing_offset(const typename VectorOfWidth<Width>::type* in,
                                  typename VectorOfWidth<Width>::type* out, int count, int offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    const int source = i + offset;
    const typename VectorOfWidth<Width>::type value = in[source];
    out[i] = value;
  }
}
