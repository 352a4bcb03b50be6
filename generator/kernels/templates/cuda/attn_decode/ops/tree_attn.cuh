// tree_attn: speculative-decoding verification. N draft-tree tokens per sequence attend to the seq_len cached
// tokens and, among the tree tokens that follow them in the cache [B][T + N][H][D], only to their ancestors:
// tree_mask[b][i] is a bitmask over tree tokens (64 per word).
struct TreeAttn {
    static constexpr int DK = {{SHAPE_D}};
    static constexpr int DV = {{SHAPE_D}};
    static constexpr bool SHARED_KV = false;
    static constexpr int MASK_WORDS = ({{SHAPE_N}} + 63) / 64;
    const scalar_t* __restrict__ q;
    const scalar_t* __restrict__ k_cache;
    const scalar_t* __restrict__ v_cache;
    const int64_t* __restrict__ tree_mask;
    const int32_t* __restrict__ seq_lens;
    scalar_t* __restrict__ o;
    int heads;
    int capacity;
    int tree;

    __device__ int queries() const { return tree; }
    __device__ int key_begin(int r) const { return 0; }
    __device__ int key_end(int r) const { return seq_lens[r / heads] + tree; }
    __device__ bool visible(int r, int qi, int j) const
    {
        const int t = j - seq_lens[r / heads];
        if (t < 0) return true;
        const int64_t word = tree_mask[((size_t)(r / heads) * tree + qi) * MASK_WORDS + t / 64];
        return (word >> (t % 64)) & 1;
    }
    __device__ const scalar_t* query(int r, int qi) const
    {
        return q + (((size_t)(r / heads) * tree + qi) * heads + r % heads) * DK;
    }
    __device__ scalar_t* out(int r, int qi) const
    {
        return o + (((size_t)(r / heads) * tree + qi) * heads + r % heads) * DV;
    }
    __device__ const scalar_t* key(int r, int j) const
    {
        return k_cache + (((size_t)(r / heads) * capacity + j) * heads + r % heads) * DK;
    }
    __device__ const scalar_t* value(int r, int j) const
    {
        return v_cache + (((size_t)(r / heads) * capacity + j) * heads + r % heads) * DV;
    }
};

{{SIGNATURE}}
{
    const TreeAttn op{q, k_cache, v_cache, tree_mask, seq_lens, o, H, T + N, N};
    decode_attention(op);
}

void launch_tree_attn(const scalar_t* q, const scalar_t* k_cache, const scalar_t* v_cache, const int64_t* tree_mask,
                      const int32_t* seq_lens, scalar_t* o, int B, int H, int D, int T, int N, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<TreeAttn>((const void*)&tree_attn_kernel, B * H, N);
    tree_attn_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(q, k_cache, v_cache, tree_mask, seq_lens, o, B, H,
                                                                  D, T, N);
}
