// NVFP4 GEMM: e2m1 A[M, K] and B[N, K] packed two per byte (low nibble = even k), one ue4m3 scale per
// 16 elements along K (a_scale[M, K/16], b_scale[N, K/16]), fp32 accumulation, bf16 output.
typedef uint8_t a_t;
typedef uint8_t b_t;
typedef __nv_bfloat16 c_t;
typedef float mma_acc_t;
inline constexpr int A_BITS = 4;
inline constexpr int B_BITS = 4;
inline constexpr int SCALE_BLOCK_K = 0;       // block scales are operands of the mma itself
constexpr int GROUPS = 1;
constexpr int SCALE_VEC = 16;

{{SIGNATURE}};
struct Group { const a_t* a; const b_t* b; c_t* c; int rows; int scales_per_row; };
__device__ __forceinline__ Group group(const Operands& op, int g, int M, int N, int K) {
  return {op.a, op.b, op.c, M, K / SCALE_VEC};
}

__device__ __forceinline__ float e2m1(uint8_t nibble) {
  const float mag[8] = {0.f, 0.5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};
  return (nibble & 8 ? -1.f : 1.f) * mag[nibble & 7];
}
__device__ __forceinline__ float ue4m3(uint8_t bits) {
  return float(*reinterpret_cast<const __nv_fp8_e4m3*>(&bits));
}
__device__ __forceinline__ float fp4_at(const uint8_t* packed, const uint8_t* scale, int64_t row, int k, int K) {
  const uint8_t byte = packed[(row * K + k) / 2];
  return e2m1(k % 2 ? byte >> 4 : byte & 0xF) * ue4m3(scale[row * (K / SCALE_VEC) + k / SCALE_VEC]);
}
__device__ __forceinline__ float load_a(const Operands& op, const Group& g, int m, int k, int K) {
  return fp4_at(g.a, op.a_scale, m, k, K);
}
__device__ __forceinline__ float load_b(const Operands& op, const Group& g, int n, int k, int K) {
  return fp4_at(g.b, op.b_scale, n, k, K);
}
__device__ __forceinline__ void store_c(const Operands& op, const Group& g, int m, int n, int N, float acc) {
  g.c[(int64_t)m * N + n] = __float2bfloat16_rn(acc);
}

// Tensor cores (sm_120a): block-scaled m16n8k64, 32 bytes of K per step. Lanes with lane%4 < 2 supply the
// four ue4m3 scales of A rows lane/4 and lane/4 + 8; lanes with lane%4 == 0 those of B column lane/4.
__device__ __forceinline__ void b_frag(uint32_t b[2], const uint8_t* row, int lane, const Operands& op,
                                       const Group& g, int n, int k) {
  b[0] = *reinterpret_cast<const uint32_t*>(row + 4 * (lane % 4));
  b[1] = *reinterpret_cast<const uint32_t*>(row + 16 + 4 * (lane % 4));
}
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], const uint32_t b[2], const Operands& op,
                                    const Group& g, int m, int n, int k, int lane) {
  const int64_t ra = m + lane / 4 + 8 * (lane % 2), rb = n + lane / 4;
  const uint32_t sfa = *reinterpret_cast<const uint32_t*>(op.a_scale + ra * g.scales_per_row + k / SCALE_VEC);
  const uint32_t sfb = *reinterpret_cast<const uint32_t*>(op.b_scale + rb * g.scales_per_row + k / SCALE_VEC);
  asm volatile(
      "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3}, %10, {0, 0}, %11, {0, 0};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(sfa), "r"(sfb));
}

// Dequantizing path (fp16 mma.sync where block-scaled fp4 mma is missing): elements of a staged packed row
// and their ue4m3 block scales.
__device__ __forceinline__ float decode_a(const uint8_t* row, int k) { return e2m1(row[k / 2] >> (4 * (k % 2)) & 0xF); }
__device__ __forceinline__ float decode_b(const uint8_t* row, int k) { return e2m1(row[k / 2] >> (4 * (k % 2)) & 0xF); }
__device__ __forceinline__ float a_k_scale(const Operands& op, const Group& g, int m, int k) {
  return ue4m3(op.a_scale[(int64_t)m * g.scales_per_row + k / SCALE_VEC]);
}
__device__ __forceinline__ float b_k_scale(const Operands& op, const Group& g, int n, int k) {
  return ue4m3(op.b_scale[(int64_t)n * g.scales_per_row + k / SCALE_VEC]);
}
