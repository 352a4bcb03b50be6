{{PRELUDE}}

// {{KERNEL_NAME}}: one thread per row, scalar loads. Simple and correct, but neighbouring threads walk
// different rows, so no load is coalesced and a few rows cannot fill the GPU.
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
    const int row = blockIdx.x * NUM_THREADS + threadIdx.x;
    if (row >= op.rows) return;
    float2 s = op.init();
    for (int col = 0; col < op.cols; ++col) {
        float v[1];
        op.load(row, col, v);
        op.accumulate(s, v[0]);
    }
    const float2 stat = op.finalize(s);
    op.store_row(row, stat);
    for (int col = 0; col < op.cols; ++col) {
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
    return {dim3((rows + NUM_THREADS - 1) / NUM_THREADS), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
