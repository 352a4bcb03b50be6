// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): causal depthwise conv1d, one thread per VEC adjacent channels of one
// position: the TAPS input rows and the taps are read as VEC-wide vectors, accumulated in fp32 registers,
// and the silu(acc + bias) results written back as one vector.
{{PRELUDE}}

constexpr int VEC = {{VEC}};
constexpr int NUM_THREADS = {{NUM_THREADS}};

{{OP_SNIPPET}}

struct alignas(VEC * sizeof(scalar_t)) Pack { scalar_t v[VEC]; };

__global__ void __launch_bounds__(NUM_THREADS) {{KERNEL_NAME}}(Operands op) {
  const int64_t idx = (int64_t)blockIdx.x * NUM_THREADS + threadIdx.x;   // (position, channel group)
  constexpr int GROUPS_PER_ROW = CHANNELS / VEC;
  if (idx >= OUT_POINTS * GROUPS_PER_ROW) return;
  const int64_t p = idx / GROUPS_PER_ROW;
  const int d0 = (idx % GROUPS_PER_ROW) * VEC;
  const int l = p % SEQ;

  float acc[VEC];
  const Pack bias = *reinterpret_cast<const Pack*>(op.bias + d0);
#pragma unroll
  for (int i = 0; i < VEC; ++i) acc[i] = static_cast<float>(bias.v[i]);
#pragma unroll
  for (int j = 0; j < TAPS; ++j) {
    const int t = l - TAPS + 1 + j;
    if (t < 0) continue;
    const Pack x = *reinterpret_cast<const Pack*>(op.x + (p - l + t) * CHANNELS + d0);
#pragma unroll
    for (int i = 0; i < VEC; ++i) acc[i] += static_cast<float>(op.weight[(d0 + i) * TAPS + j]) * static_cast<float>(x.v[i]);
  }
  Pack out;
#pragma unroll
  for (int i = 0; i < VEC; ++i) out.v[i] = scalar_t(silu(acc[i]));
  *reinterpret_cast<Pack*>(op.y + p * CHANNELS + d0) = out;
}

void launch_{{OP}}(const Operands& op, cudaStream_t stream) {
  const int64_t threads = OUT_POINTS * (CHANNELS / VEC);
  const unsigned blocks = (unsigned)((threads + NUM_THREADS - 1) / NUM_THREADS);
  {{KERNEL_NAME}}<<<blocks, NUM_THREADS, 0, stream>>>(op);
}
