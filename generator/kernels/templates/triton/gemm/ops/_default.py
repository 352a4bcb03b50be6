@triton.jit
def {{KERNEL_NAME}}_kernel(
    a_ptr: "*{{TL_SIG}}", b_ptr: "*{{TL_SIG}}",
    M: tl.int32, N: tl.int32, K: tl.int32, stride_am: tl.int32, stride_bn: tl.int32,
    c_ptr: "*{{TL_SIG}}", stride_cm: tl.int32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    # C[M, N] = A[M, K] @ B[N, K]^T, fp32 accumulation.
    pid_m, pid_n = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_lo, k_hi = _k_bounds(K, BLOCK_K, SPLIT_K)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k_lo + offs_k)[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * stride_bn + (k_lo + offs_k)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_lo, k_hi, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_hi - k), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_n[None, :] < N) & (offs_k[:, None] < k_hi - k), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    _store_tile(c_ptr, acc, offs_m, offs_n, M, N, stride_cm)


def {{OP}}(a, b, c):
    """c = a @ b.T; a: (M, K), b: (N, K), c: (M, N), all row-major ({{SHAPE_M}} x {{SHAPE_N}} x {{SHAPE_K}})."""
    M, K = a.shape
    N = b.shape[0]
    _launch({{KERNEL_NAME}}_kernel, c, M, N, 1, a, b, M, N, K, a.stride(0), b.stride(0))
