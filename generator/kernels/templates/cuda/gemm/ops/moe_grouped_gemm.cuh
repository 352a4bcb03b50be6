// MoE grouped GEMM: expert e multiplies its routed rows A[expert_offsets[e] .. expert_offsets[e+1]) (at
// most M of them) by its own weights B[e] (N x K, nn.Linear layout); one launch, grid.z = expert. A is
// allocated with E * M rows (every expert's most), as TMA maps of it span.
// fp32 accumulation.
typedef scalar_t a_t;
typedef scalar_t b_t;
typedef scalar_t c_t;
typedef float mma_acc_t;
inline constexpr int A_BITS = 16;
inline constexpr int B_BITS = 16;
inline constexpr int SCALE_BLOCK_K = 0;       // no scales that vary along K
constexpr int GROUPS = {{SHAPE_E}};

{{SIGNATURE}};
struct Group { const a_t* a; const b_t* b; c_t* c; int rows; };
__device__ __forceinline__ Group group(const Operands& op, int g, int M, int N, int K) {
  const int first = op.expert_offsets[g];
  const int rows = min(M, op.expert_offsets[g + 1] - first);
  return {op.a + (int64_t)first * K, op.b + (int64_t)g * N * K, op.c + (int64_t)first * N, rows};
}

__device__ __forceinline__ float load_a(const Operands& op, const Group& g, int m, int k, int K) {
  return static_cast<float>(g.a[(int64_t)m * K + k]);
}
__device__ __forceinline__ float load_b(const Operands& op, const Group& g, int n, int k, int K) {
  return static_cast<float>(g.b[(int64_t)n * K + k]);
}
__device__ __forceinline__ void store_c(const Operands& op, const Group& g, int m, int n, int N, float acc) {
  g.c[(int64_t)m * N + n] = c_t(acc);
}

// Tensor cores, one m16n8k16 step. `row` is this thread's B row (n) of its expert at the step's first byte.
__device__ __forceinline__ void b_frag(uint32_t b[2], const uint8_t* row, int lane, const Operands& op,
                                       const Group& g, int n, int k) {
  b[0] = *reinterpret_cast<const uint32_t*>(row + 4 * (lane % 4));
  b[1] = *reinterpret_cast<const uint32_t*>(row + 16 + 4 * (lane % 4));
}
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
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], const uint32_t b[2], const Operands& op,
                                    const Group& g, int m, int n, int k, int lane) {
  mma_16816(d, a, b, a_t());
}
