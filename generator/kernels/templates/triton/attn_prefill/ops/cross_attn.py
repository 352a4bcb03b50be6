HEAD_DIM = {{SHAPE_D}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    q_ptr: "*{{TL_SIG}}", k_enc_ptr: "*{{TL_SIG}}", v_enc_ptr: "*{{TL_SIG}}", o_ptr: "*{{TL_SIG}}",
    n_queries: tl.int32, n_keys: tl.int32, sm_scale: tl.float32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    # Unmasked attention of decoder queries (B * H, S, HEAD_DIM) over encoder keys/values (B * H, L, HEAD_DIM);
    # only the ragged last key tile is masked.
    pid_m = tl.program_id(0)
    row = tl.program_id(1).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_offs = (row * n_queries + offs_m)[:, None] * HEAD_DIM + offs_d[None, :]
    q = tl.load(q_ptr + q_offs, mask=(offs_m < n_queries)[:, None], other=0.0)
    m_i = tl.full((BLOCK_M,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start in range(0, n_keys, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv = (row * n_keys + offs_n)[:, None] * HEAD_DIM + offs_d[None, :]
        k = tl.load(k_enc_ptr + kv, mask=(offs_n < n_keys)[:, None], other=0.0)
        v = tl.load(v_enc_ptr + kv, mask=(offs_n < n_keys)[:, None], other=0.0)
        m_i, l_i, acc = _online_update(q, k, v, m_i, l_i, acc, (offs_n < n_keys)[None, :], sm_scale)
    tl.store(o_ptr + q_offs, (acc / l_i[:, None]).to(o_ptr.dtype.element_ty), mask=(offs_m < n_queries)[:, None])


def {{OP}}(q, k_enc, v_enc, o, sm_scale=None):
    """q, o: (B, H, S, D); k_enc, v_enc: (B, H, L, D) projected once per utterance/image."""
    B, H, S, D = q.shape
    sm_scale = sm_scale or D ** -0.5
    _launch({{KERNEL_NAME}}_kernel, S, B * H, q, k_enc, v_enc, o, S, k_enc.shape[2], sm_scale)
