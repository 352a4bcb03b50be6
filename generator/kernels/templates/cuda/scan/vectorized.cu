{{PRELUDE}}

// {{KERNEL_NAME}}: each thread advances VEC adjacent channels of one batch, with their VEC x N states in
// registers. u, delta and z arrive as VEC-wide packed loads, y leaves as a packed store, and the step's B and C
// rows are loaded once (16-byte packs) and reused for all VEC channels.
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

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }

template <class Op>
__device__ void scan_rows(const Op& op)
{
    constexpr int N = Op::NSTATE;
    const int row = (blockIdx.x * NUM_WARPS * 32 + threadIdx.x) * VEC;
    if (row >= op.rows) return;
    float h[VEC][N];
    float a[VEC][N];
#pragma unroll
    for (int v = 0; v < VEC; ++v)
#pragma unroll
        for (int n = 0; n < N; ++n) {
            h[v][n] = op.load_state(row + v, n);
            a[v][n] = op.a(row + v, n);
        }
    for (int t = 0; t < op.steps; ++t) {
        float u[VEC];
        float dt[VEC];
        float z[VEC];
        float b[N];
        float c[N];
        load_n(op.u_ptr(row, t), u);
        load_n(op.delta_ptr(row, t), dt);
        load_n(op.z_ptr(row, t), z);
        load_n(op.b_ptr(row, t), b);
        load_n(op.c_ptr(row, t), c);
        float out[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            float acc = 0.f;
#pragma unroll
            for (int n = 0; n < N; ++n) {
                h[v][n] = __expf(dt[v] * a[v][n]) * h[v][n] + dt[v] * b[n] * u[v];
                acc += c[n] * h[v][n];
            }
            out[v] = acc * silu(z[v]);
        }
        store_n(op.y_ptr(row, t), out);
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v)
#pragma unroll
        for (int n = 0; n < N; ++n) op.store_state(row + v, n, h[v][n]);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows)
{
    const int threads = (rows + VEC - 1) / VEC;
    return {dim3((threads + NUM_WARPS * 32 - 1) / (NUM_WARPS * 32)), dim3(NUM_WARPS * 32), 0};
}

{{OP_SNIPPET}}
