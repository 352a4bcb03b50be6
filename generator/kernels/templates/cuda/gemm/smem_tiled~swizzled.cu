// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): shared-memory tiled GEMM on CUDA cores. Each block stages a
// BLOCK_K-deep slice of A (BLOCK_M rows) and B (BLOCK_N rows), dequantized to fp32, in shared memory;
// each thread accumulates 4 outputs of one row, strided by BLOCK_N / 4 so neighbouring threads read
// neighbouring B columns. Blocks take their tiles in grouped order: SWIZZLE consecutive blocks walk down
// SWIZZLE tile rows of one tile column, so the A and B tiles they share are still in L2.
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int BLOCK_K = {{BLOCK_K}};

{{OP_SNIPPET}}

constexpr int THREADS = BLOCK_M * BLOCK_N / 4;
constexpr int COLS = BLOCK_N / 4;                 // threads per output row
constexpr int SWIZZLE = 8;                        // tile rows per group

__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  __shared__ float a_tile[BLOCK_K][BLOCK_M + 1];
  __shared__ float b_tile[BLOCK_K][BLOCK_N + 1];
  const Group g = group(op, blockIdx.z, M, N, K);
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int per_group = SWIZZLE * gridDim.x;
  const int first_m = tile / per_group * SWIZZLE;
  const int group_m = min((int)gridDim.y - first_m, SWIZZLE);
  const int m0 = (first_m + tile % per_group % group_m) * BLOCK_M;
  const int n0 = tile % per_group / group_m * BLOCK_N;
  const int tm = threadIdx.x / COLS, tn = threadIdx.x % COLS;

  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
    for (int i = threadIdx.x; i < BLOCK_M * BLOCK_K; i += THREADS) {
      const int r = i / BLOCK_K, c = i % BLOCK_K;
      a_tile[c][r] = (m0 + r < g.rows && k0 + c < K) ? load_a(op, g, m0 + r, k0 + c, K) : 0.f;
    }
    for (int i = threadIdx.x; i < BLOCK_N * BLOCK_K; i += THREADS) {
      const int r = i / BLOCK_K, c = i % BLOCK_K;
      b_tile[c][r] = (n0 + r < N && k0 + c < K) ? load_b(op, g, n0 + r, k0 + c, K) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_K; ++k) {
      const float a = a_tile[k][tm];
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[j] += a * b_tile[k][tn + j * COLS];
    }
    __syncthreads();
  }
  const int m = m0 + tm;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int n = n0 + tn + j * COLS;
    if (m < g.rows && n < N) store_c(op, g, m, n, N, acc[j]);
  }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M, GROUPS);
  {{KERNEL_NAME}}<<<grid, THREADS, 0, stream>>>(op, M, N, K);
}
