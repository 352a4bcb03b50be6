// logits_softmax: probs = softmax(logits / temperature) per row. The statistic is the online (max, sum of
// exponentials) pair, which merges exactly across threads, so no separate max pass is needed.
struct LogitsSoftmax {
    static constexpr int COLS = {{SHAPE_V}};
    const scalar_t* __restrict__ logits;
    const float* __restrict__ temperature;
    scalar_t* __restrict__ probs;
    int rows;
    int cols;

    __device__ float2 init() const { return make_float2(-INFINITY, 0.f); }
    __device__ void accumulate(float2& s, float v) const
    {
        if (v > s.x) {
            s.y = s.y * __expf(s.x - v) + 1.f;
            s.x = v;
        } else {
            s.y += __expf(v - s.x);
        }
    }
    __device__ float2 combine(float2 a, float2 b) const
    {
        const float m = fmaxf(a.x, b.x);
        if (m == -INFINITY) return a;
        return make_float2(m, a.y * __expf(a.x - m) + b.y * __expf(b.x - m));
    }
    __device__ float2 finalize(float2 s) const { return make_float2(s.x, 1.f / s.y); }
    __device__ void store_row(int, float2) const {}

    template <int N>
    __device__ void load(int row, int col, float (&v)[N]) const
    {
        const float inv_temp = 1.f / temperature[row];
        load_n(logits + (size_t)row * cols + col, v);
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] *= inv_temp;
    }

    template <int N>
    __device__ void store(int row, int col, const float (&v)[N], float2 s) const
    {
        float p[N];
#pragma unroll
        for (int i = 0; i < N; ++i) p[i] = __expf(v[i] - s.x) * s.y;
        store_n(probs + (size_t)row * cols + col, p);
    }
};

{{SIGNATURE}}
{
    const LogitsSoftmax op{logits, temperature, probs, B, V};
    norm_rows(op);
}

void launch_logits_softmax(const scalar_t* logits, const float* temperature, scalar_t* probs, int B, int V,
                           cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&logits_softmax_kernel, B, V);
    logits_softmax_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(logits, temperature, probs, B, V);
}
