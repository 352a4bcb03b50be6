{{PRELUDE}}

// {{KERNEL_NAME}}: one thread per (batch, channel) row walking all L steps with the N-state in registers.
// Scalar loads; the B/C rows of a step are re-read by every thread of the batch, and neighbouring threads'
// u/delta/z loads are only as coalesced as the channel layout happens to make them.
{{TUNED_CONSTANTS}}

__device__ __forceinline__ float silu(float v) { return v / (1.f + __expf(-v)); }

template <class Op>
__device__ void scan_rows(const Op& op)
{
    constexpr int N = Op::NSTATE;
    const int row = blockIdx.x * NUM_THREADS + threadIdx.x;
    if (row >= op.rows) return;
    float h[N];
    float a[N];
    for (int n = 0; n < N; ++n) {
        h[n] = op.load_state(row, n);
        a[n] = op.a(row, n);
    }
    for (int t = 0; t < op.steps; ++t) {
        const float u = static_cast<float>(*op.u_ptr(row, t));
        const float dt = static_cast<float>(*op.delta_ptr(row, t));
        const scalar_t* b = op.b_ptr(row, t);
        const scalar_t* c = op.c_ptr(row, t);
        float out = 0.f;
        for (int n = 0; n < N; ++n) {
            h[n] = __expf(dt * a[n]) * h[n] + dt * static_cast<float>(b[n]) * u;
            out += static_cast<float>(c[n]) * h[n];
        }
        *op.y_ptr(row, t) = static_cast<scalar_t>(out * silu(static_cast<float>(*op.z_ptr(row, t))));
    }
    for (int n = 0; n < N; ++n) op.store_state(row, n, h[n]);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows)
{
    return {dim3((rows + NUM_THREADS - 1) / NUM_THREADS), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
