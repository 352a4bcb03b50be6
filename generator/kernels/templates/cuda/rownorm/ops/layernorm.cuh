// layernorm: y = (x - mean) * rsqrt(var + eps) * w + b, with sum and sum of squares reduced in fp32.
constexpr float EPS = 1e-5f;

struct LayerNorm {
    static constexpr int COLS = {{SHAPE_H}};
    const scalar_t* __restrict__ x;
    const scalar_t* __restrict__ weight;
    const scalar_t* __restrict__ bias;
    scalar_t* __restrict__ y;
    int rows;
    int cols;

    __device__ float2 init() const { return make_float2(0.f, 0.f); }
    __device__ void accumulate(float2& s, float v) const { s.x += v; s.y += v * v; }
    __device__ float2 combine(float2 a, float2 b) const { return make_float2(a.x + b.x, a.y + b.y); }
    __device__ float2 finalize(float2 s) const
    {
        const float mean = s.x / cols;
        const float var = fmaxf(s.y / cols - mean * mean, 0.f);
        return make_float2(mean, rsqrtf(var + EPS));
    }
    __device__ void store_row(int, float2) const {}

    template <int N>
    __device__ void load(int row, int col, float (&v)[N]) const
    {
        load_n(x + (size_t)row * cols + col, v);
    }

    template <int N>
    __device__ void store(int row, int col, const float (&v)[N], float2 s) const
    {
        float w[N];
        float b[N];
        load_n(weight + col, w);
        load_n(bias + col, b);
        float out[N];
#pragma unroll
        for (int i = 0; i < N; ++i) out[i] = (v[i] - s.x) * s.y * w[i] + b[i];
        store_n(y + (size_t)row * cols + col, out);
    }
};

{{SIGNATURE}}
{
    const LayerNorm op{x, weight, bias, y, T, H};
    norm_rows(op);
}

void launch_layernorm(const scalar_t* x, const scalar_t* weight, const scalar_t* bias, scalar_t* y, int T, int H,
                      cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&layernorm_kernel, T, H);
    layernorm_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(x, weight, bias, y, T, H);
}
