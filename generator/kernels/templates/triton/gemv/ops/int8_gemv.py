@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*fp16", w_ptr: "*i8", scales_ptr: "*fp16", N: tl.int32, K: tl.int32, stride_xm: tl.int32,
    stride_wn: tl.int32, stride_ym: tl.int32, y_ptr: "*fp16",
    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr,
):
    # W8A16: int8 weights, one fp16 scale per output channel, applied once after the K reduction.
    m = tl.program_id(2)
    k_lo, k_hi = _k_bounds(K, BLOCK_K, SPLIT_K)
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_mask = offs_n < N
    acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        k_mask = offs_k < k_hi
        x = tl.load(x_ptr + m * stride_xm + offs_k, mask=k_mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs_n[:, None] * stride_wn + offs_k[None, :], mask=n_mask[:, None] & k_mask[None, :],
                    other=0)
        acc += w.to(tl.float32) * x[None, :]
    scale = tl.load(scales_ptr + offs_n, mask=n_mask, other=0.0).to(tl.float32)
    _store_out(y_ptr + m * stride_ym + offs_n, tl.sum(acc, axis=1) * scale, n_mask)


def {{OP}}(x, w, scales, y):
    """y = (x @ w.T) * scales; x: (M, K) fp16, w: (N, K) int8, scales: (N,) fp16, y: (M, N) fp16."""
    M, K = x.shape
    N = w.shape[0]
    _launch({{KERNEL_NAME}}_kernel, y, M, N, x, w, scales, N, K, x.stride(0), w.stride(0), y.stride(0))
