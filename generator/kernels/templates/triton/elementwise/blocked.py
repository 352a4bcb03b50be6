"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per (row, BLOCK_SIZE-element chunk) over NUM_WARPS warps, large contiguous chunks so every warp
issues wide coalesced loads.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1


{{OP_SNIPPET}}


def _launch(kernel, n_rows, n_cols, *args, **meta):
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE))
    kernel[grid](*args, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
