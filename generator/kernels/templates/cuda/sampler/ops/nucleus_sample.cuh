// nucleus_sample: keep the smallest set of most likely tokens whose probability reaches top_p (found as a
// threshold on the logits, no sort), renormalize and draw one token.
struct NucleusSample {
    static constexpr int MODE = SELECT_MASS;
    static constexpr bool SAMPLE = true;
    static constexpr int KEEP = 1;
    const scalar_t* __restrict__ logits;
    const float* __restrict__ top_p;
    const int64_t* __restrict__ seeds;
    int64_t* __restrict__ tokens;
    int rows;
    int cols;

    __device__ const scalar_t* row_ptr(int row) const { return logits + (size_t)row * cols; }
    __device__ float row_scale(int row) const { return 1.f; }
    __device__ float target(int row) const { return top_p[row]; }
    __device__ uint64_t seed(int row) const { return (uint64_t)seeds[row]; }
    __device__ void write_token(int row, int token) const { tokens[row] = token; }
    __device__ void write_kept(int, int, int, float) const {}
};

{{SIGNATURE}}
{
    const NucleusSample op{logits, top_p, seeds, tokens, B, V};
    sample_rows(op);
}

void launch_nucleus_sample(const scalar_t* logits, const float* top_p, const int64_t* seeds, int64_t* tokens, int B, int V, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<NucleusSample>((const void*)&nucleus_sample_kernel, B, V);
    nucleus_sample_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(logits, top_p, seeds, tokens, B, V);
}
