// moe_combine: y[t] = sum_k topk_weights[t][k] * y_sorted[src_index[t * K + k]], accumulated in fp32.
struct MoeCombine {
    static constexpr int INPUTS = {{SHAPE_K}};
    static constexpr bool PURE_COPY = false;
    struct Route {
        const scalar_t* src[INPUTS];
        float weight[INPUTS];
        scalar_t* dst;
    };
    const scalar_t* __restrict__ y_sorted;
    const int32_t* __restrict__ src_index;
    const float* __restrict__ topk_weights;
    scalar_t* __restrict__ y;
    int rows;
    int cols;

    __device__ Route route(int row) const
    {
        Route rt;
        for (int k = 0; k < INPUTS; ++k) {
            rt.src[k] = y_sorted + (size_t)src_index[row * INPUTS + k] * cols;
            rt.weight[k] = topk_weights[row * INPUTS + k];
        }
        rt.dst = y + (size_t)row * cols;
        return rt;
    }

    template <int N>
    __device__ void move(const Route& rt, int col) const
    {
        float sum[N] = {};
        for (int k = 0; k < INPUTS; ++k) {
            float v[N];
            load_n(rt.src[k] + col, v);
#pragma unroll
            for (int i = 0; i < N; ++i) sum[i] += rt.weight[k] * v[i];
        }
        store_n(rt.dst + col, sum);
    }
};

{{SIGNATURE}}
{
    const MoeCombine op{y_sorted, src_index, topk_weights, y, T, H};
    gather_rows(op);
}

void launch_moe_combine(const scalar_t* y_sorted, const int32_t* src_index, const float* topk_weights, scalar_t* y,
                        int T, int K, int H, int E, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<MoeCombine>((const void*)&moe_combine_kernel, T, H);
    moe_combine_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(y_sorted, src_index, topk_weights, y, T, K, H, E);
}
