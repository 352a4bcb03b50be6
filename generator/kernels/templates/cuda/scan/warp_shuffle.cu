{{PRELUDE}}

// {{KERNEL_NAME}}: the state dimension goes across lanes. A warp handles 32 / N rows; lane n of a row's group
// owns h[n], loads B_t[n] and C_t[n] (coalesced), and C_t . h_t is summed with xor shuffles inside the group.
{{TUNED_CONSTANTS}}

constexpr unsigned FULL_MASK = 0xffffffffu;

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }

template <class Op>
__device__ void scan_rows(const Op& op)
{
    constexpr int N = Op::NSTATE;
    constexpr int ROWS_PER_WARP = 32 / N;
    const int warp = (blockIdx.x * NUM_WARPS + threadIdx.x / 32);
    const int lane = threadIdx.x % 32;
    const int n = lane % N;
    const int row = warp * ROWS_PER_WARP + lane / N;
    const bool active = row < op.rows;
    const int safe_row = active ? row : 0;

    float h = active ? op.load_state(safe_row, n) : 0.f;
    const float a = op.a(safe_row, n);
    for (int t = 0; t < op.steps; ++t) {
        const float u = static_cast<float>(*op.u_ptr(safe_row, t));
        const float dt = static_cast<float>(*op.delta_ptr(safe_row, t));
        const float b = static_cast<float>(op.b_ptr(safe_row, t)[n]);
        const float c = static_cast<float>(op.c_ptr(safe_row, t)[n]);
        h = __expf(dt * a) * h + dt * b * u;
        float out = c * h;
#pragma unroll
        for (int offset = N / 2; offset > 0; offset >>= 1) out += __shfl_xor_sync(FULL_MASK, out, offset);
        if (active && n == 0)
            *op.y_ptr(row, t) = static_cast<scalar_t>(out * silu(static_cast<float>(*op.z_ptr(row, t))));
    }
    if (active) op.store_state(row, n, h);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows)
{
    const int rows_per_block = NUM_WARPS * 32 / Op::NSTATE;
    return {dim3((rows + rows_per_block - 1) / rows_per_block), dim3(NUM_WARPS * 32), 0};
}

{{OP_SNIPPET}}
