// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): register-tiled GEMM on CUDA cores. Shared-memory tiles as in the
// tiled kernel, but each thread owns a TM x TN block of outputs: per k it loads TM values of A and TN of
// B into registers and does TM * TN FMAs, so shared-memory traffic per FMA drops by (TM + TN) / (TM * TN).
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int BLOCK_K = {{BLOCK_K}};
constexpr int TM = {{TM}};
constexpr int TN = {{TN}};

{{OP_SNIPPET}}

constexpr int THREADS = (BLOCK_M / TM) * (BLOCK_N / TN);
constexpr int COLS = BLOCK_N / TN;                // threads across a row of thread tiles

__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  __shared__ float a_tile[BLOCK_K][BLOCK_M];
  __shared__ float b_tile[BLOCK_K][BLOCK_N];
  const Group g = group(op, blockIdx.z, M, N, K);
  const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
  const int tm = threadIdx.x / COLS, tn = threadIdx.x % COLS;

  float acc[TM][TN] = {};
  float a_reg[TM], b_reg[TN];
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
#pragma unroll
      for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[k][tm * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[k][tn * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int m = m0 + tm * TM + i, n = n0 + tn * TN + j;
      if (m < g.rows && n < N) store_c(op, g, m, n, N, acc[i][j]);
    }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M, GROUPS);
  {{KERNEL_NAME}}<<<grid, THREADS, 0, stream>>>(op, M, N, K);
}
