{{PRELUDE}}

// {{KERNEL_NAME}}: one block per (stream, query). Keys are scored NUM_THREADS at a time, one thread per key
// with a scalar dot product, the chunk's scores go to shared memory, and then every thread rescans the chunk to
// accumulate its own output dims. Correct online softmax, but each key row is read by one thread with strided
// scalar loads, so little of the memory bandwidth is used.
{{TUNED_CONSTANTS}}

template <class Op>
__device__ void decode_attention(const Op& op)
{
    constexpr int DIMS_PER_THREAD = (Op::DV + NUM_THREADS - 1) / NUM_THREADS;
    __shared__ float scores[NUM_THREADS];
    const int r = blockIdx.x / op.queries();
    const int qi = blockIdx.x % op.queries();
    const int tid = threadIdx.x;
    const float softmax_scale = rsqrtf((float)Op::DK);
    const scalar_t* q = op.query(r, qi);

    float m = -INFINITY;
    float l = 0.f;
    float acc[DIMS_PER_THREAD];
    for (int i = 0; i < DIMS_PER_THREAD; ++i) acc[i] = 0.f;

    const int begin = op.key_begin(r);
    const int end = op.key_end(r);
    for (int base = begin; base < end; base += NUM_THREADS) {
        const int j = base + tid;
        float s = -INFINITY;
        if (j < end && op.visible(r, qi, j)) {
            const scalar_t* k = op.key(r, j);
            float dot = 0.f;
            for (int d = 0; d < Op::DK; ++d) dot += static_cast<float>(q[d]) * static_cast<float>(k[d]);
            s = dot * softmax_scale;
        }
        scores[tid] = s;
        __syncthreads();

        const int count = min(NUM_THREADS, end - base);
        float chunk_max = m;
        for (int i = 0; i < count; ++i) chunk_max = fmaxf(chunk_max, scores[i]);
        if (chunk_max != -INFINITY) {
            const float correction = __expf(m - chunk_max);
            l *= correction;
            for (int i = 0; i < DIMS_PER_THREAD; ++i) acc[i] *= correction;
            for (int i = 0; i < count; ++i) {
                if (scores[i] == -INFINITY) continue;
                const float p = __expf(scores[i] - chunk_max);
                const scalar_t* v = op.value(r, base + i);
                l += p;
                for (int k = 0; k < DIMS_PER_THREAD; ++k) {
                    const int d = tid + k * NUM_THREADS;
                    if (d < Op::DV) acc[k] += p * static_cast<float>(v[d]);
                }
            }
            m = chunk_max;
        }
        __syncthreads();
    }

    scalar_t* out = op.out(r, qi);
    const float inv_l = l > 0.f ? 1.f / l : 0.f;
    for (int k = 0; k < DIMS_PER_THREAD; ++k) {
        const int d = tid + k * NUM_THREADS;
        if (d < Op::DV) out[d] = static_cast<scalar_t>(acc[k] * inv_l);
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
    return {dim3(rows * queries), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
