// Cross attention: S decoder queries q[B, H, S, D] attend, unmasked, to L encoder keys/values
// k_enc/v_enc[B, H, L, D]; o[B, H, S, D].
constexpr int BATCH = {{SHAPE_B}};
constexpr int HEADS = {{SHAPE_H}};
constexpr int Q_LEN = {{SHAPE_S}};
constexpr int KV_LEN = {{SHAPE_L}};
constexpr int HEAD_DIM = {{SHAPE_D}};

{{SIGNATURE}};

__device__ __forceinline__ const scalar_t* q_row(const Operands& op, int b, int h, int i) {
  return op.q + (((int64_t)b * HEADS + h) * Q_LEN + i) * HEAD_DIM;
}
__device__ __forceinline__ scalar_t* o_row(const Operands& op, int b, int h, int i) {
  return op.o + (((int64_t)b * HEADS + h) * Q_LEN + i) * HEAD_DIM;
}
__device__ __forceinline__ const scalar_t* k_row(const Operands& op, int b, int h, int j) {
  return op.k_enc + (((int64_t)b * HEADS + h) * KV_LEN + j) * HEAD_DIM;
}
__device__ __forceinline__ const scalar_t* v_row(const Operands& op, int b, int h, int j) {
  return op.v_enc + (((int64_t)b * HEADS + h) * KV_LEN + j) * HEAD_DIM;
}
// No mask; every query needs every key.
__device__ __forceinline__ bool visible(int i, int j) { return true; }
__device__ __forceinline__ int kv_end(int q_end) { return KV_LEN; }
// For TMA: K and V as [rows, HEAD_DIM] matrices, how many rows they hold, the row of key j, and how many rows one
// box may cover.
inline const scalar_t* k_base(const Operands& op) { return op.k_enc; }
inline const scalar_t* v_base(const Operands& op) { return op.v_enc; }
inline uint64_t kv_rows() { return (uint64_t)BATCH * HEADS * KV_LEN; }
__device__ __forceinline__ int64_t kv_row(const Operands& op, int b, int h, int j) { return ((int64_t)b * HEADS + h) * KV_LEN + j; }
inline constexpr int KV_BOX_ROWS = 256;
