// W8A16 GEMV: y[M, N] = x[M, K] (fp16) W[N, K]^T (int8) * scales[n] (per output channel, fp16).
typedef half x_t;
typedef int8_t w_t;
typedef half y_t;
inline constexpr int W_BITS = 8;

{{SIGNATURE}};

// Bytes of weight row n.
__device__ __forceinline__ const uint8_t* w_row(const Operands& op, int n, int K) {
  return reinterpret_cast<const uint8_t*>(op.w + (int64_t)n * K);
}
// Element k of a weight row (bytes from the row start); the per-channel scale is applied once in store_y.
__device__ __forceinline__ float decode_w(const uint8_t* row, int k) {
  return (float)reinterpret_cast<const int8_t*>(row)[k];
}
__device__ __forceinline__ float w_scale(const Operands& op, int n, int k, int K) { return 1.f; }
__device__ __forceinline__ void store_y(const Operands& op, int m, int n, int N, float acc) {
  op.y[(int64_t)m * N + n] = __float2half_rn(acc * __half2float(op.scales[n]));
}
