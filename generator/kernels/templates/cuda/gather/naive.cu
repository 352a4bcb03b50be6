{{PRELUDE}}

// {{KERNEL_NAME}}: one thread per row, copying it element by element. Neighbouring threads touch different rows,
// so every load and store is a separate, uncoalesced transaction.
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

// Moves N elements as one aligned pack, without converting them.
template <int N, typename T>
__device__ __forceinline__ void copy_n(T* dst, const T* src)
{
    *reinterpret_cast<Pack<T, N>*>(dst) = *reinterpret_cast<const Pack<T, N>*>(src);
}

template <class Op>
__device__ void gather_rows(const Op& op)
{
    const int row = blockIdx.x * NUM_THREADS + threadIdx.x;
    if (row >= op.rows) return;
    const typename Op::Route rt = op.route(row);
    if (rt.dst == nullptr) return;
    for (int col = 0; col < op.cols; ++col) op.template move<1>(rt, col);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    return {dim3((rows + NUM_THREADS - 1) / NUM_THREADS), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
