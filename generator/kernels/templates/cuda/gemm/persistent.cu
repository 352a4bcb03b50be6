// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): persistent Hopper GEMM. One block per SM (launched in clusters of
// CLUSTER_M blocks that walk neighbouring M tiles of the same B columns, so B tiles are shared through L2)
// loops over output tiles. Inside, the block is warp-specialized: a producer warpgroup keeps a NUM_STAGES
// ring of swizzled tiles full with TMA ("full" mbarriers), consumer warpgroups run wgmma.mma_async and
// release stages on "empty" mbarriers; the ring's phase carries across tiles, so loads for the next tile
// overlap the epilogue of the current one. sm_90a only.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp8.h>
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int BLOCK_K = {{BLOCK_K}};
constexpr int NUM_WARPS = {{NUM_WARPS}};
constexpr int NUM_STAGES = {{NUM_STAGES}};
constexpr int CLUSTER_M = {{CLUSTER_M}};

{{OP_SNIPPET}}

constexpr int CONSUMERS = NUM_WARPS / 4;                     // consumer warpgroups
constexpr int THREADS = NUM_WARPS * 32 + 128;                // + the producer warpgroup
constexpr int SPLIT_M = (BLOCK_M / CONSUMERS >= 64) ? CONSUMERS : 1;   // consumers split M, else N
constexpr int WG_M = BLOCK_M / SPLIT_M, WG_N = BLOCK_N / (CONSUMERS / SPLIT_M);
constexpr int INSTR_N = WG_N >= 64 ? 64 : 32;                // wgmma m64 x INSTR_N per instruction
constexpr int M_ITERS = WG_M / 64, N_ITERS = WG_N / INSTR_N;
constexpr int KBYTES = BLOCK_K * (int)sizeof(a_t);           // bytes of K per stage row
constexpr int ATOM = KBYTES < 128 ? KBYTES : 128;            // swizzle atom: 64B or 128B rows
constexpr int ATOMS = KBYTES / ATOM;
constexpr bool WIDEN_B = B_BITS != A_BITS;                   // B written by the producer threads, not TMA
constexpr int A_BYTES = BLOCK_M * KBYTES, B_BYTES = BLOCK_N * KBYTES;
constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int SMEM_BYTES = NUM_STAGES * STAGE_BYTES + 1024;  // + slack to align stages to 1024 B
typedef decltype(mma_acc_t() + 0) acc_t_;
static_assert(ATOM == 64 || ATOM == 128, "swizzle atom");
static_assert(WG_M % 64 == 0 && WG_N % INSTR_N == 0, "warpgroup tile");

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Byte offset of (row, byte) inside an ATOM-wide swizzled tile (CUTLASS Swizzle<log2(ATOM/16), 4, 3>).
__device__ __forceinline__ uint32_t swizzle(int row, int byte) {
  const uint32_t addr = row * ATOM + byte;
  return addr ^ (((addr >> 7) & (ATOM / 16 - 1)) << 4);
}

// ---- mbarriers and TMA -------------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, int phase) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAIT_%=;\n}\n" ::"r"(smem_u32(bar)), "r"(phase) : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
      ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(x), "r"(y) : "memory");
}

// ---- wgmma -----------------------------------------------------------------------------------------------
// K-major operand in an ATOM-byte swizzle: 8-row groups are 8 * ATOM bytes apart (stride byte offset).
__device__ __forceinline__ uint64_t desc(const void* p) {
  constexpr uint64_t mode = ATOM == 128 ? 1 : 2;
  return ((smem_u32(p) & 0x3FFFF) >> 4) | (1ull << 16) | (uint64_t((8 * ATOM) >> 4) << 32) | (mode << 62);
}
#define R8(c, i) c(d[i]), c(d[i + 1]), c(d[i + 2]), c(d[i + 3]), c(d[i + 4]), c(d[i + 5]), c(d[i + 6]), c(d[i + 7])
#define F(x) "+f"(x)
#define I(x) "+r"(x)
#define REGS16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define REGS32 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, " \
               "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
