// {{OP}} ({{DTYPE}}, {{GPU_DISPLAY}}): FlashAttention-2 style prefill. Each warp owns 16-row query tiles;
// S = Q K^T and O += P V run on mma.sync m16n8k16 with fp32 accumulators and an online softmax (running
// max and sum in registers), while K/V tiles stream through a NUM_STAGES-deep cp.async ring.
{{PRELUDE}}

constexpr int BLOCK_M = {{BLOCK_M}};
constexpr int BLOCK_N = {{BLOCK_N}};
constexpr int NUM_WARPS = {{NUM_WARPS}};
constexpr int NUM_STAGES = {{NUM_STAGES}};

{{OP_SNIPPET}}

constexpr int THREADS = NUM_WARPS * 32;
constexpr int ROW_TILES = BLOCK_M / 16;                          // 16-row query tiles per block
constexpr int COMPUTE_WARPS = ROW_TILES < NUM_WARPS ? ROW_TILES : NUM_WARPS;   // the rest only load
constexpr int WARP_TILES = ROW_TILES / COMPUTE_WARPS;
constexpr int ROW_BYTES = HEAD_DIM * 2 + 16;                     // padded smem row: conflict-free ldmatrix
constexpr int TILE_BYTES = BLOCK_N * ROW_BYTES;
constexpr int SMEM_BYTES = BLOCK_M * ROW_BYTES + 2 * NUM_STAGES * TILE_BYTES;   // Q + K/V ring
static_assert(HEAD_DIM % 16 == 0 && BLOCK_N % 16 == 0, "tile shape");

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
__device__ __forceinline__ void ldsm_x2(uint32_t r[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x2_trans(uint32_t r[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], const uint32_t b[2], half) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], const uint32_t b[2], __nv_bfloat16) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  union { scalar_t h[2]; uint32_t u; } pair;
  pair.h[0] = scalar_t(lo);
  pair.h[1] = scalar_t(hi);
  return pair.u;
}

// Copy `rows` rows (row(r) gives each one's address) into padded smem; rows at or past `limit` read as zero.
template <class RowFn>
__device__ __forceinline__ void load_rows(uint8_t* dst, int rows, int first, int limit, RowFn row) {
  constexpr int CHUNKS = HEAD_DIM * 2 / 16;
  for (int i = threadIdx.x; i < rows * CHUNKS; i += THREADS) {
    const int r = i / CHUNKS, c = i % CHUNKS;
    const bool ok = first + r < limit;
    cp_async16(dst + r * ROW_BYTES + c * 16, row(ok ? first + r : first) + c * 8, ok);
  }
}

// grid (ceil(Q_LEN / BLOCK_M), HEADS, BATCH).
__global__ void __launch_bounds__(THREADS) {{KERNEL_NAME}}(Operands op, float softmax_scale) {
  extern __shared__ __align__(128) uint8_t smem[];
  uint8_t* sq = smem;
  uint8_t* skv = smem + BLOCK_M * ROW_BYTES;        // stage s: K at 2s, V at 2s + 1
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * BLOCK_M;
  const int n_tiles = (kv_end(min(q0 + BLOCK_M, Q_LEN)) + BLOCK_N - 1) / BLOCK_N;
  auto q_at = [&](int i) { return q_row(op, b, h, i); };
  auto k_at = [&](int j) { return k_row(op, b, h, j); };
  auto v_at = [&](int j) { return v_row(op, b, h, j); };

  load_rows(sq, BLOCK_M, q0, Q_LEN, q_at);
  for (int s = 0; s < NUM_STAGES - 1; ++s) {
    if (s < n_tiles) {
      load_rows(skv + 2 * s * TILE_BYTES, BLOCK_N, s * BLOCK_N, KV_LEN, k_at);
      load_rows(skv + (2 * s + 1) * TILE_BYTES, BLOCK_N, s * BLOCK_N, KV_LEN, v_at);
    }
    asm volatile("cp.async.commit_group;\n");
  }

  uint32_t qf[WARP_TILES][HEAD_DIM / 16][4];
  float acc[WARP_TILES][HEAD_DIM / 8][4] = {};
  float row_max[WARP_TILES][2], row_sum[WARP_TILES][2] = {};
#pragma unroll
  for (int w = 0; w < WARP_TILES; ++w) row_max[w][0] = row_max[w][1] = -INFINITY;
  const float scale_log2 = softmax_scale * 1.4426950408889634f;

  for (int t = 0; t < n_tiles; ++t) {
    const int next = t + NUM_STAGES - 1, slot = next % NUM_STAGES;
    if (next < n_tiles) {
      load_rows(skv + 2 * slot * TILE_BYTES, BLOCK_N, next * BLOCK_N, KV_LEN, k_at);
      load_rows(skv + (2 * slot + 1) * TILE_BYTES, BLOCK_N, next * BLOCK_N, KV_LEN, v_at);
    }
    asm volatile("cp.async.commit_group;\n");
    asm volatile("cp.async.wait_group %0;\n" ::"n"(NUM_STAGES - 1));
    __syncthreads();
    if (warp < COMPUTE_WARPS) {
      const uint8_t* sk = skv + 2 * (t % NUM_STAGES) * TILE_BYTES;
      const uint8_t* sv = sk + TILE_BYTES;
      const int n0 = t * BLOCK_N;
#pragma unroll
      for (int w = 0; w < WARP_TILES; ++w) {
        const int r0 = (warp * WARP_TILES + w) * 16;
        if (t == 0)
#pragma unroll
          for (int kk = 0; kk < HEAD_DIM / 16; ++kk)
            ldsm_x4(qf[w][kk], sq + (r0 + lane % 16) * ROW_BYTES + kk * 32 + (lane / 16) * 16);

        float s[BLOCK_N / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < HEAD_DIM / 16; ++kk)
#pragma unroll
          for (int j = 0; j < BLOCK_N / 8; ++j) {
            uint32_t kf[2];
            ldsm_x2(kf, sk + (j * 8 + lane % 8) * ROW_BYTES + kk * 32 + ((lane / 8) % 2) * 16);
            mma_16816(s[j], qf[w][kk], kf, scalar_t());
          }

        // Online softmax: this thread holds rows lane/4 (hh = 0) and lane/4 + 8 (hh = 1) of the tile.
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
          const int qi = q0 + r0 + lane / 4 + hh * 8;
          float mx = row_max[w][hh];
#pragma unroll
          for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int kj = n0 + j * 8 + 2 * (lane % 4) + e;
              float x = s[j][2 * hh + e] * scale_log2;
              if (!(kj < KV_LEN && visible(qi, kj))) x = -INFINITY;
              s[j][2 * hh + e] = x;
              mx = fmaxf(mx, x);
            }
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 1));
          mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 2));
          const float base = mx == -INFINITY ? 0.f : mx;
          const float corr = exp2f(row_max[w][hh] - base);
          row_max[w][hh] = mx;
          row_sum[w][hh] *= corr;
