// mla_decode: DeepSeek-V3 latent attention with absorbed projections. All H query heads of a sequence read one
// compressed stream: each token stores DC latent + DR rope dims in a paged cache [block][P][DC + DR]. Keys are
// the whole latent row, values its first DC dims, so K and V share the same bytes.
struct MlaDecode {
    static constexpr int DK = {{SHAPE_DC}} + {{SHAPE_DR}};
    static constexpr int DV = {{SHAPE_DC}};
    static constexpr bool SHARED_KV = true;
    const scalar_t* __restrict__ q;
    const scalar_t* __restrict__ kv_cache;
    const int32_t* __restrict__ block_table;
    const int32_t* __restrict__ seq_lens;
    scalar_t* __restrict__ o;
    int heads;
    int page;
    int max_pages;

    __device__ int queries() const { return heads; }
    __device__ int key_begin(int r) const { return 0; }
    __device__ int key_end(int r) const { return seq_lens[r]; }
    __device__ bool visible(int r, int qi, int j) const { return true; }
    __device__ const scalar_t* query(int r, int qi) const { return q + ((size_t)r * heads + qi) * DK; }
    __device__ scalar_t* out(int r, int qi) const { return o + ((size_t)r * heads + qi) * DV; }

    __device__ const scalar_t* key(int r, int j) const
    {
        const int block = block_table[r * max_pages + j / page];
        return kv_cache + ((size_t)block * page + j % page) * DK;
    }
    __device__ const scalar_t* value(int r, int j) const { return key(r, j); }
};

{{SIGNATURE}}
{
    const MlaDecode op{q, kv_cache, block_table, seq_lens, o, H, P, (T + P - 1) / P};
    decode_attention(op);
}

void launch_mla_decode(const scalar_t* q, const scalar_t* kv_cache, const int32_t* block_table,
                       const int32_t* seq_lens, scalar_t* o, int B, int H, int T, int DC, int DR, int P,
                       cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<MlaDecode>((const void*)&mla_decode_kernel, B, H);
    mla_decode_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(q, kv_cache, block_table, seq_lens, o, B, H, T,
                                                                   DC, DR, P);
}
