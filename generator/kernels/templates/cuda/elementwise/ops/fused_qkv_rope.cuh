// fused_qkv_rope: each token's fused projection row holds H query heads, then HKV key heads, then HKV value
// heads of D dims. Q and K heads are rotated (neox pairs j, j + D/2, cos/sin from cos_sin[position]) into q/k;
// V heads are copied into v. A unit is one pair of one head of one token.
struct FusedQkvRope {
    static constexpr int HALF_D = {{SHAPE_D}} / 2;
    const scalar_t* __restrict__ qkv;
    const int32_t* __restrict__ positions;
    const float* __restrict__ cos_sin;
    scalar_t* __restrict__ q;
    scalar_t* __restrict__ k;
    scalar_t* __restrict__ v;
    int tokens;
    int q_heads;
    int kv_heads;

    __device__ long long units() const { return (long long)tokens * (q_heads + 2 * kv_heads) * HALF_D; }

    template <int N>
    __device__ void apply(long long unit) const
    {
        const int heads = q_heads + 2 * kv_heads;
        const int j = (int)(unit % HALF_D);
        const long long t = unit / HALF_D / heads;
        const int head = (int)(unit / HALF_D % heads);
        const scalar_t* src = qkv + (t * heads + head) * 2 * HALF_D + j;
        float lo[N];
        float hi[N];
        load_n(src, lo);
        load_n(src + HALF_D, hi);

        scalar_t* dst;
        if (head < q_heads) {
            dst = q + (t * q_heads + head) * 2 * HALF_D + j;
        } else if (head < q_heads + kv_heads) {
            dst = k + (t * kv_heads + head - q_heads) * 2 * HALF_D + j;
        } else {
            dst = v + (t * kv_heads + head - q_heads - kv_heads) * 2 * HALF_D + j;
            store_n(dst, lo);
            store_n(dst + HALF_D, hi);
            return;
        }
        const float* cs = cos_sin + (size_t)positions[t] * 2 * HALF_D;
        float c[N];
        float s[N];
        load_n(cs + j, c);
        load_n(cs + HALF_D + j, s);
        float out_lo[N];
        float out_hi[N];
#pragma unroll
        for (int i = 0; i < N; ++i) {
            out_lo[i] = lo[i] * c[i] - hi[i] * s[i];
            out_hi[i] = hi[i] * c[i] + lo[i] * s[i];
        }
        store_n(dst, out_lo);
        store_n(dst + HALF_D, out_hi);
    }
};

{{SIGNATURE}}
{
    const FusedQkvRope op{qkv, positions, cos_sin, q, k, v, T, H, HKV};
    elementwise(op);
}

void launch_fused_qkv_rope(const scalar_t* qkv, const int32_t* positions, const float* cos_sin, scalar_t* q,
                           scalar_t* k, scalar_t* v, int T, int H, int HKV, int D, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&fused_qkv_rope_kernel, (long long)T * (H + 2 * HKV) * (D / 2));
    fused_qkv_rope_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(qkv, positions, cos_sin, q, k, v, T, H,
                                                                        HKV, D);
}
