{{PRELUDE}}

// {{KERNEL_NAME}}: one block per (stream, query); NUM_WARPS warps take keys in turn, a whole warp per key.
// Lane i owns dims i, i + 32, ... of the key and value (scalar, coalesced loads); the dot product is summed
// with butterfly shuffles. Two passes over the keys instead of an online softmax: the first finds each warp's
// max score, the second sums 2^(s - max) and the weighted values (no rescaling of the accumulator, at the
// cost of reading the keys twice); the warps' states are merged through shared memory at the end.
{{TUNED_CONSTANTS}}

constexpr int VEC = 1;

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

// Softmax in the log2 domain with the max known: m = max of the scores, l = sum of 2^(s - m), acc = sum of
// 2^(s - m) * v over the keys.
template <class Op>
struct State {
    float m;
    float l;
    float acc[Lanes<Op>::VP][VEC];
};

template <class Op>
__device__ __forceinline__ float score(const float (&q)[Lanes<Op>::KP][VEC], const scalar_t* k, bool valid, int glane)
{
    float dot = 0.f;
    using L = Lanes<Op>;
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
    return group_sum<L::GROUP>(dot);
}

template <class Op>
__device__ __forceinline__ void accumulate(State<Op>& st, float s, const scalar_t* v, int glane)
{
    const float p = exp2f(s - st.m);
    using L = Lanes<Op>;
    st.l += p;
#pragma unroll
    for (int vp = 0; vp < L::VP; ++vp) {
        const int pack = glane + vp * L::GROUP;
        if (pack < L::V_PACKS) {
            float vv[VEC];
            load_n(v + pack * VEC, vv);
#pragma unroll
            for (int i = 0; i < VEC; ++i) st.acc[vp][i] += p * vv[i];
        }
    }
}

template <class Op>
__device__ void decode_attention(const Op& op)
{
    using L = Lanes<Op>;
    constexpr int SLOTS = NUM_WARPS * L::GROUPS;
    __shared__ float slot_m[SLOTS];
    __shared__ float slot_l[SLOTS];
    __shared__ float slot_acc[SLOTS][Op::DV];

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

    const int begin = op.key_begin(r);
    const int end = op.key_end(r);
    for (int pass = 0; pass < 2; ++pass) {      // 0: the max; 1: the sum and the values
        for (int base = begin + warp * L::GROUPS; base < end; base += NUM_WARPS * L::GROUPS) {
            const int j = base + group;
            const bool valid = j < end && op.visible(r, qi, j);
            const float s = score<Op>(q, valid ? op.key(r, j) : nullptr, valid, glane);
            if (!valid) continue;
            if (pass == 0)
                st.m = fmaxf(st.m, s);
            else
                accumulate<Op>(st, s, op.value(r, j), glane);
        }
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
    const float inv_l = l > 0.f ? 1.f / l : 0.f;
    scalar_t* out = op.out(r, qi);
    for (int d = threadIdx.x; d < Op::DV; d += NUM_WARPS * 32) {
        float o = 0.f;
        for (int s = 0; s < SLOTS; ++s)
            if (slot_m[s] != -INFINITY) o += slot_acc[s][d] * exp2f(slot_m[s] - m);
        out[d] = static_cast<scalar_t>(o * inv_l);
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int queries)
{
    return {dim3(rows * queries), dim3(NUM_WARPS * 32), 0};
}

{{OP_SNIPPET}}
