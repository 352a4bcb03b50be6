@triton.jit
def {{KERNEL_NAME}}_kernel(
    gate_up_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}", inter: tl.int32, stride_in: tl.int32, stride_out: tl.int32,
    BLOCK_SIZE: tl.constexpr,
):
    # y[t, i] = silu(gate[t, i]) * up[t, i] with gate_up[t] = [gate (inter) | up (inter)].
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < inter
    gate = tl.load(gate_up_ptr + row * stride_in + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(gate_up_ptr + row * stride_in + inter + cols, mask=mask, other=0.0).to(tl.float32)
    y = gate / (1.0 + tl.exp(-gate)) * up
    tl.store(y_ptr + row * stride_out + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def {{OP}}(gate_up, y):
    """gate_up: (T, 2 * I), y: (T, I)."""
    T, inter = y.shape
    _launch({{KERNEL_NAME}}_kernel, T, inter, gate_up, y, inter, gate_up.stride(0), y.stride(0))
