// DeepGEMM-style FP8 GEMM: e4m3 A[M, K] with 1x128 scales a_scale[M, K/128], e4m3 B[N, K] with 128x128
// scales b_scale[N/128, K/128]. Scales vary along K, so partial products are promoted into the fp32
// accumulators with their scales applied.
typedef __nv_fp8_e4m3 a_t;
typedef __nv_fp8_e4m3 b_t;
typedef __nv_bfloat16 c_t;
typedef float mma_acc_t;
inline constexpr int A_BITS = 8;
inline constexpr int B_BITS = 8;
constexpr int GROUPS = 1;
constexpr int SCALE_BLOCK = 128;
inline constexpr int SCALE_BLOCK_K = SCALE_BLOCK;   // partial products are promoted per 128 of K

{{SIGNATURE}};
struct Group { const a_t* a; const b_t* b; c_t* c; int rows; int k_blocks; };
__device__ __forceinline__ Group group(const Operands& op, int g, int M, int N, int K) {
  return {op.a, op.b, op.c, M, (K + SCALE_BLOCK - 1) / SCALE_BLOCK};
}

__device__ __forceinline__ float load_a(const Operands& op, const Group& g, int m, int k, int K) {
  return float(g.a[(int64_t)m * K + k]) * op.a_scale[(int64_t)m * g.k_blocks + k / SCALE_BLOCK];
}
__device__ __forceinline__ float load_b(const Operands& op, const Group& g, int n, int k, int K) {
  return float(g.b[(int64_t)n * K + k]) * op.b_scale[(int64_t)(n / SCALE_BLOCK) * g.k_blocks + k / SCALE_BLOCK];
}
__device__ __forceinline__ void store_c(const Operands& op, const Group& g, int m, int n, int N, float acc) {
  g.c[(int64_t)m * N + n] = __float2bfloat16_rn(acc);
}
// Scale of the partial product of row m, column n over the 128-deep K block holding k.
__device__ __forceinline__ float k_block_scale(const Operands& op, const Group& g, int m, int n, int k) {
  return op.a_scale[(int64_t)m * g.k_blocks + k / SCALE_BLOCK] * op.b_scale[(int64_t)(n / SCALE_BLOCK) * g.k_blocks + k / SCALE_BLOCK];
}

// Tensor cores: m16n8k32 e4m3 into a scratch accumulator, promoted with this step's scales (sm_89+).
__device__ __forceinline__ void b_frag(uint32_t b[2], const uint8_t* row, int lane, const Operands& op,
                                       const Group& g, int n, int k) {
  b[0] = *reinterpret_cast<const uint32_t*>(row + 4 * (lane % 4));
  b[1] = *reinterpret_cast<const uint32_t*>(row + 16 + 4 * (lane % 4));
}
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], const uint32_t b[2], const Operands& op,
                                    const Group& g, int m, int n, int k, int lane) {
  float t[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(t[0]), "+f"(t[1]), "+f"(t[2]), "+f"(t[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  const int kb = k / SCALE_BLOCK, row = m + lane / 4;
  const float sb = op.b_scale[(int64_t)(n / SCALE_BLOCK) * g.k_blocks + kb];
  const float s0 = op.a_scale[(int64_t)row * g.k_blocks + kb] * sb;
  const float s1 = op.a_scale[(int64_t)(row + 8) * g.k_blocks + kb] * sb;
  d[0] += t[0] * s0;
  d[1] += t[1] * s0;
  d[2] += t[2] * s1;
  d[3] += t[3] * s1;
}

// Dequantizing path (fp16 mma.sync where e4m3 mma is missing): elements of a staged row, and their
// 1x128 / 128x128 scales.
__device__ __forceinline__ float decode_a(const uint8_t* row, int k) { return float(reinterpret_cast<const a_t*>(row)[k]); }
__device__ __forceinline__ float decode_b(const uint8_t* row, int k) { return float(reinterpret_cast<const b_t*>(row)[k]); }
__device__ __forceinline__ float a_k_scale(const Operands& op, const Group& g, int m, int k) {
  return op.a_scale[(int64_t)m * g.k_blocks + k / SCALE_BLOCK];
}
__device__ __forceinline__ float b_k_scale(const Operands& op, const Group& g, int n, int k) {
  return op.b_scale[(int64_t)(n / SCALE_BLOCK) * g.k_blocks + k / SCALE_BLOCK];
}
