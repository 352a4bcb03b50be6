@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", w_ptr: "*{{TL_SIG}}", b_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}",
    n_rows: tl.int32, n_cols: tl.int32, stride_x: tl.int32, stride_y: tl.int32, eps: tl.float32,
    BLOCK_N: tl.constexpr, ROWS_PER_PROG: tl.constexpr,
):
    rows = _rows(ROWS_PER_PROG)
    row_mask = rows < n_rows
    acc = tl.zeros((ROWS_PER_PROG, BLOCK_N), dtype=tl.float32)
    acc_sq = tl.zeros((ROWS_PER_PROG, BLOCK_N), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_N):
        x = _load(x_ptr, rows * stride_x, c0 + tl.arange(0, BLOCK_N), row_mask, n_cols)
        acc += x
        acc_sq += x * x
    mean = tl.sum(acc, axis=1) / n_cols
    var = tl.maximum(tl.sum(acc_sq, axis=1) / n_cols - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        x = _load(x_ptr, rows * stride_x, cols, row_mask, n_cols)
        w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        y = (x - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :]
        _store(y_ptr, rows * stride_y, cols, row_mask, n_cols, y)


def {{OP}}(x, weight, bias, y, eps=1e-5):
    """y = (x - mean) / sqrt(var + eps) * weight + bias over the last dim; x, y: (T, H)."""
    n_rows, n_cols = x.shape
    _launch({{KERNEL_NAME}}_kernel, n_rows, x, weight, bias, y, n_rows, n_cols, x.stride(0), y.stride(0), eps)
