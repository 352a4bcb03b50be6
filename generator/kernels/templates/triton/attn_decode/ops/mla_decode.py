HEAD_DIM = {{SHAPE_DC}}
ROPE_DIM = {{SHAPE_DR}}
PAGE_SIZE = {{SHAPE_P}}
BLOCK_H = 16


@triton.jit
def {{KERNEL_NAME}}_kernel(
    q_ptr: "*{{TL_SIG}}", kv_cache_ptr: "*{{TL_SIG}}", block_table_ptr: "*i32", seq_lens_ptr: "*i32",
    num_heads: tl.int32, stride_bt: tl.int32, stride_kb: tl.int32, sm_scale: tl.float32,
    o_ptr: "*{{TL_SIG}}", lse_ptr: "*fp32",
    BLOCK_N: tl.constexpr, SPLITS: tl.constexpr, HEAD_DIM: tl.constexpr, ROPE_DIM: tl.constexpr,
    PAGE_SIZE: tl.constexpr, BLOCK_H: tl.constexpr,
):
    # MLA with absorbed projections: BLOCK_H query heads of one sequence share a single latent KV stream of
    # HEAD_DIM latent + ROPE_DIM rope dims per token; V is the latent part of the same tile.
    seq = tl.program_id(0)
    offs_h = tl.program_id(2) * BLOCK_H + tl.arange(0, BLOCK_H)
    h_mask = offs_h < num_heads
    seq_len = tl.load(seq_lens_ptr + seq)
    split, lo, hi = _kv_range(seq_len, BLOCK_N, SPLITS)
    offs_c = tl.arange(0, HEAD_DIM)
    offs_r = tl.arange(0, ROPE_DIM)
    q_rows = (seq * num_heads + offs_h) * (HEAD_DIM + ROPE_DIM)
    q_nope = tl.load(q_ptr + q_rows[:, None] + offs_c[None, :], mask=h_mask[:, None], other=0.0)
    q_pe = tl.load(q_ptr + q_rows[:, None] + HEAD_DIM + offs_r[None, :], mask=h_mask[:, None], other=0.0)
    m_i = tl.full((BLOCK_H,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((BLOCK_H,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_H, HEAD_DIM), dtype=tl.float32)
    for start in range(lo, hi, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        valid = offs_n < hi
        page = tl.load(block_table_ptr + seq * stride_bt + offs_n // PAGE_SIZE, mask=valid, other=0)
        kv_rows = page.to(tl.int64) * stride_kb + (offs_n % PAGE_SIZE) * (HEAD_DIM + ROPE_DIM)
        kv = tl.load(kv_cache_ptr + kv_rows[:, None] + offs_c[None, :], mask=valid[:, None], other=0.0)
        k_pe = tl.load(kv_cache_ptr + kv_rows[:, None] + HEAD_DIM + offs_r[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q_nope, tl.trans(kv)) + tl.dot(q_pe, tl.trans(k_pe))
        s = tl.where(valid[None, :], s * sm_scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(kv.dtype), kv)
        m_i = m_new
    out, lse = _finish(acc, m_i, l_i)
    o_rows = seq * num_heads + offs_h
    tl.store(o_ptr + ((o_rows * SPLITS + split) * HEAD_DIM)[:, None] + offs_c[None, :],
             out.to(o_ptr.dtype.element_ty), mask=h_mask[:, None])
    tl.store(lse_ptr + o_rows * SPLITS + split, lse, mask=h_mask)


def {{OP}}(q, kv_cache, block_table, seq_lens, o, sm_scale):
    """q: (B, H, HEAD_DIM + ROPE_DIM); kv_cache: (pages, PAGE_SIZE, HEAD_DIM + ROPE_DIM); o: (B, H, HEAD_DIM)."""
    B, H, _ = q.shape
    return _launch({{KERNEL_NAME}}_kernel, o, B, H, triton.cdiv(H, BLOCK_H), q, kv_cache, block_table, seq_lens, H,
                   block_table.stride(0), kv_cache.stride(0), sm_scale, ROPE_DIM=ROPE_DIM, PAGE_SIZE=PAGE_SIZE,
                   BLOCK_H=BLOCK_H)
