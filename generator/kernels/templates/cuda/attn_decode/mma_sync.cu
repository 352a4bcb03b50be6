{{PRELUDE}}

// {{KERNEL_NAME}}: decode attention on sm_80+ tensor cores for many query rows per KV stream (MLA heads,
// speculative tree tokens), FlashAttention-2 / FlashInfer style. A block takes the QN query rows of one stream
// (16-row mma tiles) and streams K/V tiles of BLOCK_N keys through a NUM_STAGES-deep cp.async pipeline. Per tile:
// S = Q K^T on mma.sync m16n8k16 with ldmatrix fragments (the warps take the 16 x 8 score blocks in turn), an
// online softmax per query row in shared memory, then O += P V on mma.sync, each warp keeping a fixed slice of the
// output tile in fp32 registers. With SPLITS > 1 the key range is split over blocks and the last split to finish
// merges the partial results.
{{TUNED_CONSTANTS}}

constexpr int THREADS = NUM_WARPS * 32;
constexpr int VEC = 16 / sizeof(scalar_t);
constexpr int PAD = 8;   // elements: a 16-byte pad per shared row puts ldmatrix's 8 row addresses on distinct banks
constexpr float LOG2E = 1.4426950408889634f;
constexpr unsigned FULL_MASK = 0xffffffffu;
static_assert(BLOCK_N % 32 == 0, "a warp's lanes cover a score row");

// The block's shared-memory layout and work split for one op. QN, the query rows a block takes: 16-row mma tiles,
// as many as keep the fp32 output tile within 96 registers a thread (counted over DK >= DV), 16 to 64.
template <class Op>
struct Tiles {
    static constexpr int FIT = 96 * THREADS / Op::DK / 16 * 16;
    static constexpr int QN = FIT < 16 ? 16 : (FIT > 64 ? 64 : FIT);
    static constexpr int K_LD = Op::DK + PAD;
    static constexpr int V_LD = Op::SHARED_KV ? K_LD : Op::DV + PAD;
    static constexpr int STAGE = BLOCK_N * K_LD + (Op::SHARED_KV ? 0 : BLOCK_N * V_LD);
    static constexpr int S_LD = BLOCK_N + 4;
    static constexpr int P_LD = BLOCK_N + PAD;
    static constexpr int D_BLOCKS = Op::DV / 8;
    static constexpr int O_BLOCKS = QN / 16 * D_BLOCKS / NUM_WARPS;   // 16 x 8 output blocks per warp
    static constexpr size_t SMEM = (size_t)(QN * S_LD + 3 * QN + 4) * sizeof(float) +
                                   (size_t)(QN * K_LD + NUM_STAGES * STAGE + QN * P_LD) * sizeof(scalar_t);
    static_assert(D_BLOCKS % O_BLOCKS == 0 && O_BLOCKS * NUM_WARPS == QN / 16 * D_BLOCKS, "a warp, one row tile");
};

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(smem)), "l"(gmem) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int PENDING>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory"); }

__device__ __forceinline__ void ldsm_x4(unsigned (&r)[4], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

__device__ __forceinline__ void ldsm_x2(unsigned (&r)[2], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_u32(p)));
}

__device__ __forceinline__ void ldsm_x2_trans(unsigned (&r)[2], const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem_u32(p)));
}

// C(16 x 8, fp32) += A(16 x 16) * B(16 x 8).
__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2], half)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2], __nv_bfloat16)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ unsigned pack2(float lo, float hi)
{
    union {
        scalar_t h[2];
        unsigned u;
    } pair;
    pair.h[0] = static_cast<scalar_t>(lo);
    pair.h[1] = static_cast<scalar_t>(hi);
    return pair.u;
}

