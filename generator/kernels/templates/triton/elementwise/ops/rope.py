HEAD_DIM = {{SHAPE_D}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", positions_ptr: "*i32", cos_sin_ptr: "*fp32", out_ptr: "*{{TL_SIG}}",
    num_heads: tl.int32, HEAD_DIM: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    # NeoX rotary: pair (i, i + HEAD_DIM/2) of each head rotates by the angle of its token's position;
    # cos_sin[pos] = [cos (HEAD_DIM/2) | sin (HEAD_DIM/2)].
    row = tl.program_id(0)
    half = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = half < HEAD_DIM // 2
    pos = tl.load(positions_ptr + row // num_heads)
    cos = tl.load(cos_sin_ptr + pos * HEAD_DIM + half, mask=mask, other=1.0)
    sin = tl.load(cos_sin_ptr + pos * HEAD_DIM + HEAD_DIM // 2 + half, mask=mask, other=0.0)
    base = row.to(tl.int64) * HEAD_DIM
    x1 = tl.load(x_ptr + base + half, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HEAD_DIM // 2 + half, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + base + half, (x1 * cos - x2 * sin).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + base + HEAD_DIM // 2 + half, (x2 * cos + x1 * sin).to(out_ptr.dtype.element_ty), mask=mask)


def {{OP}}(x, positions, cos_sin, x_out):
    """x, x_out: (T, H, D) contiguous (x_out may be x); positions: (T,) int32; cos_sin: (max_pos, D) fp32."""
    T, H, D = x.shape
    _launch({{KERNEL_NAME}}_kernel, T * H, D // 2, x, positions, cos_sin, x_out, H, HEAD_DIM=HEAD_DIM)
