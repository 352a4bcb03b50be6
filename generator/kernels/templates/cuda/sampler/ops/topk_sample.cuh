// topk_sample: keep the K largest of logits / temperature, softmax them and draw one token (Philox stream
// seeded per row).
struct TopkSample {
    static constexpr int MODE = SELECT_COUNT;
    static constexpr bool SAMPLE = true;
    static constexpr int KEEP = 1;
    const scalar_t* __restrict__ logits;
    const float* __restrict__ temperature;
    const int64_t* __restrict__ seeds;
    int64_t* __restrict__ tokens;
    int k;
    int rows;
    int cols;

    __device__ const scalar_t* row_ptr(int row) const { return logits + (size_t)row * cols; }
    __device__ float row_scale(int row) const { return 1.f / temperature[row]; }
    __device__ float target(int row) const { return (float)k; }
    __device__ uint64_t seed(int row) const { return (uint64_t)seeds[row]; }
    __device__ void write_token(int row, int token) const { tokens[row] = token; }
    __device__ void write_kept(int, int, int, float) const {}
};

{{SIGNATURE}}
{
    const TopkSample op{logits, temperature, seeds, tokens, K, B, V};
    sample_rows(op);
}

void launch_topk_sample(const scalar_t* logits, const float* temperature, const int64_t* seeds, int64_t* tokens, int B, int V, int K, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<TopkSample>((const void*)&topk_sample_kernel, B, V);
    topk_sample_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(logits, temperature, seeds, tokens, B, V, K);
}
