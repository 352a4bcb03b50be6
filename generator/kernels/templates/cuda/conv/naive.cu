// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): reference convolution, one thread per output element reading its
// inputs and filter taps straight from global memory, fp32 accumulation.
{{PRELUDE}}

constexpr int NUM_THREADS = {{NUM_THREADS}};

{{OP_SNIPPET}}

__global__ void __launch_bounds__(NUM_THREADS) {{KERNEL_NAME}}(Operands op) {
  const int64_t idx = (int64_t)blockIdx.x * NUM_THREADS + threadIdx.x;
  if (idx >= OUT_POINTS * OUT_CHANNELS) return;
  const int64_t p = idx / OUT_CHANNELS;
  const int n = idx % OUT_CHANNELS;
  store_out(op, p, n, conv_point(op, p, n));
}

void launch_{{OP}}(const Operands& op, cudaStream_t stream) {
  const int64_t outputs = OUT_POINTS * OUT_CHANNELS;
  const unsigned blocks = (unsigned)((outputs + NUM_THREADS - 1) / NUM_THREADS);
  {{KERNEL_NAME}}<<<blocks, NUM_THREADS, 0, stream>>>(op);
}
