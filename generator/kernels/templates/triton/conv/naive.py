"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program (4 warps) per tile of BLOCK_M output points x 32 channels, no pipelining; for the dense conv an
implicit GEMM with 32-wide tl.dot steps over the taps x input channels.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
BLOCK_N = 32
BLOCK_K = 32
NUM_WARPS = 4
NUM_STAGES = 1


{{OP_SNIPPET}}


def _launch(kernel, n_points, n_channels, *args, **meta):
    grid = (triton.cdiv(n_points, BLOCK_M), triton.cdiv(n_channels, BLOCK_N))
    kernel[grid](*args, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=NUM_WARPS,
                 num_stages=NUM_STAGES, **meta)
