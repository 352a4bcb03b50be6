"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

Large output tiles on a 1-D grid (column-major tile order), tl.dot on tensor cores, NUM_WARPS warps, no software pipelining.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1
GROUP_M = 1
SPLIT_K = 1


@triton.jit
def _tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # 1-D grid walked column-major over the output tiles: programs running together share a B tile column.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    return pid % tiles_m, pid // tiles_m


@triton.jit
def _k_bounds(K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    return 0, K


@triton.jit
def _store_tile(c_ptr, acc, offs_m, offs_n, M, N, stride_cm):
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)


{{OP_SNIPPET}}


def _launch(kernel, c, M, N, groups, *args, **meta):
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), 1, groups)
    kernel[grid](*args, c, c.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                 SPLIT_K=SPLIT_K, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
