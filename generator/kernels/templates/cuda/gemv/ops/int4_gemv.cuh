// W4A16 GEMV: y[M, N] = x[M, K] (fp16) W[N, K]^T, W int4 packed two per byte (low nibble = even k, +8
// offset) with one fp16 scale per GROUP_SIZE inputs: scales[N, K / GROUP_SIZE].
typedef half x_t;
typedef uint8_t w_t;
typedef half y_t;
inline constexpr int W_BITS = 4;
constexpr int GROUP_SIZE = {{SHAPE_G}};

{{SIGNATURE}};

// Bytes of weight row n.
__device__ __forceinline__ const uint8_t* w_row(const Operands& op, int n, int K) {
  return op.w_packed + (int64_t)n * K / 2;
}
// Element k of a weight row (bytes from the row start), and the scale of the group holding k.
__device__ __forceinline__ float decode_w(const uint8_t* row, int k) {
  return (float)((row[k / 2] >> (4 * (k % 2)) & 0xF) - 8);
}
__device__ __forceinline__ float w_scale(const Operands& op, int n, int k, int K) {
  return __half2float(op.scales[(int64_t)n * (K / GROUP_SIZE) + k / GROUP_SIZE]);
}
__device__ __forceinline__ void store_y(const Operands& op, int m, int n, int N, float acc) {
  op.y[(int64_t)m * N + n] = __float2half_rn(acc);
}