// Copy `rows` rows of `width` elements (row(i) gives row i's address) into shared rows `ld` apart as 16-byte
// cp.async chunks; rows at or past `limit` are zeroed, so no stale value reaches O += P V (0 x NaN is NaN).
template <class RowFn>
__device__ void load_rows(scalar_t* dst, int ld, int width, int rows, int first, int limit, RowFn row)
{
    const int chunks = width / VEC;
    for (int c = threadIdx.x; c < rows * chunks; c += THREADS) {
        const int i = c / chunks;
        const int part = c % chunks;
        scalar_t* to = dst + i * ld + part * VEC;
        if (first + i < limit)
            cp_async_16(to, row(first + i) + part * VEC);
        else
            *reinterpret_cast<uint4*>(to) = make_uint4(0, 0, 0, 0);
    }
}

// Stage the K (and V) rows of keys [first, first + BLOCK_N).
template <class Op>
__device__ void load_tile(const Op& op, int r, int first, int end, scalar_t* stage)
{
    using T = Tiles<Op>;
    load_rows(stage, T::K_LD, Op::DK, BLOCK_N, first, end, [&](int j) { return op.key(r, j); });
    if constexpr (!Op::SHARED_KV)
        load_rows(stage + BLOCK_N * T::K_LD, T::V_LD, Op::DV, BLOCK_N, first, end, [&](int j) { return op.value(r, j); });
}

__device__ float* g_partials;   // [query group][SPLITS][QN][DV + 2]: unnormalized output, then max and sum
__device__ unsigned* g_tickets;  // [query group]: splits finished so far

