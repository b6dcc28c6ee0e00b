// mirrors: coalescing/stride
// compare at: --param n=4096 --param stride=3
// compare at: --param n=4000 --param stride=2 --param width=8
// compare at: --param n=4096 --param stride=33 --param width=16 --block 96
// rename: width=WIDTH
// Thread i copies in[i * stride] to out[i], one element of `width` bytes (float, float2, float4).
// @warplens kernel coalescing_stride<WIDTH>
// @warplens size n = 1 << 24
// @warplens size stride = 1
// @warplens tune WIDTH = 4, 8, 16
// @warplens arg in: in float[n / (WIDTH / 4) * stride * (WIDTH / 4)] random(-1, 1)
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

template <int Width>
__global__ void coalescing_stride(const typename VectorOfWidth<Width>::type* in,
                                  typename VectorOfWidth<Width>::type* out, int count, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    const int source = i * stride;
    const typename VectorOfWidth<Width>::type value = in[source];
    out[i] = value;
  }
}
