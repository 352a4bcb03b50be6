@triton.jit
def _quantize_row(src_ptr, dst_ptr, src_offs, dst_offs, row_mask, n_cols, BLOCK_N: tl.constexpr):
    # Symmetric int8 with one fp32 scale per (token, head) row: scale = absmax / 127.
    amax = tl.zeros((src_offs.shape[0], BLOCK_N), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_N):
        x = _load(src_ptr, src_offs, c0 + tl.arange(0, BLOCK_N), row_mask, n_cols)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.maximum(tl.max(amax, axis=1), 1e-8) / 127.0
    for c0 in range(0, n_cols, BLOCK_N):
        cols = c0 + tl.arange(0, BLOCK_N)
        x = _load(src_ptr, src_offs, cols, row_mask, n_cols)
        q = tl.clamp(tl.floor(x / scale[:, None] + 0.5), -127.0, 127.0)
        _store(dst_ptr, dst_offs, cols, row_mask, n_cols, q.to(tl.int8))
    return scale


@triton.jit
def {{KERNEL_NAME}}_kernel(
    k_ptr: "*fp16", v_ptr: "*fp16", slot_mapping_ptr: "*i64", k_cache_ptr: "*i8", v_cache_ptr: "*i8",
    scales_ptr: "*fp32", n_rows: tl.int32, num_heads: tl.int32, head_dim: tl.int32,
    BLOCK_N: tl.constexpr, ROWS_PER_PROG: tl.constexpr,
):
    # Row = (token, head) of the new K and V; it lands in cache slot slot_mapping[token] (negative: padding).
    rows = _rows(ROWS_PER_PROG)
    token = rows // num_heads
    head = rows % num_heads
    slot = tl.load(slot_mapping_ptr + token, mask=rows < n_rows, other=-1)
    row_mask = (rows < n_rows) & (slot >= 0)
    src_offs = rows.to(tl.int64) * head_dim
    dst_offs = (slot * num_heads + head) * head_dim
    k_scale = _quantize_row(k_ptr, k_cache_ptr, src_offs, dst_offs, row_mask, head_dim, BLOCK_N)
    v_scale = _quantize_row(v_ptr, v_cache_ptr, src_offs, dst_offs, row_mask, head_dim, BLOCK_N)
    scale_offs = (slot * num_heads + head) * 2
    tl.store(scales_ptr + scale_offs, k_scale, mask=row_mask)
    tl.store(scales_ptr + scale_offs + 1, v_scale, mask=row_mask)


def {{OP}}(k, v, slot_mapping, k_cache, v_cache, scales):
    """k, v: (T, H, D) fp16; k_cache, v_cache: (slots, H, D) int8; scales: (slots, H, 2) fp32 (K, V)."""
    T, H, D = k.shape
    _launch({{KERNEL_NAME}}_kernel, T * H, k, v, slot_mapping, k_cache, v_cache, scales, T * H, H, D)
