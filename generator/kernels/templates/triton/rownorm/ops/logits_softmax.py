@triton.jit
def {{KERNEL_NAME}}_kernel(
    logits_ptr: "*fp32", temperature_ptr: "*fp32", probs_ptr: "*fp32",
    n_rows: tl.int32, n_cols: tl.int32, stride_row: tl.int32,
    BLOCK_N: tl.constexpr, ROWS_PER_PROG: tl.constexpr,
):
    # Online softmax: one pass for the running max and sum of exp(logits / T), one pass to write.
    rows = _rows(ROWS_PER_PROG)
    row_mask = rows < n_rows
    inv_t = 1.0 / tl.load(temperature_ptr + rows, mask=row_mask, other=1.0)
    m = tl.full((ROWS_PER_PROG,), -1.0e30, dtype=tl.float32)
    l = tl.zeros((ROWS_PER_PROG,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        x = _load(logits_ptr, rows * stride_row, cols, row_mask, n_cols) * inv_t[:, None]
        x = tl.where((cols < n_cols)[None, :], x, float("-inf"))
        m_new = tl.maximum(m, tl.max(x, axis=1))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m = m_new
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        x = _load(logits_ptr, rows * stride_row, cols, row_mask, n_cols) * inv_t[:, None]
        _store(probs_ptr, rows * stride_row, cols, row_mask, n_cols, tl.exp(x - m[:, None]) / l[:, None])


def {{OP}}(logits, temperature, probs):
    """probs = softmax(logits / temperature[:, None]) per row; logits, probs: (B, V) fp32, temperature: (B,)."""
    n_rows, n_cols = logits.shape
    _launch({{KERNEL_NAME}}_kernel, n_rows, logits, temperature, probs, n_rows, n_cols, logits.stride(0))
