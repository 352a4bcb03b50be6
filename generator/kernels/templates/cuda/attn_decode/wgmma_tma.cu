{{PRELUDE}}

// {{KERNEL_NAME}}: Hopper decode attention for many queries per KV stream (MLA heads, speculative tree tokens).
// Warpgroup 0 streams K/V rows into NUM_STAGES shared-memory stages with TMA bulk copies (full/empty
// mbarriers); warpgroups 1 and 2 run the math on tensor cores with wgmma: S^T = K Q^T (64 keys x 64 queries
// per instruction, K rows fed from registers, Q^T resident in shared memory in the wgmma K-major layout), an
// online softmax per query column, then O^T += V^T P^T with P^T written back to shared memory. The two
// consumer warpgroups split the value dims. With SPLITS > 1 the key range is split over blocks and the last
// split to finish merges the partial results.
{{TUNED_CONSTANTS}}

constexpr int NUM_THREADS = 384;
constexpr int QN = 64;
constexpr int KEY_ROWS = (BLOCK_N + 63) / 64 * 64;
constexpr int K_BATCH = 4;
constexpr float LOG2E = 1.4426950408889634f;
constexpr unsigned FULL_MASK = 0xffffffffu;

template <typename T>
struct IsHalf {
    static constexpr bool value = false;
};
template <>
struct IsHalf<half> {
    static constexpr bool value = true;
};

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

