{{PRELUDE}}

// {{KERNEL_NAME}}: a thread-block cluster of CLUSTER_SIZE blocks shares one row (sm_90 clusters), so even a
// handful of long rows fills the GPU. Each block keeps its slice in registers, reduces it with shuffles, publishes
// the partial statistic in its shared memory and reads its peers' partials through distributed shared memory
// (mapa + ld.shared::cluster) between two cluster barriers.
{{TUNED_CONSTANTS}}

constexpr unsigned FULL_MASK = 0xffffffffu;
// Rows so wide that a thread would hold more packs than this (a 128K vocabulary) keep them in local memory
// anyway; unrolling such loops fully would only cost compile time.
constexpr int MAX_UNROLLED_ITEMS = 16;
constexpr int WARPS = NUM_THREADS / 32;

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

__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Reads a float2 from the same shared-memory variable in block `rank` of this cluster.
__device__ __forceinline__ float2 load_peer(const float2* local, unsigned rank)
{
    const unsigned addr = (unsigned)__cvta_generic_to_shared(local);
    unsigned remote;
    float2 out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(rank));
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(out.x), "=f"(out.y) : "r"(remote) : "memory");
    return out;
}

template <class Op>
__device__ void norm_rows(const Op& op)
{
    constexpr int SLICE = (Op::COLS + CLUSTER_SIZE - 1) / CLUSTER_SIZE;
    constexpr int ITEMS = (SLICE + NUM_THREADS * VEC - 1) / (NUM_THREADS * VEC);
    constexpr int UNROLL = ITEMS <= MAX_UNROLLED_ITEMS ? ITEMS : 1;
    __shared__ float2 warp_stats[WARPS];
    __shared__ float2 block_stat;
    const unsigned rank = cluster_rank();
    const int row = blockIdx.x / CLUSTER_SIZE;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int begin = rank * SLICE;
    const int end = min(op.cols, begin + SLICE);

    float v[ITEMS][VEC];
    float2 s = op.init();
#pragma unroll UNROLL
    for (int it = 0; it < ITEMS; ++it) {
        const int col = begin + (it * NUM_THREADS + threadIdx.x) * VEC;
        if (col < end) {
            op.load(row, col, v[it]);
#pragma unroll
            for (int i = 0; i < VEC; ++i) op.accumulate(s, v[it][i]);
        }
    }
    s = warp_combine(op, s);
    if (lane == 0) warp_stats[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < WARPS ? warp_stats[lane] : op.init();
        s = warp_combine(op, s);
        if (lane == 0) block_stat = s;
    }
    cluster_sync();
    float2 total = op.init();
    for (unsigned r = 0; r < CLUSTER_SIZE; ++r) total = op.combine(total, load_peer(&block_stat, r));
    cluster_sync();

    const float2 stat = op.finalize(total);
    if (rank == 0 && threadIdx.x == 0) op.store_row(row, stat);
#pragma unroll UNROLL
    for (int it = 0; it < ITEMS; ++it) {
        const int col = begin + (it * NUM_THREADS + threadIdx.x) * VEC;
        if (col < end) op.store(row, col, v[it], stat);
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    cudaFuncSetAttribute(kernel, cudaFuncAttributeRequiredClusterWidth, CLUSTER_SIZE);
    return {dim3(rows * CLUSTER_SIZE), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
