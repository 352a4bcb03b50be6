"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program (4 warps) per token: its K expert output rows, found through src_index, summed with the router
weights in fp32, in BLOCK_C-element chunks.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1


{{OP_SNIPPET}}


def _launch(kernel, n_rows, *args, **meta):
    kernel[(n_rows,)](*args, BLOCK_C=BLOCK_C, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
