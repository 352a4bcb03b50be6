// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): FlashAttention-3 style prefill for Hopper. A producer warpgroup loads
// Q once and streams K/V tiles through a NUM_STAGES ring with TMA (128B-swizzled boxes, "full" mbarriers);
// each consumer warpgroup owns 64-row query tiles: S = Q K^T with wgmma from shared memory, an online
// softmax in registers, then O += P V with P fed to wgmma straight from registers and V read transposed.
// Stages go back to the producer through "empty" mbarriers. sm_90a only.
#include <cuda.h>
#include <cudaTypedefs.h>
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int NUM_STAGES = {{NUM_STAGES}};
constexpr int NUM_WARPS = {{NUM_WARPS}};

{{OP_SNIPPET}}

constexpr int CONSUMERS = NUM_WARPS / 4;
constexpr int THREADS = NUM_WARPS * 32 + 128;                // + the producer warpgroup
constexpr int ROW_TILES = BLOCK_M / 64;
constexpr int WG_TILES = (ROW_TILES + CONSUMERS - 1) / CONSUMERS;   // 64-row tiles per consumer
constexpr int ATOMS = HEAD_DIM * 2 / 128;                   // 128-byte swizzle atoms across a row
constexpr int BOX_ROWS = BLOCK_N < KV_BOX_ROWS ? BLOCK_N : KV_BOX_ROWS;
constexpr int Q_BYTES = BLOCK_M * HEAD_DIM * 2, KV_BYTES = BLOCK_N * HEAD_DIM * 2;
constexpr int STAGE_BYTES = 2 * KV_BYTES;                    // K then V
constexpr int SMEM_BYTES = Q_BYTES + NUM_STAGES * STAGE_BYTES + 1024;
static_assert(HEAD_DIM % 64 == 0 && BLOCK_M % 64 == 0 && BLOCK_N % 16 == 0 && BLOCK_N % BOX_ROWS == 0, "tiles");

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
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
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int64_t y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n"
      ::"r"(smem_u32(dst)), "l"(map), "r"(smem_u32(bar)), "r"(x), "r"((int)y) : "memory");
}
// rows x HEAD_DIM tile in 128B-swizzled atoms: [atom][rows][128 bytes].
__device__ __forceinline__ void load_tile(uint8_t* dst, int rows, const CUtensorMap* map, uint64_t* bar,
                                          int64_t first_row, int box_rows) {
  for (int a = 0; a < ATOMS; ++a)
    for (int r = 0; r < rows; r += box_rows) tma_load(dst + (a * rows + r) * 128, map, bar, a * 128, first_row + r);
}

// Descriptors: K-major (Q, K) or MN-major (V, read transposed) operands in 128-byte swizzle atoms.
__device__ __forceinline__ uint64_t desc(const void* p, uint32_t lead, uint32_t stride) {
  return ((smem_u32(p) & 0x3FFFF) >> 4) | (uint64_t(lead >> 4) << 16) | (uint64_t(stride >> 4) << 32) | (1ull << 62);
}
#define F8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
// m64n16k16, both operands in shared memory (S = Q K^T) or A from registers with B transposed (O += P V).
template <class T> struct Wgmma;
template <> struct Wgmma<half> {
  static __device__ void ss(float* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, 1, 1, 0, 0;\n"
                 : F8(0) : "l"(a), "l"(b));
  }
  static __device__ void rs(float* d, const uint32_t* a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, 1, 1, 1, 1;\n"
                 : F8(0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
};
template <> struct Wgmma<__nv_bfloat16> {
  static __device__ void ss(float* d, uint64_t a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, 1, 1, 1, 0, 0;\n"
                 : F8(0) : "l"(a), "l"(b));
  }
  static __device__ void rs(float* d, const uint32_t* a, uint64_t b) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9, %10, %11}, %12, 1, 1, 1, 1;\n"
                 : F8(0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
};
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  union { scalar_t h[2]; uint32_t u; } pair;
  pair.h[0] = scalar_t(lo);
  pair.h[1] = scalar_t(hi);
  return pair.u;
}

