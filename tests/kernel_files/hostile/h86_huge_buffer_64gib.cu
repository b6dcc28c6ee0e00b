// HOSTILE: a 64 GiB input buffer (2^34 floats) read at a 1 GiB stride per block, so the lazily filled buffer would be touched far apart. GOOD: the model touches only what it reads (max RSS stays small, under a few hundred MB), loads 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 34
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[65536]
// @warplens block 256
// @warplens grid 256
// @warplens check none

__global__ void k(const float* in, float* out) {
  long long e = (long long)blockIdx.x * (1ll << 26) + threadIdx.x;
  out[blockIdx.x * 256 + threadIdx.x] = in[e];
}
