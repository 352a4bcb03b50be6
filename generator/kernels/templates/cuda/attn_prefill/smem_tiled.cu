// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): tiled attention on CUDA cores (FlashAttention-1 style). A block
// stages BLOCK_M query rows and, in turn, BLOCK_N-key tiles of K and V in shared memory. Each warp owns
// BLOCK_M / NUM_WARPS query rows: lanes score the tile's keys in parallel, warp shuffles give the row
// max and sum, and each lane updates HEAD_DIM / 32 output dims with an online softmax.
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int NUM_WARPS = {{NUM_WARPS}};

{{OP_SNIPPET}}

constexpr int THREADS = NUM_WARPS * 32;
constexpr int ROWS_PER_WARP = BLOCK_M / NUM_WARPS;
constexpr int KEYS_PER_LANE = (BLOCK_N + 31) / 32;
constexpr int DIMS_PER_LANE = HEAD_DIM / 32;
constexpr int SMEM_BYTES = (BLOCK_M + 2 * BLOCK_N) * HEAD_DIM * (int)sizeof(scalar_t);

// grid (ceil(Q_LEN / BLOCK_M), HEADS, BATCH).
__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op, float softmax_scale) {
  extern __shared__ __align__(16) uint8_t smem[];
  scalar_t* sq = reinterpret_cast<scalar_t*>(smem);
  scalar_t* sk = sq + BLOCK_M * HEAD_DIM;
  scalar_t* sv = sk + BLOCK_N * HEAD_DIM;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * BLOCK_M;

  for (int i = threadIdx.x; i < BLOCK_M * HEAD_DIM; i += THREADS) {
    const int r = i / HEAD_DIM, d = i % HEAD_DIM;
    sq[i] = q0 + r < Q_LEN ? q_row(op, b, h, q0 + r)[d] : scalar_t(0.f);
  }
  float acc[ROWS_PER_WARP][DIMS_PER_LANE] = {};
  float row_max[ROWS_PER_WARP], row_sum[ROWS_PER_WARP] = {};
#pragma unroll
  for (int r = 0; r < ROWS_PER_WARP; ++r) row_max[r] = -INFINITY;

  const int n_end = kv_end(min(q0 + BLOCK_M, Q_LEN));
  for (int n0 = 0; n0 < n_end; n0 += BLOCK_N) {
    __syncthreads();
    for (int i = threadIdx.x; i < BLOCK_N * HEAD_DIM; i += THREADS) {
      const int r = i / HEAD_DIM, d = i % HEAD_DIM;
      const bool ok = n0 + r < KV_LEN;
      sk[i] = ok ? k_row(op, b, h, n0 + r)[d] : scalar_t(0.f);
      sv[i] = ok ? v_row(op, b, h, n0 + r)[d] : scalar_t(0.f);
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ROWS_PER_WARP; ++r) {   // unrolled: acc, row_max and row_sum stay in registers
      const int row = warp * ROWS_PER_WARP + r, qi = q0 + row;
      float p[KEYS_PER_LANE];
      float mx = row_max[r];
#pragma unroll
      for (int c = 0; c < KEYS_PER_LANE; ++c) {
        const int j = lane + 32 * c;
        float s = -INFINITY;
        if (j < BLOCK_N && n0 + j < KV_LEN && visible(qi, n0 + j)) {
          s = 0.f;
#pragma unroll 8
          for (int d = 0; d < HEAD_DIM; ++d)
            s += static_cast<float>(sq[row * HEAD_DIM + d]) * static_cast<float>(sk[j * HEAD_DIM + d]);
          s *= softmax_scale;
        }
        p[c] = s;
        mx = fmaxf(mx, s);
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, offset));
      const float base = mx == -INFINITY ? 0.f : mx;
      const float corr = __expf(row_max[r] - base);
      float tile_sum = 0.f;
#pragma unroll
      for (int c = 0; c < KEYS_PER_LANE; ++c) {
        p[c] = __expf(p[c] - base);
        tile_sum += p[c];
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) tile_sum += __shfl_xor_sync(0xffffffff, tile_sum, offset);
      row_sum[r] = row_sum[r] * corr + tile_sum;
      row_max[r] = mx;
#pragma unroll
      for (int e = 0; e < DIMS_PER_LANE; ++e) acc[r][e] *= corr;
#pragma unroll 4
      for (int j = 0; j < BLOCK_N; ++j) {
        const float pj = __shfl_sync(0xffffffff, p[j / 32], j % 32);
#pragma unroll
        for (int e = 0; e < DIMS_PER_LANE; ++e) acc[r][e] += pj * static_cast<float>(sv[j * HEAD_DIM + lane + 32 * e]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS_PER_WARP; ++r) {
    const int qi = q0 + warp * ROWS_PER_WARP + r;
    if (qi >= Q_LEN) continue;
    const float inv = row_sum[r] > 0.f ? 1.f / row_sum[r] : 0.f;
    scalar_t* o = o_row(op, b, h, qi);
#pragma unroll
    for (int e = 0; e < DIMS_PER_LANE; ++e) o[lane + 32 * e] = scalar_t(acc[r][e] * inv);
  }
}

void launch_{{OP}}(const Operands& op, float softmax_scale, cudaStream_t stream) {
  const dim3 grid((Q_LEN + BLOCK_M - 1) / BLOCK_M, HEADS, BATCH);
  if (SMEM_BYTES > 48 * 1024)
    cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  {{KERNEL_NAME}}<<<grid, THREADS, SMEM_BYTES, stream>>>(op, softmax_scale);
}
