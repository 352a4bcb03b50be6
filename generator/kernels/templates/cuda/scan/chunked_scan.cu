{{PRELUDE}}

// {{KERNEL_NAME}}: chunked parallel scan. A block owns VEC adjacent channels of one batch and walks the
// sequence in chunks of CHUNK steps staged in shared memory; inside a chunk the time dimension is split over
// the threads and combined with a block-wide associative scan, and the state carries from chunk to chunk.
{{TUNED_CONSTANTS}}

constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr int NUM_THREADS = NUM_WARPS * 32;
constexpr int ITEMS = (CHUNK + NUM_THREADS - 1) / NUM_THREADS;

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

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }

// One chunk staged in shared memory: u, delta, z as [CHUNK][VEC] (the block's channels) and B, C as [CHUNK][N].
struct Stage {
    scalar_t* u;
    scalar_t* dt;
    scalar_t* z;
    scalar_t* b;
    scalar_t* c;
};

template <class Op>
__device__ Stage stage_at(unsigned char* base)
{
    scalar_t* p = reinterpret_cast<scalar_t*>(base);
    return {p, p + CHUNK * VEC, p + 2 * CHUNK * VEC, p + 3 * CHUNK * VEC, p + 3 * CHUNK * VEC + CHUNK * Op::NSTATE};
}

template <class Op>
__host__ __device__ constexpr size_t stage_bytes()
{
    return (size_t)CHUNK * (3 * VEC + 2 * Op::NSTATE) * sizeof(scalar_t);
}

// The block's VEC channels of u/delta/z are contiguous at each step; B and C rows are N contiguous elements.
template <class Op>
__device__ void load_chunk(const Op& op, int row, int t0, int len, const Stage& st)
{
    constexpr int N = Op::NSTATE;
    constexpr int BC_PACKS = N * sizeof(scalar_t) / 16;
    for (int t = threadIdx.x; t < len; t += NUM_THREADS) {
        copy_n<VEC>(st.u + t * VEC, op.u_ptr(row, t0 + t));
        copy_n<VEC>(st.dt + t * VEC, op.delta_ptr(row, t0 + t));
        copy_n<VEC>(st.z + t * VEC, op.z_ptr(row, t0 + t));
    }
    for (int i = threadIdx.x; i < len * BC_PACKS; i += NUM_THREADS) {
        const int t = i / BC_PACKS;
        const int part = i % BC_PACKS * (16 / sizeof(scalar_t));
        copy_n<16 / sizeof(scalar_t)>(st.b + t * N + part, op.b_ptr(row, t0 + t) + part);
        copy_n<16 / sizeof(scalar_t)>(st.c + t * N + part, op.c_ptr(row, t0 + t) + part);
    }
}

// A linear recurrence h_t = a_t h_{t-1} + b_t composes associatively: (a1, b1) then (a2, b2) is
// (a1 a2, a2 b1 + b2). Each thread owns ITEMS consecutive steps of the chunk; the block computes exclusive
// prefixes of the threads' compositions (shuffle scan in each warp, then across warp totals) for VEC channels.
__device__ __forceinline__ float2 compose(float2 first, float2 then)
{
    return make_float2(first.x * then.x, then.x * first.y + then.y);
}

__device__ void block_exclusive_scan(float2 (&pairs)[VEC], float2 (*warp_totals)[VEC])
{
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
        float2 inclusive = pairs[v];
#pragma unroll
        for (int offset = 1; offset < 32; offset <<= 1) {
            const float2 up = make_float2(__shfl_up_sync(FULL_MASK, inclusive.x, offset),
                                          __shfl_up_sync(FULL_MASK, inclusive.y, offset));
            if (lane >= offset) inclusive = compose(up, inclusive);
        }
        float2 exclusive = make_float2(__shfl_up_sync(FULL_MASK, inclusive.x, 1),
                                       __shfl_up_sync(FULL_MASK, inclusive.y, 1));
        if (lane == 0) exclusive = make_float2(1.f, 0.f);
        if (lane == 31) warp_totals[warp][v] = inclusive;
        pairs[v] = exclusive;
    }
    __syncthreads();
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
        float2 prefix = make_float2(1.f, 0.f);
        for (int w = 0; w < warp; ++w) prefix = compose(prefix, warp_totals[w][v]);
        pairs[v] = compose(prefix, pairs[v]);
    }
    __syncthreads();
}

// Scan one staged chunk of `len` steps for VEC channels starting at `row`; `carry` holds the state entering
// the chunk and leaves holding the state after it.
template <class Op>
__device__ void scan_chunk(const Op& op, int row, int t0, int len, const Stage& st, float (*carry)[VEC],
                           float2 (*warp_totals)[VEC])
{
    constexpr int N = Op::NSTATE;
    const int first = threadIdx.x * ITEMS;
    float y[ITEMS][VEC];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
        for (int v = 0; v < VEC; ++v) y[i][v] = 0.f;

    for (int n = 0; n < N; ++n) {
        float a[VEC];
        float h_in[VEC];
        float2 pairs[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            a[v] = op.a(row + v, n);
            h_in[v] = carry[n][v];
            pairs[v] = make_float2(1.f, 0.f);
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const int t = first + i;
            if (t >= len) break;
            const float b = static_cast<float>(st.b[t * N + n]);
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
                const float dt = static_cast<float>(st.dt[t * VEC + v]);
                const float decay = __expf(dt * a[v]);
                pairs[v] = make_float2(pairs[v].x * decay, decay * pairs[v].y + dt * b * static_cast<float>(st.u[t * VEC + v]));
            }
        }
        block_exclusive_scan(pairs, warp_totals);
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            float h = pairs[v].x * h_in[v] + pairs[v].y;
#pragma unroll
            for (int i = 0; i < ITEMS; ++i) {
                const int t = first + i;
                if (t >= len) break;
                const float dt = static_cast<float>(st.dt[t * VEC + v]);
                h = __expf(dt * a[v]) * h + dt * static_cast<float>(st.b[t * N + n]) * static_cast<float>(st.u[t * VEC + v]);
                y[i][v] += static_cast<float>(st.c[t * N + n]) * h;
            }
            if (first < len && first + ITEMS >= len) carry[n][v] = h;
        }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int t = first + i;
        if (t >= len) break;
        float out[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) out[v] = y[i][v] * silu(static_cast<float>(st.z[t * VEC + v]));
        store_n(op.y_ptr(row, t0 + t), out);
    }
}

template <class Op>
__device__ void scan_rows(const Op& op)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __shared__ float carry[Op::NSTATE][VEC];
    __shared__ float2 warp_totals[NUM_WARPS][VEC];
    const int row = blockIdx.x * VEC;
    const int chunks = (op.steps + CHUNK - 1) / CHUNK;
    for (int i = threadIdx.x; i < Op::NSTATE * VEC; i += NUM_THREADS) carry[i / VEC][i % VEC] = 0.f;
    const Stage st = stage_at<Op>(smem_raw);
    for (int c = 0; c < chunks; ++c) {
        const int len = min(CHUNK, op.steps - c * CHUNK);
        __syncthreads();
        load_chunk(op, row, c * CHUNK, len, st);
        __syncthreads();
        scan_chunk(op, row, c * CHUNK, len, st, carry, warp_totals);
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows)
{
    const size_t smem = stage_bytes<Op>();
    if (smem > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    return {dim3((rows + VEC - 1) / VEC), dim3(NUM_THREADS), smem};
}

{{OP_SNIPPET}}
