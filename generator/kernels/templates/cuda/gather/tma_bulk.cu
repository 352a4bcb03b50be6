{{PRELUDE}}

// {{KERNEL_NAME}}: rows move by TMA bulk copies (sm_90+). A persistent block walks groups of ROWS_PER_BLOCK rows;
// thread 0 resolves each row's route, arms the stage's mbarrier with the byte count and issues one
// cp.async.bulk per source row into a NUM_STAGES-deep shared-memory ring. Pure copies go back out with bulk
// stores (cp.async.bulk.global.shared::cta); reductions are computed by all threads from shared memory.
{{TUNED_CONSTANTS}}

constexpr int NUM_THREADS = 128;
constexpr int VEC = 16 / sizeof(scalar_t);

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

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbarrier_init(uint64_t* bar, unsigned arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
}

__device__ __forceinline__ void mbarrier_expect_tx(uint64_t* bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, unsigned parity)
{
    asm volatile(
        "{\n"
        ".reg .pred ready;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n"
        "@!ready bra WAIT;\n"
        "}\n" ::"r"(smem_addr(bar)),
        "r"(parity)
        : "memory");
}

__device__ __forceinline__ void tma_load_1d(void* dst, const void* src, unsigned bytes, uint64_t* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
}

__device__ __forceinline__ void tma_store_1d(void* dst, const void* src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src)),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

__device__ __forceinline__ void tma_store_drain() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

// Thread 0: resolve the routes of one group of rows and start their loads into `stage`.
template <class Op>
__device__ void issue_group(const Op& op, int group, scalar_t* stage, typename Op::Route* routes, uint64_t* bar)
{
    const unsigned row_bytes = op.cols * sizeof(scalar_t);
    unsigned bytes = 0;
    for (int i = 0; i < ROWS_PER_BLOCK; ++i) {
        const int row = group * ROWS_PER_BLOCK + i;
        if (row < op.rows)
            routes[i] = op.route(row);
        else
            routes[i].dst = nullptr;
        if (routes[i].dst != nullptr) bytes += Op::INPUTS * row_bytes;
    }
    mbarrier_expect_tx(bar, bytes);
    for (int i = 0; i < ROWS_PER_BLOCK; ++i) {
        if (routes[i].dst == nullptr) continue;
        for (int k = 0; k < Op::INPUTS; ++k)
            tma_load_1d(stage + ((size_t)i * Op::INPUTS + k) * op.cols, routes[i].src[k], row_bytes, bar);
    }
}

template <class Op>
__device__ void gather_rows(const Op& op)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[NUM_STAGES];
    __shared__ typename Op::Route routes[NUM_STAGES][ROWS_PER_BLOCK];
    const size_t stage_elems = (size_t)ROWS_PER_BLOCK * Op::INPUTS * op.cols;
    scalar_t* stages = reinterpret_cast<scalar_t*>(smem_raw);
    const int groups = (op.rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    const int my_groups = blockIdx.x < groups ? (groups - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;

    if (threadIdx.x == 0) {
        for (int s = 0; s < NUM_STAGES; ++s) mbarrier_init(&full[s], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        for (int i = 0; i < NUM_STAGES && i < my_groups; ++i)
            issue_group(op, blockIdx.x + i * gridDim.x, stages + i * stage_elems, routes[i], &full[i]);
    }
    __syncthreads();

    for (int i = 0; i < my_groups; ++i) {
        const int s = i % NUM_STAGES;
        scalar_t* stage = stages + s * stage_elems;
        mbarrier_wait(&full[s], (i / NUM_STAGES) & 1);
        if constexpr (Op::PURE_COPY) {
            if (threadIdx.x == 0) {
                for (int r = 0; r < ROWS_PER_BLOCK; ++r)
                    if (routes[s][r].dst != nullptr)
                        tma_store_1d(routes[s][r].dst, stage + (size_t)r * op.cols, op.cols * sizeof(scalar_t));
                tma_store_commit();
                tma_store_drain();
            }
        } else {
            for (int r = 0; r < ROWS_PER_BLOCK; ++r) {
                if (routes[s][r].dst == nullptr) continue;
                typename Op::Route staged = routes[s][r];
                for (int k = 0; k < Op::INPUTS; ++k) staged.src[k] = stage + ((size_t)r * Op::INPUTS + k) * op.cols;
                for (int col = threadIdx.x * VEC; col < op.cols; col += NUM_THREADS * VEC)
                    op.template move<VEC>(staged, col);
            }
        }
        __syncthreads();
        const int next = i + NUM_STAGES;
        if (threadIdx.x == 0 && next < my_groups)
            issue_group(op, blockIdx.x + next * gridDim.x, stage, routes[s], &full[s]);
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    const size_t smem = (size_t)NUM_STAGES * ROWS_PER_BLOCK * Op::INPUTS * cols * sizeof(scalar_t);
    if (smem > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    int device = 0;
    int sms = 0;
    int blocks_per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, NUM_THREADS, smem);
    const int groups = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    const int resident = sms * (blocks_per_sm > 0 ? blocks_per_sm : 1);
    return {dim3(groups < resident ? groups : resident), dim3(NUM_THREADS), smem};
}

{{OP_SNIPPET}}
