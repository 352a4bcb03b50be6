@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", w_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}",
    n_rows: tl.int32, n_cols: tl.int32, stride_x: tl.int32, stride_y: tl.int32, eps: tl.float32,
    BLOCK_N: tl.constexpr, ROWS_PER_PROG: tl.constexpr,
):
    rows = _rows(ROWS_PER_PROG)
    row_mask = rows < n_rows
    sum_sq = tl.zeros((ROWS_PER_PROG, BLOCK_N), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_N):
        x = _load(x_ptr, rows * stride_x, c0 + tl.arange(0, BLOCK_N), row_mask, n_cols)
        sum_sq += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(sum_sq, axis=1) / n_cols + eps)
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        x = _load(x_ptr, rows * stride_x, cols, row_mask, n_cols)
        w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        _store(y_ptr, rows * stride_y, cols, row_mask, n_cols, x * rstd[:, None] * w[None, :])


def {{OP}}(x, weight, y, eps=1e-6):
    """y = x / sqrt(mean(x^2) + eps) * weight over the last dim; x, y: (T, H), weight: (H,)."""
    n_rows, n_cols = x.shape
    _launch({{KERNEL_NAME}}_kernel, n_rows, x, weight, y, n_rows, n_cols, x.stride(0), y.stride(0), eps)
