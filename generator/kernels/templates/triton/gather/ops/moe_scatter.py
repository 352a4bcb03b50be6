@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", topk_ids_ptr: "*i32", cursor_ptr: "*i32", x_sorted_ptr: "*{{TL_SIG}}",
    src_index_ptr: "*i32", topk: tl.int32, hidden: tl.int32, BLOCK_C: tl.constexpr,
):
    # Assignment (token, j) claims the next free row of its expert's segment (cursor starts at the expert's
    # offset), records it in src_index[token * topk + j] and copies the token's hidden state there.
    pair = tl.program_id(0)
    expert = tl.load(topk_ids_ptr + pair)
    dst_row = tl.atomic_add(cursor_ptr + expert, 1)
    tl.store(src_index_ptr + pair, dst_row)
    token = pair // topk
    _copy_row(x_ptr + token.to(tl.int64) * hidden, x_sorted_ptr + dst_row.to(tl.int64) * hidden, hidden, BLOCK_C)


def {{OP}}(x, topk_ids, expert_offsets, x_sorted, src_index):
    """x: (T, H); topk_ids: (T, K) int32; expert_offsets: (E + 1,) int32 prefix sums of the expert counts;
    x_sorted: (T * K, H) grouped by expert; src_index: (T * K,) int32, the sorted row of each (token, j)."""
    T, H = x.shape
    cursor = expert_offsets[:-1].clone()  # claimed atomically; expert_offsets itself stays untouched
    _launch({{KERNEL_NAME}}_kernel, topk_ids.numel(), x, topk_ids, cursor, x_sorted, src_index, topk_ids.shape[1], H)
