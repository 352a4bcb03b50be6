{{PRELUDE}}

// {{KERNEL_NAME}}: single pass. A block normalizes ROWS_PER_BLOCK rows, each by a group of
// NUM_THREADS / ROWS_PER_BLOCK threads; every thread keeps its ITEMS packs of VEC elements in registers
// between the reduction and the write, so the row is read from DRAM exactly once. The register footprint
// grows with the row width over the group's VEC-wide lanes.
{{TUNED_CONSTANTS}}

constexpr unsigned FULL_MASK = 0xffffffffu;
// Rows so wide that a thread would hold more packs than this (a 128K vocabulary) keep them in local memory
// anyway; unrolling such loops fully would only cost compile time.
constexpr int MAX_UNROLLED_ITEMS = 16;
constexpr int GROUP_THREADS = NUM_THREADS / ROWS_PER_BLOCK;
constexpr int GROUP_WARPS = GROUP_THREADS / 32;

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
    constexpr int ITEMS = (Op::COLS + GROUP_THREADS * VEC - 1) / (GROUP_THREADS * VEC);
    constexpr int UNROLL = ITEMS <= MAX_UNROLLED_ITEMS ? ITEMS : 1;
    __shared__ float2 warp_stats[ROWS_PER_BLOCK][GROUP_WARPS];
    __shared__ float2 row_stats[ROWS_PER_BLOCK];
    const int group = threadIdx.x / GROUP_THREADS;
    const int gtid = threadIdx.x % GROUP_THREADS;
    const int warp = gtid / 32;
    const int lane = gtid % 32;
    const int row = blockIdx.x * ROWS_PER_BLOCK + group;
    const bool active = row < op.rows;

    float v[ITEMS][VEC];
    float2 s = op.init();
#pragma unroll UNROLL
    for (int it = 0; it < ITEMS; ++it) {
        const int col = (it * GROUP_THREADS + gtid) * VEC;
        if (active && col < op.cols) {
            op.load(row, col, v[it]);
#pragma unroll
            for (int i = 0; i < VEC; ++i) op.accumulate(s, v[it][i]);
        }
    }
    s = warp_combine(op, s);
    if (lane == 0) warp_stats[group][warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < GROUP_WARPS ? warp_stats[group][lane] : op.init();
        s = warp_combine(op, s);
        if (lane == 0) row_stats[group] = op.finalize(s);
    }
    __syncthreads();
    if (!active) return;

    const float2 stat = row_stats[group];
    if (gtid == 0) op.store_row(row, stat);
#pragma unroll UNROLL
    for (int it = 0; it < ITEMS; ++it) {
        const int col = (it * GROUP_THREADS + gtid) * VEC;
        if (col < op.cols) op.store(row, col, v[it], stat);
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    return {dim3((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
