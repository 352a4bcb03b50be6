N_STATE = {{SHAPE_N}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", delta_ptr: "*{{TL_SIG}}", A_ptr: "*fp32", Bm_ptr: "*{{TL_SIG}}", Cm_ptr: "*{{TL_SIG}}",
    z_ptr: "*{{TL_SIG}}", state_ptr: "*fp32", y_ptr: "*{{TL_SIG}}", D: tl.int32,
    N_STATE: tl.constexpr, BLOCK_D: tl.constexpr, CHUNK: tl.constexpr,
):
    # One decode token: a one-step scan from the stored state (B, D, N_STATE), which is written back.
    batch = tl.program_id(0)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    offs_n = tl.arange(0, N_STATE)
    A = tl.load(A_ptr + offs_d[:, None] * N_STATE + offs_n[None, :], mask=d_mask[:, None], other=0.0)
    state_ptrs = state_ptr + (batch.to(tl.int64) * D + offs_d)[:, None] * N_STATE + offs_n[None, :]
    h = tl.load(state_ptrs, mask=d_mask[:, None], other=0.0)
    row = batch.to(tl.int64) * D
    h = _scan(h, x_ptr + row, delta_ptr + row, z_ptr + row, Bm_ptr + batch * N_STATE, Cm_ptr + batch * N_STATE,
              y_ptr + row, A, offs_d, d_mask, 1, D, N_STATE, N_STATE, BLOCK_D, CHUNK)
    tl.store(state_ptrs, h, mask=d_mask[:, None])


def {{OP}}(x, delta, A, Bm, Cm, z, state, y):
    """x, delta, z, y: (B, D); Bm, Cm: (B, N); A: (D, N) fp32; state: (B, D, N) fp32, updated in place."""
    B, D = x.shape
    _launch({{KERNEL_NAME}}_kernel, B, D, x, delta, A, Bm, Cm, z, state, y, D, N_STATE=N_STATE)
