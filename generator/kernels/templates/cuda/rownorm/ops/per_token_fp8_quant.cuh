// per_token_fp8_quant: scale = absmax(row) / 448 (the e4m3 maximum); xq = x / scale, saturated to e4m3.
{{SIGNATURE}};

// The activation type exactly as the prototype declares it (the format the quantized data is made from).
template <typename F>
struct InputOf;
template <typename T, typename... Rest>
struct InputOf<void (*)(const T*, Rest...)> {
    typedef T type;
};
typedef InputOf<decltype(&per_token_fp8_quant_kernel)>::type act_t;

constexpr float FP8_MAX = 448.f;

struct PerTokenFp8Quant {
    static constexpr int COLS = {{SHAPE_H}};
    const act_t* __restrict__ x;
    scalar_t* __restrict__ xq;
    float* __restrict__ scales;
    int rows;
    int cols;

    __device__ float2 init() const { return make_float2(0.f, 0.f); }
    __device__ void accumulate(float2& s, float v) const { s.x = fmaxf(s.x, fabsf(v)); }
    __device__ float2 combine(float2 a, float2 b) const { return make_float2(fmaxf(a.x, b.x), 0.f); }
    __device__ float2 finalize(float2 s) const
    {
        const float scale = fmaxf(s.x, 1e-12f) / FP8_MAX;
        return make_float2(scale, 1.f / scale);
    }
    __device__ void store_row(int row, float2 s) const { scales[row] = s.x; }

    template <int N>
    __device__ void load(int row, int col, float (&v)[N]) const
    {
        load_n(x + (size_t)row * cols + col, v);
    }

    template <int N>
    __device__ void store(int row, int col, const float (&v)[N], float2 s) const
    {
        float q[N];
#pragma unroll
        for (int i = 0; i < N; ++i) q[i] = v[i] * s.y;
        store_n(xq + (size_t)row * cols + col, q);
    }
};

{{SIGNATURE}}
{
    const PerTokenFp8Quant op{x, xq, scales, T, H};
    norm_rows(op);
}

void launch_per_token_fp8_quant(const act_t* x, scalar_t* xq, float* scales, int T, int H, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&per_token_fp8_quant_kernel, T, H);
    per_token_fp8_quant_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(x, xq, scales, T, H);
}
