"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

The K loop is split SPLIT_K ways across programs so that small N still fills the GPU; partial sums are combined
with atomic adds.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1


@triton.jit
def _k_bounds(K, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    # Program (n-block, s, token) reduces the s-th of SPLIT_K slices of K (whole BLOCK_K steps each).
    split = tl.program_id(1)
    k_per_split = tl.cdiv(tl.cdiv(K, SPLIT_K), BLOCK_K) * BLOCK_K
    k_lo = split * k_per_split
    return k_lo, tl.minimum(k_lo + k_per_split, K)


@triton.jit
def _store_out(y_ptrs, val, mask):
    # The SPLIT_K partial dot products meet in y (zeroed by the wrapper).
    tl.atomic_add(y_ptrs, val.to(y_ptrs.dtype.element_ty), mask=mask, sem="relaxed")


{{OP_SNIPPET}}


def _launch(kernel, y, M, N, *args, **meta):
    y.zero_()
    grid = (triton.cdiv(N, BLOCK_N), SPLIT_K, M)
    kernel[grid](*args, y, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, SPLIT_K=SPLIT_K, num_warps=NUM_WARPS,
                 num_stages=NUM_STAGES, **meta)
