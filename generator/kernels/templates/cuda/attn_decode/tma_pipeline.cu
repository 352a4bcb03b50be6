{{PRELUDE}}

// {{KERNEL_NAME}}: K/V rows arrive by TMA bulk copies (cp.async.bulk, sm_90+) into NUM_STAGES shared-memory
// stages, each guarded by an mbarrier that counts the bytes in flight: one warp issues copies, all warps wait on
// the barrier's phase and compute. No per-thread address generation for the loads. With SPLITS > 1 the key
// range is split over blocks and the last split to finish merges the partial results (flash-decoding).
{{TUNED_CONSTANTS}}

constexpr int VEC = 16 / sizeof(scalar_t);
constexpr unsigned FULL_MASK = 0xffffffffu;
constexpr float LOG2E = 1.4426950408889634f;

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
    T v[N];
};

template <typename T, int N>
__device__ __forceinline__ void load_n(const T* p, float (&out)[N])
{
    const Pack<T, N> pack = *reinterpret_cast<const Pack<T, N>*>(p);
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = static_cast<float>(pack.v[i]);
}

// How a key is split over lanes: GROUP lanes (a power of two) per key, KP packs of the key and VP packs of the
// value per lane.
template <class Op>
struct Lanes {
    static constexpr int K_PACKS = Op::DK / VEC;
    static constexpr int V_PACKS = Op::DV / VEC;
    static constexpr int GROUP = K_PACKS < 32 ? K_PACKS : 32;
    static constexpr int GROUPS = 32 / GROUP;
    static constexpr int KP = (K_PACKS + GROUP - 1) / GROUP;
    static constexpr int VP = (V_PACKS + GROUP - 1) / GROUP;
};

