// mamba_step: one decode step of the selective scan. The fp32 state [B][D][N] is read, advanced by the new
// token and written back in place:  h = exp(delta * A) h + delta * B * x,  y = (C . h) * silu(z).
// x, delta, z, y are [B][D]; Bm, Cm are [B][N]; A is [D][N].
struct MambaStep {
    static constexpr int NSTATE = {{SHAPE_N}};
    const scalar_t* __restrict__ x;
    const scalar_t* __restrict__ delta;
    const float* __restrict__ A;
    const scalar_t* __restrict__ Bm;
    const scalar_t* __restrict__ Cm;
    const scalar_t* __restrict__ z;
    float* __restrict__ state;
    scalar_t* __restrict__ y;
    int rows;
    int steps;
    int channels;

    __device__ const scalar_t* u_ptr(int row, int t) const { return x + row; }
    __device__ const scalar_t* delta_ptr(int row, int t) const { return delta + row; }
    __device__ const scalar_t* z_ptr(int row, int t) const { return z + row; }
    __device__ scalar_t* y_ptr(int row, int t) const { return y + row; }
    __device__ const scalar_t* b_ptr(int row, int t) const { return Bm + (size_t)(row / channels) * NSTATE; }
    __device__ const scalar_t* c_ptr(int row, int t) const { return Cm + (size_t)(row / channels) * NSTATE; }
    __device__ float a(int row, int n) const { return A[(row % channels) * NSTATE + n]; }
    __device__ float load_state(int row, int n) const { return state[(size_t)row * NSTATE + n]; }
    __device__ void store_state(int row, int n, float h) const { state[(size_t)row * NSTATE + n] = h; }
};

{{SIGNATURE}}
{
    const MambaStep op{x, delta, A, Bm, Cm, z, state, y, B * D, 1, D};
    scan_rows(op);
}

void launch_mamba_step(const scalar_t* x, const scalar_t* delta, const float* A, const scalar_t* Bm,
                       const scalar_t* Cm, const scalar_t* z, float* state, scalar_t* y, int B, int D, int N,
                       cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<MambaStep>((const void*)&mamba_step_kernel, B * D);
    mamba_step_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(x, delta, A, Bm, Cm, z, state, y, B, D, N);
}
