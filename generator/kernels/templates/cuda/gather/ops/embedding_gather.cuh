// embedding_gather: row t of y is row ids[t] of the V x H table.
struct EmbeddingGather {
    static constexpr int INPUTS = 1;
    static constexpr bool PURE_COPY = true;
    struct Route {
        const scalar_t* src[INPUTS];
        scalar_t* dst;
    };
    const int32_t* __restrict__ ids;
    const scalar_t* __restrict__ table;
    scalar_t* __restrict__ y;
    int rows;
    int cols;

    __device__ Route route(int row) const
    {
        return Route{ {table + (size_t)ids[row] * cols}, y + (size_t)row * cols };
    }

    template <int N>
    __device__ void move(const Route& rt, int col) const
    {
        copy_n<N>(rt.dst + col, rt.src[0] + col);
    }
};

{{SIGNATURE}}
{
    const EmbeddingGather op{ids, table, y, T, H};
    gather_rows(op);
}

void launch_embedding_gather(const int32_t* ids, const scalar_t* table, scalar_t* y, int T, int V, int H,
                             cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<EmbeddingGather>((const void*)&embedding_gather_kernel, T, H);
    embedding_gather_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(ids, table, y, T, V, H);
}
