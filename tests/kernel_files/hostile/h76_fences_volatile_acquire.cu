// HOSTILE: memory fences (__threadfence, fence.acq_rel.gpu), ld.acquire.gpu and st.release.gpu in inline asm. GOOD: fences ignored or noted; the acquire load and release store predicted as global load/store, 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

__global__ void k(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v;
  asm volatile("ld.acquire.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(in + i));
  __threadfence();
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("st.release.gpu.global.f32 [%0], %1;" :: "l"(out + i), "f"(v));
}
