{{PRELUDE}}

// {{KERNEL_NAME}}: one block per row. Threads stride the row and every row-wide quantity (softmax max and
// sum, the measure of each candidate threshold in a 32-step bitwise search) is a block reduction: shuffles
// within warps, then the warps' partials through shared memory.
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

__device__ float block_sum(float v)
{
    __shared__ float warp_sums[NUM_THREADS / 32];
    __shared__ float result;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(FULL_MASK, v, offset);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.f;
        for (int w = 0; w < NUM_THREADS / 32; ++w) total += warp_sums[w];
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

template <class Op>
__device__ void sample_rows(const Op& op)
{
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
        for (int bit = 31; bit >= 0; --bit) {
            const unsigned candidate = thr | (1u << bit);
            float measure = 0.f;
            for (int col = threadIdx.x; col < op.cols; col += NUM_THREADS) {
                const float v = static_cast<float>(x[col]) * scale;
                if (order_key(v) >= candidate) measure += Op::MODE == SELECT_COUNT ? 1.f : __expf(v - m);
            }
            if (block_sum(measure) >= target) thr = candidate;
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