template <class Op>
__device__ void decode_attention(const Op& op)
{
    using T = Tiles<Op>;
    constexpr int QN = T::QN;
    extern __shared__ __align__(128) unsigned char smem_raw[];
    float* s_tile = reinterpret_cast<float*>(smem_raw);   // [QN][S_LD]: the tile's scaled scores
    float* row_m = s_tile + QN * T::S_LD;                 // running max per query row (log2 domain)
    float* row_l = row_m + QN;                            // running sum of 2^(s - m)
    float* row_corr = row_l + QN;                         // the tile's rescale factor of each output row
    unsigned* last = reinterpret_cast<unsigned*>(row_corr + QN);
    scalar_t* q_tile = reinterpret_cast<scalar_t*>(row_corr + QN + 4);
    scalar_t* stages = q_tile + QN * T::K_LD;
    scalar_t* p_tile = stages + NUM_STAGES * T::STAGE;

    const int groups = (op.queries() + QN - 1) / QN;
    const int r = blockIdx.x / groups;
    const int q0 = blockIdx.x % groups * QN;
    const int rows = min(QN, op.queries() - q0);
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const float softmax_scale = rsqrtf((float)Op::DK) * LOG2E;

    // This block's share of the stream: SPLITS contiguous ranges, whole tiles each.
    const int keys = op.key_end(r) - op.key_begin(r);
    const int chunk = ((keys + SPLITS - 1) / SPLITS + BLOCK_N - 1) / BLOCK_N * BLOCK_N;
    const int begin = op.key_begin(r) + blockIdx.y * chunk;
    const int end = min(op.key_end(r), begin + chunk);
    const int tiles = end > begin ? (end - begin + BLOCK_N - 1) / BLOCK_N : 0;

    load_rows(q_tile, T::K_LD, Op::DK, QN, 0, rows, [&](int i) { return op.query(r, q0 + i); });
    for (int i = threadIdx.x; i < QN; i += THREADS) {
        row_m[i] = -INFINITY;
        row_l[i] = 0.f;
    }
    __syncthreads();   // the states are read by other warps, at the end too when a split has no keys
#pragma unroll
    for (int s = 0; s < NUM_STAGES - 1; ++s) {
        if (s < tiles) load_tile(op, r, begin + s * BLOCK_N, end, stages + s * T::STAGE);
        cp_async_commit();
    }

    // This warp's output blocks: O_BLOCKS consecutive 16 x 8 blocks of one 16-row tile.
    const int o_row = warp * T::O_BLOCKS / T::D_BLOCKS * 16;
    const int o_col = warp * T::O_BLOCKS % T::D_BLOCKS * 8;
    float acc[T::O_BLOCKS][4];
#pragma unroll
    for (int i = 0; i < T::O_BLOCKS; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][e] = 0.f;

    for (int t = 0; t < tiles; ++t) {
        const int next = t + NUM_STAGES - 1;
        if (next < tiles) load_tile(op, r, begin + next * BLOCK_N, end, stages + next % NUM_STAGES * T::STAGE);
        cp_async_commit();
        cp_async_wait<NUM_STAGES - 1>();
        __syncthreads();
        const scalar_t* k_tile = stages + t % NUM_STAGES * T::STAGE;
        const scalar_t* v_tile = Op::SHARED_KV ? k_tile : k_tile + BLOCK_N * T::K_LD;
        const int first = begin + t * BLOCK_N;

        // S = Q K^T, a 16 x 8 block per warp in turn (row tiles past the last query skipped).
        for (int b = warp; b < QN / 16 * (BLOCK_N / 8); b += NUM_WARPS) {
            const int row0 = b / (BLOCK_N / 8) * 16;
            const int key0 = b % (BLOCK_N / 8) * 8;
            if (row0 >= rows) break;
            float s[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll 4
            for (int kk = 0; kk < Op::DK / 16; ++kk) {
                unsigned qf[4];
                unsigned kf[2];
                ldsm_x4(qf, q_tile + (row0 + lane % 16) * T::K_LD + kk * 16 + lane / 16 * 8);
                ldsm_x2(kf, k_tile + (key0 + lane % 8) * T::K_LD + kk * 16 + lane / 8 % 2 * 8);
                mma_16816(s, qf, kf, scalar_t());
            }
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int row = row0 + lane / 4 + e / 2 * 8;
                const int key = key0 + lane % 4 * 2 + e % 2;
                const bool valid = row < rows && first + key < end && op.visible(r, q0 + row, first + key);
                s_tile[row * T::S_LD + key] = valid ? s[e] * softmax_scale : -INFINITY;
            }
        }
        __syncthreads();

        // Online softmax: a warp per query row, its lanes across the tile's keys.
        for (int row = warp; row < rows; row += NUM_WARPS) {
            const float* s_row = s_tile + row * T::S_LD;
            float tile_max = -INFINITY;
            for (int key = lane; key < BLOCK_N; key += 32) tile_max = fmaxf(tile_max, s_row[key]);
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1)
                tile_max = fmaxf(tile_max, __shfl_xor_sync(FULL_MASK, tile_max, offset));
            const float m_old = row_m[row];
            const float m_new = fmaxf(m_old, tile_max);
            float sum = 0.f;
            for (int key = lane; key < BLOCK_N; key += 32) {
                const float p = s_row[key] == -INFINITY ? 0.f : exp2f(s_row[key] - m_new);
                sum += p;
                p_tile[row * T::P_LD + key] = static_cast<scalar_t>(p);
            }
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(FULL_MASK, sum, offset);
            if (lane == 0) {
                const float correction = m_new == -INFINITY ? 1.f : exp2f(m_old - m_new);
                row_m[row] = m_new;
                row_l[row] = row_l[row] * correction + sum;
                row_corr[row] = correction;
            }
        }
        __syncthreads();

        // O += P V over this warp's output blocks, rescaled first by their rows' corrections.
        if (o_row < rows) {
            const float corr_lo = row_corr[o_row + lane / 4];
            const float corr_hi = row_corr[o_row + lane / 4 + 8];
#pragma unroll
            for (int i = 0; i < T::O_BLOCKS; ++i) {
                acc[i][0] *= corr_lo;
                acc[i][1] *= corr_lo;
                acc[i][2] *= corr_hi;
                acc[i][3] *= corr_hi;
            }
            for (int kk = 0; kk < BLOCK_N / 16; ++kk) {
                unsigned pf[4];
                ldsm_x4(pf, p_tile + (o_row + lane % 16) * T::P_LD + kk * 16 + lane / 16 * 8);
#pragma unroll
                for (int i = 0; i < T::O_BLOCKS; ++i) {
                    unsigned vf[2];
                    ldsm_x2_trans(vf, v_tile + (kk * 16 + lane % 16) * T::V_LD + o_col + i * 8);
                    mma_16816(acc[i], pf, vf, scalar_t());
                }
            }
        }
        __syncthreads();
    }

    if (SPLITS == 1) {
#pragma unroll
        for (int hh = 0; hh < 2; ++hh) {
            const int row = o_row + lane / 4 + hh * 8;
            if (row >= rows) continue;
            const float inv_l = row_l[row] > 0.f ? 1.f / row_l[row] : 0.f;
            scalar_t* out = op.out(r, q0 + row);
#pragma unroll
            for (int i = 0; i < T::O_BLOCKS; ++i)
                *reinterpret_cast<unsigned*>(out + o_col + i * 8 + lane % 4 * 2) =
                    pack2(acc[i][2 * hh] * inv_l, acc[i][2 * hh + 1] * inv_l);
        }
        return;
    }

    // Publish this split's partials; the last split of the query group merges them.
    constexpr int STRIDE = Op::DV + 2;
    float* part = g_partials + ((size_t)blockIdx.x * SPLITS + blockIdx.y) * QN * STRIDE;
