@triton.jit
def {{KERNEL_NAME}}_kernel(
    ids_ptr: "*i32", table_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}", hidden: tl.int32, BLOCK_C: tl.constexpr,
):
    token = tl.program_id(0)
    row = tl.load(ids_ptr + token).to(tl.int64)
    _copy_row(table_ptr + row * hidden, y_ptr + token.to(tl.int64) * hidden, hidden, BLOCK_C)


def {{OP}}(ids, table, y):
    """y[t] = table[ids[t]]; ids: (T,) int32, table: (V, H), y: (T, H)."""
    T = ids.shape[0]
    _launch({{KERNEL_NAME}}_kernel, T, ids, table, y, table.shape[1])
