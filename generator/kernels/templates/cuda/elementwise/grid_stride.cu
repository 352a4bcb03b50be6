{{PRELUDE}}

// {{KERNEL_NAME}}: persistent grid-stride loop. The grid is sized to the machine (as many blocks as the
// occupancy calculator says fit on every SM at once) instead of the problem, each thread walks VEC-wide packs with a stride of the whole grid, and
// UNROLL independent packs are in flight per thread to hide DRAM latency.
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
    const long long total = op.units();
    const long long stride = (long long)gridDim.x * NUM_THREADS * VEC;
    long long unit = ((long long)blockIdx.x * NUM_THREADS + threadIdx.x) * VEC;
    for (; unit + (UNROLL - 1) * stride < total; unit += UNROLL * stride) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) op.template apply<VEC>(unit + u * stride);
    }
    for (; unit < total; unit += stride) op.template apply<VEC>(unit);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, long long units)
{
    int device = 0;
    int sms = 0;
    int blocks_per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, NUM_THREADS, 0);
    const long long resident = (long long)sms * blocks_per_sm;
    const long long needed = (units + (long long)NUM_THREADS * VEC - 1) / ((long long)NUM_THREADS * VEC);
    const long long blocks = needed < resident ? needed : resident;
    return {dim3((unsigned)blocks), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
