// flash_decode: one query token per (sequence, head) over a paged KV cache laid out [block][P][H][D];
// block_table[b][i] names the physical block holding tokens i*P .. i*P+P-1 of sequence b.
struct FlashDecode {
    static constexpr int DK = {{SHAPE_D}};
    static constexpr int DV = {{SHAPE_D}};
    static constexpr bool SHARED_KV = false;
    const scalar_t* __restrict__ q;
    const scalar_t* __restrict__ k_cache;
    const scalar_t* __restrict__ v_cache;
    const int32_t* __restrict__ block_table;
    const int32_t* __restrict__ seq_lens;
    scalar_t* __restrict__ o;
    int heads;
    int page;
    int max_pages;

    __device__ int queries() const { return 1; }
    __device__ int key_begin(int r) const { return 0; }
    __device__ int key_end(int r) const { return seq_lens[r / heads]; }
    __device__ bool visible(int r, int qi, int j) const { return true; }
    __device__ const scalar_t* query(int r, int qi) const { return q + (size_t)r * DK; }
    __device__ scalar_t* out(int r, int qi) const { return o + (size_t)r * DV; }

    __device__ size_t slot(int r, int j) const
    {
        const int b = r / heads;
        const int h = r % heads;
        const int block = block_table[b * max_pages + j / page];
        return ((size_t)block * page + j % page) * heads + h;
    }
    __device__ const scalar_t* key(int r, int j) const { return k_cache + slot(r, j) * DK; }
    __device__ const scalar_t* value(int r, int j) const { return v_cache + slot(r, j) * DV; }
};

{{SIGNATURE}}
{
    const FlashDecode op{q, k_cache, v_cache, block_table, seq_lens, o, H, P, (T + P - 1) / P};
    decode_attention(op);
}

void launch_flash_decode(const scalar_t* q, const scalar_t* k_cache, const scalar_t* v_cache,
                         const int32_t* block_table, const int32_t* seq_lens, scalar_t* o, int B, int H, int D, int T,
                         int P, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<FlashDecode>((const void*)&flash_decode_kernel, B * H, 1);
    flash_decode_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(q, k_cache, v_cache, block_table, seq_lens, o,
                                                                     B, H, D, T, P);
}
