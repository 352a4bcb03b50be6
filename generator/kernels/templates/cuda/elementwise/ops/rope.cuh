// rope (neox layout): dims j and j + D/2 of every head form a rotation pair,
//   out_j = x_j * cos - x_{j+D/2} * sin,  out_{j+D/2} = x_{j+D/2} * cos + x_j * sin,
// with cos/sin read from cos_sin[position] = [cos(0..D/2) | sin(0..D/2)]. A unit is one pair.
struct Rope {
    static constexpr int HALF_D = {{SHAPE_D}} / 2;
    const scalar_t* __restrict__ x;
    const int32_t* __restrict__ positions;
    const float* __restrict__ cos_sin;
    scalar_t* __restrict__ x_out;
    int tokens;
    int heads;

    __device__ long long units() const { return (long long)tokens * heads * HALF_D; }

    template <int N>
    __device__ void apply(long long unit) const
    {
        const int j = (int)(unit % HALF_D);
        const long long head_row = unit / HALF_D;
        const long long t = head_row / heads;
        const float* cs = cos_sin + (size_t)positions[t] * 2 * HALF_D;
        const size_t base = head_row * 2 * HALF_D + j;
        float lo[N];
        float hi[N];
        float c[N];
        float s[N];
        load_n(x + base, lo);
        load_n(x + base + HALF_D, hi);
        load_n(cs + j, c);
        load_n(cs + HALF_D + j, s);
        float out_lo[N];
        float out_hi[N];
#pragma unroll
        for (int k = 0; k < N; ++k) {
            out_lo[k] = lo[k] * c[k] - hi[k] * s[k];
            out_hi[k] = hi[k] * c[k] + lo[k] * s[k];
        }
        store_n(x_out + base, out_lo);
        store_n(x_out + base + HALF_D, out_hi);
    }
};

{{SIGNATURE}}
{
    const Rope op{x, positions, cos_sin, x_out, T, H};
    elementwise(op);
}

void launch_rope(const scalar_t* x, const int32_t* positions, const float* cos_sin, scalar_t* x_out, int T, int H,
                 int D, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&rope_kernel, (long long)T * H * (D / 2));
    rope_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(x, positions, cos_sin, x_out, T, H, D);
}
