{{PRELUDE}}

// {{KERNEL_NAME}}: one block per row. Threads stride the row (coalesced); the partial statistics are reduced
// as a tree in shared memory down to one warp, which finishes with shuffles (no barriers for the last 5 steps).
{{TUNED_CONSTANTS}}

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
__device__ void norm_rows(const Op& op)
{
    __shared__ float2 partial[NUM_THREADS];
    const int row = blockIdx.x;
    const int tid = threadIdx.x;

    float2 s = op.init();
    for (int col = tid; col < op.cols; col += NUM_THREADS) {
        float v[1];
        op.load(row, col, v);
        op.accumulate(s, v[0]);
    }
    partial[tid] = s;
    __syncthreads();
    for (int width = NUM_THREADS / 2; width >= 32; width >>= 1) {
        if (tid < width) partial[tid] = op.combine(partial[tid], partial[tid + width]);
        __syncthreads();
    }
    if (tid < 32) {
        float2 t = partial[tid];
        for (int offset = 16; offset > 0; offset >>= 1) {
            const float2 other = make_float2(__shfl_down_sync(0xffffffffu, t.x, offset),
                                             __shfl_down_sync(0xffffffffu, t.y, offset));
            t = op.combine(t, other);
        }
        if (tid == 0) partial[0] = t;
    }
    __syncthreads();
    const float2 stat = op.finalize(partial[0]);
    if (tid == 0) op.store_row(row, stat);

    for (int col = tid; col < op.cols; col += NUM_THREADS) {
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
