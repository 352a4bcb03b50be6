// Depthwise causal conv1d (Mamba): y[b, l, d] = silu(bias[d] + sum_j weight[d, j] * x[b, l - TAPS + 1 + j, d]),
// x and y [B, L, D] with channels innermost; positions before the sequence start read as zero.
constexpr int BATCH = {{SHAPE_B}};
constexpr int SEQ = {{SHAPE_L}};
constexpr int CHANNELS = {{SHAPE_D}};
constexpr int TAPS = {{SHAPE_W}};
constexpr int64_t OUT_POINTS = (int64_t)BATCH * SEQ;     // (b, l) pairs
constexpr int OUT_CHANNELS = CHANNELS;

{{SIGNATURE}};

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }
__device__ __forceinline__ void store_out(const Operands& op, int64_t p, int n, float acc) {
  op.y[p * CHANNELS + n] = scalar_t(silu(acc + static_cast<float>(op.bias[n])));
}
// One output, straight from global memory.
__device__ __forceinline__ float conv_point(const Operands& op, int64_t p, int n) {
  const int l = p % SEQ;
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < TAPS; ++j) {
    const int t = l - TAPS + 1 + j;
    if (t >= 0) acc += static_cast<float>(op.weight[n * TAPS + j]) * static_cast<float>(op.x[(p - l + t) * CHANNELS + n]);
  }
  return acc;
}
// A BM x BN tile (BM consecutive positions of one sequence, BN channels): the causal window of x and the
// taps are staged in shared memory once, then each thread produces outputs from it.
template <int BM, int BN, int THREADS>
__device__ __forceinline__ void conv_tile(const Operands& op, int64_t p0, int n0) {
  __shared__ scalar_t window[BM + TAPS - 1][BN];
  __shared__ float taps[TAPS][BN];
  const int l0 = p0 % SEQ;
  for (int i = threadIdx.x; i < (BM + TAPS - 1) * BN; i += THREADS) {
    const int r = i / BN, c = i % BN, t = l0 - TAPS + 1 + r;
    window[r][c] = (t >= 0 && n0 + c < CHANNELS) ? op.x[(p0 - l0 + t) * CHANNELS + n0 + c] : scalar_t(0.f);
  }
  for (int i = threadIdx.x; i < TAPS * BN; i += THREADS) {
    const int j = i / BN, c = i % BN;
    taps[j][c] = n0 + c < CHANNELS ? static_cast<float>(op.weight[(n0 + c) * TAPS + j]) : 0.f;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < BM * BN; i += THREADS) {
    const int r = i / BN, c = i % BN;
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < TAPS; ++j) acc += taps[j][c] * static_cast<float>(window[r + j][c]);
    if (n0 + c < CHANNELS) store_out(op, p0 + r, n0 + c, acc);
  }
}