template <int GROUP>
__device__ __forceinline__ float group_sum(float v)
{
#pragma unroll
    for (int offset = GROUP / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

// Online softmax in the log2 domain: m = running max of the scores, l = sum of 2^(s - m), acc = sum of
// 2^(s - m) * v over the keys seen so far.
template <class Op>
struct State {
    float m;
    float l;
    float acc[Lanes<Op>::VP][VEC];
};

template <class Op>
__device__ __forceinline__ void attend(State<Op>& st, const float (&q)[Lanes<Op>::KP][VEC], const scalar_t* k,
                                       const scalar_t* v, bool valid, int glane)
{
    using L = Lanes<Op>;
    float dot = 0.f;
    if (valid) {
#pragma unroll
        for (int kp = 0; kp < L::KP; ++kp) {
            const int pack = glane + kp * L::GROUP;
            if (pack < L::K_PACKS) {
                float kv[VEC];
                load_n(k + pack * VEC, kv);
#pragma unroll
                for (int i = 0; i < VEC; ++i) dot += q[kp][i] * kv[i];
            }
        }
    }
    const float sum = group_sum<L::GROUP>(dot);
    if (!valid) return;
    const float m_new = fmaxf(st.m, sum);
    const float correction = exp2f(st.m - m_new);
    const float p = exp2f(sum - m_new);
    st.l = st.l * correction + p;
#pragma unroll
    for (int vp = 0; vp < L::VP; ++vp) {
        const int pack = glane + vp * L::GROUP;
        if (pack < L::V_PACKS) {
            float vv[VEC];
            load_n(v + pack * VEC, vv);
#pragma unroll
            for (int i = 0; i < VEC; ++i) st.acc[vp][i] = st.acc[vp][i] * correction + p * vv[i];
        }
    }
    st.m = m_new;
}

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbarrier_init(uint64_t* bar, unsigned arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
}

__device__ __forceinline__ void mbarrier_expect_tx(uint64_t* bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbarrier_wait(uint64_t* bar, unsigned parity)
{
    asm volatile(
        "{\n"
        ".reg .pred ready;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n"
        "@!ready bra WAIT;\n"
        "}\n" ::"r"(smem_addr(bar)),
        "r"(parity)
        : "memory");
}

// One bulk (TMA) copy global -> shared, completing `bytes` of the barrier's expected transaction count.
__device__ __forceinline__ void tma_load_1d(void* dst, const void* src, unsigned bytes, uint64_t* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
}

// Warp 0 stages the K (and V) rows of keys [first, first + BLOCK_N): lane 0 arms the stage's barrier with
// the byte count, then every lane issues bulk copies of whole rows.
template <class Op>
__device__ void load_tile(const Op& op, int r, int first, int end, scalar_t* k_tile, scalar_t* v_tile,
                          uint64_t* bar)
{
    constexpr unsigned K_BYTES = Op::DK * sizeof(scalar_t);
    constexpr unsigned V_BYTES = Op::SHARED_KV ? 0 : Op::DV * sizeof(scalar_t);
    const int count = min(BLOCK_N, end - first);
    const int lane = threadIdx.x % 32;
    if (lane == 0) mbarrier_expect_tx(bar, count * (K_BYTES + V_BYTES));
    __syncwarp();
    for (int key = lane; key < count; key += 32) {
        tma_load_1d(k_tile + key * Op::DK, op.key(r, first + key), K_BYTES, bar);
        if (!Op::SHARED_KV) tma_load_1d(v_tile + key * Op::DV, op.value(r, first + key), V_BYTES, bar);
    }
}

__device__ float* g_partials;   // [stream][SPLITS][DV + 2]: unnormalized output, then max and sum
__device__ unsigned* g_tickets;  // [stream]: splits of the stream finished so far

template <class Op>
__device__ void decode_attention(const Op& op)
{
    using L = Lanes<Op>;
    constexpr int SLOTS = NUM_WARPS * L::GROUPS;
    constexpr int V_TILE = Op::SHARED_KV ? 0 : BLOCK_N * Op::DV;
    __shared__ float slot_m[SLOTS];
    __shared__ float slot_l[SLOTS];
    __shared__ float slot_acc[SLOTS][Op::DV];
    extern __shared__ __align__(128) unsigned char smem_raw[];
    scalar_t* k_tiles = reinterpret_cast<scalar_t*>(smem_raw);
    scalar_t* v_tiles = k_tiles + NUM_STAGES * BLOCK_N * Op::DK;
    __shared__ __align__(8) uint64_t full[NUM_STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < NUM_STAGES; ++s) mbarrier_init(&full[s], 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    const int r = blockIdx.x / op.queries();
    const int qi = blockIdx.x % op.queries();
    const int warp = threadIdx.x / 32;
    const int group = threadIdx.x % 32 / L::GROUP;
    const int glane = threadIdx.x % L::GROUP;
    const float softmax_scale = rsqrtf((float)Op::DK) * LOG2E;

    float q[L::KP][VEC];
    const scalar_t* q_row = op.query(r, qi);
#pragma unroll
    for (int kp = 0; kp < L::KP; ++kp) {
        const int pack = glane + kp * L::GROUP;
        if (pack < L::K_PACKS) {
            load_n(q_row + pack * VEC, q[kp]);
#pragma unroll
            for (int i = 0; i < VEC; ++i) q[kp][i] *= softmax_scale;
        }
    }

    State<Op> st;
    st.m = -INFINITY;
    st.l = 0.f;
#pragma unroll
    for (int vp = 0; vp < L::VP; ++vp)
#pragma unroll
        for (int i = 0; i < VEC; ++i) st.acc[vp][i] = 0.f;

    // This block's share of the stream: SPLITS contiguous ranges, whole tiles each.
    const int keys = op.key_end(r) - op.key_begin(r);
    const int chunk = ((keys + SPLITS - 1) / SPLITS + BLOCK_N - 1) / BLOCK_N * BLOCK_N;
    const int begin = op.key_begin(r) + blockIdx.y * chunk;
    const int end = min(op.key_end(r), begin + chunk);
    const int tiles = (end - begin + BLOCK_N - 1) / BLOCK_N;
    if (warp == 0) {
        for (int s = 0; s < NUM_STAGES && s < tiles; ++s)
            load_tile(op, r, begin + s * BLOCK_N, end, k_tiles + s * BLOCK_N * Op::DK, v_tiles + s * V_TILE, &full[s]);
    }
    for (int t = 0; t < tiles; ++t) {
        const int stage = t % NUM_STAGES;
        mbarrier_wait(&full[stage], (t / NUM_STAGES) & 1);
        const scalar_t* k_tile = k_tiles + stage * BLOCK_N * Op::DK;
        const scalar_t* v_tile = v_tiles + stage * V_TILE;
        const int first = begin + t * BLOCK_N;
        for (int base = warp * L::GROUPS; base < BLOCK_N; base += NUM_WARPS * L::GROUPS) {
            const int key = base + group;
            const bool valid = first + key < end && op.visible(r, qi, first + key);
            const scalar_t* k = k_tile + key * Op::DK;
            const scalar_t* v = Op::SHARED_KV ? k : v_tile + key * Op::DV;
            attend<Op>(st, q, k, v, valid, glane);
        }
        __syncthreads();
        const int next = t + NUM_STAGES;
        if (warp == 0 && next < tiles)
            load_tile(op, r, begin + next * BLOCK_N, end, k_tiles + stage * BLOCK_N * Op::DK, v_tiles + stage * V_TILE,
                      &full[stage]);
    }

    const int slot = warp * L::GROUPS + group;
    if (glane == 0) {
        slot_m[slot] = st.m;
        slot_l[slot] = st.l;
    }
#pragma unroll
    for (int vp = 0; vp < L::VP; ++vp) {
        const int pack = glane + vp * L::GROUP;
        if (pack < L::V_PACKS)
#pragma unroll
            for (int i = 0; i < VEC; ++i) slot_acc[slot][pack * VEC + i] = st.acc[vp][i];
    }
    __syncthreads();

    float m = -INFINITY;
    for (int s = 0; s < SLOTS; ++s) m = fmaxf(m, slot_m[s]);
    float l = 0.f;
    for (int s = 0; s < SLOTS; ++s) l += slot_m[s] == -INFINITY ? 0.f : slot_l[s] * exp2f(slot_m[s] - m);
    // Publish this split's partial result; the last split of the stream to finish merges all of them.
    __shared__ bool last;
    const size_t stride = Op::DV + 2;
    float* part = g_partials + ((size_t)blockIdx.x * SPLITS + blockIdx.y) * stride;
    for (int d = threadIdx.x; d < Op::DV; d += NUM_WARPS * 32) {
        float o = 0.f;
        for (int s = 0; s < SLOTS; ++s)
            if (slot_m[s] != -INFINITY) o += slot_acc[s][d] * exp2f(slot_m[s] - m);
        part[d] = o;
    }
    if (threadIdx.x == 0) {
        part[Op::DV] = m;
        part[Op::DV + 1] = l;
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&g_tickets[blockIdx.x], 1u) == SPLITS - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();

    const float* parts = g_partials + (size_t)blockIdx.x * SPLITS * stride;
    float gm = -INFINITY;
    for (int s = 0; s < SPLITS; ++s) gm = fmaxf(gm, __ldcg(parts + s * stride + Op::DV));
    float gl = 0.f;
    for (int s = 0; s < SPLITS; ++s) {
        const float ms = __ldcg(parts + s * stride + Op::DV);
        if (ms != -INFINITY) gl += __ldcg(parts + s * stride + Op::DV + 1) * exp2f(ms - gm);
    }
    const float inv_l = gl > 0.f ? 1.f / gl : 0.f;
    scalar_t* out = op.out(r, qi);
    for (int d = threadIdx.x; d < Op::DV; d += NUM_WARPS * 32) {
        float o = 0.f;
        for (int s = 0; s < SPLITS; ++s) {
            const float ms = __ldcg(parts + s * stride + Op::DV);
            if (ms != -INFINITY) o += __ldcg(parts + s * stride + d) * exp2f(ms - gm);
        }
        out[d] = static_cast<scalar_t>(o * inv_l);
    }
    if (threadIdx.x == 0) g_tickets[blockIdx.x] = 0;
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

// Grow-only device workspace for the split partials; tickets start at zero and each merge resets its own.
static void reserve_workspace(size_t streams, int dv)
{
    static float* partials = nullptr;
    static unsigned* tickets = nullptr;
    static size_t capacity = 0;
    if (streams <= capacity) return;
    cudaFree(partials);
    cudaFree(tickets);
    cudaMalloc(&partials, streams * SPLITS * (dv + 2) * sizeof(float));
    cudaMalloc(&tickets, streams * sizeof(unsigned));
    cudaMemset(tickets, 0, streams * sizeof(unsigned));
    cudaMemcpyToSymbol(g_partials, &partials, sizeof(partials));
    cudaMemcpyToSymbol(g_tickets, &tickets, sizeof(tickets));
    capacity = streams;
}

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int queries)
{
    const size_t smem = (size_t)NUM_STAGES * BLOCK_N * (Op::DK + (Op::SHARED_KV ? 0 : Op::DV)) * sizeof(scalar_t);
    if (smem > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (SPLITS > 1) reserve_workspace((size_t)rows * queries, Op::DV);
    return {dim3(rows * queries, SPLITS), dim3(NUM_WARPS * 32), smem};
}

{{OP_SNIPPET}}
