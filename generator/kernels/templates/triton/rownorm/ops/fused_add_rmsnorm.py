@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", res_ptr: "*{{TL_SIG}}", w_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}",
    res_out_ptr: "*{{TL_SIG}}", n_rows: tl.int32, n_cols: tl.int32, stride_row: tl.int32, eps: tl.float32,
    BLOCK_N: tl.constexpr, ROWS_PER_PROG: tl.constexpr,
):
    # Pass 1 writes r = x + residual (the next layer's residual) while reducing sum(r^2);
    # pass 2 re-reads r and normalizes it into y.
    rows = _rows(ROWS_PER_PROG)
    row_mask = rows < n_rows
    row_offs = rows * stride_row
    sum_sq = tl.zeros((ROWS_PER_PROG, BLOCK_N), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        r = _load(x_ptr, row_offs, cols, row_mask, n_cols) + _load(res_ptr, row_offs, cols, row_mask, n_cols)
        _store(res_out_ptr, row_offs, cols, row_mask, n_cols, r)
        sum_sq += r * r
    rstd = 1.0 / tl.sqrt(tl.sum(sum_sq, axis=1) / n_cols + eps)
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        r = _load(res_out_ptr, row_offs, cols, row_mask, n_cols)
        w = tl.load(w_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        _store(y_ptr, row_offs, cols, row_mask, n_cols, r * rstd[:, None] * w[None, :])


def {{OP}}(x, residual, weight, y, residual_out, eps=1e-6):
    """residual_out = x + residual; y = rmsnorm(residual_out) * weight; all (T, H) with the same row stride."""
    n_rows, n_cols = x.shape
    _launch({{KERNEL_NAME}}_kernel, n_rows, x, residual, weight, y, residual_out, n_rows, n_cols, x.stride(0), eps)