// grid (ceil(Q_LEN / BLOCK_M), HEADS, BATCH).
__global__ void __launch_bounds__(THREADS, 1) {{KERNEL_NAME}}(const __grid_constant__ CUtensorMap map_q,
                                                              const __grid_constant__ CUtensorMap map_k,
                                                              const __grid_constant__ CUtensorMap map_v,
                                                              Operands op, float softmax_scale) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* sq = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* ring = sq + Q_BYTES;
  __shared__ __align__(8) uint64_t full[NUM_STAGES], empty[NUM_STAGES], q_full;
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * BLOCK_M;
  const int n_tiles = (kv_end(min(q0 + BLOCK_M, Q_LEN)) + BLOCK_N - 1) / BLOCK_N;

  if (threadIdx.x == 0) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], CONSUMERS * 4);
    }
    mbar_init(&q_full, 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {  // ------------------------------------------------------------------ producer warpgroup
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (tid != 0) return;
    mbar_expect_tx(&q_full, Q_BYTES);
    load_tile(sq, BLOCK_M, &map_q, &q_full, ((int64_t)b * HEADS + h) * Q_LEN + q0, BLOCK_M);
    for (int t = 0; t < n_tiles; ++t) {
      const int s = t % NUM_STAGES;
      if (t >= NUM_STAGES) mbar_wait(&empty[s], (t / NUM_STAGES - 1) & 1);
      uint8_t* sk = ring + s * STAGE_BYTES;
      mbar_expect_tx(&full[s], STAGE_BYTES);
      for (int r = 0; r < BLOCK_N; r += BOX_ROWS) {
        const int64_t row = kv_row(op, b, h, min(t * BLOCK_N + r, KV_LEN - 1));
        for (int a = 0; a < ATOMS; ++a) {
          tma_load(sk + (a * BLOCK_N + r) * 128, &map_k, &full[s], a * 128, row);
          tma_load(sk + KV_BYTES + (a * BLOCK_N + r) * 128, &map_v, &full[s], a * 128, row);
        }
      }
    }
    return;
  }

  // ------------------------------------------------------------------------------------ consumer warpgroups
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int c = wg - 1, warp = tid / 32, lane = tid % 32;
  float acc[WG_TILES][HEAD_DIM / 16][8] = {};
  float row_max[WG_TILES][2], row_sum[WG_TILES][2] = {};
#pragma unroll
  for (int w = 0; w < WG_TILES; ++w) row_max[w][0] = row_max[w][1] = -INFINITY;
  const float scale_log2 = softmax_scale * 1.4426950408889634f;
  mbar_wait(&q_full, 0);

  for (int t = 0; t < n_tiles; ++t) {
    const int s = t % NUM_STAGES;
    mbar_wait(&full[s], (t / NUM_STAGES) & 1);
    const uint8_t* sk = ring + s * STAGE_BYTES;
    const uint8_t* sv = sk + KV_BYTES;
#pragma unroll
    for (int w = 0; w < WG_TILES; ++w) {
      const int tile = c + w * CONSUMERS;
      if (tile >= ROW_TILES) break;
      float sc[BLOCK_N / 16][8] = {};
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int kb = 0; kb < HEAD_DIM * 2; kb += 32)
#pragma unroll
        for (int j = 0; j < BLOCK_N / 16; ++j)
          Wgmma<scalar_t>::ss(sc[j], desc(sq + ((kb / 128) * BLOCK_M + tile * 64) * 128 + kb % 128, 16, 1024),
                              desc(sk + ((kb / 128) * BLOCK_N + j * 16) * 128 + kb % 128, 16, 1024));
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

      // Online softmax; this thread holds rows 16 * warp + lane/4 (hh = 0) and + 8 (hh = 1) of the tile.
      // Register i of an n16 block: column (i / 4) * 8 + 2 * (lane % 4) + i % 2, row half (i / 2) % 2.
#pragma unroll
      for (int hh = 0; hh < 2; ++hh) {
        const int qi = q0 + tile * 64 + 16 * warp + lane / 4 + 8 * hh;
        float mx = row_max[w][hh];
#pragma unroll
        for (int j = 0; j < BLOCK_N / 16; ++j)
#pragma unroll
          for (int q = 0; q < 2; ++q)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int kj = t * BLOCK_N + j * 16 + q * 8 + 2 * (lane % 4) + e;
              float x = sc[j][4 * q + 2 * hh + e] * scale_log2;
              if (!(kj < KV_LEN && visible(qi, kj))) x = -INFINITY;
              sc[j][4 * q + 2 * hh + e] = x;
              mx = fmaxf(mx, x);
            }
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 2));
        const float base = mx == -INFINITY ? 0.f : mx;
        const float corr = exp2f(row_max[w][hh] - base);
        row_max[w][hh] = mx;
        row_sum[w][hh] *= corr;
