HEAD_DIM = {{SHAPE_D}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    qkv_ptr: "*{{TL_SIG}}", positions_ptr: "*i32", cos_sin_ptr: "*fp32", q_ptr: "*{{TL_SIG}}",
    k_ptr: "*{{TL_SIG}}", v_ptr: "*{{TL_SIG}}", num_q_heads: tl.int32, num_kv_heads: tl.int32,
    HEAD_DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    # Row = (token, head slot) of the fused projection: slots [0, Hq) are Q, then Hkv of K, then Hkv of V.
    # Q and K are rotated (NeoX layout) into their own tensors, V is copied.
    row = tl.program_id(0)
    slots = num_q_heads + 2 * num_kv_heads
    token = row // slots
    slot = row % slots
    half = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = half < HEAD_DIM // 2
    src = qkv_ptr + row.to(tl.int64) * HEAD_DIM
    x1 = tl.load(src + half, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + HEAD_DIM // 2 + half, mask=mask, other=0.0).to(tl.float32)
    pos = tl.load(positions_ptr + token)
    cos = tl.load(cos_sin_ptr + pos * HEAD_DIM + half, mask=mask, other=1.0)
    sin = tl.load(cos_sin_ptr + pos * HEAD_DIM + HEAD_DIM // 2 + half, mask=mask, other=0.0)
    if slot < num_q_heads:
        dst = q_ptr + (token * num_q_heads + slot).to(tl.int64) * HEAD_DIM
    elif slot < num_q_heads + num_kv_heads:
        dst = k_ptr + (token * num_kv_heads + slot - num_q_heads).to(tl.int64) * HEAD_DIM
    else:
        dst = v_ptr + (token * num_kv_heads + slot - num_q_heads - num_kv_heads).to(tl.int64) * HEAD_DIM
        cos = tl.full((BLOCK_SIZE,), 1.0, dtype=tl.float32)
        sin = tl.zeros((BLOCK_SIZE,), dtype=tl.float32)
    tl.store(dst + half, (x1 * cos - x2 * sin).to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + HEAD_DIM // 2 + half, (x2 * cos + x1 * sin).to(q_ptr.dtype.element_ty), mask=mask)


def {{OP}}(qkv, positions, cos_sin, q, k, v):
    """qkv: (T, (Hq + 2 * Hkv) * D); q: (T, Hq, D); k, v: (T, Hkv, D); cos_sin: (max_pos, D) fp32."""
    T, Hq, D = q.shape
    Hkv = k.shape[1]
    _launch({{KERNEL_NAME}}_kernel, T * (Hq + 2 * Hkv), D // 2, qkv, positions, cos_sin, q, k, v, Hq, Hkv,
            HEAD_DIM=HEAD_DIM)
