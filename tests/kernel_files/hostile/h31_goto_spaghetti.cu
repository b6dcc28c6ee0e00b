// HOSTILE: goto spaghetti: data-dependent jumps back and forth among 5 labels, each label a load, ending after at most 4 hops (irreducible control flow). GOOD: each label's load predicted (divergent warps: fewer lanes, ~4 sectors/req) or noted; no hang.
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
  float acc = 0; int hops = 0;
  int s = (int)(in[i] * 5.0f);
  if (s == 0) goto L0; if (s == 1) goto L1; if (s == 2) goto L2; if (s == 3) goto L3; goto L4;
L0: acc += in[(i + 1) & (n - 1)]; if (++hops > 4) goto done; if (acc > 0.5f) goto L3; goto L2;
L1: acc += in[(i + 2) & (n - 1)]; if (++hops > 4) goto done; if (acc > 0.7f) goto L0; goto L4;
L2: acc += in[(i + 3) & (n - 1)]; if (++hops > 4) goto done; if (acc > 1.1f) goto L1; goto L0;
L3: acc += in[(i + 4) & (n - 1)]; if (++hops > 4) goto done; if (acc > 0.3f) goto L2; goto L1;
L4: acc += in[(i + 5) & (n - 1)]; if (++hops > 4) goto done; goto L3;
done:
  out[i] = acc;
}
