// HOSTILE: thread-block clusters (__cluster_dims__(2,1,1)) and distributed shared memory: each block reads its neighbour block's shared array through cluster.map_shared_rank. GOOD: the remote read other[t] noted (distributed shared memory not modelled) or predicted as shared; the cluster barrier noted; the global load/store predicted 4 sectors/req.
// @warplens kernel k
// @warplens size n = 1 << 20
// @warplens arg in: in float[n] random(0, 1)
// @warplens arg out: out float[n]
// @warplens arg n: int = n
// @warplens block 256
// @warplens grid ceil_div(n, block.x)
// @warplens check none

#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) k(const float* in, float* out, int n) {
  __shared__ float s[256];
  cg::cluster_group cluster = cg::this_cluster();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  cluster.sync();
  float* other = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
  float v = other[threadIdx.x];
  cluster.sync();
  out[i] = v;
}
