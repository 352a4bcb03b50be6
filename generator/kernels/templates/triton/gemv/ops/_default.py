@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", w_ptr: "*{{TL_SIG}}", N: tl.int32, K: tl.int32, stride_xm: tl.int32,
    stride_wn: tl.int32, stride_ym: tl.int32, y_ptr: "*{{TL_SIG}}",
    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr,
):
    # y[m, n] = sum_k w[n, k] * x[m, k]; grid axis 2 = token m.
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
                    other=0.0)
        acc += w.to(tl.float32) * x[None, :]
    _store_out(y_ptr + m * stride_ym + offs_n, tl.sum(acc, axis=1), n_mask)


def {{OP}}(x, w, y):
    """y = x @ w.T; x: (M, K), w: (N, K), y: (M, N) with M <= 8 decode tokens."""
    M, K = x.shape
    N = w.shape[0]
    _launch({{KERNEL_NAME}}_kernel, y, M, N, x, w, N, K, x.stride(0), w.stride(0), y.stride(0))
