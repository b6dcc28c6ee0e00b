// HOSTILE (valid but weird): one block of one thread (a warp with one lane). GOOD: exact, 1 request, 1 sector for the load and 1 for the store (ideal 1).
// @warplens kernel k
// @warplens size n = 1
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens block 1
// @warplens grid 1
// @warplens check none

__global__ void k(const float* in, float* out) {
  out[0] = in[0] * 3.0f;
}
