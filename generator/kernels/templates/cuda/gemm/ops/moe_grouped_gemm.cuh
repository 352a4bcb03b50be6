// MoE grouped GEMM: expert e multiplies its routed rows A[expert_offsets[e] .. expert_offsets[e+1]) (at
// most M of them) by its own weights B[e] (N x K, nn.Linear layout); one launch, grid.z = expert.
// Activations are 16-bit (fp16 when the weights are fp8); weights are widened to them in registers.
template <class T, bool NARROW = (sizeof(T) == 1)> struct Activation { typedef T type; };
template <class T> struct Activation<T, true> { typedef half type; };
typedef Activation<scalar_t>::type a_t;
typedef scalar_t b_t;
typedef a_t c_t;
typedef float mma_acc_t;
inline constexpr int A_BITS = 16;
inline constexpr int B_BITS = 8 * sizeof(b_t);
inline constexpr int SCALE_BLOCK_K = 0;       // no scales that vary along K
constexpr int GROUPS = {{SHAPE_E}};

struct Operands { const a_t* a; const b_t* b; const int* expert_offsets; c_t* c; };
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

// Tensor cores, one m16n8k16 step: k = 2t, 2t+1 and 2t+8, 2t+9 are B elements 2t.. and 2t+8.. of this
// thread's row, widened to the activation type.
__device__ __forceinline__ uint32_t widen2(const uint8_t* p) {
  const b_t* w = reinterpret_cast<const b_t*>(p);
  union { a_t h[2]; uint32_t u; } pair;
  pair.h[0] = a_t(static_cast<float>(w[0]));
  pair.h[1] = a_t(static_cast<float>(w[1]));
  return pair.u;
}
__device__ __forceinline__ void b_frag(uint32_t b[2], const uint8_t* row, int lane, const Operands& op,
                                       const Group& g, int n, int k) {
  b[0] = widen2(row + 2 * (lane % 4) * sizeof(b_t));
  b[1] = widen2(row + (8 + 2 * (lane % 4)) * sizeof(b_t));
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

// Dequantizing path (fp8 experts on GPUs without e4m3 mma): elements of a staged row; no K-varying scales.
__device__ __forceinline__ float decode_a(const uint8_t* row, int k) {
  return static_cast<float>(reinterpret_cast<const a_t*>(row)[k]);
}
__device__ __forceinline__ float decode_b(const uint8_t* row, int k) {
  return static_cast<float>(reinterpret_cast<const b_t*>(row)[k]);
}
__device__ __forceinline__ float a_k_scale(const Operands& op, const Group& g, int m, int k) { return 1.f; }
__device__ __forceinline__ float b_k_scale(const Operands& op, const Group& g, int n, int k) { return 1.f; }
