"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

BLOCK_M output points x BLOCK_N channels per program on NUM_WARPS warps; for the dense conv an implicit GEMM
with BLOCK_K-wide tl.dot steps and a NUM_STAGES-deep pipeline.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}


{{OP_SNIPPET}}


def _launch(kernel, n_points, n_channels, *args, **meta):
    grid = (triton.cdiv(n_points, BLOCK_M), triton.cdiv(n_channels, BLOCK_N))
    kernel[grid](*args, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=NUM_WARPS,
                 num_stages=NUM_STAGES, **meta)
