"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program (4 warps) per gathered row, copied in BLOCK_C-element chunks.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1


@triton.jit
def _copy_row(src, dst, n_cols, BLOCK_C: tl.constexpr):
    for c0 in range(0, n_cols, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        mask = cols < n_cols
        tl.store(dst + cols, tl.load(src + cols, mask=mask), mask=mask)


{{OP_SNIPPET}}


def _launch(kernel, n_rows, *args, **meta):
    kernel[(n_rows,)](*args, BLOCK_C=BLOCK_C, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
