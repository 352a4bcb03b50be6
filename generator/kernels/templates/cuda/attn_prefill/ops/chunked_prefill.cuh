// Chunked prefill: C new queries q[B, H, C, D] at positions T..T+C-1 attend to all T cached tokens and
// causally to the chunk, whose K/V were appended to the paged cache first. k_cache/v_cache are
// [pages, H, PAGE_SIZE, D]; block_table[b, j / PAGE_SIZE] is the page of token j of sequence b. The pool
// holds the batch's pages only: pages = B * ceil((T + C) / PAGE_SIZE), every page id below it.
constexpr int BATCH = {{SHAPE_B}};
constexpr int HEADS = {{SHAPE_H}};
constexpr int Q_LEN = {{SHAPE_C}};
constexpr int CACHED = {{SHAPE_T}};
constexpr int KV_LEN = CACHED + Q_LEN;
constexpr int HEAD_DIM = {{SHAPE_D}};
constexpr int PAGE_SIZE = 16;
constexpr int MAX_PAGES = (KV_LEN + PAGE_SIZE - 1) / PAGE_SIZE;

{{SIGNATURE}};

__device__ __forceinline__ const scalar_t* q_row(const Operands& op, int b, int h, int i) {
  return op.q + (((int64_t)b * HEADS + h) * Q_LEN + i) * HEAD_DIM;
}
__device__ __forceinline__ scalar_t* o_row(const Operands& op, int b, int h, int i) {
  return op.o + (((int64_t)b * HEADS + h) * Q_LEN + i) * HEAD_DIM;
}
__device__ __forceinline__ int64_t cache_offset(const Operands& op, int b, int h, int j) {
  const int page = op.block_table[b * MAX_PAGES + j / PAGE_SIZE];
  return (((int64_t)page * HEADS + h) * PAGE_SIZE + j % PAGE_SIZE) * HEAD_DIM;
}
__device__ __forceinline__ const scalar_t* k_row(const Operands& op, int b, int h, int j) {
  return op.k_cache + cache_offset(op, b, h, j);
}
__device__ __forceinline__ const scalar_t* v_row(const Operands& op, int b, int h, int j) {
  return op.v_cache + cache_offset(op, b, h, j);
}
// Query i of the chunk sits at position CACHED + i and sees keys up to it.
__device__ __forceinline__ bool visible(int i, int j) { return j <= CACHED + i; }
__device__ __forceinline__ int kv_end(int q_end) { return min(KV_LEN, CACHED + q_end); }
// For TMA: the caches as [pages * H * PAGE_SIZE, HEAD_DIM] matrices, how many rows they hold (the batch's
// BATCH * MAX_PAGES pages, the cache the task's traffic counts), the row of key j, and how many rows one box may
// cover (one page).
inline const scalar_t* k_base(const Operands& op) { return op.k_cache; }
inline const scalar_t* v_base(const Operands& op) { return op.v_cache; }
inline uint64_t kv_rows() { return (uint64_t)BATCH * MAX_PAGES * HEADS * PAGE_SIZE; }
__device__ __forceinline__ int64_t kv_row(const Operands& op, int b, int h, int j) {
  return cache_offset(op, b, h, j) / HEAD_DIM;
}
inline constexpr int KV_BOX_ROWS = PAGE_SIZE;
