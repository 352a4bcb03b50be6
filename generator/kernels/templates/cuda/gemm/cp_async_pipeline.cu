// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): tensor-core GEMM with a NUM_STAGES-deep cp.async pipeline.
// Tiles of A and B stream into padded shared memory while the warps run mma.sync on the stage loaded
// NUM_STAGES - 1 iterations earlier; A fragments come from ldmatrix, B fragments from the op's loader.
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
__device__ __forceinline__ void ldsm_x4(uint32_t r[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_u32(p)));
}

{{OP_SNIPPET}}

constexpr int THREADS = NUM_WARPS * 32;
constexpr int WARPS_M = (NUM_WARPS == 8 && BLOCK_M >= BLOCK_N) ? 4 : 2;
constexpr int WARPS_N = NUM_WARPS / WARPS_M;
constexpr int WARP_M = BLOCK_M / WARPS_M, WARP_N = BLOCK_N / WARPS_N;
constexpr int MMA_M = WARP_M / 16, MMA_N = WARP_N / 8;
constexpr int STEP_A = 32;                                  // bytes of an A row one mma consumes
constexpr int STEP_K = STEP_A * 8 / A_BITS;                 // ... in elements (16, 32 or 64 deep)
constexpr int STEP_B = STEP_K * B_BITS / 8;
constexpr int TILE_K = BLOCK_K > STEP_K ? BLOCK_K : STEP_K; // one mma step at least
constexpr int ROW_A = TILE_K * A_BITS / 8 + 16;             // padded: ldmatrix rows hit distinct banks
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

  mma_acc_t acc[MMA_M][MMA_N][4] = {};
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
      const int k = kt * TILE_K + s * STEP_K;
      uint32_t af[MMA_M][4], bf[MMA_N][2];
#pragma unroll
      for (int i = 0; i < MMA_M; ++i)
        ldsm_x4(af[i], sa + (wm * WARP_M + i * 16 + lane % 16) * ROW_A + s * STEP_A + (lane / 16) * 16);
#pragma unroll
      for (int j = 0; j < MMA_N; ++j) {
        const int nr = wn * WARP_N + j * 8 + lane / 4;
        b_frag(bf[j], sb + nr * ROW_B + s * STEP_B, lane, op, g, n0 + nr, k);
      }
#pragma unroll
      for (int i = 0; i < MMA_M; ++i)
#pragma unroll
        for (int j = 0; j < MMA_N; ++j)
          mma(acc[i][j], af[i], bf[j], op, g, m0 + wm * WARP_M + i * 16, n0 + wn * WARP_N + j * 8, k, lane);
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
        if (m < g.rows && n < N) store_c(op, g, m, n, N, (float)acc[i][j][r]);
      }
}

void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M, GROUPS);
  if (SMEM_BYTES > 48 * 1024)
    cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  {{KERNEL_NAME}}<<<grid, THREADS, SMEM_BYTES, stream>>>(op, M, N, K);
}
