"""Triton's smallest `tl.dot`: 8-bit operands (int8, fp8) need a K block of at least 32.

Triton 3.9's NVIDIA backend bounds a dot's (M, N, K) from below by its operands' width
(triton/backends/nvidia/compiler.py: `min_dot_size`): (1, 1, 32) for 8-bit, (1, 1, 16) for 16-bit, whatever the
compute capability. `semantic.dot` asserts it while the kernel is lowered, so a render whose 8-bit dot has
BLOCK_K = 16 is a CompilationError at the `tl.dot` call, not a kernel that runs:

    at 20:14:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
                  ^
    Input shapes should have M >= 1, N >= 1 and K >= 32

Every Triton template that dots the task's data takes BLOCK_K as the dot's K (gemm, conv); int4 is dequantized to
fp16 before its dot, and no attention or gemv task is 8-bit. tests/kernels/test_triton_dot.py compiles an int8
and an fp16 render at BLOCK_K = 16 and compares Triton's whole report with the one expect_clean writes.
"""
from __future__ import annotations

import re

from generator.catalog.ops import ELEMENT_BYTES

MIN_K_8BIT = 32
REFUSAL = f"Input shapes should have M >= 1, N >= 1 and K >= {MIN_K_8BIT}"
DOT_CALL = re.compile(r"\btl\.dot\(")


def refuses(dtype: str, params: dict) -> bool:
    """Whether Triton refuses the dot of a render of `dtype` data at these (full) params."""
    return ELEMENT_BYTES.get(dtype) == 1.0 and params.get("BLOCK_K", MIN_K_8BIT) < MIN_K_8BIT
