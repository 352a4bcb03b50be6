// mamba_scan: selective scan over L steps for every (batch, channel) row, state size N, fp32 state:
//   h_t = exp(delta_t * A) h_{t-1} + delta_t * B_t * u_t,   y_t = (C_t . h_t) * silu(z_t).
// u, delta, z, y are [B][L][D]; Bm, Cm are [B][L][N]; A is [D][N]; delta is the step size after softplus.
struct MambaScan {
    static constexpr int NSTATE = {{SHAPE_N}};
    const scalar_t* __restrict__ u;
    const scalar_t* __restrict__ delta;
    const float* __restrict__ A;
    const scalar_t* __restrict__ Bm;
    const scalar_t* __restrict__ Cm;
    const scalar_t* __restrict__ z;
    scalar_t* __restrict__ y;
    int rows;
    int steps;
    int channels;

    __device__ size_t at(int row, int t) const
    {
        return ((size_t)(row / channels) * steps + t) * channels + row % channels;
    }
    __device__ const scalar_t* u_ptr(int row, int t) const { return u + at(row, t); }
    __device__ const scalar_t* delta_ptr(int row, int t) const { return delta + at(row, t); }
    __device__ const scalar_t* z_ptr(int row, int t) const { return z + at(row, t); }
    __device__ scalar_t* y_ptr(int row, int t) const { return y + at(row, t); }
    __device__ const scalar_t* b_ptr(int row, int t) const
    {
        return Bm + ((size_t)(row / channels) * steps + t) * NSTATE;
    }
    __device__ const scalar_t* c_ptr(int row, int t) const
    {
        return Cm + ((size_t)(row / channels) * steps + t) * NSTATE;
    }
    __device__ float a(int row, int n) const { return A[(row % channels) * NSTATE + n]; }
    __device__ float load_state(int row, int n) const { return 0.f; }
    __device__ void store_state(int row, int n, float h) const {}
};

{{SIGNATURE}}
{
    const MambaScan op{u, delta, A, Bm, Cm, z, y, B * D, L, D};
    scan_rows(op);
}

void launch_mamba_scan(const scalar_t* u, const scalar_t* delta, const float* A, const scalar_t* Bm,
                       const scalar_t* Cm, const scalar_t* z, scalar_t* y, int B, int L, int D, int N,
                       cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<MambaScan>((const void*)&mamba_scan_kernel, B * D);
    mamba_scan_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(u, delta, A, Bm, Cm, z, y, B, L, D, N);
}
