// swa_decode: sliding-window decode. Each sequence owns a ring buffer of W token slots laid out [B][W][H][D];
// token p lives in slot p % W, and the query attends to the last W of its seq_len tokens.
struct SwaDecode {
    static constexpr int DK = {{SHAPE_D}};
    static constexpr int DV = {{SHAPE_D}};
    static constexpr bool SHARED_KV = false;
    const scalar_t* __restrict__ q;
    const scalar_t* __restrict__ k_cache;
    const scalar_t* __restrict__ v_cache;
    const int32_t* __restrict__ seq_lens;
    scalar_t* __restrict__ o;
    int heads;
    int window;

    __device__ int queries() const { return 1; }
    __device__ int key_begin(int r) const { return max(0, seq_lens[r / heads] - window); }
    __device__ int key_end(int r) const { return seq_lens[r / heads]; }
    __device__ bool visible(int r, int qi, int j) const { return true; }
    __device__ const scalar_t* query(int r, int qi) const { return q + (size_t)r * DK; }
    __device__ scalar_t* out(int r, int qi) const { return o + (size_t)r * DV; }

    __device__ size_t slot(int r, int j) const
    {
        const int b = r / heads;
        const int h = r % heads;
        return ((size_t)b * window + j % window) * heads + h;
    }
    __device__ const scalar_t* key(int r, int j) const { return k_cache + slot(r, j) * DK; }
    __device__ const scalar_t* value(int r, int j) const { return v_cache + slot(r, j) * DV; }
};

{{SIGNATURE}}
{
    const SwaDecode op{q, k_cache, v_cache, seq_lens, o, H, W};
    decode_attention(op);
}

void launch_swa_decode(const scalar_t* q, const scalar_t* k_cache, const scalar_t* v_cache, const int32_t* seq_lens,
                       scalar_t* o, int B, int H, int D, int T, int W, cudaStream_t stream)
{
    const LaunchPlan plan = plan_launch<SwaDecode>((const void*)&swa_decode_kernel, B * H, 1);
    swa_decode_kernel<<<plan.grid, plan.block, plan.smem, stream>>>(q, k_cache, v_cache, seq_lens, o, B, H, D, T, W);
}
