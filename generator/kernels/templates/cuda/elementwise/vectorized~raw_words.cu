{{PRELUDE}}

// {{KERNEL_NAME}}: each thread handles VEC consecutive units with 16-byte packed loads and stores (uint4-sized
// for VEC * sizeof(element) == 16), cutting instruction count and keeping every transaction full width. A pack
// moves as raw words of its size (uint4, uint2, ...) and is reinterpreted in registers.
{{TUNED_CONSTANTS}}

template <int BYTES>
struct Word;
template <>
struct Word<1> { using type = unsigned char; };
template <>
struct Word<2> { using type = unsigned short; };
template <>
struct Word<4> { using type = unsigned int; };
template <>
struct Word<8> { using type = uint2; };
template <>
struct Word<16> { using type = uint4; };
struct alignas(32) Words32 {
    uint4 lo, hi;
};
template <>
struct Word<32> { using type = Words32; };

template <typename T, int N>
__device__ __forceinline__ void load_n(const T* p, float (&out)[N])
{
    using W = typename Word<sizeof(T) * N>::type;
    const W bits = *reinterpret_cast<const W*>(p);
    T v[N];
    __builtin_memcpy(v, &bits, sizeof(W));
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = static_cast<float>(v[i]);
}

template <typename T, int N>
__device__ __forceinline__ void store_n(T* p, const float (&in)[N])
{
    using W = typename Word<sizeof(T) * N>::type;
    T v[N];
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = static_cast<T>(in[i]);
    W bits;
    __builtin_memcpy(&bits, v, sizeof(W));
    *reinterpret_cast<W*>(p) = bits;
}

template <class Op>
__device__ void elementwise(const Op& op)
{
    const long long unit = ((long long)blockIdx.x * NUM_THREADS + threadIdx.x) * VEC;
    if (unit < op.units()) op.template apply<VEC>(unit);
}

struct LaunchPlan {
    dim3 grid;
    dim3 block;
    size_t smem;
};

static LaunchPlan plan_launch(const void* kernel, long long units)
{
    const long long threads = (units + VEC - 1) / VEC;
    return {dim3((unsigned)((threads + NUM_THREADS - 1) / NUM_THREADS)), dim3(NUM_THREADS), 0};
}

{{OP_SNIPPET}}
