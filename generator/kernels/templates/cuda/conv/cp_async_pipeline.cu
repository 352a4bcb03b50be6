// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): implicit-GEMM convolution on tensor cores with a NUM_STAGES-deep
// cp.async pipeline. A is the im2col view of x (gathered 16 bytes = 8 channels of one filter tap at a
// time, zero-filled in the padding), B the filters [K][R*S*C]; warps run mma.sync m16n8k16 on the stage
// loaded NUM_STAGES - 1 iterations earlier.
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

__device__ __forceinline__ void mma_16816(float d[4], const uint32_t a[4], const uint32_t b[2], half) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_16816(float d[4], const uint32_t a[4], const uint32_t b[2], __nv_bfloat16) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

constexpr int THREADS = NUM_WARPS * 32;
constexpr int WARPS_M = (NUM_WARPS == 8 && BLOCK_M >= BLOCK_N) ? 4 : 2;
constexpr int WARPS_N = NUM_WARPS / WARPS_M;
constexpr int WARP_M = BLOCK_M / WARPS_M, WARP_N = BLOCK_N / WARPS_N;
constexpr int MMA_M = WARP_M / 16, MMA_N = WARP_N / 8;
constexpr int STEP_K = 16;                                  // mma depth (elements)
constexpr int ROW = BLOCK_K * 2 + 16;                       // padded row bytes: ldmatrix rows hit distinct banks
static_assert(CIN % 8 == 0 && REDUCE % BLOCK_K == 0, "16-byte chunks must not straddle filter taps");
constexpr int STAGE_BYTES = (BLOCK_M + BLOCK_N) * ROW;
constexpr int SMEM_BYTES = NUM_STAGES * STAGE_BYTES;
static_assert(WARP_M % 16 == 0 && WARP_N % 8 == 0, "warp tile must hold whole mma tiles");

// Issue the copies of one reduction tile: im2col rows of A (zero-filled in the padding and past the last
// pixel) and filter rows of B.
__device__ __forceinline__ void load_tile(uint8_t* stage, const Operands& op, int64_t p0, int n0, int k0) {
  constexpr int CHUNKS = BLOCK_K / 8;
  for (int i = threadIdx.x; i < BLOCK_M * CHUNKS; i += THREADS) {
    const int r = i / CHUNKS, kk = k0 + (i % CHUNKS) * 8;
    const int64_t p = p0 + r;
    const int c = kk % CIN, tap = kk / CIN;
    const int w = p % WIDTH + tap % FILTER_S - FILTER_S / 2;
    const int h = (p / WIDTH) % HEIGHT + tap / FILTER_S - FILTER_R / 2;
    const bool ok = p < OUT_POINTS && h >= 0 && h < HEIGHT && w >= 0 && w < WIDTH;
    const scalar_t* src = ok ? op.x + ((p / (WIDTH * HEIGHT) * HEIGHT + h) * WIDTH + w) * CIN + c : op.x;
    cp_async16(stage + r * ROW + (i % CHUNKS) * 16, src, ok);
  }
  uint8_t* sb = stage + BLOCK_M * ROW;
  for (int i = threadIdx.x; i < BLOCK_N * CHUNKS; i += THREADS) {
    const int r = i / CHUNKS, c = i % CHUNKS;
    const bool ok = n0 + r < COUT;
    cp_async16(sb + r * ROW + c * 16, op.weight + (int64_t)(ok ? n0 + r : 0) * REDUCE + k0 + c * 8, ok);
  }
}

// grid (ceil(K / BLOCK_N), ceil(N*H*W / BLOCK_M)).
__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op) {
  extern __shared__ __align__(128) uint8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int64_t p0 = (int64_t)blockIdx.y * BLOCK_M;
  const int n0 = blockIdx.x * BLOCK_N;
  constexpr int K_TILES = REDUCE / BLOCK_K;

  float acc[MMA_M][MMA_N][4] = {};
  for (int s = 0; s < NUM_STAGES - 1; ++s) {
    if (s < K_TILES) load_tile(smem + s * STAGE_BYTES, op, p0, n0, s * BLOCK_K);
    asm volatile("cp.async.commit_group;\n");
  }
  for (int kt = 0; kt < K_TILES; ++kt) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(NUM_STAGES - 2));
    __syncthreads();
    const int next = kt + NUM_STAGES - 1;
    if (next < K_TILES) load_tile(smem + (next % NUM_STAGES) * STAGE_BYTES, op, p0, n0, next * BLOCK_K);
    asm volatile("cp.async.commit_group;\n");

    const uint8_t* sa = smem + (kt % NUM_STAGES) * STAGE_BYTES;
    const uint8_t* sb = sa + BLOCK_M * ROW;
#pragma unroll
    for (int s = 0; s < BLOCK_K / STEP_K; ++s) {
      uint32_t af[MMA_M][4], bf[MMA_N][2];
#pragma unroll
      for (int i = 0; i < MMA_M; ++i)
        ldsm_x4(af[i], sa + (wm * WARP_M + i * 16 + lane % 16) * ROW + s * 32 + (lane / 16) * 16);
#pragma unroll
      for (int j = 0; j < MMA_N; ++j) {
        const uint8_t* row = sb + (wn * WARP_N + j * 8 + lane / 4) * ROW + s * 32;
        bf[j][0] = *reinterpret_cast<const uint32_t*>(row + 4 * (lane % 4));
        bf[j][1] = *reinterpret_cast<const uint32_t*>(row + 16 + 4 * (lane % 4));
      }
#pragma unroll
      for (int i = 0; i < MMA_M; ++i)
#pragma unroll
        for (int j = 0; j < MMA_N; ++j) mma_16816(acc[i][j], af[i], bf[j], scalar_t());
    }
  }
  asm volatile("cp.async.wait_group 0;\n");

  // Accumulator (i, j, r = 2h + e) holds row lane/4 + 8h, column 2 * (lane % 4) + e of mma tile (i, j).
#pragma unroll
  for (int i = 0; i < MMA_M; ++i)
#pragma unroll
    for (int j = 0; j < MMA_N; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int64_t p = p0 + wm * WARP_M + i * 16 + lane / 4 + 8 * (r / 2);
        const int n = n0 + wn * WARP_N + j * 8 + 2 * (lane % 4) + r % 2;
        if (p < OUT_POINTS && n < COUT) store_out(op, p, n, acc[i][j][r]);
      }
}

void launch_{{OP}}(const Operands& op, cudaStream_t stream) {
  const dim3 grid((COUT + BLOCK_N - 1) / BLOCK_N, (unsigned)((OUT_POINTS + BLOCK_M - 1) / BLOCK_M));
  if (SMEM_BYTES > 48 * 1024)
    cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  {{KERNEL_NAME}}<<<grid, THREADS, SMEM_BYTES, stream>>>(op);
}
