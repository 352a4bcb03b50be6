HEAD_DIM = {{SHAPE_D}}
PAGE_SIZE = {{SHAPE_P}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    q_ptr: "*{{TL_SIG}}", k_cache_ptr: "*{{TL_SIG}}", v_cache_ptr: "*{{TL_SIG}}", block_table_ptr: "*i32",
    seq_lens_ptr: "*i32", num_heads: tl.int32, stride_bt: tl.int32, stride_kb: tl.int32, stride_kp: tl.int32,
    sm_scale: tl.float32, o_ptr: "*{{TL_SIG}}", lse_ptr: "*fp32",
    BLOCK_N: tl.constexpr, SPLITS: tl.constexpr, HEAD_DIM: tl.constexpr, PAGE_SIZE: tl.constexpr,
):
    # One query token of one (sequence, head) against its paged K/V: token n lives in page
    # block_table[seq, n // PAGE_SIZE] at slot n % PAGE_SIZE.
    row = tl.program_id(0)
    seq = row // num_heads
    head = row % num_heads
    seq_len = tl.load(seq_lens_ptr + seq)
    split, lo, hi = _kv_range(seq_len, BLOCK_N, SPLITS)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + row * HEAD_DIM + offs_d).to(tl.float32) * sm_scale
    m_i = tl.full((1,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((1,), dtype=tl.float32)
    acc = tl.zeros((1, HEAD_DIM), dtype=tl.float32)
    for start in range(lo, hi, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        valid = offs_n < hi
        page = tl.load(block_table_ptr + seq * stride_bt + offs_n // PAGE_SIZE, mask=valid, other=0)
        kv_offs = page.to(tl.int64) * stride_kb + (offs_n % PAGE_SIZE) * stride_kp + head * HEAD_DIM
        k = tl.load(k_cache_ptr + kv_offs[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        s = tl.sum(q[None, :] * k.to(tl.float32), axis=1)[None, :]
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_cache_ptr + kv_offs[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.sum(tl.trans(p) * v.to(tl.float32), axis=0)[None, :]
        m_i = m_new
    out, lse = _finish(acc, m_i, l_i)
    tl.store(o_ptr + (row * SPLITS + split) * HEAD_DIM + offs_d[None, :], out.to(o_ptr.dtype.element_ty))
    tl.store(lse_ptr + row * SPLITS + split + tl.arange(0, 1), lse)


def {{OP}}(q, k_cache, v_cache, block_table, seq_lens, o, sm_scale=None):
    """q, o: (B, H, D); k_cache, v_cache: (pages, PAGE_SIZE, H, D); block_table: (B, max_pages) int32."""
    B, H, D = q.shape
    sm_scale = sm_scale or D ** -0.5
    return _launch({{KERNEL_NAME}}_kernel, o, B * H, 1, 1, q, k_cache, v_cache, block_table, seq_lens, H,
                   block_table.stride(0), k_cache.stride(0), k_cache.stride(1), sm_scale, PAGE_SIZE=PAGE_SIZE)