// One m64 x N x 32-byte step. Only the instantiation for this kernel's types reaches the assembler.
template <class T, int N> struct Wgmma;
template <> struct Wgmma<half, 64> {
  static __device__ void run(float* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " REGS32 ", %32, %33, 1, 1, 1, 0, 0;\n"
                 : R8(F, 0), R8(F, 8), R8(F, 16), R8(F, 24) : "l"(a), "l"(b));
  }
};
template <> struct Wgmma<half, 32> {
  static __device__ void run(float* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 " REGS16 ", %16, %17, 1, 1, 1, 0, 0;\n"
                 : R8(F, 0), R8(F, 8) : "l"(a), "l"(b));
  }
};
template <> struct Wgmma<__nv_bfloat16, 64> {
  static __device__ void run(float* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " REGS32 ", %32, %33, 1, 1, 1, 0, 0;\n"
                 : R8(F, 0), R8(F, 8), R8(F, 16), R8(F, 24) : "l"(a), "l"(b));
  }
};
template <> struct Wgmma<__nv_bfloat16, 32> {
  static __device__ void run(float* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 " REGS16 ", %16, %17, 1, 1, 1, 0, 0;\n"
                 : R8(F, 0), R8(F, 8) : "l"(a), "l"(b));
  }
};
template <> struct Wgmma<int8_t, 64> {
  static __device__ void run(int* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 " REGS32 ", %32, %33, 1;\n"
                 : R8(I, 0), R8(I, 8), R8(I, 16), R8(I, 24) : "l"(a), "l"(b));
  }
};
template <> struct Wgmma<int8_t, 32> {
  static __device__ void run(int* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 " REGS16 ", %16, %17, 1;\n"
                 : R8(I, 0), R8(I, 8) : "l"(a), "l"(b));
  }
};
template <int N> struct Wgmma<__nv_fp8_e4m3, N> {
  static __device__ void run(float* d, uint64_t a, uint64_t b) {
    if constexpr (N == 64)
      asm volatile("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 " REGS32 ", %32, %33, 1, 1, 1;\n"
                   : R8(F, 0), R8(F, 8), R8(F, 16), R8(F, 24) : "l"(a), "l"(b));
    else
      asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 " REGS16 ", %16, %17, 1, 1, 1;\n"
                   : R8(F, 0), R8(F, 8) : "l"(a), "l"(b));
  }
};

// Partial products of one K tile, promoted into the accumulators with their K-block scales (fine-grained
// scaled formats only; a template so other ops never need k_block_scale).
template <class Acc, class Ops, class G>
__device__ __forceinline__ void promote(Acc* acc, const Acc* part, const Ops& op, const G& g, int m, int n, int k,
                                        int lane, int warp) {
#pragma unroll
  for (int i = 0; i < INSTR_N / 2; ++i) {
    const int row = m + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    const int col = n + (i / 4) * 8 + 2 * (lane % 4) + i % 2;
    acc[i] += part[i] * k_block_scale(op, g, row < g.rows ? row : g.rows - 1, col, k);
  }
}

// Output tile t of the static schedule: M tiles fastest, so the blocks of a cluster share B columns.
struct Tile { int g, m0, n0; };
__device__ __forceinline__ Tile tile_at(int t, int tiles_m, int tiles_n) {
  const int per_group = tiles_m * tiles_n, r = t % per_group;
  return {t / per_group, (r % tiles_m) * BLOCK_M, (r / tiles_m) * BLOCK_N};
}

__global__ void __launch_bounds__(THREADS, 1) {{KERNEL_NAME}}(const __grid_constant__ CUtensorMap map_a,
                                                              const __grid_constant__ CUtensorMap map_b,
                                                              Operands op, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  __shared__ __align__(8) uint64_t full[NUM_STAGES], empty[NUM_STAGES];
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int tiles_m = (M + BLOCK_M - 1) / BLOCK_M, tiles_n = (N + BLOCK_N - 1) / BLOCK_N;
  const int tiles = tiles_m * tiles_n * GROUPS;
  const int k_tiles = K / BLOCK_K;

  if (threadIdx.x == 0) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      mbar_init(&full[s], WIDEN_B ? 128 : 1);
      mbar_init(&empty[s], CONSUMERS * 4);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");

  if (wg == 0) {  // ------------------------------------------------------------------ producer warpgroup
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    int it = 0;                                   // stage fills so far, across tiles
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      const Tile tile = tile_at(t, tiles_m, tiles_n);
      const Group g = group(op, tile.g, M, N, K);
      if (tile.m0 >= g.rows) continue;
      const int a_row0 = (int)(g.a - op.a) / K + tile.m0, b_row0 = (int)((g.b - op.b) / K) + tile.n0;
      for (int kt = 0; kt < k_tiles; ++kt, ++it) {
        const int s = it % NUM_STAGES;
        if (it >= NUM_STAGES) mbar_wait(&empty[s], (it / NUM_STAGES - 1) & 1);
        uint8_t* sa = smem + s * STAGE_BYTES;
        uint8_t* sb = sa + A_BYTES;
        if (tid == 0) {
          mbar_expect_tx(&full[s], WIDEN_B ? A_BYTES : STAGE_BYTES);
          for (int a = 0; a < ATOMS; ++a) {
            tma_load(sa + a * BLOCK_M * ATOM, &map_a, &full[s], kt * KBYTES + a * ATOM, a_row0);
            if (!WIDEN_B) tma_load(sb + a * BLOCK_N * ATOM, &map_b, &full[s], kt * KBYTES + a * ATOM, b_row0);
          }
        }
        if (WIDEN_B) {  // dequantize/widen B into the same swizzled layout TMA would have produced
          for (int i = tid; i < BLOCK_N * BLOCK_K; i += 128) {
            const int r = i / BLOCK_K, k = i % BLOCK_K, byte = k * (int)sizeof(a_t);
            const float w = tile.n0 + r < N ? load_b(op, g, tile.n0 + r, kt * BLOCK_K + k, K) : 0.f;
            *reinterpret_cast<a_t*>(sb + (byte / ATOM) * BLOCK_N * ATOM + swizzle(r, byte % ATOM)) = a_t(w);
          }
          asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");   // generic stores -> wgmma's view
          if (tid != 0) mbar_arrive(&full[s]);
        }
      }
    }
    return;
  }

  // ------------------------------------------------------------------------------------ consumer warpgroups
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int c = wg - 1, warp = tid / 32, lane = tid % 32;
  const int wm0 = (c % SPLIT_M) * WG_M, wn0 = (c / SPLIT_M) * WG_N;
  int it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const Tile tile = tile_at(t, tiles_m, tiles_n);
    const Group g = group(op, tile.g, M, N, K);
    if (tile.m0 >= g.rows) continue;
    acc_t_ acc[M_ITERS][N_ITERS][INSTR_N / 2] = {};
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int s = it % NUM_STAGES;
      mbar_wait(&full[s], (it / NUM_STAGES) & 1);
      const uint8_t* sa = smem + s * STAGE_BYTES;
      const uint8_t* sb = sa + A_BYTES;
      if constexpr (SCALE_BLOCK_K > 0) {
        acc_t_ part[M_ITERS][N_ITERS][INSTR_N / 2] = {};
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int kb = 0; kb < KBYTES; kb += 32)
#pragma unroll
          for (int i = 0; i < M_ITERS; ++i)
