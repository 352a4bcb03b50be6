// kv_int8_quant: each (K or V, token, head) row of D values gets scale = absmax / 127 and is written, rounded,
// into the paged int8 cache at the token's slot. Rows 0..T*H-1 are K, the rest V.
{{SIGNATURE}};

// The activation type exactly as the prototype declares it (the format the quantized data is made from).
template <typename F>
struct InputOf;
template <typename T, typename... Rest>
struct InputOf<void (*)(const T*, Rest...)> {
    typedef T type;
};
typedef InputOf<decltype(&kv_int8_quant_kernel)>::type act_t;

constexpr float INT8_LIMIT = 127.f;

struct KvInt8Quant {
    static constexpr int COLS = {{SHAPE_D}};
    const act_t* __restrict__ k;
    const act_t* __restrict__ v;
    const int64_t* __restrict__ slot_mapping;
    scalar_t* __restrict__ k_cache;
    scalar_t* __restrict__ v_cache;
    float* __restrict__ scales;
    int tokens;
    int heads;
    int rows;
    int cols;

    __device__ float2 init() const { return make_float2(0.f, 0.f); }
    __device__ void accumulate(float2& s, float x) const { s.x = fmaxf(s.x, fabsf(x)); }
    __device__ float2 combine(float2 a, float2 b) const { return make_float2(fmaxf(a.x, b.x), 0.f); }
    __device__ float2 finalize(float2 s) const
    {
        const float scale = fmaxf(s.x, 1e-12f) / INT8_LIMIT;
        return make_float2(scale, 1.f / scale);
    }
    __device__ void store_row(int row, float2 s) const { scales[row] = s.x; }

    template <int N>
    __device__ void load(int row, int col, float (&x)[N]) const
    {
        const int per_tensor = tokens * heads;
        const act_t* src = row < per_tensor ? k : v;
        load_n(src + (size_t)(row % per_tensor) * cols + col, x);
    }

    template <int N>
    __device__ void store(int row, int col, const float (&x)[N], float2 s) const
    {
        const int per_tensor = tokens * heads;
        const int token = (row % per_tensor) / heads;
        const int head = row % heads;
        const int64_t slot = slot_mapping[token];
        scalar_t* dst = row < per_tensor ? k_cache : v_cache;
        float q[N];
#pragma unroll
        for (int i = 0; i < N; ++i) q[i] = fminf(fmaxf(rintf(x[i] * s.y), -INT8_LIMIT), INT8_LIMIT);
        store_n(dst + ((size_t)slot * heads + head) * cols + col, q);
    }
};

{{SIGNATURE}}
{
    const KvInt8Quant op{k, v, slot_mapping, k_cache, v_cache, scales, T, H, 2 * T * H, D};
    norm_rows(op);
}

void launch_kv_int8_quant(const act_t* k, const act_t* v, const int64_t* slot_mapping, scalar_t* k_cache,
                          scalar_t* v_cache, float* scales, int T, int H, int D, int P, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&kv_int8_quant_kernel, 2 * T * H, D);
    kv_int8_quant_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(k, v, slot_mapping, k_cache, v_cache,
                                                                      scales, T, H, D, P);
}
