// kv_append (reshape_and_cache): the K and V rows of T new tokens x H heads go to their slots of the paged
// cache [block][P][H][D]; slot_mapping[t] = block * P + offset, negative for padding tokens (skipped).
struct KvAppend {
    static constexpr int INPUTS = 1;
    static constexpr bool PURE_COPY = true;
    struct Route {
        const scalar_t* src[INPUTS];
        scalar_t* dst;
    };
    const scalar_t* __restrict__ k;
    const scalar_t* __restrict__ v;
    const int64_t* __restrict__ slot_mapping;
    scalar_t* __restrict__ k_cache;
    scalar_t* __restrict__ v_cache;
    int tokens;
    int heads;
    int rows;
    int cols;

    __device__ Route route(int row) const
    {
        const int per_tensor = tokens * heads;
        const int index = row % per_tensor;
        const int64_t slot = slot_mapping[index / heads];
        const scalar_t* src = (row < per_tensor ? k : v) + (size_t)index * cols;
        if (slot < 0) return Route{ {src}, nullptr };
        scalar_t* cache = row < per_tensor ? k_cache : v_cache;
        return Route{ {src}, cache + ((size_t)slot * heads + index % heads) * cols };
    }

    template <int N>
    __device__ void move(const Route& rt, int col) const
    {
        copy_n<N>(rt.dst + col, rt.src[0] + col);
    }
};

{{SIGNATURE}}
{
    const KvAppend op{k, v, slot_mapping, k_cache, v_cache, T, H, 2 * T * H, D};
    gather_rows(op);
}

void launch_kv_append(const scalar_t* k, const scalar_t* v, const int64_t* slot_mapping, scalar_t* k_cache,
                      scalar_t* v_cache, int T, int H, int D, int P, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<KvAppend>((const void*)&kv_append_kernel, 2 * T * H, D);
    kv_append_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(k, v, slot_mapping, k_cache, v_cache, T, H, D, P);
}
