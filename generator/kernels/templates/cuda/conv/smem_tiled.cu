// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): shared-memory tiled convolution on CUDA cores. Each block computes a
// BLOCK_M (output points) x BLOCK_N (output channels) tile; the inputs and filter taps the tile needs are
// staged in shared memory once and reused by every thread (see conv_tile).
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int NUM_WARPS = {{NUM_WARPS}};

{{OP_SNIPPET}}

constexpr int THREADS = NUM_WARPS * 32;

// grid (ceil(OUT_CHANNELS / BLOCK_N), ceil(OUT_POINTS / BLOCK_M)).
__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op) {
  const int64_t p0 = (int64_t)blockIdx.y * BLOCK_M;
  const int n0 = blockIdx.x * BLOCK_N;
  conv_tile<BLOCK_M, BLOCK_N, THREADS>(op, p0, n0);
}

void launch_{{OP}}(const Operands& op, cudaStream_t stream) {
  const dim3 grid((OUT_CHANNELS + BLOCK_N - 1) / BLOCK_N, (unsigned)((OUT_POINTS + BLOCK_M - 1) / BLOCK_M));
  {{KERNEL_NAME}}<<<grid, THREADS, 0, stream>>>(op);
}