#pragma unroll
        for (int d = 0; d < HEAD_DIM / 16; ++d)
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            acc[w][d][4 * q + 2 * hh] *= corr;
            acc[w][d][4 * q + 2 * hh + 1] *= corr;
          }
#pragma unroll
        for (int j = 0; j < BLOCK_N / 16; ++j)
#pragma unroll
          for (int q = 0; q < 2; ++q)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const float p = exp2f(sc[j][4 * q + 2 * hh + e] - base);
              sc[j][4 * q + 2 * hh + e] = p;
              row_sum[w][hh] += p;
            }
      }

      // O += P V: an n16 block of S is the register A operand of one k16 step.
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int j = 0; j < BLOCK_N / 16; ++j) {
        const uint32_t pf[4] = {pack2(sc[j][0], sc[j][1]), pack2(sc[j][2], sc[j][3]), pack2(sc[j][4], sc[j][5]),
                                pack2(sc[j][6], sc[j][7])};
#pragma unroll
        for (int d = 0; d < HEAD_DIM / 16; ++d)
          Wgmma<scalar_t>::rs(acc[w][d], pf, desc(sv + ((d * 32 / 128) * BLOCK_N + j * 16) * 128 + (d * 32) % 128,
                                                  BLOCK_N * 128, 1024));
      }
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
    if (lane == 0) mbar_arrive(&empty[s]);
  }

#pragma unroll
  for (int w = 0; w < WG_TILES; ++w) {
    const int tile = c + w * CONSUMERS;
    if (tile >= ROW_TILES) break;
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      float sum = row_sum[w][hh];
      sum += __shfl_xor_sync(0xffffffff, sum, 1);
      sum += __shfl_xor_sync(0xffffffff, sum, 2);
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
      const int qi = q0 + tile * 64 + 16 * warp + lane / 4 + 8 * hh;
      if (qi >= Q_LEN) continue;
      scalar_t* out = o_row(op, b, h, qi);
#pragma unroll
      for (int d = 0; d < HEAD_DIM / 16; ++d)
#pragma unroll
        for (int q = 0; q < 2; ++q)
          *reinterpret_cast<uint32_t*>(out + d * 16 + q * 8 + 2 * (lane % 4)) =
              pack2(acc[w][d][4 * q + 2 * hh] * inv, acc[w][d][4 * q + 2 * hh + 1] * inv);
    }
  }
}

// Host side: 2-D tensor maps over [rows, HEAD_DIM] in 128-byte swizzled boxes; the encoder comes from the
// driver through the runtime, so nothing links against libcuda.
static CUtensorMap make_map(const void* base, uint64_t rows, uint32_t box_rows) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult found;
    cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                     cudaEnableDefault, &found);
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {(cuuint64_t)HEAD_DIM * 2, rows};
  const cuuint64_t strides[1] = {(cuuint64_t)HEAD_DIM * 2};
  const cuuint32_t box[2] = {128, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box, element_strides,
         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return map;
}

void launch_{{OP}}(const Operands& op, float softmax_scale, cudaStream_t stream) {
  const CUtensorMap map_q = make_map(op.q, (uint64_t)BATCH * HEADS * Q_LEN, BLOCK_M);
  const CUtensorMap map_k = make_map(k_base(op), kv_rows(), BOX_ROWS);
  const CUtensorMap map_v = make_map(v_base(op), kv_rows(), BOX_ROWS);
  cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  const dim3 grid((Q_LEN + BLOCK_M - 1) / BLOCK_M, HEADS, BATCH);
  {{KERNEL_NAME}}<<<grid, THREADS, SMEM_BYTES, stream>>>(map_q, map_k, map_v, op, softmax_scale);
}
