// y[M, N] = x[M, K] W[N, K]^T in half precision, fp32 accumulation.
typedef scalar_t x_t;
typedef scalar_t w_t;
typedef scalar_t y_t;
inline constexpr int W_BITS = 16;

{{SIGNATURE}};

// Bytes of weight row n.
__device__ __forceinline__ const uint8_t* w_row(const Operands& op, int n, int K) {
  return reinterpret_cast<const uint8_t*>(op.w + (int64_t)n * K);
}
// Element k of a weight row (bytes from the row start), and the scale of the group holding k.
__device__ __forceinline__ float decode_w(const uint8_t* row, int k) {
  return static_cast<float>(reinterpret_cast<const w_t*>(row)[k]);
}
__device__ __forceinline__ float w_scale(const Operands& op, int n, int k, int K) { return 1.f; }
__device__ __forceinline__ void store_y(const Operands& op, int m, int n, int N, float acc) {
  op.y[(int64_t)m * N + n] = y_t(acc);
}
