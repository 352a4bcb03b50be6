{{PRELUDE}}

// {{KERNEL_NAME}}: one thread per unit with scalar loads: a load instruction per element and one thread per
// few bytes of traffic.
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
__device__ void elementwise(const Op& op)
{
    const long long unit = (long long)blockIdx.x * NUM_THREADS + threadIdx.x;
    if (unit < op.units()) op.template apply<1>(unit);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, long long units)
{
    return {dim3((unsigned)((units + NUM_THREADS - 1) / NUM_THREADS)), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
