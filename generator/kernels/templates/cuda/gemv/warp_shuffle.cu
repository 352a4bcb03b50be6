// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): one warp per output column n. Lanes stride through K so a warp's
// weight reads are coalesced, each lane keeps BATCH partial sums, and a butterfly of __shfl_xor_sync
// combines them; lane 0 writes the results.
{{PRELUDE}}

constexpr int NUM_WARPS = {{NUM_WARPS}};

constexpr int BATCH = {{SHAPE_M}};

{{OP_SNIPPET}}

__global__ void __launch_bounds__(NUM_WARPS * 32) {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  const int lane = threadIdx.x % 32;
  const int n = blockIdx.x * NUM_WARPS + threadIdx.x / 32;
  if (n >= N) return;
  const uint8_t* row = w_row(op, n, K);
  float acc[BATCH] = {};
  for (int k = lane; k < K; k += 32) {
    const float w = decode_w(row, k) * w_scale(op, n, k, K);
#pragma unroll
    for (int m = 0; m < BATCH; ++m) acc[m] += w * static_cast<float>(op.x[(int64_t)m * K + k]);
  }
#pragma unroll
  for (int m = 0; m < BATCH; ++m) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) acc[m] += __shfl_xor_sync(0xffffffff, acc[m], offset);
  }
  if (lane == 0) {
#pragma unroll
    for (int m = 0; m < BATCH; ++m) store_y(op, m, n, N, acc[m]);
  }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const int blocks = (N + NUM_WARPS - 1) / NUM_WARPS;
  {{KERNEL_NAME}}<<<blocks, NUM_WARPS * 32, 0, stream>>>(op, M, N, K);
}
