// moe_topk_gating: softmax over the E router logits of a token, keep the top K experts and renormalize their
// weights to sum to one. Slot j of the token's row gets the expert of the j-th largest logit (so weight), ties to
// the lower id: the order vLLM's fused_topk writes (csrc/moe/topk_softmax_kernels.cu, topkGatingSoftmax: one
// argmax per slot, "lower indices win"). Every kept expert reaches write_kept (KEEP = E), which writes it at its
// rank; an exact tie at the K-th logit keeps more than K, and the K written weights, renormalized over all kept,
// then sum to less than one.
struct MoeTopkGating {
    static constexpr int MODE = SELECT_COUNT;
    static constexpr bool SAMPLE = false;
    static constexpr int KEEP = {{SHAPE_E}};
    const scalar_t* __restrict__ router_logits;
    float* __restrict__ topk_weights;
    int32_t* __restrict__ topk_ids;
    int k;
    int rows;
    int cols;

    __device__ const scalar_t* row_ptr(int row) const { return router_logits + (size_t)row * cols; }
    __device__ float row_scale(int row) const { return 1.f; }
    __device__ float target(int row) const { return (float)k; }
    __device__ uint64_t seed(int row) const { return 0; }
    __device__ void write_token(int, int) const {}
    __device__ void write_kept(int row, int, int index, float weight) const
    {
        const scalar_t* x = row_ptr(row);
        const float mine = static_cast<float>(x[index]);
        int rank = 0;
        for (int e = 0; e < cols; ++e) {
            const float other = static_cast<float>(x[e]);
            rank += other > mine || (other == mine && e < index);
        }
        if (rank < k) {
            topk_ids[row * k + rank] = index;
            topk_weights[row * k + rank] = weight;
        }
    }
};

{{SIGNATURE}}
{
    const MoeTopkGating op{router_logits, topk_weights, topk_ids, K, T, E};
    sample_rows(op);
}

void launch_moe_topk_gating(const scalar_t* router_logits, float* topk_weights, int32_t* topk_ids, int T, int E, int K, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<MoeTopkGating>((const void*)&moe_topk_gating_kernel, T, E);
    moe_topk_gating_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(router_logits, topk_weights, topk_ids, T, E, K);
}
