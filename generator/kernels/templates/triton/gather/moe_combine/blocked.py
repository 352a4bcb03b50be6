"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per token over NUM_WARPS warps: its K expert output rows, found through src_index, summed with
the router weights in fp32, in wide BLOCK_C-element chunks.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1


{{OP_SNIPPET}}


def _launch(kernel, n_rows, *args, **meta):
    kernel[(n_rows,)](*args, BLOCK_C=BLOCK_C, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
