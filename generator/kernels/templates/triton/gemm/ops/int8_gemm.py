@triton.jit
def {{KERNEL_NAME}}_kernel(
    a_ptr: "*i8", b_ptr: "*i8", a_scale_ptr: "*fp32", b_scale_ptr: "*fp32",
    M: tl.int32, N: tl.int32, K: tl.int32, stride_am: tl.int32, stride_bn: tl.int32,
    c_ptr: "*fp16", stride_cm: tl.int32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    # W8A8: int8 x int8 -> int32 on tensor cores, then per-token (A) and per-channel (B) dequant scales.
    pid_m, pid_n = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_lo, k_hi = _k_bounds(K, BLOCK_K, SPLIT_K)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k_lo + offs_k)[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * stride_bn + (k_lo + offs_k)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(k_lo, k_hi, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_hi - k), other=0)
        b = tl.load(b_ptrs, mask=(offs_n[None, :] < N) & (offs_k[:, None] < k_hi - k), other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    a_scale = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
    b_scale = tl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
    out = acc.to(tl.float32) * a_scale[:, None] * b_scale[None, :]
    _store_tile(c_ptr, out, offs_m, offs_n, M, N, stride_cm)


def {{OP}}(a, b, a_scale, b_scale, c):
    """c = (a @ b.T) * a_scale[:, None] * b_scale[None, :]; a: (M, K) int8, b: (N, K) int8, c: (M, N) fp16."""
    M, K = a.shape
    N = b.shape[0]
    _launch({{KERNEL_NAME}}_kernel, c, M, N, 1, a, b, a_scale, b_scale, M, N, K, a.stride(0), b.stride(0))
