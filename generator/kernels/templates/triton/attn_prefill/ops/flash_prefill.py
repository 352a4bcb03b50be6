HEAD_DIM = {{SHAPE_D}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    q_ptr: "*{{TL_SIG}}", k_ptr: "*{{TL_SIG}}", v_ptr: "*{{TL_SIG}}", o_ptr: "*{{TL_SIG}}", seq_len: tl.int32,
    sm_scale: tl.float32, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    # Causal self-attention; q, k, v, o are (B * H, S, HEAD_DIM). Query tile pid_m only visits keys up to its
    # last query, so the S x S score matrix is never formed.
    pid_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * seq_len * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=(offs_m < seq_len)[:, None],
                other=0.0)
    m_i = tl.full((BLOCK_M,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start in range(0, tl.minimum((pid_m + 1) * BLOCK_M, seq_len), BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv = base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(k_ptr + kv, mask=(offs_n < seq_len)[:, None], other=0.0)
        v = tl.load(v_ptr + kv, mask=(offs_n < seq_len)[:, None], other=0.0)
        visible = (offs_m[:, None] >= offs_n[None, :]) & (offs_n < seq_len)[None, :]
        m_i, l_i, acc = _online_update(q, k, v, m_i, l_i, acc, visible, sm_scale)
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out.to(o_ptr.dtype.element_ty),
             mask=(offs_m < seq_len)[:, None])


def {{OP}}(q, k, v, o, sm_scale=None):
    """q, k, v, o: (B, H, S, D) contiguous; causal."""
    B, H, S, D = q.shape
    sm_scale = sm_scale or D ** -0.5
    _launch({{KERNEL_NAME}}_kernel, S, B * H, q, k, v, o, S, sm_scale)