#pragma unroll
    for (int i = 0; i < T::O_BLOCKS; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e)
            part[(o_row + lane / 4 + e / 2 * 8) * STRIDE + o_col + i * 8 + lane % 4 * 2 + e % 2] = acc[i][e];
    for (int row = threadIdx.x; row < QN; row += THREADS) {
        part[row * STRIDE + Op::DV] = row_m[row];
        part[row * STRIDE + Op::DV + 1] = row_l[row];
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) *last = atomicAdd(&g_tickets[blockIdx.x], 1u) == SPLITS - 1;
    __syncthreads();
    if (!*last) return;
    __threadfence();

    const float* parts = g_partials + (size_t)blockIdx.x * SPLITS * QN * STRIDE;
    for (int i = threadIdx.x; i < rows * Op::DV; i += THREADS) {
        const int row = i / Op::DV;
        const int dv = i % Op::DV;
        float gm = -INFINITY;
        for (int sp = 0; sp < SPLITS; ++sp) gm = fmaxf(gm, __ldcg(parts + (sp * QN + row) * STRIDE + Op::DV));
        float gl = 0.f;
        float o = 0.f;
        for (int sp = 0; sp < SPLITS; ++sp) {
            const float* p = parts + (sp * QN + row) * STRIDE;
            const float ms = __ldcg(p + Op::DV);
            if (ms == -INFINITY) continue;
            const float w = exp2f(ms - gm);
            gl += __ldcg(p + Op::DV + 1) * w;
            o += __ldcg(p + dv) * w;
        }
        op.out(r, q0 + row)[dv] = static_cast<scalar_t>(gl > 0.f ? o / gl : 0.f);
    }
    __syncthreads();
    if (threadIdx.x == 0) g_tickets[blockIdx.x] = 0;
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

// Grow-only device workspace for the split partials; tickets start at zero and each merge resets its own.
static void reserve_workspace(size_t groups, int rows, int dv)
{
    static float* partials = nullptr;
    static unsigned* tickets = nullptr;
    static size_t capacity = 0;
    if (groups <= capacity) return;
    cudaFree(partials);
    cudaFree(tickets);
    cudaMalloc(&partials, groups * SPLITS * rows * (dv + 2) * sizeof(float));
    cudaMalloc(&tickets, groups * sizeof(unsigned));
    cudaMemset(tickets, 0, groups * sizeof(unsigned));
    cudaMemcpyToSymbol(g_partials, &partials, sizeof(partials));
    cudaMemcpyToSymbol(g_tickets, &tickets, sizeof(tickets));
    capacity = groups;
}

template <class Op>
static LaunchPlan plan_launch(const void* kernel, int streams, int queries)
{
    using T = Tiles<Op>;
    const int groups = streams * ((queries + T::QN - 1) / T::QN);
    if (T::SMEM > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)T::SMEM);
    if (SPLITS > 1) reserve_workspace(groups, T::QN, Op::DV);
    return {dim3(groups, SPLITS), dim3(THREADS), T::SMEM};
}

{{OP_SNIPPET}}
