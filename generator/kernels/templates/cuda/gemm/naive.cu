// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): reference GEMM, one thread per output element, operands read
// straight from global memory (dequantized on the fly) with fp32 accumulation.
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};

{{OP_SNIPPET}}

// grid (ceil(N / BLOCK_N), ceil(M / BLOCK_M), GROUPS), block (BLOCK_N, BLOCK_M).
__global__ void {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  const Group g = group(op, blockIdx.z, M, N, K);
  const int n = blockIdx.x * BLOCK_N + threadIdx.x;
  const int m = blockIdx.y * BLOCK_M + threadIdx.y;
  if (m < g.rows && n < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += load_a(op, g, m, k, K) * load_b(op, g, n, k, K);
    store_c(op, g, m, n, N, acc);
  }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const dim3 block(BLOCK_N, BLOCK_M);
  const dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M, GROUPS);
  {{KERNEL_NAME}}<<<grid, block, 0, stream>>>(op, M, N, K);
}
