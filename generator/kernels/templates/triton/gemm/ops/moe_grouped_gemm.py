@triton.jit
def {{KERNEL_NAME}}_kernel(
    a_ptr: "*{{TL_SIG}}", b_ptr: "*{{TL_SIG}}", expert_offsets_ptr: "*i32",
    M: tl.int32, N: tl.int32, K: tl.int32, stride_am: tl.int32, stride_bn: tl.int32, stride_be: tl.int32,
    c_ptr: "*{{TL_ACT}}", stride_cm: tl.int32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    # Grid axis 2 = expert. Expert e owns rows [offsets[e], offsets[e+1]) of the expert-sorted A and C
    # (at most M of them) and its own (N, K) weight matrix.
    expert = tl.program_id(2)
    row_lo = tl.load(expert_offsets_ptr + expert)
    rows = tl.load(expert_offsets_ptr + expert + 1) - row_lo
    a_ptr += row_lo.to(tl.int64) * stride_am
    c_ptr += row_lo.to(tl.int64) * stride_cm
    b_ptr += expert.to(tl.int64) * stride_be
    pid_m, pid_n = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_lo, k_hi = _k_bounds(K, BLOCK_K, SPLIT_K)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k_lo + offs_k)[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * stride_bn + (k_lo + offs_k)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_lo, k_hi, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < rows) & (offs_k[None, :] < k_hi - k), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_n[None, :] < N) & (offs_k[:, None] < k_hi - k), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    _store_tile(c_ptr, acc, offs_m, offs_n, rows, N, stride_cm)


def {{OP}}(a, b, expert_offsets, c):
    """c[rows of e] = a[rows of e] @ b[e].T for each expert e; a: (E * M, K) sorted by expert, b: (E, N, K)."""
    E, N, K = b.shape
    M = a.shape[0] // E  # rows per expert at most ({{SHAPE_M}} in the task)
    _launch({{KERNEL_NAME}}_kernel, c, M, N, E, a, b, expert_offsets, M, N, K, a.stride(0), b.stride(1),
            b.stride(0))
