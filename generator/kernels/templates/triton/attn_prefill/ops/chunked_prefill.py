HEAD_DIM = {{SHAPE_D}}
PAGE_SIZE = 16


@triton.jit
def {{KERNEL_NAME}}_kernel(
    q_ptr: "*{{TL_SIG}}", k_cache_ptr: "*{{TL_SIG}}", v_cache_ptr: "*{{TL_SIG}}", block_table_ptr: "*i32",
    o_ptr: "*{{TL_SIG}}", num_heads: tl.int32, chunk: tl.int32, cached: tl.int32, stride_bt: tl.int32,
    stride_kb: tl.int32, stride_kp: tl.int32, sm_scale: tl.float32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, PAGE_SIZE: tl.constexpr,
):
    # A chunk of `chunk` new queries at positions cached .. cached + chunk - 1, whose K/V were already
    # appended to the paged cache: query i sees every key up to position cached + i.
    pid_m = tl.program_id(0)
    row = tl.program_id(1)
    seq = row // num_heads
    head = row % num_heads
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_offs = (row.to(tl.int64) * chunk + offs_m)[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(q_ptr + q_offs, mask=(offs_m < chunk)[:, None], other=0.0)
    m_i = tl.full((BLOCK_M,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start in range(0, tl.minimum(cached + (pid_m + 1) * BLOCK_M, cached + chunk), BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        in_seq = offs_n < cached + chunk
        page = tl.load(block_table_ptr + seq * stride_bt + offs_n // PAGE_SIZE, mask=in_seq, other=0)
        kv = (page.to(tl.int64) * stride_kb + (offs_n % PAGE_SIZE) * stride_kp + head * HEAD_DIM)[:, None] \
            + offs_d[None, :]
        k = tl.load(k_cache_ptr + kv, mask=in_seq[:, None], other=0.0)
        v = tl.load(v_cache_ptr + kv, mask=in_seq[:, None], other=0.0)
        visible = (cached + offs_m[:, None] >= offs_n[None, :]) & in_seq[None, :]
        m_i, l_i, acc = _online_update(q, k, v, m_i, l_i, acc, visible, sm_scale)
    tl.store(o_ptr + q_offs, (acc / l_i[:, None]).to(o_ptr.dtype.element_ty), mask=(offs_m < chunk)[:, None])


def {{OP}}(q, k_cache, v_cache, block_table, o, cached, sm_scale=None):
    """q, o: (B, H, C, D); k_cache, v_cache: (pages, PAGE_SIZE, H, D) holding cached + C tokens per sequence;
    block_table: (B, max_pages) int32; cached: tokens before the chunk ({{SHAPE_T}} in the task)."""
    B, H, C, D = q.shape
    sm_scale = sm_scale or D ** -0.5
    _launch({{KERNEL_NAME}}_kernel, C, B * H, q, k_cache, v_cache, block_table, o, H, C, cached,
            block_table.stride(0), k_cache.stride(0), k_cache.stride(1), sm_scale, PAGE_SIZE=PAGE_SIZE)