#pragma unroll
            for (int j = 0; j < N_ITERS; ++j)
              Wgmma<a_t, INSTR_N>::run(part[i][j], desc(sa + (kb / ATOM) * BLOCK_M * ATOM + (wm0 + 64 * i) * ATOM + kb % ATOM),
                                       desc(sb + (kb / ATOM) * BLOCK_N * ATOM + (wn0 + INSTR_N * j) * ATOM + kb % ATOM));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#pragma unroll
        for (int i = 0; i < M_ITERS; ++i)
#pragma unroll
          for (int j = 0; j < N_ITERS; ++j)
            promote(acc[i][j], part[i][j], op, g, tile.m0 + wm0 + 64 * i, tile.n0 + wn0 + INSTR_N * j, kt * BLOCK_K, lane, warp);
      } else {
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int kb = 0; kb < KBYTES; kb += 32)
#pragma unroll
          for (int i = 0; i < M_ITERS; ++i)
#pragma unroll
            for (int j = 0; j < N_ITERS; ++j)
              Wgmma<a_t, INSTR_N>::run(acc[i][j], desc(sa + (kb / ATOM) * BLOCK_M * ATOM + (wm0 + 64 * i) * ATOM + kb % ATOM),
                                       desc(sb + (kb / ATOM) * BLOCK_N * ATOM + (wn0 + INSTR_N * j) * ATOM + kb % ATOM));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      }
      if (lane == 0) mbar_arrive(&empty[s]);
    }

    // Epilogue straight from registers (the producer is already filling stages for the next tile).
#pragma unroll
    for (int i = 0; i < M_ITERS; ++i)
#pragma unroll
      for (int j = 0; j < N_ITERS; ++j)
#pragma unroll
        for (int r = 0; r < INSTR_N / 2; ++r) {
          const int m = tile.m0 + wm0 + 64 * i + 16 * warp + lane / 4 + 8 * ((r / 2) % 2);
          const int n = tile.n0 + wn0 + INSTR_N * j + (r / 4) * 8 + 2 * (lane % 4) + r % 2;
          if (m < g.rows && n < N) store_c(op, g, m, n, N, (float)acc[i][j][r]);
        }
  }
}

// Host side. Tensor maps view A and B as byte matrices (rows x K bytes) loaded in ATOM-wide swizzled boxes;
// the encoder comes from the driver through the runtime, so nothing links against libcuda.
static CUtensorMap make_map(const void* base, uint64_t rows, uint64_t row_bytes, uint32_t box_rows) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult found;
    cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                     cudaEnableDefault, &found);
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {row_bytes, rows};
  const cuuint64_t strides[1] = {row_bytes};
  const cuuint32_t box[2] = {ATOM, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box, element_strides,
         CU_TENSOR_MAP_INTERLEAVE_NONE, ATOM == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
         CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return map;
}

// A's map spans every group's M rows (the op's shape: at most M routed rows per expert). One block per SM, in
// clusters of CLUSTER_M.
void launch_{{OP}}(const Operands& op, int M, int N, int K, cudaStream_t stream) {
  const CUtensorMap map_a = make_map(op.a, (uint64_t)GROUPS * M, (uint64_t)K * sizeof(a_t), BLOCK_M);
  const CUtensorMap map_b = make_map(op.b, (uint64_t)GROUPS * N, (uint64_t)K * B_BITS / 8, BLOCK_N);
  cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int tiles = ((M + BLOCK_M - 1) / BLOCK_M) * ((N + BLOCK_N - 1) / BLOCK_N) * GROUPS;
  const int blocks = (min(sms, tiles) + CLUSTER_M - 1) / CLUSTER_M * CLUSTER_M;

  cudaLaunchAttribute cluster;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = CLUSTER_M;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(THREADS);
  config.dynamicSmemBytes = SMEM_BYTES;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, {{KERNEL_NAME}}, map_a, map_b, op, M, N, K);
}
