// mirrors: coalescing/random
// compare at: --param n=4096
// compare at: --param n=4098 --param width=8 --param gather_seed=7
// compare at: --param n=1604 --param width=16 --param gather_seed=3 --block 100
// rename: width=WIDTH
// Thread i reads index[i], then in[that], and writes out[i]. The bundled kernel's init writes
// index[i] = random_source(i, count, gather_seed), a hash a kernel file's fills cannot make; here
// index is filled with iota (index[i] = i) and the kernel hashes what it reads, so the gather
// still follows the data it loads and reads exactly the elements the bundled kernel reads.
// @warplens kernel coalescing_random<WIDTH>
// @warplens size n = 1 << 24
// @warplens size gather_seed = 1
// @warplens tune WIDTH = 4, 8, 16
// @warplens arg in: in float[n] random(-1, 1)
// @warplens arg index: in int[n / (WIDTH / 4)] iota
// @warplens arg out: out float[n]
// @warplens arg count: int = n / (WIDTH / 4)
// @warplens arg seed: unsigned = gather_seed
// @warplens block 256
// @warplens grid ceil_div(n / (WIDTH / 4), block.x)
// @warplens check none

template <int W> struct VectorOfWidth;
template <> struct VectorOfWidth<4> { using type = float; };
template <> struct VectorOfWidth<8> { using type = float2; };
template <> struct VectorOfWidth<16> { using type = float4; };

__device__ unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// kernels/index/coalescing.h's random_source: a hash of (seed, element) scaled into [0, count).
__device__ int random_source(int element, int count, unsigned seed) {
  const unsigned h = mix32(static_cast<unsigned>(element) ^ mix32(seed ^ 0x9e3779b9u));
  return static_cast<int>(
      (static_cast<unsigned long long>(h) * static_cast<unsigned long long>(count)) >> 32);
}

template <int Width>
__global__ void coalescing_random(const typename VectorOfWidth<Width>::type* in, const int* index,
                                  typename VectorOfWidth<Width>::type* out, int count,
                                  unsigned seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    const int loaded = index[i];
    const int source = random_source(loaded, count, seed);
    const typename VectorOfWidth<Width>::type value = in[source];
    out[i] = value;
  }
}
