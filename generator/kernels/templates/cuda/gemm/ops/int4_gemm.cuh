// W4A16 GEMM (Marlin/GPTQ style): fp16 A[M, K] x int4 B[N, K] packed two per byte (low nibble = even k,
// stored with +8 offset), one fp16 scale per GROUP_SIZE inputs: scales[N, K / GROUP_SIZE].
typedef half a_t;
typedef uint8_t b_t;
typedef half c_t;
typedef float mma_acc_t;
inline constexpr int A_BITS = 16;
inline constexpr int B_BITS = 4;
inline constexpr int SCALE_BLOCK_K = 0;       // no scales that vary along K
constexpr int GROUPS = 1;
constexpr int GROUP_SIZE = {{SHAPE_G}};

{{SIGNATURE}};
struct Group { const a_t* a; const b_t* b; c_t* c; int rows; int groups_per_row; };
__device__ __forceinline__ Group group(const Operands& op, int g, int M, int N, int K) {
  return {op.a, op.b, op.c, M, K / GROUP_SIZE};
}

__device__ __forceinline__ float load_a(const Operands& op, const Group& g, int m, int k, int K) {
  return __half2float(g.a[(int64_t)m * K + k]);
}
__device__ __forceinline__ float load_b(const Operands& op, const Group& g, int n, int k, int K) {
  const uint8_t packed = g.b[((int64_t)n * K + k) / 2];
  const int q = (k % 2 ? packed >> 4 : packed & 0xF) - 8;
  return q * __half2float(op.scales[(int64_t)n * g.groups_per_row + k / GROUP_SIZE]);
}
__device__ __forceinline__ void store_c(const Operands& op, const Group& g, int m, int n, int N, float acc) {
  g.c[(int64_t)m * N + n] = __float2half_rn(acc);
}

// Tensor cores: dequantize this thread's B fragment in registers (k = 2t, 2t+1 and 2t+8, 2t+9 of the
// m16n8k16 step live in bytes t and t+4 of the packed row), then an fp16 mma.
__device__ __forceinline__ uint32_t dequant2(uint8_t packed, half2 scale) {
  const half2 q = __floats2half2_rn((float)((packed & 0xF) - 8), (float)((packed >> 4) - 8));
  const half2 w = __hmul2(q, scale);
  return *reinterpret_cast<const uint32_t*>(&w);
}
__device__ __forceinline__ void b_frag(uint32_t b[2], const uint8_t* row, int lane, const Operands& op,
                                       const Group& g, int n, int k) {
  const half2 scale = __half2half2(op.scales[(int64_t)n * g.groups_per_row + k / GROUP_SIZE]);
  b[0] = dequant2(row[lane % 4], scale);
  b[1] = dequant2(row[4 + lane % 4], scale);
}
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], const uint32_t b[2], const Operands& op,
                                    const Group& g, int m, int n, int k, int lane) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
