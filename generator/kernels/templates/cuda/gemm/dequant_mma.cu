// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): narrow-format GEMM on fp16 tensor cores. The 8/4-bit tiles stream
// through a NUM_STAGES-deep cp.async pipeline at their packed size; each warp dequantizes its A and B
// fragments from shared memory into fp16 registers (scales applied) and runs mma.sync m16n8k16, so no
// fp8/fp4 tensor-core instruction is needed.
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int BLOCK_K = {{BLOCK_K}};
constexpr int NUM_WARPS = {{NUM_WARPS}};
constexpr int NUM_STAGES = {{NUM_STAGES}};

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool pred) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(pred ? 16 : 0));
}
__device__ __forceinline__ void mma_f16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  const half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

{{OP_SNIPPET}}

constexpr int THREADS = NUM_WARPS * 32;
constexpr int WARPS_M = (NUM_WARPS == 8 && BLOCK_M >= BLOCK_N) ? 4 : 2;
constexpr int WARPS_N = NUM_WARPS / WARPS_M;
constexpr int WARP_M = BLOCK_M / WARPS_M, WARP_N = BLOCK_N / WARPS_N;
constexpr int MMA_M = WARP_M / 16, MMA_N = WARP_N / 8;
constexpr int STEP_K = 16;                                  // fp16 mma depth
constexpr int TILE_K = BLOCK_K;
constexpr int ROW_A = TILE_K * A_BITS / 8 + 16;             // packed rows, padded against bank conflicts
constexpr int ROW_B = TILE_K * B_BITS / 8 + 16;
constexpr int STAGE_BYTES = BLOCK_M * ROW_A + BLOCK_N * ROW_B;
constexpr int SMEM_BYTES = NUM_STAGES * STAGE_BYTES;
static_assert(WARP_M % 16 == 0 && WARP_N % 8 == 0, "warp tile must hold whole mma tiles");

// Issue the copies of one K tile (rows past the problem edge are zero-filled).
__device__ __forceinline__ void load_tile(uint8_t* stage, const Group& g, int m0, int n0, int k0, int N, int K) {
  constexpr int CA = (ROW_A - 16) / 16, CB = (ROW_B - 16) / 16;
  const uint8_t* a = reinterpret_cast<const uint8_t*>(g.a);
  const uint8_t* b = reinterpret_cast<const uint8_t*>(g.b);
  for (int i = threadIdx.x; i < BLOCK_M * CA; i += THREADS) {
    const int r = i / CA, c = i % CA;
    const bool ok = m0 + r < g.rows;
    const int64_t row = ok ? m0 + r : 0;
    cp_async16(stage + r * ROW_A + c * 16, a + (row * K + k0) * A_BITS / 8 + c * 16, ok);
  }
  uint8_t* sb = stage + BLOCK_M * ROW_A;
  for (int i = threadIdx.x; i < BLOCK_N * CB; i += THREADS) {
    const int r = i / CB, c = i % CB;
    const bool ok = n0 + r < N;
    const int64_t row = ok ? n0 + r : 0;
    cp_async16(sb + r * ROW_B + c * 16, b + (row * K + k0) * B_BITS / 8 + c * 16, ok);
  }
}

__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op, int M, int N, int K) {
  extern __shared__ __align__(128) uint8_t smem[];
  const Group g = group(op, blockIdx.z, M, N, K);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
  if (m0 >= g.rows) return;
  const int k_tiles = K / TILE_K;

  float acc[MMA_M][MMA_N][4] = {};
  for (int s = 0; s < NUM_STAGES - 1; ++s) {
    if (s < k_tiles) load_tile(smem + s * STAGE_BYTES, g, m0, n0, s * TILE_K, N, K);
    asm volatile("cp.async.commit_group;\n");
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(NUM_STAGES - 2));
    __syncthreads();
    const int next = kt + NUM_STAGES - 1;
    if (next < k_tiles) load_tile(smem + (next % NUM_STAGES) * STAGE_BYTES, g, m0, n0, next * TILE_K, N, K);
    asm volatile("cp.async.commit_group;\n");

    const uint8_t* sa = smem + (kt % NUM_STAGES) * STAGE_BYTES;
    const uint8_t* sb = sa + BLOCK_M * ROW_A;
#pragma unroll
    for (int s = 0; s < TILE_K / STEP_K; ++s) {
      // Thread (g = lane/4, t = lane%4) needs k = 2t, 2t+1, 2t+8, 2t+9 of rows g and g+8 (A), row g (B).
      const int kl = s * STEP_K + 2 * (lane % 4), k = kt * TILE_K + kl;
      uint32_t af[MMA_M][4], bf[MMA_N][2];
#pragma unroll
      for (int i = 0; i < MMA_M; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = wm * WARP_M + i * 16 + lane / 4 + 8 * h;
          const uint8_t* row = sa + r * ROW_A;
          const float scale = a_k_scale(op, g, min(m0 + r, g.rows - 1), k);
          af[i][h] = pack_half2(decode_a(row, kl) * scale, decode_a(row, kl + 1) * scale);
          af[i][h + 2] = pack_half2(decode_a(row, kl + 8) * scale, decode_a(row, kl + 9) * scale);
        }
#pragma unroll
      for (int j = 0; j < MMA_N; ++j) {
        const int r = wn * WARP_N + j * 8 + lane / 4;
        const uint8_t* row = sb + r * ROW_B;
        const float scale = b_k_scale(op, g, min(n0 + r, N - 1), k);
        bf[j][0] = pack_half2(decode_b(row, kl) * scale, decode_b(row, kl + 1) * scale);
        bf[j][1] = pack_half2(decode_b(row, kl + 8) * scale, decode_b(row, kl + 9) * scale);
      }
#pragma unroll
      for (int i = 0; i < MMA_M; ++i)
#pragma unroll
        for (int j = 0; j < MMA_N; ++j) mma_f16(acc[i][j], af[i], bf[j]);
    }
  }
  asm volatile("cp.async.wait_group 0;\n");

  // Accumulator (i, j, 2h + e) holds row lane/4 + 8h, column 2 * (lane % 4) + e of mma tile (i, j).
#pragma unroll
  for (int i = 0; i < MMA_M; ++i)
#pragma unroll
    for (int j = 0; j < MMA_N; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int m = m0 + wm * WARP_M + i * 16 + lane / 4 + 8 * (r / 2);
        const int n = n0 + wn * WARP_N + j * 8 + 2 * (lane % 4) + r % 2;
        if (m < g.rows && n < N) store_c(op, g, m, n, N, acc[i][j][r]);
      }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M, GROUPS);
  if (SMEM_BYTES > 48 * 1024)
    cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  {{KERNEL_NAME}}<<<grid, THREADS, SMEM_BYTES, stream>>>(op, M, N, K);
}
