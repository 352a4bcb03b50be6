"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

BLOCK_N x BLOCK_K weight tiles per step over NUM_WARPS warps, wide coalesced loads of the weight rows
(bandwidth-bound on W).
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1
SPLIT_K = 1


@triton.jit
def _k_bounds(K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    return 0, K


@triton.jit
def _store_out(y_ptrs, val, mask):
    tl.store(y_ptrs, val.to(y_ptrs.dtype.element_ty), mask=mask)


{{OP_SNIPPET}}


def _launch(kernel, y, M, N, *args, **meta):
    grid = (triton.cdiv(N, BLOCK_N), SPLIT_K, M)
    kernel[grid](*args, y, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, SPLIT_K=SPLIT_K, num_warps=NUM_WARPS,
                 num_stages=NUM_STAGES, **meta)
