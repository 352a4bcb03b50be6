{{PRELUDE}}

// {{KERNEL_NAME}}: one thread per row does everything serially: the softmax statistics, a 32-step bitwise
// search for the threshold key (each step rescans the row), then the kept mass and the draw. Correct, but one
// thread streams the whole vocabulary dozens of times.
{{TUNED_CONSTANTS}}

enum Select { SELECT_COUNT, SELECT_MASS, SELECT_MIN_P };

// Floats mapped to unsigned keys with the same order, so a threshold is a key and radix digits make sense.
__device__ __forceinline__ unsigned order_key(float x)
{
    const unsigned u = __float_as_uint(x);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// Philox4x32-10: counter (row) + key (the row's seed) -> a uniform float in [0, 1).
__device__ __forceinline__ float philox_uniform(uint64_t seed, unsigned counter)
{
    uint4 c = make_uint4(counter, 0u, 0u, 0u);
    uint2 k = make_uint2((unsigned)seed, (unsigned)(seed >> 32));
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        const unsigned hi0 = __umulhi(0xD2511F53u, c.x);
        const unsigned lo0 = 0xD2511F53u * c.x;
        const unsigned hi1 = __umulhi(0xCD9E8D57u, c.z);
        const unsigned lo1 = 0xCD9E8D57u * c.z;
        c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
        k.x += 0x9E3779B9u;
        k.y += 0xBB67AE85u;
    }
    return (c.x >> 8) * (1.f / 16777216.f);
}

template <class Op>
__device__ void sample_rows(const Op& op)
{
    const int row = blockIdx.x * NUM_THREADS + threadIdx.x;
    if (row >= op.rows) return;
    const scalar_t* x = op.row_ptr(row);
    const float scale = op.row_scale(row);

    float m = -INFINITY;
    float sum = 0.f;
    for (int col = 0; col < op.cols; ++col) {
        const float v = static_cast<float>(x[col]) * scale;
        if (v > m) {
            sum = sum * __expf(m - v) + 1.f;
            m = v;
        } else {
            sum += __expf(v - m);
        }
    }

    unsigned thr = 0;
    if (Op::MODE == SELECT_MIN_P) {
        thr = order_key(m + __logf(op.target(row)));
    } else {
        const float target = Op::MODE == SELECT_COUNT ? op.target(row) : op.target(row) * sum;
        for (int bit = 31; bit >= 0; --bit) {
            const unsigned candidate = thr | (1u << bit);
            float measure = 0.f;
            for (int col = 0; col < op.cols; ++col) {
                const float v = static_cast<float>(x[col]) * scale;
                if (order_key(v) >= candidate) measure += Op::MODE == SELECT_COUNT ? 1.f : __expf(v - m);
            }
            if (measure >= target) thr = candidate;
        }
    }

    float kept = 0.f;
    for (int col = 0; col < op.cols; ++col) {
        const float v = static_cast<float>(x[col]) * scale;
        if (order_key(v) >= thr) kept += __expf(v - m);
    }
    const float u = philox_uniform(op.seed(row), row) * kept;
    float acc = 0.f;
    int slot = 0;
    for (int col = 0; col < op.cols; ++col) {
        const float v = static_cast<float>(x[col]) * scale;
        if (order_key(v) < thr) continue;
        const float w = __expf(v - m);
        if (!Op::SAMPLE) {
            if (slot < Op::KEEP) op.write_kept(row, slot++, col, w / kept);
            continue;
        }
        acc += w;
        if (acc > u) {
            op.write_token(row, col);
            return;
        }
    }
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    return {dim3((rows + NUM_THREADS - 1) / NUM_THREADS), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