#pragma unroll
          for (int d = 0; d < HEAD_DIM / 8; ++d) {
            acc[w][d][2 * hh] *= corr;
            acc[w][d][2 * hh + 1] *= corr;
          }
#pragma unroll
          for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const float p = exp2f(s[j][2 * hh + e] - base);
              s[j][2 * hh + e] = p;
              row_sum[w][hh] += p;
            }
        }

        // O += P V: the S accumulator layout is exactly the A-fragment layout of the next mma.
#pragma unroll
        for (int kk = 0; kk < BLOCK_N / 16; ++kk) {
          uint32_t pf[4];
          pf[0] = pack2(s[2 * kk][0], s[2 * kk][1]);
          pf[1] = pack2(s[2 * kk][2], s[2 * kk][3]);
          pf[2] = pack2(s[2 * kk + 1][0], s[2 * kk + 1][1]);
          pf[3] = pack2(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
          for (int d = 0; d < HEAD_DIM / 8; ++d) {
            uint32_t vf[2];
            ldsm_x2_trans(vf, sv + (kk * 16 + lane % 16) * ROW_BYTES + d * 16);
            mma_16816(acc[w][d], pf, vf, scalar_t());
          }
        }
      }
    }
    __syncthreads();
  }

  if (warp >= COMPUTE_WARPS) return;
#pragma unroll
  for (int w = 0; w < WARP_TILES; ++w)
#pragma unroll
    for (int hh = 0; hh < 2; ++hh) {
      float sum = row_sum[w][hh];
      sum += __shfl_xor_sync(0xffffffff, sum, 1);
      sum += __shfl_xor_sync(0xffffffff, sum, 2);
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
      const int qi = q0 + (warp * WARP_TILES + w) * 16 + lane / 4 + hh * 8;
      if (qi < Q_LEN) {
        scalar_t* out = o_row(op, b, h, qi);
#pragma unroll
        for (int d = 0; d < HEAD_DIM / 8; ++d)
          *reinterpret_cast<uint32_t*>(out + d * 8 + 2 * (lane % 4)) = pack2(acc[w][d][2 * hh] * inv, acc[w][d][2 * hh + 1] * inv);
      }
    }
}

void launch_{{OP}}(const Operands& op, float softmax_scale, cudaStream_t stream) {
  const dim3 grid((Q_LEN + BLOCK_M - 1) / BLOCK_M, HEADS, BATCH);
  if (SMEM_BYTES > 48 * 1024)
    cudaFuncSetAttribute({{KERNEL_NAME}}, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
  {{KERNEL_NAME}}<<<grid, THREADS, SMEM_BYTES, stream>>>(op, softmax_scale);
}
