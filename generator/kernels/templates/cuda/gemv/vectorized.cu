// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): bandwidth-bound GEMV. Each warp owns ROWS_PER_WARP output columns;
// every lane loads VEC consecutive weights of a row in one vector access (and the matching VEC
// activations), dequantizes them in registers, and the warp reduces with __shfl_xor_sync.
{{PRELUDE}}

constexpr int VEC = {{VEC}};
constexpr int NUM_WARPS = {{NUM_WARPS}};
constexpr int ROWS_PER_WARP = {{ROWS_PER_WARP}};

constexpr int BATCH = {{SHAPE_M}};

{{OP_SNIPPET}}

// VEC elements as raw bytes, loaded with the widest aligned accesses.
template <int BYTES> struct alignas(BYTES >= 16 ? 16 : BYTES) Chunk { uint8_t b[BYTES]; };
constexpr int W_BYTES = VEC * W_BITS / 8;
constexpr int X_BYTES = VEC * (int)sizeof(x_t);
typedef Chunk<W_BYTES> WChunk;
typedef Chunk<X_BYTES> XChunk;

__global__ void __launch_bounds__(NUM_WARPS * 32) {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  const int lane = threadIdx.x % 32;
  const int n0 = (blockIdx.x * NUM_WARPS + threadIdx.x / 32) * ROWS_PER_WARP;
  float acc[ROWS_PER_WARP][BATCH] = {};
  for (int k = lane * VEC; k < K; k += 32 * VEC) {
    XChunk xs[BATCH];
#pragma unroll
    for (int m = 0; m < BATCH; ++m) xs[m] = *reinterpret_cast<const XChunk*>(op.x + (int64_t)m * K + k);
#pragma unroll
    for (int r = 0; r < ROWS_PER_WARP; ++r) {
      const int n = n0 + r;
      if (n >= N) break;
      const WChunk ws = *reinterpret_cast<const WChunk*>(w_row(op, n, K) + (int64_t)k * W_BITS / 8);
      const float scale = w_scale(op, n, k, K);
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float w = decode_w(ws.b, i) * scale;
#pragma unroll
        for (int m = 0; m < BATCH; ++m) acc[r][m] += w * static_cast<float>(reinterpret_cast<const x_t*>(xs[m].b)[i]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS_PER_WARP; ++r)
#pragma unroll
    for (int m = 0; m < BATCH; ++m) {
      float v = acc[r][m];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
      if (lane == 0 && n0 + r < N) store_y(op, m, n0 + r, N, v);
    }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const int rows_per_block = NUM_WARPS * ROWS_PER_WARP;
  const int blocks = (N + rows_per_block - 1) / rows_per_block;
  {{KERNEL_NAME}}<<<blocks, NUM_WARPS * 32, 0, stream>>>(op, M, N, K);
}
