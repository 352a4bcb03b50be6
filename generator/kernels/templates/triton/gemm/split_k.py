"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

Pipelined tensor-core tiles with K split SPLIT_K ways across programs; the partial tiles are summed into C with
atomic adds (for skinny M where tiles alone cannot fill the GPU).
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
GROUP_M = 1


@triton.jit
def _tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # 1-D grid walked row-major over the output tiles.
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    return pid // tiles_n, pid % tiles_n


@triton.jit
def _k_bounds(K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    # Program (tile, s) reduces the s-th of SPLIT_K slices of K, each a whole number of BLOCK_K steps.
    split = tl.program_id(1)
    k_per_split = tl.cdiv(tl.cdiv(K, SPLIT_K), BLOCK_K) * BLOCK_K
    k_lo = split * k_per_split
    return k_lo, min(k_lo + k_per_split, K)


@triton.jit
def _store_tile(c_ptr, acc, offs_m, offs_n, M, N, stride_cm):
    # The SPLIT_K partial tiles meet in C (zeroed by the wrapper) through atomic adds.
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.atomic_add(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask, sem="relaxed")


{{OP_SNIPPET}}


def _launch(kernel, c, M, N, groups, *args, **meta):
    c.zero_()
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), SPLIT_K, groups)
    kernel[grid](*args, c, c.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                 SPLIT_K=SPLIT_K, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
