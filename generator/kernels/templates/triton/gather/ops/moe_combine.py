TOPK = {{SHAPE_K}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    y_sorted_ptr: "*{{TL_SIG}}", src_index_ptr: "*i32", topk_weights_ptr: "*fp32", y_ptr: "*{{TL_SIG}}",
    hidden: tl.int32, BLOCK_C: tl.constexpr, TOPK: tl.constexpr,
):
    # y[t] = sum_j topk_weights[t, j] * y_sorted[src_index[t * TOPK + j]], accumulated in fp32.
    token = tl.program_id(0)
    js = tl.arange(0, TOPK)
    rows = tl.load(src_index_ptr + token * TOPK + js).to(tl.int64)
    weights = tl.load(topk_weights_ptr + token * TOPK + js)
    for c0 in range(0, hidden, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        mask = cols < hidden
        parts = tl.load(y_sorted_ptr + rows[:, None] * hidden + cols[None, :], mask=mask[None, :], other=0.0)
        y = tl.sum(parts.to(tl.float32) * weights[:, None], axis=0)
        tl.store(y_ptr + token.to(tl.int64) * hidden + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def {{OP}}(y_sorted, src_index, topk_weights, y):
    """y_sorted: (T * K, H) expert outputs; src_index: (T * K,) int32 from moe_scatter; topk_weights: (T, K)."""
    T, H = y.shape
    _launch({{KERNEL_NAME}}_kernel, T, y_sorted, src_index, topk_weights, y, H, TOPK=TOPK)
