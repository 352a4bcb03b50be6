{{PRELUDE}}

// {{KERNEL_NAME}}: one warp per row with 16-byte vector accesses: each lane moves VEC elements at a time
// (uint4-sized packs at VEC * sizeof(element) == 16), so a warp moves 512 bytes per instruction. Lane 0
// resolves the row's route once; a scalar loop covers a row tail that is not a multiple of VEC.
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
    __shared__ typename Op::Route routes[NUM_WARPS];
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * NUM_WARPS + warp;
    if (row >= op.rows) return;
    if (lane == 0) routes[warp] = op.route(row);
    __syncwarp();
    const typename Op::Route rt = routes[warp];
    if (rt.dst == nullptr) return;
    const int vec_cols = op.cols / VEC * VEC;
    for (int col = lane * VEC; col < vec_cols; col += 32 * VEC) op.template move<VEC>(rt, col);
    for (int col = vec_cols + lane; col < op.cols; col += 32) op.template move<1>(rt, col);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    return {dim3((rows + NUM_WARPS - 1) / NUM_WARPS), dim3(NUM_WARPS * 32), 0};
}

{{OP_SNIPPET}}
