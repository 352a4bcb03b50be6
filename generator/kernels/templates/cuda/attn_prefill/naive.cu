// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): reference attention, one thread per query row: a single pass over
// the visible keys with an online softmax (running max and sum), the output row accumulated in fp32
// registers. Every thread streams K and V from global memory on its own.
{{PRELUDE}}

constexpr int NUM_THREADS = {{NUM_THREADS}};

{{OP_SNIPPET}}

// grid (ceil(Q_LEN / NUM_THREADS), HEADS, BATCH).
__global__ void __launch_bounds__(NUM_THREADS) {{KERNEL_NAME}}(Operands op, float softmax_scale) {
  const int b = blockIdx.z, h = blockIdx.y, i = blockIdx.x * NUM_THREADS + threadIdx.x;
  if (i >= Q_LEN) return;
  const scalar_t* q = q_row(op, b, h, i);
  float acc[HEAD_DIM] = {};
  float row_max = -INFINITY, row_sum = 0.f;
  const int n_keys = kv_end(i + 1);
  for (int j = 0; j < n_keys; ++j) {
    if (!visible(i, j)) continue;
    const scalar_t* k = k_row(op, b, h, j);
    float s = 0.f;
    for (int d = 0; d < HEAD_DIM; ++d) s += static_cast<float>(q[d]) * static_cast<float>(k[d]);
    s *= softmax_scale;
    const float new_max = fmaxf(row_max, s);
    const float corr = __expf(row_max - new_max);
    const float p = __expf(s - new_max);
    row_sum = row_sum * corr + p;
    row_max = new_max;
    const scalar_t* v = v_row(op, b, h, j);
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * corr + p * static_cast<float>(v[d]);
  }
  scalar_t* o = o_row(op, b, h, i);
  const float inv = row_sum > 0.f ? 1.f / row_sum : 0.f;
  for (int d = 0; d < HEAD_DIM; ++d) o[d] = scalar_t(acc[d] * inv);
}

void launch_{{OP}}(const Operands& op, float softmax_scale, cudaStream_t stream) {
  const dim3 grid((Q_LEN + NUM_THREADS - 1) / NUM_THREADS, HEADS, BATCH);
  {{KERNEL_NAME}}<<<grid, NUM_THREADS, 0, stream>>>(op, softmax_scale);
}
