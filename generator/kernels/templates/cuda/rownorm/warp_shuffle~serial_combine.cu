{{PRELUDE}}

// {{KERNEL_NAME}}: one block per row. Threads stride the row (coalesced), each warp reduces its partial
// statistics with shuffles, and thread 0 folds the per-warp results from shared memory in a short serial loop
// (at most 32 of them); a second pass over the row (L2-resident for typical widths) applies the normalization.
{{TUNED_CONSTANTS}}

constexpr unsigned FULL_MASK = 0xffffffffu;

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
    T v[N];
};

template <typename T, int N>
__device__ __forceinline__ void load_n(const T* p, float (&out)[N])
{
    const Pack<T, N> pack = *reinterpret_cast<const Pack<T, N>*>(p);
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = static_cast<float>(pack.v[i]);
}

template <typename T, int N>
__device__ __forceinline__ void store_n(T* p, const float (&in)[N])
{
    Pack<T, N> pack;
#pragma unroll
    for (int i = 0; i < N; ++i) pack.v[i] = static_cast<T>(in[i]);
    *reinterpret_cast<Pack<T, N>*>(p) = pack;
}

template <class Op>
__device__ __forceinline__ float2 warp_combine(const Op& op, float2 s)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float2 other = make_float2(__shfl_xor_sync(FULL_MASK, s.x, offset),
                                         __shfl_xor_sync(FULL_MASK, s.y, offset));
        s = op.combine(s, other);
    }
    return s;
}

template <class Op>
__device__ void norm_rows(const Op& op)
{
    __shared__ float2 warp_stats[NUM_THREADS / 32];
    __shared__ float2 row_stat;
    const int row = blockIdx.x;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;

    float2 s = op.init();
    for (int col = threadIdx.x; col < op.cols; col += NUM_THREADS) {
        float v[1];
        op.load(row, col, v);
        op.accumulate(s, v[0]);
    }
    s = warp_combine(op, s);
    if (lane == 0) warp_stats[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float2 total = warp_stats[0];
        for (int w = 1; w < NUM_THREADS / 32; ++w) total = op.combine(total, warp_stats[w]);
        row_stat = op.finalize(total);
        op.store_row(row, row_stat);
    }
    __syncthreads();

    const float2 stat = row_stat;
    for (int col = threadIdx.x; col < op.cols; col += NUM_THREADS) {
        float v[1];
        op.load(row, col, v);
        op.store(row, col, v, stat);
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    return {dim3(rows), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
