HEAD_DIM = {{SHAPE_D}}
TREE_N = {{SHAPE_N}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    q_ptr: "*{{TL_SIG}}", k_cache_ptr: "*{{TL_SIG}}", v_cache_ptr: "*{{TL_SIG}}", tree_mask_ptr: "*i64",
    seq_lens_ptr: "*i32", num_heads: tl.int32, stride_kr: tl.int32, stride_mb: tl.int32, sm_scale: tl.float32,
    o_ptr: "*{{TL_SIG}}", lse_ptr: "*fp32",
    BLOCK_N: tl.constexpr, SPLITS: tl.constexpr, HEAD_DIM: tl.constexpr, TREE_N: tl.constexpr,
):
    # TREE_N draft tokens of one (sequence, head) see every cached token and, among the draft tokens appended
    # after them, only their tree ancestors: bit j of tree_mask[seq, i] (64 bits per word).
    row = tl.program_id(0)
    seq = row // num_heads
    cached = tl.load(seq_lens_ptr + seq)
    split, lo, hi = _kv_range(cached + TREE_N, BLOCK_N, SPLITS)
    offs_q = tl.arange(0, TREE_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + (row * TREE_N + offs_q)[:, None] * HEAD_DIM + offs_d[None, :])
    m_i = tl.full((TREE_N,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((TREE_N,), dtype=tl.float32)
    acc = tl.zeros((TREE_N, HEAD_DIM), dtype=tl.float32)
    for start in range(lo, hi, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        valid = offs_n < hi
        kv_offs = row.to(tl.int64) * stride_kr + offs_n * HEAD_DIM
        k = tl.load(k_cache_ptr + kv_offs[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * sm_scale
        draft = tl.maximum(offs_n - cached, 0)
        words = tl.load(tree_mask_ptr + seq * stride_mb + (offs_q * ((TREE_N + 63) // 64))[:, None]
                        + (draft // 64)[None, :], mask=(offs_n >= cached)[None, :] & valid[None, :], other=0)
        ancestor = ((words >> (draft % 64).to(tl.int64)[None, :]) & 1) != 0
        visible = valid[None, :] & ((offs_n < cached)[None, :] | ancestor)
        s = tl.where(visible, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_cache_ptr + kv_offs[:, None] + offs_d[None, :], mask=valid[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out, lse = _finish(acc, m_i, l_i)
    o_rows = row * TREE_N + offs_q
    tl.store(o_ptr + ((o_rows * SPLITS + split) * HEAD_DIM)[:, None] + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty))
    tl.store(lse_ptr + o_rows * SPLITS + split, lse)


def {{OP}}(q, k_cache, v_cache, tree_mask, seq_lens, o, sm_scale=None):
    """q, o: (B, H, TREE_N, D); k_cache, v_cache: (B, H, T + TREE_N, D), draft K/V appended after the cache;
    tree_mask: (B, TREE_N, ceil(TREE_N / 64)) int64; seq_lens: (B,) cached tokens."""
    B, H, N, D = q.shape
    sm_scale = sm_scale or D ** -0.5
    return _launch({{KERNEL_NAME}}_kernel, o, B * H, N, 1, q, k_cache, v_cache, tree_mask, seq_lens, H,
                   k_cache.stride(1), tree_mask.stride(0), sm_scale, TREE_N=TREE_N)