__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// A barrier for one warpgroup (or both consumer warpgroups) without stopping the producer.
__device__ __forceinline__ void named_barrier(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ unsigned pack2(scalar_t lo, scalar_t hi)
{
    unsigned short a;
    unsigned short b;
    memcpy(&a, &lo, sizeof(a));
    memcpy(&b, &hi, sizeof(b));
    return a | (unsigned)b << 16;
}

// Element offset of (n, k) in the no-swizzle K-major wgmma operand layout of a tile whose K extent is KT:
// 8 x 8 core matrices (eight 16-byte rows) stored contiguously, K-adjacent core matrices 128 bytes apart,
// N-adjacent ones KT / 8 * 128 bytes apart.
template <int KT>
__device__ __forceinline__ int kmajor_offset(int n, int k)
{
    return ((n / 8) * (KT / 8) + k / 8) * 64 + (n % 8) * 8 + k % 8;
}

template <int KT>
__device__ __forceinline__ uint64_t kmajor_desc(const scalar_t* tile, int k0)
{
    const uint64_t start = smem_addr(tile + k0 / 8 * 64);
    const uint64_t leading = 128;
    const uint64_t stride = KT / 8 * 128;
    return ((start & 0x3FFFF) >> 4) | ((leading >> 4) << 16) | ((stride >> 4) << 32);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }

// D(64 x 64, fp32) (+)= A(64 x 16, registers) * B(16 x 64, shared memory descriptor).
__device__ __forceinline__ void wgmma_rs(float (&d)[32], const unsigned (&a)[4], uint64_t desc_b, int accumulate)
{
    if constexpr (IsHalf<scalar_t>::value) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
            "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    } else {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
            "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    }
}

// The A fragment of rows row0 .. row0 + 63 (this thread: rows row0 + 16 * warp + lane / 4 and + 8) and
// columns k0 .. k0 + 15 of a row-major tile with `ld` elements per row.
__device__ __forceinline__ void load_a(unsigned (&a)[4], const scalar_t* tile, int ld, int row0, int k0)
{
    const int lane = threadIdx.x % 32;
    const int row = row0 + 16 * (threadIdx.x / 32 % 4) + lane / 4;
    const int col = k0 + (lane % 4) * 2;
    a[0] = *reinterpret_cast<const unsigned*>(tile + row * ld + col);
    a[1] = *reinterpret_cast<const unsigned*>(tile + (row + 8) * ld + col);
    a[2] = *reinterpret_cast<const unsigned*>(tile + row * ld + col + 8);
    a[3] = *reinterpret_cast<const unsigned*>(tile + (row + 8) * ld + col + 8);
}

// The same fragment of the transpose: rows are columns of the row-major tile (V^T from V).
__device__ __forceinline__ void load_a_transposed(unsigned (&a)[4], const scalar_t* tile, int ld, int row0, int k0)
{
    const int lane = threadIdx.x % 32;
    const int row = row0 + 16 * (threadIdx.x / 32 % 4) + lane / 4;
    const int k = k0 + (lane % 4) * 2;
    a[0] = pack2(tile[k * ld + row], tile[(k + 1) * ld + row]);
    a[1] = pack2(tile[k * ld + row + 8], tile[(k + 1) * ld + row + 8]);
    a[2] = pack2(tile[(k + 8) * ld + row], tile[(k + 9) * ld + row]);
    a[3] = pack2(tile[(k + 8) * ld + row + 8], tile[(k + 9) * ld + row + 8]);
}

// Reduce a per-column value over the 64 rows of the warpgroup's accumulator: lanes sharing lane % 4 hold the
// same columns, then the four warps meet in shared memory.
template <bool MAX>
__device__ __forceinline__ void column_reduce(float (&v)[16], float (*scratch)[QN])
{
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32 % 4;
#pragma unroll
    for (int c = 0; c < 16; ++c) {
#pragma unroll
        for (int offset = 4; offset < 32; offset <<= 1) {
            const float other = __shfl_xor_sync(FULL_MASK, v[c], offset);
            v[c] = MAX ? fmaxf(v[c], other) : v[c] + other;
        }
    }
    if (lane < 4)
#pragma unroll
        for (int c = 0; c < 16; ++c) scratch[warp][(c / 2) * 8 + lane * 2 + c % 2] = v[c];
    named_barrier(1 + threadIdx.x / 128, 128);
#pragma unroll
    for (int c = 0; c < 16; ++c) {
        const int col = (c / 2) * 8 + (lane % 4) * 2 + c % 2;
        float r = scratch[0][col];
        for (int w = 1; w < 4; ++w) r = MAX ? fmaxf(r, scratch[w][col]) : r + scratch[w][col];
        v[c] = r;
    }
    named_barrier(1 + threadIdx.x / 128, 128);
}

__device__ float* g_partials;   // [stream group][SPLITS][QN][DV + 2]: unnormalized output, then max and sum
__device__ unsigned* g_tickets;  // [stream group]: splits finished so far

template <class Op>
__device__ void decode_attention(const Op& op)
{
    constexpr int DV_HALF = Op::DV / 2;
    constexpr int V_ROWS = Op::SHARED_KV ? 0 : KEY_ROWS;
    constexpr unsigned K_BYTES = Op::DK * sizeof(scalar_t);
    constexpr unsigned V_BYTES = Op::SHARED_KV ? 0 : Op::DV * sizeof(scalar_t);
    extern __shared__ __align__(128) unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[NUM_STAGES];
    __shared__ __align__(8) uint64_t empty[NUM_STAGES];
    __shared__ float scratch[2][4][QN];
    __shared__ bool last;
    scalar_t* q_t = reinterpret_cast<scalar_t*>(smem_raw);
    scalar_t* k_tiles = q_t + QN * Op::DK;
    scalar_t* v_tiles = k_tiles + NUM_STAGES * KEY_ROWS * Op::DK;
    scalar_t* p_tiles = v_tiles + NUM_STAGES * V_ROWS * Op::DV;

    const int groups = (op.queries() + QN - 1) / QN;
    const int r = blockIdx.x / groups;
    const int q0 = blockIdx.x % groups * QN;
    const int keys = op.key_end(r) - op.key_begin(r);
    const int chunk = ((keys + SPLITS - 1) / SPLITS + BLOCK_N - 1) / BLOCK_N * BLOCK_N;
    const int begin = op.key_begin(r) + blockIdx.y * chunk;
    const int end = min(op.key_end(r), begin + chunk);
    const int tiles = end > begin ? (end - begin + BLOCK_N - 1) / BLOCK_N : 0;

    // Q^T into the K-major operand layout; stages zeroed so rows no copy fills are finite.
    for (int i = threadIdx.x; i < QN * Op::DK; i += NUM_THREADS) {
        const int n = i / Op::DK;
        const int k = i % Op::DK;
        const scalar_t v = q0 + n < op.queries() ? op.query(r, q0 + n)[k] : static_cast<scalar_t>(0.f);
        q_t[kmajor_offset<Op::DK>(n, k)] = v;
    }
    for (int i = threadIdx.x; i < NUM_STAGES * (KEY_ROWS * Op::DK + V_ROWS * Op::DV); i += NUM_THREADS)
        k_tiles[i] = static_cast<scalar_t>(0.f);
    if (threadIdx.x == 0) {
        for (int s = 0; s < NUM_STAGES; ++s) {
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], 8);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();

    if (threadIdx.x < 128) {
        // Producer: one thread arms each stage with its byte count and issues a bulk copy per row.
        if (threadIdx.x != 0) return;
        for (int t = 0; t < tiles; ++t) {
            const int stage = t % NUM_STAGES;
            if (t >= NUM_STAGES) mbarrier_wait(&empty[stage], (t / NUM_STAGES - 1) & 1);
            const int first = begin + t * BLOCK_N;
            const int count = min(BLOCK_N, end - first);
            mbarrier_expect_tx(&full[stage], count * (K_BYTES + V_BYTES));
            for (int key = 0; key < count; ++key) {
                tma_load_1d(k_tiles + (stage * KEY_ROWS + key) * Op::DK, op.key(r, first + key), K_BYTES, &full[stage]);
                if (!Op::SHARED_KV)
                    tma_load_1d(v_tiles + (stage * V_ROWS + key) * Op::DV, op.value(r, first + key), V_BYTES,
                                &full[stage]);
            }
        }
        return;
    }

    // Consumers: warpgroup wg owns value dims [wg * DV / 2, (wg + 1) * DV / 2).
    const int wg = threadIdx.x / 128 - 1;
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32 % 4;
    const float softmax_scale = rsqrtf((float)Op::DK) * LOG2E;
    scalar_t* p_t = p_tiles + wg * QN * KEY_ROWS;
    float m[16];
    float l[16];
    float o[DV_HALF / 64][32];
#pragma unroll
    for (int c = 0; c < 16; ++c) {
        m[c] = -INFINITY;
        l[c] = 0.f;
    }
#pragma unroll
    for (int mo = 0; mo < DV_HALF / 64; ++mo)
#pragma unroll
        for (int i = 0; i < 32; ++i) o[mo][i] = 0.f;

    for (int t = 0; t < tiles; ++t) {
        const int stage = t % NUM_STAGES;
        const int first = begin + t * BLOCK_N;
        const scalar_t* k_tile = k_tiles + stage * KEY_ROWS * Op::DK;
        const scalar_t* v_tile = Op::SHARED_KV ? k_tile : v_tiles + stage * V_ROWS * Op::DV;
        const int v_ld = Op::SHARED_KV ? Op::DK : Op::DV;
        mbarrier_wait(&full[stage], (t / NUM_STAGES) & 1);

        // S^T = K Q^T, 64 keys at a time.
        float s[KEY_ROWS / 64][32];
#pragma unroll
        for (int mc = 0; mc < KEY_ROWS / 64; ++mc) {
            for (int kb = 0; kb < Op::DK / 16; kb += K_BATCH) {
                unsigned a[K_BATCH][4];
#pragma unroll
                for (int i = 0; i < K_BATCH; ++i)
                    if (kb + i < Op::DK / 16) load_a(a[i], k_tile, Op::DK, mc * 64, (kb + i) * 16);
                wgmma_fence();
#pragma unroll
                for (int i = 0; i < K_BATCH; ++i)
                    if (kb + i < Op::DK / 16) wgmma_rs(s[mc], a[i], kmajor_desc<Op::DK>(q_t, (kb + i) * 16), kb + i > 0);
                wgmma_commit();
                wgmma_wait();
            }
        }

        // Online softmax per query column (this thread: 16 columns, 2 rows per 64-key chunk).
        float tile_max[16];
#pragma unroll
        for (int c = 0; c < 16; ++c) tile_max[c] = -INFINITY;
#pragma unroll
        for (int mc = 0; mc < KEY_ROWS / 64; ++mc)
#pragma unroll
            for (int i = 0; i < 32; ++i) {
                const int key = mc * 64 + 16 * warp + lane / 4 + 8 * (i / 2 % 2);
                const int col = (i / 4) * 8 + (lane % 4) * 2 + i % 2;
                const bool valid = key < BLOCK_N && first + key < end && q0 + col < op.queries() &&
                                   op.visible(r, q0 + col, first + key);
                s[mc][i] = valid ? s[mc][i] * softmax_scale : -INFINITY;
                tile_max[(i / 4) * 2 + i % 2] = fmaxf(tile_max[(i / 4) * 2 + i % 2], s[mc][i]);
            }
        column_reduce<true>(tile_max, scratch[wg]);
        float correction[16];
#pragma unroll
        for (int c = 0; c < 16; ++c) {
            const float m_new = fmaxf(m[c], tile_max[c]);
            correction[c] = m_new == -INFINITY ? 1.f : exp2f(m[c] - m_new);
            m[c] = m_new;
            l[c] *= correction[c];
        }
#pragma unroll
        for (int mc = 0; mc < KEY_ROWS / 64; ++mc)
#pragma unroll
            for (int i = 0; i < 32; ++i) {
                const int c = (i / 4) * 2 + i % 2;
                const float p = s[mc][i] == -INFINITY ? 0.f : exp2f(s[mc][i] - m[c]);
                l[c] += p;
                const int key = mc * 64 + 16 * warp + lane / 4 + 8 * (i / 2 % 2);
                const int col = (i / 4) * 8 + (lane % 4) * 2 + i % 2;
                p_t[kmajor_offset<KEY_ROWS>(col, key)] = static_cast<scalar_t>(p);
            }
#pragma unroll
        for (int mo = 0; mo < DV_HALF / 64; ++mo)
#pragma unroll
            for (int i = 0; i < 32; ++i) o[mo][i] *= correction[(i / 4) * 2 + i % 2];
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        named_barrier(1 + wg, 128);

        // O^T += V^T P^T over this warpgroup's value dims.
#pragma unroll
        for (int mo = 0; mo < DV_HALF / 64; ++mo) {
            for (int kb = 0; kb < KEY_ROWS / 16; kb += K_BATCH) {
                unsigned a[K_BATCH][4];
#pragma unroll
                for (int i = 0; i < K_BATCH; ++i)
                    if (kb + i < KEY_ROWS / 16)
                        load_a_transposed(a[i], v_tile, v_ld, wg * DV_HALF + mo * 64, (kb + i) * 16);
                wgmma_fence();
#pragma unroll
                for (int i = 0; i < K_BATCH; ++i)
                    if (kb + i < KEY_ROWS / 16) wgmma_rs(o[mo], a[i], kmajor_desc<KEY_ROWS>(p_t, (kb + i) * 16), 1);
                wgmma_commit();
                wgmma_wait();
            }
        }
        named_barrier(1 + wg, 128);
        if (lane == 0) mbarrier_arrive(&empty[stage]);
    }

    column_reduce<false>(l, scratch[wg]);
    const int dv0 = wg * DV_HALF + 16 * warp + lane / 4;
    if (SPLITS == 1) {
#pragma unroll
        for (int mo = 0; mo < DV_HALF / 64; ++mo)
#pragma unroll
            for (int i = 0; i < 32; ++i) {
                const int c = (i / 4) * 2 + i % 2;
                const int col = (i / 4) * 8 + (lane % 4) * 2 + i % 2;
                if (q0 + col < op.queries())
                    op.out(r, q0 + col)[dv0 + mo * 64 + 8 * (i / 2 % 2)] =
                        static_cast<scalar_t>(l[c] > 0.f ? o[mo][i] / l[c] : 0.f);
            }
        return;
    }

    // Publish this split's partials; the last split of the stream group merges them.
    constexpr int STRIDE = Op::DV + 2;
    float* part = g_partials + ((size_t)blockIdx.x * SPLITS + blockIdx.y) * QN * STRIDE;
#pragma unroll
    for (int mo = 0; mo < DV_HALF / 64; ++mo)
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            const int col = (i / 4) * 8 + (lane % 4) * 2 + i % 2;
            part[col * STRIDE + dv0 + mo * 64 + 8 * (i / 2 % 2)] = o[mo][i];
        }
    if (wg == 0 && warp == 0 && lane < 4)
#pragma unroll
        for (int c = 0; c < 16; ++c) {
            const int col = (c / 2) * 8 + lane * 2 + c % 2;
            part[col * STRIDE + Op::DV] = m[c];
            part[col * STRIDE + Op::DV + 1] = l[c];
        }
    __threadfence();
    named_barrier(3, 256);
    if (threadIdx.x == 128) last = atomicAdd(&g_tickets[blockIdx.x], 1u) == SPLITS - 1;
    named_barrier(3, 256);
    if (!last) return;
    __threadfence();

    const float* parts = g_partials + (size_t)blockIdx.x * SPLITS * QN * STRIDE;
    for (int i = threadIdx.x - 128; i < QN * Op::DV; i += 256) {
        const int col = i / Op::DV;
        const int dv = i % Op::DV;
        if (q0 + col >= op.queries()) continue;
        float gm = -INFINITY;
        for (int sp = 0; sp < SPLITS; ++sp) gm = fmaxf(gm, __ldcg(parts + (sp * QN + col) * STRIDE + Op::DV));
        float gl = 0.f;
        float acc = 0.f;
        for (int sp = 0; sp < SPLITS; ++sp) {
            const float* p = parts + (sp * QN + col) * STRIDE;
            const float ms = __ldcg(p + Op::DV);
            if (ms == -INFINITY) continue;
            const float w = exp2f(ms - gm);
            gl += __ldcg(p + Op::DV + 1) * w;
            acc += __ldcg(p + dv) * w;
        }
        op.out(r, q0 + col)[dv] = static_cast<scalar_t>(gl > 0.f ? acc / gl : 0.f);
    }
    named_barrier(3, 256);
    if (threadIdx.x == 128) g_tickets[blockIdx.x] = 0;
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

// Grow-only device workspace for the split partials; tickets start at zero and each merge resets its own.
static void reserve_workspace(size_t groups, int dv)
{
    static float* partials = nullptr;
    static unsigned* tickets = nullptr;
    static size_t capacity = 0;
    if (groups <= capacity) return;
    cudaFree(partials);
    cudaFree(tickets);
    cudaMalloc(&partials, groups * SPLITS * QN * (dv + 2) * sizeof(float));
    cudaMalloc(&tickets, groups * sizeof(unsigned));
    cudaMemset(tickets, 0, groups * sizeof(unsigned));
    cudaMemcpyToSymbol(g_partials, &partials, sizeof(partials));
    cudaMemcpyToSymbol(g_tickets, &tickets, sizeof(tickets));
    capacity = groups;
}

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int rows, int queries)
{
    const int groups = rows * ((queries + QN - 1) / QN);
    const size_t smem = (QN * Op::DK + NUM_STAGES * KEY_ROWS * (Op::DK + (Op::SHARED_KV ? 0 : Op::DV)) +
                         2 * QN * KEY_ROWS) * sizeof(scalar_t);
    if (smem > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (SPLITS > 1) reserve_workspace(groups, Op::DV);
    return {dim3(groups, SPLITS), dim3(NUM_THREADS), smem};
}

{{OP_SNIPPET}}
