// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): split-K GEMV for few, very long rows. SPLIT_K blocks share each
// group of output columns, each covering K / SPLIT_K with warp-per-column vector loads; partial sums go
// to an fp32 workspace with atomicAdd, and a second kernel converts and scales the totals.
{{PRELUDE}}

constexpr int VEC = {{VEC}};
constexpr int NUM_WARPS = {{NUM_WARPS}};
constexpr int SPLIT_K = {{SPLIT_K}};

constexpr int BATCH = {{SHAPE_M}};

{{OP_SNIPPET}}

// VEC elements as raw bytes, loaded with the widest aligned accesses.
template <int BYTES> struct alignas(BYTES >= 16 ? 16 : BYTES) Chunk { uint8_t b[BYTES]; };
constexpr int W_BYTES = VEC * W_BITS / 8;
constexpr int X_BYTES = VEC * (int)sizeof(x_t);
typedef Chunk<W_BYTES> WChunk;
typedef Chunk<X_BYTES> XChunk;

// grid (ceil(N / NUM_WARPS), SPLIT_K); partial[M][N] must be zeroed before the launch.
__global__ void __launch_bounds__(NUM_WARPS * 32) {{KERNEL_NAME}}(Operands op, float* __restrict__ partial, int M,
                                                                 int N, int K) {
  const int lane = threadIdx.x % 32;
  const int n = blockIdx.x * NUM_WARPS + threadIdx.x / 32;
  if (n >= N) return;
  const int k_len = K / SPLIT_K;
  const int k_begin = blockIdx.y * k_len;
  const uint8_t* row = w_row(op, n, K);
  float acc[BATCH] = {};
  for (int k = k_begin + lane * VEC; k < k_begin + k_len; k += 32 * VEC) {
    const WChunk ws = *reinterpret_cast<const WChunk*>(row + (int64_t)k * W_BITS / 8);
    const float scale = w_scale(op, n, k, K);
#pragma unroll
    for (int m = 0; m < BATCH; ++m) {
      const XChunk xs = *reinterpret_cast<const XChunk*>(op.x + (int64_t)m * K + k);
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        acc[m] += decode_w(ws.b, i) * scale * static_cast<float>(reinterpret_cast<const x_t*>(xs.b)[i]);
    }
  }
#pragma unroll
  for (int m = 0; m < BATCH; ++m) {
    float v = acc[m];
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
    if (lane == 0) atomicAdd(&partial[(int64_t)m * N + n], v);
  }
}

__global__ void __launch_bounds__(256) {{KERNEL_NAME}}_finish(Operands op, const float* __restrict__ partial, int M,
                                                              int N) {
  const int64_t idx = (int64_t)blockIdx.x * 256 + threadIdx.x;
  if (idx < (int64_t)M * N) store_y(op, idx / N, idx % N, N, partial[idx]);
}

// Grow-only fp32 workspace: allocated on the first call of a larger shape, so timed calls reuse it.
static float* workspace(size_t floats) {
  static float* buffer = nullptr;
  static size_t capacity = 0;
  if (floats > capacity) {
    cudaFree(buffer);
    cudaMalloc(&buffer, floats * sizeof(float));
    capacity = floats;
  }
  return buffer;
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  float* partial = workspace((size_t)M * N);
  cudaMemsetAsync(partial, 0, sizeof(float) * M * N, stream);
  const dim3 grid((N + NUM_WARPS - 1) / NUM_WARPS, SPLIT_K);
  {{KERNEL_NAME}}<<<grid, NUM_WARPS * 32, 0, stream>>>(op, partial, M, N, K);
  const int blocks = (int)(((int64_t)M * N + 255) / 256);
  {{KERNEL_NAME}}_finish<<<blocks, 256, 0, stream>>>(op, partial, M, N);
}
