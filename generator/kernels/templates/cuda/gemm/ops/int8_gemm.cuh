// W8A8 GEMM: int8 A (per-token scale) x int8 B[N, K] (per-channel scale), int32 accumulation,
// C = (A B^T) * a_scale[m] * b_scale[n] in fp16.
typedef int8_t a_t;
typedef int8_t b_t;
typedef half c_t;
typedef int mma_acc_t;
inline constexpr int A_BITS = 8;
inline constexpr int B_BITS = 8;
inline constexpr int SCALE_BLOCK_K = 0;       // no scales that vary along K
constexpr int GROUPS = 1;

{{SIGNATURE}};
struct Group { const a_t* a; const b_t* b; c_t* c; int rows; };
__device__ __forceinline__ Group group(const Operands& op, int g, int M, int N, int K) { return {op.a, op.b, op.c, M}; }

__device__ __forceinline__ float load_a(const Operands& op, const Group& g, int m, int k, int K) {
  return (float)g.a[(int64_t)m * K + k];
}
__device__ __forceinline__ float load_b(const Operands& op, const Group& g, int n, int k, int K) {
  return (float)g.b[(int64_t)n * K + k];
}
__device__ __forceinline__ void store_c(const Operands& op, const Group& g, int m, int n, int N, float acc) {
  g.c[(int64_t)m * N + n] = __float2half_rn(acc * op.a_scale[m] * op.b_scale[n]);
}

// Tensor cores, one m16n8k32 s8 step (32 bytes of K). `row` is this thread's B row at the step's first byte.
__device__ __forceinline__ void b_frag(uint32_t b[2], const uint8_t* row, int lane, const Operands& op,
                                       const Group& g, int n, int k) {
  b[0] = *reinterpret_cast<const uint32_t*>(row + 4 * (lane % 4));
  b[1] = *reinterpret_cast<const uint32_t*>(row + 16 + 4 * (lane % 4));
}
__device__ __forceinline__ void mma(int d[4], const uint32_t a[4], const uint32_t b[2], const Operands& op,
                                    const Group& g, int m, int n, int k, int lane) {
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
