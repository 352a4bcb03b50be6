// paged_kv_copy: copy NB whole KV pages (K and V, P tokens x H heads x D each) between cache blocks;
// block_mapping[i] = {src_block, dst_block}. A row is one (K or V, page, token, head) vector of D elements.
struct PagedKvCopy {
    static constexpr int INPUTS = 1;
    static constexpr bool PURE_COPY = true;
    struct Route {
        const scalar_t* src[INPUTS];
        scalar_t* dst;
    };
    const scalar_t* __restrict__ k_cache;
    const scalar_t* __restrict__ v_cache;
    const int64_t* __restrict__ block_mapping;
    scalar_t* __restrict__ k_dst;
    scalar_t* __restrict__ v_dst;
    int pages;
    int page_rows;
    int rows;
    int cols;

    __device__ Route route(int row) const
    {
        const int per_tensor = pages * page_rows;
        const int index = row % per_tensor;
        const int pair = index / page_rows;
        const int within = index % page_rows;
        const int64_t src_block = block_mapping[2 * pair];
        const int64_t dst_block = block_mapping[2 * pair + 1];
        const bool is_k = row < per_tensor;
        const scalar_t* src = (is_k ? k_cache : v_cache) + ((size_t)src_block * page_rows + within) * cols;
        scalar_t* dst = (is_k ? k_dst : v_dst) + ((size_t)dst_block * page_rows + within) * cols;
        return Route{ {src}, dst };
    }

    template <int N>
    __device__ void move(const Route& rt, int col) const
    {
        copy_n<N>(rt.dst + col, rt.src[0] + col);
    }
};

{{SIGNATURE}}
{
    const PagedKvCopy op{k_cache, v_cache, block_mapping, k_dst, v_dst, NB, P * H, 2 * NB * P * H, D};
    gather_rows(op);
}

void launch_paged_kv_copy(const scalar_t* k_cache, const scalar_t* v_cache, const int64_t* block_mapping,
                          scalar_t* k_dst, scalar_t* v_dst, int NB, int P, int H, int D, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<PagedKvCopy>((const void*)&paged_kv_copy_kernel, 2 * NB * P * H, D);
    paged_kv_copy_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(k_cache, v_cache, block_mapping, k_dst, v_dst,
                                                                      NB, P, H, D);
}
