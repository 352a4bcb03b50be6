// minp_sample: drop tokens whose probability is below min_p times the largest one (a logit threshold of
// max + log(min_p)), renormalize and draw one token.
struct MinpSample {
    static constexpr int MODE = SELECT_MIN_P;
    static constexpr bool SAMPLE = true;
    static constexpr int KEEP = 1;
    const scalar_t* __restrict__ logits;
    const float* __restrict__ min_p;
    const int64_t* __restrict__ seeds;
    int64_t* __restrict__ tokens;
    int rows;
    int cols;

    __device__ const scalar_t* row_ptr(int row) const { return logits + (size_t)row * cols; }
    __device__ float row_scale(int row) const { return 1.f; }
    __device__ float target(int row) const { return min_p[row]; }
    __device__ uint64_t seed(int row) const { return (uint64_t)seeds[row]; }
    __device__ void write_token(int row, int token) const { tokens[row] = token; }
    __device__ void write_kept(int, int, int, float) const {}
};

{{SIGNATURE}}
{
    const MinpSample op{logits, min_p, seeds, tokens, B, V};
    sample_rows(op);
}

void launch_minp_sample(const scalar_t* logits, const float* min_p, const int64_t* seeds, int64_t* tokens, int B, int V, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<MinpSample>((const void*)&minp_sample_kernel, B, V);
    minp_sample_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(logits, min_p, seeds, tokens, B, V);
}
