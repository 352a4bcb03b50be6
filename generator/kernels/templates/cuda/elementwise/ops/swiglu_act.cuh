// swiglu_act: y[t, i] = silu(gate[t, i]) * up[t, i], with gate and up the two halves of a fused projection
// row (gate_up[t] = [gate | up], width 2*I). A unit is one output element.
struct SwigluAct {
    const scalar_t* __restrict__ gate_up;
    scalar_t* __restrict__ y;
    int tokens;
    int inter;

    __device__ long long units() const { return (long long)tokens * inter; }

    template <int N>
    __device__ void apply(long long unit) const
    {
        const long long t = unit / inter;
        const int i = (int)(unit % inter);
        const scalar_t* row = gate_up + t * 2 * inter;
        float gate[N];
        float up[N];
        load_n(row + i, gate);
        load_n(row + inter + i, up);
        float out[N];
#pragma unroll
        for (int k = 0; k < N; ++k) out[k] = gate[k] / (1.f + __expf(-gate[k])) * up[k];
        store_n(y + t * inter + i, out);
    }
};

{{SIGNATURE}}
{
    const SwigluAct op{gate_up, y, T, I};
    elementwise(op);
}

void launch_swiglu_act(const scalar_t* gate_up, scalar_t* y, int T, int I, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch((const void*)&swiglu_act_kernel, (long long)T * I);
    swiglu_act_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(gate_up, y, T, I);
}
