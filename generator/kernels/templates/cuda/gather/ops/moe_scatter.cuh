// moe_scatter: each (token, choice) pair copies the token's hidden state into its expert's segment of x_sorted.
// expert_offsets[e] is where expert e's segment starts; the position inside it is claimed from a per-expert
// cursor (reset by the launcher), and src_index[t * K + k] records it for the combine step.
__device__ int g_expert_cursor[{{SHAPE_E}}];

struct MoeScatter {
    static constexpr int INPUTS = 1;
    static constexpr bool PURE_COPY = true;
    struct Route {
        const scalar_t* src[INPUTS];
        scalar_t* dst;
    };
    const scalar_t* __restrict__ x;
    const int32_t* __restrict__ topk_ids;
    const int32_t* __restrict__ expert_offsets;
    scalar_t* __restrict__ x_sorted;
    int32_t* __restrict__ src_index;
    int topk;
    int rows;
    int cols;

    __device__ Route route(int row) const
    {
        const int expert = topk_ids[row];
        const int position = expert_offsets[expert] + atomicAdd(&g_expert_cursor[expert], 1);
        src_index[row] = position;
        return Route{ {x + (size_t)(row / topk) * cols}, x_sorted + (size_t)position * cols };
    }

    template <int N>
    __device__ void move(const Route& rt, int col) const
    {
        copy_n<N>(rt.dst + col, rt.src[0] + col);
    }
};

{{SIGNATURE}}
{
    const MoeScatter op{x, topk_ids, expert_offsets, x_sorted, src_index, K, T * K, H};
    gather_rows(op);
}

void launch_moe_scatter(const scalar_t* x, const int32_t* topk_ids, const int32_t* expert_offsets,
                        scalar_t* x_sorted, int32_t* src_index, int T, int K, int H, int E, cudaStream_t stream)
{
    void* cursor = nullptr;
    cudaGetSymbolAddress(&cursor, g_expert_cursor);
    cudaMemsetAsync(cursor, 0, E * sizeof(int), stream);
    const LaunchPlan plan = plan_launch<MoeScatter>((const void*)&moe_scatter_kernel, T * K, H);
    moe_scatter_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(x, topk_ids, expert_offsets, x_sorted,
                                                                    src_index, T, K, H, E);
}
