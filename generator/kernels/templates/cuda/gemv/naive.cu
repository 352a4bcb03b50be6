// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): reference GEMV, one thread per output column n walking all of K
// for the BATCH activation rows. Neighbouring threads read rows K elements apart: uncoalesced.
{{PRELUDE}}

constexpr int NUM_THREADS = {{NUM_THREADS}};

constexpr int BATCH = {{SHAPE_M}};

{{OP_SNIPPET}}

__global__ void __launch_bounds__(NUM_THREADS) {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  const int n = blockIdx.x * NUM_THREADS + threadIdx.x;
  if (n >= N) return;
  const uint8_t* row = w_row(op, n, K);
  float acc[BATCH] = {};
  for (int k = 0; k < K; ++k) {
    const float w = decode_w(row, k) * w_scale(op, n, k, K);
#pragma unroll
    for (int m = 0; m < BATCH; ++m) acc[m] += w * static_cast<float>(op.x[(int64_t)m * K + k]);
  }
#pragma unroll
  for (int m = 0; m < BATCH; ++m) store_y(op, m, n, N, acc[m]);
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const int blocks = (N + NUM_THREADS - 1) / NUM_THREADS;
  {{KERNEL_NAME}}<<<blocks, NUM_THREADS, 0, stream>>>(op, M, N, K);
}
