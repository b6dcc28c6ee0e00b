// mirrors: flash_attention/d64
// compare at: --param seq=40 --param heads=1 --block 32
// compare at: --param seq=32 --param heads=2
// compare at: --param seq=50 --param heads=1 --block 64
// compare at: --param seq=1 --param heads=2
// O = softmax(Q K^T / sqrt(d)) V, one query row per thread, head size 64: the block copies each
// 32-key tile of K and V into shared memory (float4s), then every thread reads the whole tile.
// @warplens kernel flash_attention_d64
// @warplens size seq = 4096
// @warplens size heads = 8
// @warplens restrict block.x <= 256 && block.y == 1 && block.z == 1
// @warplens arg q: in float[heads * seq * 64] random(-1, 1)
// @warplens arg k: in float[heads * seq * 64] random(-1, 1)
// @warplens arg v: in float[heads * seq * 64] random(-1, 1)
// @warplens arg o: out float[heads * seq * 64]
// @warplens arg seq: int = seq
// @warplens block 64
// @warplens grid ceil_div(seq, block.x), heads
// @warplens check none

constexpr int kKeysPerTile = 32;

__device__ __forceinline__ long long row_float4(int head, int row, int seq, int d) {
  return (static_cast<long long>(head) * seq + row) * (d / 4);
}
__device__ __forceinline__ int keys_in_tile(int tile, int seq) {
  const int left = seq - tile * kKeysPerTile;
  return left < kKeysPerTile ? left : kKeysPerTile;
}

template <int D>
__device__ __forceinline__ void attention_rows(const float4* q, const float4* k, const float4* v,
                                               float4* o, int seq) {
  constexpr int kParts = D / 4;
  __shared__ float4 tiles[2 * kKeysPerTile * kParts]; // the K tile, then the V tile
  const int head = blockIdx.y;
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool owns_row = row < seq;
  const float scale = 1.0f / sqrtf(static_cast<float>(D));
  float query[D];
#pragma unroll
  for (int p = 0; p < kParts; ++p) {
    const float4 x = owns_row ? q[row_float4(head, row, seq, D) + p] : make_float4(0, 0, 0, 0);
    query[4 * p] = x.x * scale, query[4 * p + 1] = x.y * scale;
    query[4 * p + 2] = x.z * scale, query[4 * p + 3] = x.w * scale;
  }
  float acc[D] = {};
  float running_max = -INFINITY;
  float running_sum = 0.0f;
  for (int tile = 0; tile < (seq + kKeysPerTile - 1) / kKeysPerTile; ++tile) {
    const long long tile_start = row_float4(head, tile * kKeysPerTile, seq, D);
    const int copies = (kKeysPerTile * D / 4 + blockDim.x - 1) / blockDim.x;
    for (int copy = 0; copy < copies; ++copy) {
      const int f = threadIdx.x + copy * blockDim.x;
      if (!(f < keys_in_tile(tile, seq) * (D / 4)))
        continue;
      const int key_word = f / kParts * kParts + f % kParts;
      const float4 from_k = k[tile_start + f];
      tiles[key_word] = from_k;
      const int value_word = kKeysPerTile * kParts + f / kParts * kParts + f % kParts;
      const float4 from_v = v[tile_start + f];
      tiles[value_word] = from_v;
    }
    __syncthreads();
    const int keys = keys_in_tile(tile, seq);
    float score[kKeysPerTile];
    float tile_max = running_max;
#pragma unroll
    for (int key = 0; key < kKeysPerTile; ++key) {
      if (key >= keys)
        continue;
      float s = 0.0f;
#pragma unroll
      for (int p = 0; p < kParts; ++p) {
        const float4 kk = tiles[key * kParts + p];
        s += query[4 * p] * kk.x + query[4 * p + 1] * kk.y + query[4 * p + 2] * kk.z +
             query[4 * p + 3] * kk.w;
      }
      score[key] = s;
      tile_max = fmaxf(tile_max, s);
    }
    const float correction = expf(running_max - tile_max);
    running_sum *= correction;
#pragma unroll
    for (int i = 0; i < D; ++i)
      acc[i] *= correction;
#pragma unroll
    for (int key = 0; key < kKeysPerTile; ++key) {
      if (key >= keys)
        continue;
      const float weight = expf(score[key] - tile_max);
      running_sum += weight;
#pragma unroll
      for (int p = 0; p < kParts; ++p) {
        const float4 vv = tiles[kKeysPerTile * kParts + key * kParts + p];
        acc[4 * p] += weight * vv.x, acc[4 * p + 1] += weight * vv.y;
        acc[4 * p + 2] += weight * vv.z, acc[4 * p + 3] += weight * vv.w;
      }
    }
    running_max = tile_max;
    __syncthreads();
  }
  if (!owns_row)
    return;
  const float inverse_sum = 1.0f / running_sum;
#pragma unroll
  for (int p = 0; p < kParts; ++p) {
    const float4 out = make_float4(acc[4 * p] * inverse_sum, acc[4 * p + 1] * inverse_sum,
                                   acc[4 * p + 2] * inverse_sum, acc[4 * p + 3] * inverse_sum);
    o[row_float4(head, row, seq, D) + p] = out;
  }
}

__global__ void __launch_bounds__(256)
    flash_attention_d64(const float4* q, const float4* k, const float4* v, float4* o, int seq) {
  attention_rows<64>(q, k, v, o, seq);
}
