GROUP_SIZE = {{SHAPE_G}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    x_ptr: "*fp16", w_ptr: "*u8", scales_ptr: "*fp16", N: tl.int32, K: tl.int32, stride_xm: tl.int32,
    stride_wn: tl.int32, stride_sn: tl.int32, stride_ym: tl.int32, y_ptr: "*fp16",
    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr, GROUP_SIZE: tl.constexpr,
):
    # W4A16: two int4 weights per byte (low nibble = even k, zero point 8), one fp16 scale per GROUP_SIZE
    # inputs of each output channel.
    m = tl.program_id(2)
    k_lo, k_hi = _k_bounds(K, BLOCK_K, SPLIT_K)
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_mask = offs_n < N
    acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        k_mask = offs_k < k_hi
        tile_mask = n_mask[:, None] & k_mask[None, :]
        x = tl.load(x_ptr + m * stride_xm + offs_k, mask=k_mask, other=0.0).to(tl.float32)
        packed = tl.load(w_ptr + offs_n[:, None] * stride_wn + (offs_k // 2)[None, :], mask=tile_mask, other=0)
        q = (packed.to(tl.int32) >> ((offs_k % 2) * 4)[None, :]) & 0xF
        scale = tl.load(scales_ptr + offs_n[:, None] * stride_sn + (offs_k // GROUP_SIZE)[None, :], mask=tile_mask,
                        other=0.0)
        acc += (q - 8).to(tl.float32) * scale.to(tl.float32) * x[None, :]
    _store_out(y_ptr + m * stride_ym + offs_n, tl.sum(acc, axis=1), n_mask)


def {{OP}}(x, w_packed, scales, y):
    """y = x @ dequant(w_packed).T; x: (M, K) fp16, w_packed: (N, K // 2) uint8, scales: (N, K // GROUP_SIZE)."""
    M, K = x.shape
    N = w_packed.shape[0]
    _launch({{KERNEL_NAME}}_kernel, y, M, N, x, w_packed, scales, N, K, x.stride(0), w_packed.stride(0),
            scales.stride(0), y.stride(0), GROUP_SIZE=GROUP_SIZE)
