GROUP_SIZE = {{SHAPE_G}}


@triton.jit
def {{KERNEL_NAME}}_kernel(
    a_ptr: "*fp16", b_ptr: "*u8", scales_ptr: "*fp16",
    M: tl.int32, N: tl.int32, K: tl.int32, stride_am: tl.int32, stride_bn: tl.int32, stride_sn: tl.int32,
    c_ptr: "*fp16", stride_cm: tl.int32,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr, GROUP_SIZE: tl.constexpr,
):
    # W4A16: two int4 weights per byte (low nibble = even k), zero point 8, one fp16 scale per GROUP_SIZE
    # inputs; dequantized in registers right before the fp16 tl.dot.
    pid_m, pid_n = _tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    k_lo, k_hi = _k_bounds(K, BLOCK_K, SPLIT_K)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k_lo + offs_k)[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * stride_bn + ((k_lo + offs_k) // 2)[:, None]
    shifts = ((offs_k % 2) * 4)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(k_lo, k_hi, BLOCK_K):
        k_mask = offs_k < k_hi - k
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & k_mask[None, :], other=0.0)
        packed = tl.load(b_ptrs, mask=(offs_n[None, :] < N) & k_mask[:, None], other=0)
        q = (packed.to(tl.int32) >> shifts) & 0xF
        group = (k + offs_k) // GROUP_SIZE
        scale = tl.load(scales_ptr + offs_n[None, :] * stride_sn + group[:, None],
                        mask=(offs_n[None, :] < N) & k_mask[:, None], other=0.0)
        b = (q - 8).to(tl.float16) * scale
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K // 2
    _store_tile(c_ptr, acc, offs_m, offs_n, M, N, stride_cm)


def {{OP}}(a, b, scales, c):
    """c = a @ dequant(b).T; a: (M, K) fp16, b: (N, K // 2) uint8, two int4 per byte, scales: (N, K // GROUP_SIZE)."""
    M, K = a.shape
    N = b.shape[0]
    _launch({{KERNEL_NAME}}_kernel, c, M, N, 1, a, b, scales, M, N, K, a.stride(0), b.stride(0),
            scales.stride(0), GROUP_SIZE=GROUP_SIZE)
