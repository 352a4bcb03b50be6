WIDTH = {{SHAPE_W}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", weight_ptr: "*{{TL_SIG}}", bias_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}",
    seq_len: tl.int32, channels: tl.int32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, WIDTH: tl.constexpr,
):
    # Depthwise causal conv, channels last:
    #   y[b, t, d] = silu(bias[d] + sum_w weight[d, w] * x[b, t - WIDTH + 1 + w, d]).
    # Grid axis 0 walks (batch, time tile); positions before t = 0 read as zero.
    tiles_t = tl.cdiv(seq_len, BLOCK_M)
    batch = tl.program_id(0) // tiles_t
    offs_t = (tl.program_id(0) % tiles_t) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    d_mask = offs_d < channels
    base = batch.to(tl.int64) * seq_len * channels
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc += tl.load(bias_ptr + offs_d, mask=d_mask, other=0.0).to(tl.float32)[None, :]
    for w in tl.static_range(WIDTH):
        src_t = offs_t - (WIDTH - 1) + w
        x = tl.load(x_ptr + base + src_t[:, None] * channels + offs_d[None, :],
                    mask=((src_t >= 0) & (src_t < seq_len))[:, None] & d_mask[None, :], other=0.0)
        tap = tl.load(weight_ptr + offs_d * WIDTH + w, mask=d_mask, other=0.0)
        acc += x.to(tl.float32) * tap.to(tl.float32)[None, :]
    y = acc / (1.0 + tl.exp(-acc))
    tl.store(y_ptr + base + offs_t[:, None] * channels + offs_d[None, :], y.to(y_ptr.dtype.element_ty),
             mask=(offs_t < seq_len)[:, None] & d_mask[None, :])


def {{OP}}(x, weight, bias, y):
    """x, y: (B, L, D) channels last; weight: (D, WIDTH); bias: (D,)."""
    B, L, D = x.shape
    _launch({{KERNEL_NAME}}_kernel, B * triton.cdiv(L, BLOCK_M) * BLOCK_M, D, x, weight, bias, y, L, D, WIDTH=WIDTH)
