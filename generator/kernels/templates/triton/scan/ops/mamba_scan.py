N_STATE = {{SHAPE_N}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    u_ptr: "*{{TL_SIG}}", delta_ptr: "*{{TL_SIG}}", A_ptr: "*fp32", Bm_ptr: "*{{TL_SIG}}", Cm_ptr: "*{{TL_SIG}}",
    z_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}", L: tl.int32, D: tl.int32,
    N_STATE: tl.constexpr, BLOCK_D: tl.constexpr, CHUNK: tl.constexpr,
):
    # Program (batch, channel block): u, delta, z, y are (B, L, D); Bm, Cm are (B, L, N_STATE); A is (D, N_STATE).
    batch = tl.program_id(0)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    A = tl.load(A_ptr + offs_d[:, None] * N_STATE + tl.arange(0, N_STATE)[None, :], mask=d_mask[:, None], other=0.0)
    seq = batch.to(tl.int64) * L * D
    bc = batch.to(tl.int64) * L * N_STATE
    h = tl.zeros((BLOCK_D, N_STATE), dtype=tl.float32)
    _scan(h, u_ptr + seq, delta_ptr + seq, z_ptr + seq, Bm_ptr + bc, Cm_ptr + bc, y_ptr + seq, A, offs_d, d_mask,
          L, D, N_STATE, N_STATE, BLOCK_D, CHUNK)


def {{OP}}(u, delta, A, Bm, Cm, z, y):
    """Selective scan over L steps from a zero state; u, delta, z, y: (B, L, D); Bm, Cm: (B, L, N); A: (D, N)."""
    B, L, D = u.shape
    _launch({{KERNEL_NAME}}_kernel, B, D, u, delta, A, Bm, Cm, z, y, L, D, N_STATE=N_STATE)
