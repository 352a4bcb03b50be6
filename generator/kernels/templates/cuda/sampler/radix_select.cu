{{PRELUDE}}

// {{KERNEL_NAME}}: one block per row, radix select. The threshold key is found digit by digit, RADIX_BITS at a
// time from the top: each pass builds a shared-memory histogram (count and softmax mass per bin, shared
// atomics) of the elements still tied with the prefix, and one thread picks the bin where the target is
// reached. ceil(32 / RADIX_BITS) passes instead of 32; VEC elements per thread per step.
{{TUNED_CONSTANTS}}

enum Select { SELECT_COUNT, SELECT_MASS, SELECT_MIN_P };

constexpr unsigned FULL_MASK = 0xffffffffu;

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

// Online softmax statistics: (running max, sum of exp(x - max)).
__device__ __forceinline__ float2 merge_stats(float2 a, float2 b)
{
    const float m = fmaxf(a.x, b.x);
    if (m == -INFINITY) return a;
    return make_float2(m, a.y * __expf(a.x - m) + b.y * __expf(b.x - m));
}

__device__ float2 block_stats(float2 s)
{
    __shared__ float2 warp_stats[NUM_THREADS / 32];
    __shared__ float2 result;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        s = merge_stats(s, make_float2(__shfl_xor_sync(FULL_MASK, s.x, offset), __shfl_xor_sync(FULL_MASK, s.y, offset)));
    if (threadIdx.x % 32 == 0) warp_stats[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float2 total = warp_stats[0];
        for (int w = 1; w < NUM_THREADS / 32; ++w) total = merge_stats(total, warp_stats[w]);
        result = total;
    }
    __syncthreads();
    return result;
}

// Keeps every element whose key is >= thr. Each thread takes a contiguous segment; an inclusive scan of the
// segments' kept mass and count in shared memory gives every kept element its place, so the draw (or the
// emitted slots) follows index order.
template <class Op>
__device__ void finish(const Op& op, int row, const scalar_t* x, float scale, float m, unsigned thr)
{
    __shared__ float scan_mass[NUM_THREADS];
    __shared__ int scan_count[NUM_THREADS];
    const int tid = threadIdx.x;
    const int seg = (op.cols + NUM_THREADS - 1) / NUM_THREADS;
    const int lo = min(op.cols, tid * seg);
    const int hi = min(op.cols, lo + seg);
    float mass = 0.f;
    int count = 0;
    for (int col = lo; col < hi; ++col) {
        const float v = static_cast<float>(x[col]) * scale;
        if (order_key(v) >= thr) {
            mass += __expf(v - m);
            ++count;
        }
    }
    scan_mass[tid] = mass;
    scan_count[tid] = count;
    __syncthreads();
    for (int offset = 1; offset < NUM_THREADS; offset <<= 1) {
        const float add_mass = tid >= offset ? scan_mass[tid - offset] : 0.f;
        const int add_count = tid >= offset ? scan_count[tid - offset] : 0;
        __syncthreads();
        scan_mass[tid] += add_mass;
        scan_count[tid] += add_count;
        __syncthreads();
    }
    const float total = scan_mass[NUM_THREADS - 1];
    const float before = scan_mass[tid] - mass;
    if (Op::SAMPLE) {
        const float u = philox_uniform(op.seed(row), row) * total;
        if (count == 0 || u < before || u >= before + mass) return;
        float acc = before;
        int token = lo;
        for (int col = lo; col < hi; ++col) {
            const float v = static_cast<float>(x[col]) * scale;
            if (order_key(v) < thr) continue;
            token = col;
            acc += __expf(v - m);
            if (acc > u) break;
        }
        op.write_token(row, token);
    } else {
        int slot = scan_count[tid] - count;
        for (int col = lo; col < hi && slot < Op::KEEP; ++col) {
            const float v = static_cast<float>(x[col]) * scale;
            if (order_key(v) >= thr) op.write_kept(row, slot++, col, __expf(v - m) / total);
        }
    }
}

constexpr int BINS = 1 << RADIX_BITS;

// Histogram of the next RADIX_BITS-wide digit over the elements whose higher digits equal `prefix`
// (count and softmax mass per bin).
template <class Op>
__device__ void digit_histogram(const Op& op, const scalar_t* x, float scale, float m, int begin, int end,
                                unsigned prefix, unsigned mask, int shift, unsigned* counts, float* masses)
{
    for (int col = begin + threadIdx.x * VEC; col < end; col += NUM_THREADS * VEC) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            if (col + i >= end) break;
            const float v = static_cast<float>(x[col + i]) * scale;
            const unsigned key = order_key(v);
            if ((key & mask) != prefix) continue;
            const unsigned digit = (key >> shift) & (BINS - 1);
            atomicAdd(&counts[digit], 1u);
            atomicAdd(&masses[digit], __expf(v - m));
        }
    }
}

// Walks the bins from the top, adding to what is already known to be above the prefix, and returns the
// digit where the measure first reaches the target; `above` grows by the bins strictly above it.
template <class Op>
__device__ unsigned pick_digit(const unsigned* counts, const float* masses, float target, float& above)
{
    for (int d = BINS - 1; d > 0; --d) {
        const float bin = Op::MODE == SELECT_COUNT ? (float)counts[d] : masses[d];
        if (above + bin >= target) return d;
        above += bin;
    }
    return 0;
}

template <class Op>
__device__ void sample_rows(const Op& op)
{
    __shared__ unsigned counts[BINS];
    __shared__ float masses[BINS];
    __shared__ unsigned chosen;
    const int row = blockIdx.x;
    const scalar_t* x = op.row_ptr(row);
    const float scale = op.row_scale(row);

    float2 s = make_float2(-INFINITY, 0.f);
    for (int col = threadIdx.x; col < op.cols; col += NUM_THREADS)
        s = merge_stats(s, make_float2(static_cast<float>(x[col]) * scale, 1.f));
    const float2 stats = block_stats(s);
    const float m = stats.x;

    unsigned thr = 0;
    if (Op::MODE == SELECT_MIN_P) {
        thr = order_key(m + __logf(op.target(row)));
    } else {
        const float target = Op::MODE == SELECT_COUNT ? op.target(row) : op.target(row) * stats.y;
        float above = 0.f;
        unsigned mask = 0;
        for (int shift = 32 - RADIX_BITS; shift > -RADIX_BITS; shift -= RADIX_BITS) {
            const int low = shift > 0 ? shift : 0;
            for (int b = threadIdx.x; b < BINS; b += NUM_THREADS) {
                counts[b] = 0;
                masses[b] = 0.f;
            }
            __syncthreads();
            digit_histogram(op, x, scale, m, 0, op.cols, thr, mask, low, counts, masses);
            __syncthreads();
            if (threadIdx.x == 0) chosen = pick_digit<Op>(counts, masses, target, above);
            __syncthreads();
            thr |= chosen << low;
            mask |= (unsigned)(BINS - 1) << low;
            __syncthreads();
        }
    }
    finish(op, row, x, scale, m, thr);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int cols)
{
    return {dim3(rows), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
