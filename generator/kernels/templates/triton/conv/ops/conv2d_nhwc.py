KERNEL_R = {{SHAPE_R}}
KERNEL_S = {{SHAPE_S}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*{{TL_SIG}}", weight_ptr: "*{{TL_SIG}}", y_ptr: "*{{TL_SIG}}",
    height: tl.int32, width: tl.int32, c_in: tl.int32, c_out: tl.int32, n_pixels: tl.int32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, KERNEL_R: tl.constexpr,
    KERNEL_S: tl.constexpr,
):
    # Implicit GEMM: rows = output pixels (n, h, w), columns = output channels, reduction over the
    # KERNEL_R x KERNEL_S taps x c_in input channels; stride 1, "same" zero padding, NHWC / KRSC layouts.
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    img = offs_m // (height * width)
    oh = (offs_m // width) % height
    ow = offs_m % width
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for tap in range(KERNEL_R * KERNEL_S):
        ih = oh + tap // KERNEL_S - KERNEL_R // 2
        iw = ow + tap % KERNEL_S - KERNEL_S // 2
        inside = (offs_m < n_pixels) & (ih >= 0) & (ih < height) & (iw >= 0) & (iw < width)
        a_rows = ((img * height + ih) * width + iw).to(tl.int64) * c_in
        b_cols = (offs_n * (KERNEL_R * KERNEL_S) + tap).to(tl.int64) * c_in
        for c0 in range(0, c_in, BLOCK_K):
            c_mask = c0 + offs_k < c_in
            a = tl.load(x_ptr + a_rows[:, None] + (c0 + offs_k)[None, :], mask=inside[:, None] & c_mask[None, :],
                        other=0.0)
            b = tl.load(weight_ptr + b_cols[None, :] + (c0 + offs_k)[:, None],
                        mask=c_mask[:, None] & (offs_n < c_out)[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
    tl.store(y_ptr + offs_m.to(tl.int64)[:, None] * c_out + offs_n[None, :], acc.to(y_ptr.dtype.element_ty),
             mask=(offs_m < n_pixels)[:, None] & (offs_n < c_out)[None, :])


def {{OP}}(x, weight, y):
    """x: (N, H, W, C); weight: (K, R, S, C); y: (N, H, W, K)."""
    N, H, W, C = x.shape
    K = weight.shape[0]
    _launch({{KERNEL_NAME}}_kernel, N * H * W, K, x, weight, y, H, W, C, K, N * H * W, KERNEL_R=KERNEL_R,
            KERNEL_S=KERNEL_S)
