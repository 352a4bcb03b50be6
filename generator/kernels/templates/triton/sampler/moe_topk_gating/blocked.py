"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per token over NUM_WARPS warps. Its router row (E <= BLOCK_V experts) is one tile, read once:
softmax over the experts, TOP_K rounds of argmax-and-mask in registers, then the chosen weights renormalized.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1


{{OP_SNIPPET}}
