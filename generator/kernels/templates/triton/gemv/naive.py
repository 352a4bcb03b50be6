"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per output of one token (BLOCK_N = 1): its 4 warps walk the weight row serially in BLOCK_K steps
(elementwise products, one reduction at the end), a few dozen bytes in flight per program.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
BLOCK_N = 1
NUM_WARPS = 4
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
