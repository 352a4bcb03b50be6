// 2-D convolution, NHWC, stride 1, same padding: y[n, h, w, k] = sum_{r, s, c} x[n, h + r - R/2, w + s - S/2, c]
// * weight[k, r, s, c]. As an implicit GEMM: M = N*H*W output pixels, N = K channels, reduction R*S*C.
constexpr int IMAGES = {{SHAPE_N}};
constexpr int HEIGHT = {{SHAPE_H}};
constexpr int WIDTH = {{SHAPE_W}};
constexpr int CIN = {{SHAPE_C}};
constexpr int COUT = {{SHAPE_K}};
constexpr int FILTER_R = {{SHAPE_R}};
constexpr int FILTER_S = {{SHAPE_S}};
constexpr int64_t OUT_POINTS = (int64_t)IMAGES * HEIGHT * WIDTH;
constexpr int OUT_CHANNELS = COUT;
constexpr int REDUCE = FILTER_R * FILTER_S * CIN;

{{SIGNATURE}};

// im2col element (pixel p, reduction index kk = (r * S + s) * C + c); zero in the padding.
__device__ __forceinline__ float im2col(const Operands& op, int64_t p, int kk) {
  const int c = kk % CIN, tap = kk / CIN;
  const int w = p % WIDTH + tap % FILTER_S - FILTER_S / 2;
  const int h = (p / WIDTH) % HEIGHT + tap / FILTER_S - FILTER_R / 2;
  if (h < 0 || h >= HEIGHT || w < 0 || w >= WIDTH) return 0.f;
  return static_cast<float>(op.x[((p / (WIDTH * HEIGHT) * HEIGHT + h) * WIDTH + w) * CIN + c]);
}
__device__ __forceinline__ void store_out(const Operands& op, int64_t p, int n, float acc) {
  op.y[p * COUT + n] = scalar_t(acc);
}
// One output, straight from global memory.
__device__ __forceinline__ float conv_point(const Operands& op, int64_t p, int n) {
  float acc = 0.f;
  for (int kk = 0; kk < REDUCE; ++kk) acc += im2col(op, p, kk) * static_cast<float>(op.weight[(int64_t)n * REDUCE + kk]);
  return acc;
}
// A BM x BN output tile on CUDA cores: 32-deep slices of the im2col matrix and of the filters are staged
// in shared memory; thread (ty, tx) of a 16 x (THREADS/16) grid owns a (BM/16) x (BN/(THREADS/16)) block.
template <int BM, int BN, int THREADS>
__device__ __forceinline__ void conv_tile(const Operands& op, int64_t p0, int n0) {
  constexpr int RK = 32, TX = THREADS / 16, TM = BM / 16, TN = BN / TX;
  __shared__ float a_tile[RK][BM];
  __shared__ float b_tile[RK][BN];
  const int ty = threadIdx.x / TX, tx = threadIdx.x % TX;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < REDUCE; k0 += RK) {
    for (int i = threadIdx.x; i < BM * RK; i += THREADS) {
      const int r = i / RK, c = i % RK;
      a_tile[c][r] = (p0 + r < OUT_POINTS && k0 + c < REDUCE) ? im2col(op, p0 + r, k0 + c) : 0.f;
    }
    for (int i = threadIdx.x; i < BN * RK; i += THREADS) {
      const int r = i / RK, c = i % RK;
      b_tile[c][r] = (n0 + r < COUT && k0 + c < REDUCE) ? static_cast<float>(op.weight[(int64_t)(n0 + r) * REDUCE + k0 + c]) : 0.f;
    }
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < RK; ++k)
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a_tile[k][ty + 16 * i] * b_tile[k][tx + TX * j];
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int64_t p = p0 + ty + 16 * i;
      const int n = n0 + tx + TX * j;
      if (p < OUT_POINTS && n < COUT) store_out(op, p, n, acc[i][j]);
    }
}
