{{PRELUDE}}

// {{KERNEL_NAME}}: each thread handles VEC consecutive units with 16-byte packed loads and stores (uint4-sized
// for VEC * sizeof(element) == 16), cutting instruction count and keeping every transaction full width.
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
    const long long unit = ((long long)blockIdx.x * NUM_THREADS + threadIdx.x) * VEC;
    if (unit < op.units()) op.template apply<VEC>(unit);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, long long units)
{
    const long long threads = (units + VEC - 1) / VEC;
    return {dim3((unsigned)((threads + NUM_THREADS - 1) / NUM_THREADS)), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
