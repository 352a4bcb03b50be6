"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per (row, BLOCK_SIZE-element chunk), 4 warps, plain masked loads and stores.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1


{{OP_SNIPPET}}


def _launch(kernel, n_rows, n_cols, *args, **meta):
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    kernel[grid](*args, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
